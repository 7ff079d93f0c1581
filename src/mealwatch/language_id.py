"""Which language a complaint typed in Latin letters is written in: English, or Hindi, Tamil, Bengali, ... as
parents type them on phones ("sambar la palli irundhuchu", "khichuri te tiktiki chilo").

A text's own script names most languages (``languages.detect_language``); Latin letters do not. For them a
model keeps a small character n-gram classifier, fitted on its training split's Latin-letter texts and their
languages (``learning.ngram_training.fit_language_id``), saved beside the classifier as ``language_id.json`` and
``language_id.safetensors`` (the n-gram channel's format, ``ngram_channel.NgramChannel``, single-label: one
class per language):

    x = [ l2(tf · idf)_word ; l2(tf · idf)_char ; l2(tf · idf)_markers ]       (F,)
    p(language | x) = softmax(W x + b)                   (K,)

``refine`` replaces the script rule's answer for a text in Latin letters (``en`` or ``hi``) by the classifier's;
a text in another script keeps the script's answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .languages import LANGUAGES, script_counts
from .ngram_channel import BlockSpec, NgramChannel

#: the file names' stem in a model folder
FILE_STEM = "language_id"
#: what the identifier reads: word unigrams and character 1-4-grams inside words, on the text as written, and the
#: words that mark Roman Urdu or romanised Hindi, each language's pooled into one feature (``language_markers``)
FEATURES = (
    BlockSpec("word", (1, 1), r"(?u)\b\w\w+\b"),
    BlockSpec("char_wb", (1, 4), None),
    BlockSpec("word", (1, 1), r"(?u)\b\w\w+\b", "markers"),
)
#: a text is "in Latin letters" when at least this share of its letters are Latin
LATIN_SHARE = 0.8
#: the script rule's answers for Latin-letter text, the only ones ``refine`` replaces
LATIN_ANSWERS = frozenset({"en", "hi"})


def in_latin_letters(text: str) -> bool:
    """Whether most of ``text``'s letters are Latin (``LATIN_SHARE``)."""
    counts = script_counts(text)
    letters = sum(counts.values())
    return letters > 0 and counts["latin"] / letters >= LATIN_SHARE


@dataclass
class LanguageIdentifier:
    """The fitted character n-gram classifier over the languages of Latin-letter text."""

    channel: NgramChannel

    @property
    def languages(self) -> list[str]:
        return list(self.channel.labels)

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        """(N, K) each language's probability, in ``languages`` order."""
        return self.channel.probabilities(list(texts))

    def identify(self, texts: Sequence[str]) -> list[str]:
        """The most probable language of each text."""
        if not texts:
            return []
        p = self.probabilities(texts)  # (N, K)
        return [self.languages[i] for i in p.argmax(axis=1)]

    def refine(self, texts: Sequence[str], found: Sequence[str]) -> list[str]:
        """``found`` (the script rule's answers) with each Latin-letter text's language identified again."""
        out = list(found)
        latin = [i for i, (t, f) in enumerate(zip(texts, found)) if f in LATIN_ANSWERS and in_latin_letters(t)]
        for i, language in zip(latin, self.identify([texts[i] for i in latin])):
            out[i] = language
        return out

    def save(self, folder: str | Path) -> None:
        self.channel.save(folder, stem=FILE_STEM)

    @classmethod
    def load(cls, folder: str | Path) -> "LanguageIdentifier | None":
        """The identifier saved in ``folder``, or None when the model keeps none."""
        if not (Path(folder) / f"{FILE_STEM}.json").is_file():
            return None
        channel = NgramChannel.load(folder, None, stem=FILE_STEM)
        unknown = [code for code in channel.labels if code not in LANGUAGES]
        if unknown or channel.multi_label:
            from .transformer import CheckpointError

            raise CheckpointError(f"{folder}'s language identifier names unknown languages {unknown}")
        return cls(channel)
