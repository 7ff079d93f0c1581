"""Integrated gradients of each label's probability from an all-[PAD] baseline (see attribution_math.py).

Slower than gradient × input (``steps`` forward and backward passes) but exact up to the reported
delta: a text's word scores add up to P(label | text) − P(label | baseline).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .attribution_math import frozen_weights, integrated_gradients
from .registry import gradient_inputs, register
from .word_scores import WordScores, per_word

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..tokenizer import TokenizedBatch

NOTE = "integrated gradients of P(label) from an all-[PAD] baseline, summed over each word's pieces"


@register("ig")
def integrated(
    pipeline: "Pipeline", texts: list[str], batch: "TokenizedBatch", labels: list[list[str]], steps: int
) -> list[WordScores]:
    model, g = pipeline.model, gradient_inputs(pipeline, batch, labels)  # x, x': (B, T, H); targets (B, K)

    def forward(embeds: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        logits = model(
            inputs_embeds=embeds, attention_mask=g.attention_mask[rows], token_type_ids=g.token_type_ids[rows]
        ).logits
        return model.probabilities(logits)  # (n, L)

    with frozen_weights(model):
        ig = integrated_gradients(forward, g.inputs, g.baseline, g.targets, steps=steps)
    out = []
    for i, wanted in enumerate(labels):
        n, length = len(batch.words[i]), len(batch.tokens[i])
        scores = {label: per_word(ig.attributions[i, k, :length].tolist(), batch.word_ids[i], n)
                  for k, label in enumerate(wanted)}  # fmt: skip
        delta = {label: float(ig.delta[i, k]) for k, label in enumerate(wanted)}
        base = {label: float(ig.baseline_output[i, k]) for k, label in enumerate(wanted)}
        at_text = {label: float(ig.output[i, k]) for k, label in enumerate(wanted)}
        out.append(WordScores("ig", list(batch.words[i]), list(batch.word_spans[i]), scores, NOTE,
                              truncated=batch.truncated[i], steps=steps, delta=delta,
                              baseline_output=base, output=at_text))  # fmt: skip
    return out
