"""Attention rollout as an attribution: each word's share of what the pooled sentence vector draws on.

The same shares for every label (attention does not know the labels); they sum, with the share of
[CLS] and [SEP], to 1. See attributions.attention_rollout for the rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .attribution_math import rollout_importance
from .registry import register
from .word_scores import WordScores, per_word

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..tokenizer import TokenizedBatch


def note(pooling: str) -> str:
    row = "[CLS]" if pooling == "cls" else "mean of all token rows"
    return f"attention rollout: share of the pooled vector ({row}) drawn from each word"


@register("rollout")
def rollout(
    pipeline: "Pipeline", texts: list[str], batch: "TokenizedBatch", labels: list[list[str]], steps: int
) -> list[WordScores]:
    with torch.no_grad():
        attentions = pipeline.encoder(**batch.model_inputs(), output_attentions=True).attentions
    stacked = torch.stack(attentions, dim=1).float()  # (B, layers, heads, T, T)
    out = []
    for i, wanted in enumerate(labels):
        n = len(batch.tokens[i])
        shares = rollout_importance(stacked[i, :, :, :n, :n], pipeline.config.pooling).tolist()  # (n,)
        words = per_word(shares, batch.word_ids[i], len(batch.words[i]))
        out.append(WordScores("rollout", list(batch.words[i]), list(batch.word_spans[i]),
                              {label: list(words) for label in wanted}, note(pipeline.config.pooling),
                              truncated=batch.truncated[i]))  # fmt: skip
    return out
