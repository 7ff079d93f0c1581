"""Gradient × input: the fast, one-pass attribution the service shows by default.

    score_w(label) = Σ_{pieces t of w} (x_t − x'_t) · ∂z_label / ∂x_t

x_t is a piece's word embedding and x'_t the [PAD] embedding (the baseline integrated gradients
uses), z_label the label's *logit*. The logit, not the probability: a sigmoid or softmax that
is nearly 0 or 1 has a gradient near zero, so attributions of a probability go flat exactly when
the model is sure; the logit keeps saying which words made it sure. One forward pass and one
backward pass, batched over the explained labels; a first-order estimate whose scores need not
add up to z(text) − z(baseline).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .attribution_math import frozen_weights
from .registry import gradient_inputs, register
from .word_scores import WordScores, per_word

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..tokenizer import TokenizedBatch

NOTE = "gradient × (embedding − [PAD] embedding) of the label's logit, summed over each word's pieces"


@register("grad")
def gradient_times_input(
    pipeline: "Pipeline", texts: list[str], batch: "TokenizedBatch", labels: list[list[str]], steps: int
) -> list[WordScores]:
    model, g = pipeline.model, gradient_inputs(pipeline, batch, labels)  # x, x': (B, T, H); targets (B, K)
    targets, K = g.targets, g.targets.size(1)
    x = g.inputs.clone().requires_grad_(True)  # (B, T, H)
    with frozen_weights(model), torch.enable_grad():
        logits = model(
            inputs_embeds=x, attention_mask=g.attention_mask, token_type_ids=g.token_type_ids
        ).logits  # (B, L)
        picks = torch.zeros(K, *logits.shape)  # (K, B, L): one one-hot output gradient per explained label
        picks.scatter_(2, targets.T.unsqueeze(-1), 1.0)
        (grads,) = torch.autograd.grad(logits, x, grad_outputs=picks, is_grads_batched=True)  # (K, B, T, H)
    per_token = ((x.detach() - g.baseline) * grads).sum(dim=-1).transpose(0, 1).tolist()  # (B, K, T)
    out = []
    for i, wanted in enumerate(labels):
        n = len(batch.words[i])
        scores = {label: per_word(per_token[i][k], batch.word_ids[i], n) for k, label in enumerate(wanted)}
        out.append(WordScores("grad", list(batch.words[i]), list(batch.word_spans[i]), scores, NOTE,
                              truncated=batch.truncated[i]))  # fmt: skip
    return out
