"""Sentence vectors for search and incident grouping: the one place a complaint or a query becomes a vector.

``SentenceVectors`` reads texts with one encoder, mean-pools its last layer over the real tokens and scales each
vector to unit length, so that a dot product is the cosine. Two sources:

- ``SentenceVectors.pretrained("e5")`` (the default, ``DEFAULT_SOURCE``): multilingual-e5-small as it was
  pre-trained for retrieval, reading a saved complaint as ``"passage: " + text`` and a search as
  ``"query: " + text`` (the prefixes it was trained with);
- ``SentenceVectors.from_pipeline(pipeline)``: a trained classifier's fine-tuned encoder, read without prefixes.

Which one serves search and grouping better is measured by benchmarks/search.py and benchmarks/incidents.py
(docs/benchmarks.md). ``version`` names the vectors (the encoder's weights, pooling and prefixes): vectors of
another version are never compared with these, and the log re-embeds complaints whose stored version differs.

Vectors are stored compactly (``quantize``): int8 components and one float scale per vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..checksums import model_version
from ..embeddings import embed_texts
from ..tokenizer import Tokenizer
from ..transformer import Encoder

if TYPE_CHECKING:
    from ..pipeline import Pipeline

#: the vectors the service, the CLI and the benchmarks use unless told otherwise
DEFAULT_SOURCE = "e5"
#: e5's retrieval prefixes
QUERY_PREFIX, PASSAGE_PREFIX = "query: ", "passage: "
#: tokens read per text (a complaint longer than this is read from its start)
MAX_TOKENS = 256
#: bumped when the way texts become vectors changes, so that stored vectors are re-embedded
VECTOR_FORMAT = 1


@dataclass(frozen=True)
class Quantized:
    """Vectors as stored: int8 components (N, H) and one scale each (N,): vector ≈ values * scale."""

    values: np.ndarray
    scales: np.ndarray


def quantize(vectors: np.ndarray) -> Quantized:
    """Each row as int8 with its own scale (its largest component becomes ±127); a zero row stays zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)  # (N,)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    values = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return Quantized(values, scales)


def dequantize(q: Quantized) -> np.ndarray:
    """Float32 vectors (N, H) back from ``quantize``'s form, each scaled to unit length again."""
    vectors = q.values.astype(np.float32) * q.scales[:, None]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


class SentenceVectors:
    """Unit-length sentence vectors of complaints (``passages``) and searches (``queries``); thread-safe reads."""

    def __init__(
        self,
        encoder: Encoder,
        tokenizer: Tokenizer,
        version: str,
        *,
        query_prefix: str = "",
        passage_prefix: str = "",
        max_tokens: int = MAX_TOKENS,
        batch_size: int = 32,
    ) -> None:
        self.encoder, self.tokenizer = encoder.eval(), tokenizer
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.max_tokens, self.batch_size = max_tokens, batch_size
        prefixes = "prefixed" if query_prefix or passage_prefix else "plain"
        self.version = f"{version}:mean:{prefixes}:v{VECTOR_FORMAT}"
        for p in self.encoder.parameters():
            p.requires_grad_(False)

    @classmethod
    def pretrained(cls, name: str = DEFAULT_SOURCE, *, prefixes: bool = True) -> "SentenceVectors":
        """A pre-trained encoder by name or folder (``encoders.encoder_folder``); ``prefixes``: e5's query/passage
        prefixes (what it was trained for retrieval with)."""
        from ..encoders import encoder_folder

        folder = encoder_folder(name)
        encoder, tokenizer = Encoder.from_pretrained(folder), Tokenizer.from_pretrained(folder)
        version = model_version(folder)
        if not prefixes:
            return cls(encoder, tokenizer, version)
        return cls(encoder, tokenizer, version, query_prefix=QUERY_PREFIX, passage_prefix=PASSAGE_PREFIX)

    @classmethod
    def from_pipeline(cls, pipeline: "Pipeline", version: str) -> "SentenceVectors":
        """A trained classifier's fine-tuned encoder (its tokenizer too), read without prefixes; ``version`` names
        the model (``checksums.model_version``)."""
        return cls(pipeline.encoder, pipeline.tokenizer, f"finetuned-{version}")

    @property
    def dimension(self) -> int:
        return self.encoder.config.hidden_size

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors (N, H) of saved complaints."""
        return self._embed([self.passage_prefix + t for t in texts])

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors (N, H) of searches."""
        return self._embed([self.query_prefix + t for t in texts])

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        return embed_texts(self.encoder, self.tokenizer, texts, "mean", self.batch_size, True, self.max_tokens)
