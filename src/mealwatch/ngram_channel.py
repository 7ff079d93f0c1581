"""The n-gram channel: word and character n-grams read beside the encoder, fused into its probabilities.

A complaint's spelling carries what word pieces miss: "ulti", "ultee" and "ulty" (vomiting) are three
different piece sequences to an encoder pre-trained on English, but share most of their character
n-grams; so do "khichdi"/"khichri" and a Devanagari word and its inflections. The channel is a linear
model over TF-IDF features of word 1-2-grams (a word keeps its Devanagari vowel signs) and character
2-5-grams (``char_wb``: n-grams inside word boundaries), fitted on the training split with the TF-IDF
baseline's own rule (``ngram_training.tuned_logistic``: balanced class weights, C chosen by validation
macro-F1). Its probabilities are fused with the encoder's:

    x      = [ l2(tf · idf)_word ; l2(tf · idf)_char ]      tf = 1 + log(count)   (F,)
    p_ng   = sigmoid(W x + b)  (multi-label)   or   softmax(W x + b)   (single-label)    (L,)
    p      = (1 − w) · p_encoder + w · p_ng                                              (L,)

A block reads the text through a *view*: the text as written (``text``), or its one-script form
(``romanised``: Devanagari written in Latin letters as Hinglish is typed, ``romanise.romanise_text``; ``folded``:
that, with common spelling variants made one, ``romanise.fold_spelling``; ``every-script-folded``: the same for
the scripts of Bengali, Punjabi, Gujarati, Odia, Tamil, Telugu, Kannada and Malayalam too,
``romanise.romanise_every_script``), so that "उल्टी" in training meets "ulti" and "ultee" in use, and "வாந்தி" meets
"vaanthi". A view is features only: the text itself is never changed. The default blocks (``FEATURES``) read the
every-script folded view; a saved channel reads the view each of its blocks names (channels saved before views
existed read the text as written).

The weight ``w`` is chosen on the validation split (``ngram_training``: fitting, and the weight; 0
switches the channel off) and the decision thresholds tuned again for the fused probabilities. The encoder
stays the model; the channel is features beside it, not a replacement. Saved next to the classifier as
``ngram_channel.json`` (settings, labels, vocabularies) and ``ngram_channel.safetensors`` (idf, W, b): no
pickles.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .language_markers import marker_view
from .romanise import fold_spelling, romanise_every_script, romanise_text
from .transformer import CheckpointError

#: the files' stem in a model folder (another channel of the same format, such as ``language_id``, has its own)
FILE_STEM = "ngram_channel"
SETTINGS_FILE, TENSORS_FILE = f"{FILE_STEM}.json", f"{FILE_STEM}.safetensors"
#: 1: blocks read the text as written; 2: each block names its view (a file without one reads the text as written)
FORMAT_VERSION = 2
#: what a block reads: the text as written, its romanised form, that with spelling variants folded, or the words
#: that mark Roman Urdu or romanised Hindi (``language_markers``: one token per marker word)
VIEWS: dict[str, Callable[[str], str]] = {
    "text": lambda text: text,
    "romanised": romanise_text,
    "folded": lambda text: fold_spelling(romanise_text(text)),
    "every-script-folded": lambda text: fold_spelling(romanise_every_script(text)),
    "markers": marker_view,
}
#: a word: two or more word characters, Devanagari vowel signs, viramas and nuktas included (scikit-learn's
#: default ``\w\w+`` cuts "कीड़े" at every vowel sign: combining marks are not ``\w`` to Python's ``re``);
#: the danda (।, ॥) stays punctuation
WORD_PATTERN = r"(?u)(?:[\w\u0900-\u0963\u0966-\u097F\u0300-\u036F\u200C\u200D]){2,}"


class BlockSpec(NamedTuple):
    """A feature block to fit: analyzer, n-gram range, word pattern (None for characters) and view (``VIEWS``)."""

    analyzer: str
    ngram_range: tuple[int, int]
    token_pattern: str | None
    view: str = "text"


#: the TF-IDF baseline's blocks (word 1-2-grams, Devanagari-aware, and char_wb 2-5-grams) on the text as written:
#: the channel before the views existed (every format-1 file)
AS_WRITTEN = (BlockSpec("word", (1, 2), WORD_PATTERN), BlockSpec("char_wb", (2, 5), None))
#: the blocks fitted by default: the same two on the every-script folded view, the one that scored best on validation
#: (docs/multilingual.md, docs/benchmarks.md)
FEATURES = tuple(spec._replace(view="every-script-folded") for spec in AS_WRITTEN)


@dataclass
class FeatureBlock:
    """One TF-IDF block: its analyzer, n-gram range, word pattern, vocabulary (in column order), idf per column and
    the view of the text it reads."""

    analyzer: str
    ngram_range: tuple[int, int]
    token_pattern: str | None  # the regular expression of a word (analyzer "word"); None for character blocks
    vocabulary: list[str]
    idf: np.ndarray  # (F_block,)
    view: str = "text"  # a key of VIEWS
    _counter: Any = field(default=None, init=False, repr=False, compare=False)

    def counter(self) -> Any:
        """The n-gram counter over this block's vocabulary, built once (a vocabulary holds ~10^5 terms)."""
        from sklearn.feature_extraction.text import CountVectorizer

        if self._counter is None:
            columns = {term: i for i, term in enumerate(self.vocabulary)}
            counter = CountVectorizer(**self.vectorizer_options(), vocabulary=columns)
            counter.transform([""])  # checks the vocabulary now, not in the first request
            self._counter = counter
        return self._counter

    def vectorizer_options(self) -> dict[str, Any]:
        """The scikit-learn vectorizer options that give this block's n-grams."""
        options: dict[str, Any] = {"analyzer": self.analyzer, "ngram_range": self.ngram_range}
        if self.token_pattern is not None:
            options["token_pattern"] = self.token_pattern
        return options

    def transform(self, texts: Sequence[str]) -> Any:
        """(N, F_block) sparse rows of ``texts`` read through the block's view."""
        return self.weigh(view_of(texts, self.view))

    def occurrences(self, pieces: Sequence[str]) -> list[tuple[int, tuple[int, ...]]]:
        """Every n-gram of the block's vocabulary in a text cut into white-space-separated ``pieces`` (already in
        the block's view), in order: (its column, the pieces it lies in: one, or two for a word pair)."""
        counter = self.counter()
        columns = counter.vocabulary_
        found: list[tuple[int, tuple[int, ...]]] = []
        if self.analyzer == "char_wb":  # n-grams inside each word: each piece's own
            analyse = counter.build_analyzer()
            for i, piece in enumerate(pieces):
                found += [(columns[g], (i,)) for g in analyse(piece) if g in columns]
            return found
        if self.analyzer != "word":
            raise ValueError(f"n-grams of analyzer {self.analyzer!r} cannot be placed in the text")
        preprocess, tokenize = counter.build_preprocessor(), counter.build_tokenizer()
        tokens = [(token, i) for i, piece in enumerate(pieces) for token in tokenize(preprocess(piece))]
        low, high = self.ngram_range
        for n in range(low, high + 1):
            for start in range(len(tokens) - n + 1):
                window = tokens[start : start + n]
                gram = " ".join(token for token, _ in window)
                if gram in columns:
                    found.append((columns[gram], tuple(dict.fromkeys(i for _, i in window))))
        return found

    def weigh(self, viewed: Sequence[str]) -> Any:
        """(N, F_block) sparse rows of texts already in the block's view: sublinear tf times idf, unit l2 rows."""
        from sklearn.preprocessing import normalize

        counts = self.counter().transform(list(viewed)).tocsr()  # (N, F_block)
        tf = counts.astype(np.float64)
        tf.data = (1.0 + np.log(tf.data)) * self.idf[tf.indices]  # sublinear tf times the idf of each stored column
        return normalize(tf)  # (N, F_block), rows of unit l2 norm


