"""Which model to look at: a fine-tuned classifier folder, any Hugging Face BERT folder, or
the bundled pre-trained encoder."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..classifier import Classifier
    from ..tokenizer import Tokenizer
    from ..transformer import Encoder


@dataclass
class LoadedModel:
    encoder: "Encoder"
    tokenizer: "Tokenizer"
    classifier: "Classifier | None"  # set when the folder is a fine-tuned classifier
    name: str  # what to call it in the output
    max_length: int | None = None  # the classifier's token limit (None: the tokenizer's)


def load_model(path: str | Path | None) -> LoadedModel:
    """A classifier folder (its encoder and tokenizer), a BERT checkpoint folder, or None for the bundled encoder."""
    from ..classifier import Classifier, is_classifier_dir
    from ..tokenizer import Tokenizer
    from ..transformer import Encoder

    if path is None:
        return LoadedModel(Encoder.from_pretrained(), Tokenizer.from_pretrained(), None, "all-MiniLM-L6-v2 (bundled)")
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"model folder {folder} does not exist: give a folder written by `mealwatch train` "
                         "or a Hugging Face BERT folder")
    if is_classifier_dir(folder):
        classifier = Classifier.load(folder)
        return LoadedModel(classifier.encoder, classifier.tokenizer, classifier, f"classifier {folder}",
                           classifier.config.max_length)
    return LoadedModel(Encoder.from_pretrained(folder), Tokenizer.from_pretrained(folder), None, f"encoder {folder}")


def load_classifier(path: str | Path | None) -> "Classifier":
    """The classifier in ``path``, or in the latest run when None (errors say to run `mealwatch train`)."""
    from ..classifier import Classifier
    from ..runs import resolve_model

    return Classifier.load(resolve_model(path))
