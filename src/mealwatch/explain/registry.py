"""One registry of attribution methods: a new method is one new file plus one registration line.

    @register("grad")
    def gradient_times_input(pipeline, texts, batch, labels, steps) -> list[WordScores]: ...

Every method takes the pipeline, the texts and the same texts tokenized by ``pipeline.tokenize`` (so it reads
the same pieces the prediction read), each text's labels to explain, and a step budget; it returns one
``WordScores`` per text. ``attribute`` is what callers use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .attribution_math import label_targets, pad_baseline
from .word_scores import WordScores

if TYPE_CHECKING:
    from torch import Tensor

    from ..pipeline import Pipeline
    from ..tokenizer import TokenizedBatch

Method = Callable[["Pipeline", list[str], "TokenizedBatch", list[list[str]], int], list[WordScores]]
METHODS: dict[str, Method] = {}
#: the modules that register methods (imported on first use, so importing explain stays light)
_PROVIDERS = ("grad", "ig", "rollout", "why")


def register(name: str) -> Callable[[Method], Method]:
    """Register ``fn`` under ``name``."""

    def add(fn: Method) -> Method:
        METHODS[name] = fn
        return fn

    return add


def method_names() -> list[str]:
    _load()
    return list(METHODS)


def attribute(
    pipeline: "Pipeline", texts: Sequence[str], labels: Sequence[Sequence[str]], method: str = "grad", steps: int = 50
) -> list[WordScores]:
    """Per-word scores of each text toward its ``labels``, by the registered ``method``."""
    _load()
    if method not in METHODS:
        raise ValueError(f"unknown attribution method {method!r}; choose from {', '.join(METHODS)}")
    if steps < 1:
        raise ValueError(f"steps must be at least 1, not {steps}")
    batch = pipeline.tokenize(list(texts))
    empty = [t for t, words in zip(texts, batch.words) if not words]
    if empty:
        raise ValueError(f"the text {empty[0]!r} has no words the tokenizer can read")
    return METHODS[method](pipeline, list(texts), batch, [list(x) for x in labels], steps)


@dataclass
class GradientInputs:
    """What a gradient method differentiates: the word embeddings x, the [PAD] baseline x' and the targets."""

    inputs: "Tensor"  # (B, T, H)
    baseline: "Tensor"  # (B, T, H)
    targets: "Tensor"  # (B, K): label indices to explain
    attention_mask: "Tensor"  # (B, T)
    token_type_ids: "Tensor"  # (B, T)


def gradient_inputs(pipeline: "Pipeline", batch: "TokenizedBatch", labels: list[list[str]]) -> GradientInputs:
    """The embeddings, baseline and label targets of a batch, as every gradient method starts from them."""
    embeddings, pad = pipeline.word_embeddings, pipeline.tokenizer.pad_token_id
    inputs, baseline = pad_baseline(embeddings, batch.input_ids, batch.word_ids, pad)
    targets = label_targets(labels, pipeline.labels)
    return GradientInputs(inputs, baseline, targets, batch.attention_mask, batch.token_type_ids)


def _load() -> None:
    import importlib

    for name in _PROVIDERS:
        importlib.import_module(f"{__package__}.{name}")