@dataclass
class NgramChannel:
    """A fitted n-gram model: feature blocks and a linear layer, probabilities in the classifier's label order."""

    labels: list[str]
    multi_label: bool
    blocks: list[FeatureBlock]
    weight: np.ndarray  # W (L, F), F = sum of the blocks' sizes
    bias: np.ndarray  # b (L,)
    detail: str = ""  # the choice made when fitting (C and its validation score)
    _weight_t: Any = field(default=None, init=False, repr=False, compare=False)  # (W, its (F, L) transpose)

    def features(self, texts: Sequence[str]) -> Any:
        """(N, F) sparse TF-IDF features, the blocks side by side (each view of the texts made once)."""
        from scipy.sparse import hstack

        viewed = {view: view_of(texts, view) for view in dict.fromkeys(b.view for b in self.blocks)}
        return hstack([block.weigh(viewed[block.view]) for block in self.blocks]).tocsr()

    def logits(self, texts: Sequence[str]) -> np.ndarray:
        """(N, L) W x + b."""
        if self._weight_t is None or self._weight_t[0] is not self.weight:
            self._weight_t = (self.weight, np.ascontiguousarray(self.weight.T))  # (F, L), laid out once, not per call
        return np.asarray(self.features(texts) @ self._weight_t[1]) + self.bias[None, :]  # (N, L)

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        """(N, L) probabilities: sigmoid per label (multi-label) or softmax over labels."""
        return self.to_probabilities(self.logits(texts))

    def to_probabilities(self, z: np.ndarray) -> np.ndarray:
        """(..., L) logits as probabilities: sigmoid per label (multi-label) or softmax over labels."""
        if self.multi_label:
            return 1.0 / (1.0 + np.exp(-z))
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def contributions(self, text: str) -> "PieceContributions":
        """Each white-space-separated piece of ``text``'s exact share of the logits: W x is a sum over the text's
        n-grams (feature f adds W[:, f] · x_f), and an n-gram lies inside one piece (a character n-gram, a word)
        or across two (a word pair, shared half and half); a feature found several times is shared equally
        among its occurrences. The pieces' shares add up to ``logits([text]) − bias``.

        A view changes a piece's letters, never where the pieces are: each piece is read through the view on
        its own, and the n-grams of the pieces are those of the whole text."""
        spans = [m.span() for m in re.finditer(r"\S+", text)]
        pieces = [text[a:b] for a, b in spans]
        shares = np.zeros((len(spans), len(self.labels)))  # (S, L)
        offset = 0
        for block in self.blocks:
            x = block.weigh(view_of([text], block.view)).toarray()[0]  # (F_block,): the text's features
            occurrences = block.occurrences(view_of(pieces, block.view))  # (column, pieces it lies in) per n-gram
            found = np.bincount([c for c, _ in occurrences], minlength=len(x))  # (F_block,)
            for column, where in occurrences:
                part = self.weight[:, offset + column] * (x[column] / found[column] / len(where))  # (L,)
                for i in where:
                    shares[i] += part
            offset += len(block.vocabulary)
        return PieceContributions(spans, shares, self.bias.copy())

    # ------------------------------------------------------------------ files
    def save(self, folder: str | Path, *, stem: str = FILE_STEM) -> None:
        """Write ``<stem>.json`` and ``<stem>.safetensors`` (``ngram_channel``: ``SETTINGS_FILE``, ``TENSORS_FILE``)
        into ``folder``."""
        from safetensors.numpy import save_file

        folder = Path(folder)
        tensors = {"weight": self.weight.astype(np.float32), "bias": self.bias.astype(np.float32)}
        tensors.update({f"idf.{i}": b.idf.astype(np.float32) for i, b in enumerate(self.blocks)})
        save_file(tensors, str(folder / f"{stem}.safetensors"))
        settings = {
            "format": FORMAT_VERSION, "labels": self.labels, "multi_label": self.multi_label, "detail": self.detail,
            "blocks": [{"analyzer": b.analyzer, "ngram_range": list(b.ngram_range), "token_pattern": b.token_pattern,
                        "view": b.view, "vocabulary": b.vocabulary} for b in self.blocks],
        }  # fmt: skip
        (folder / f"{stem}.json").write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: str | Path, labels: Sequence[str] | None, *, stem: str = FILE_STEM) -> "NgramChannel":
        """The channel saved in ``folder`` as ``stem``, checked against the classifier's ``labels`` (None: its own
        labels, for a channel of another output); errors say what is wrong."""
        from safetensors import SafetensorError
        from safetensors.numpy import load_file

        folder = Path(folder)
        settings_file, tensors_file = folder / f"{stem}.json", folder / f"{stem}.safetensors"
        for file in (settings_file, tensors_file):
            if not file.is_file():
                raise CheckpointError(f"{folder} uses an n-gram channel (config.json ngram_weight > 0) but has no "
                                      f"{file.name}: the model folder is incomplete")  # fmt: skip
        try:
            settings = json.loads(settings_file.read_text(encoding="utf-8"))
            version = int(settings.get("format", 1))
            tensors = load_file(str(tensors_file))
            blocks = [
                FeatureBlock(b["analyzer"], (int(b["ngram_range"][0]), int(b["ngram_range"][1])), b["token_pattern"],
                             list(b["vocabulary"]), tensors[f"idf.{i}"].astype(np.float64), str(b.get("view", "text")))
                for i, b in enumerate(settings["blocks"])
            ]  # fmt: skip
            channel = cls(list(settings["labels"]), bool(settings["multi_label"]), blocks,
                          tensors["weight"].astype(np.float64), tensors["bias"].astype(np.float64),
                          str(settings.get("detail", "")))  # fmt: skip
        except (json.JSONDecodeError, UnicodeDecodeError, SafetensorError, OSError, KeyError, TypeError,
                ValueError, IndexError) as e:  # fmt: skip
            raise CheckpointError(f"{folder}'s n-gram channel cannot be read ({type(e).__name__}: {e})") from e
        if version > FORMAT_VERSION:
            raise CheckpointError(f"{settings_file} has format version {version}; this mealwatch reads up to "
                                  f"{FORMAT_VERSION} (upgrade mealwatch to use this model)")  # fmt: skip
        channel.check(channel.labels if labels is None else labels)
        return channel

    def check(self, labels: Sequence[str]) -> None:
        """Raise CheckpointError unless the shapes agree with each other and the labels with ``labels``."""
        sizes = [len(b.vocabulary) for b in self.blocks]
        problems = []
        if list(labels) != self.labels:
            problems.append(f"its labels {self.labels} differ from the classifier's {list(labels)}")
        if self.weight.shape != (len(self.labels), sum(sizes)):
            problems.append(f"weight has shape {self.weight.shape}, expected {(len(self.labels), sum(sizes))}")
        if self.bias.shape != (len(self.labels),):
            problems.append(f"bias has shape {self.bias.shape}, expected {(len(self.labels),)}")
        problems += [
            f"block {i} has {len(b.idf)} idf values for {len(b.vocabulary)} terms"
            for i, b in enumerate(self.blocks)
            if b.idf.shape != (len(b.vocabulary),)
        ]
        problems += [f"block {i} reads the view {b.view!r}; known views: {', '.join(VIEWS)}"
                     for i, b in enumerate(self.blocks) if b.view not in VIEWS]  # fmt: skip
        if problems:
            raise CheckpointError("the n-gram channel does not fit: " + "; ".join(problems))


@dataclass
class PieceContributions:
    """A text's n-gram logits split over its white-space-separated pieces (``NgramChannel.contributions``)."""

    spans: list[tuple[int, int]]  # per piece, (start, end) character offsets in the text
    logits: np.ndarray  # (S, L): each piece's share of W x
    bias: np.ndarray  # (L,): b, the logits of a text with no n-gram of the vocabulary

    def total(self) -> np.ndarray:
        """(L,) the text's logits: b + the pieces' shares."""
        return self.bias + self.logits.sum(axis=0)


def view_of(texts: Sequence[str], view: str) -> list[str]:
    """``texts`` as the view ``view`` (a key of ``VIEWS``) reads them."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; known views: {', '.join(VIEWS)}")
    return [VIEWS[view](text) for text in texts]


def fuse(encoder: np.ndarray, ngram: np.ndarray, weight: float) -> np.ndarray:
    """(N, L) fused probabilities: (1 − weight) · encoder + weight · ngram."""
    return (1.0 - weight) * encoder + weight * ngram
