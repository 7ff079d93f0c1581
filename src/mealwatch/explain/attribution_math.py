"""Integrated gradients on the word embeddings, and attention rollout.

Integrated gradients (Sundararajan, Taly & Yan 2017) credits each input dimension with

    IG_i(x) = (x_i − x'_i) · ∫₀¹ ∂F(x' + α (x − x')) / ∂x_i  dα

along the straight line from a baseline x' to the input x. The integral is taken with the
trapezoid rule over ``steps`` equal intervals, the interpolated inputs batched through the
model. Completeness: Σ_i IG_i = F(x) − F(x') exactly in the limit; the gap left by a finite
number of steps is reported as the convergence delta.

Attention rollout (Abnar & Zuidema 2020) follows attention through the layers: each layer's
heads are averaged, the identity is added for the residual connection (Â = ½ A + ½ I, rows
still summing to 1) and the layers are multiplied, R = Â_L ··· Â_1. Row i of R says how
much the final vector of token i draws on each input token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch import Tensor, nn


@dataclass
class IntegratedGradients:
    """Attributions of K target outputs to the tokens of B texts."""

    attributions: Tensor  # (B, K, T): per target, per token, summed over the embedding dimension
    output: Tensor  # (B, K): the targets at the input
    baseline_output: Tensor  # (B, K): the targets at the baseline

    @property
    def delta(self) -> Tensor:
        """(B, K): Σ attributions − (F(input) − F(baseline)); zero for an exact integral."""
        return self.attributions.sum(dim=-1) - (self.output - self.baseline_output)


@contextmanager
def frozen_weights(model: nn.Module) -> Iterator[None]:
    """Within the block no parameter of ``model`` needs a gradient (restored afterwards).

    Explanations differentiate by the inputs only; with the weights frozen, autograd skips
    their gradients and the encoder's linears keep their fast kernel.
    """
    needs = [(p, p.requires_grad) for p in model.parameters()]
    for p, _ in needs:
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p, flag in needs:
            p.requires_grad_(flag)


def pad_baseline(
    word_embedding: nn.Embedding, input_ids: Tensor, word_ids: Sequence[Sequence[int | None]], pad_token_id: int
) -> tuple[Tensor, Tensor]:
    """The texts' word embeddings x (B, T, H) and the baseline x' (B, T, H) of the explanations.

    x' is x with every word piece's embedding replaced by the [PAD] token's; [CLS], [SEP] and
    padding keep theirs, so only the words change between the two. No gradients are kept.
    """
    T = input_ids.size(1)
    is_piece = torch.tensor([[w is not None for w in ids] + [False] * (T - len(ids)) for ids in word_ids])  # (B, T)
    with torch.no_grad():
        inputs = word_embedding(input_ids)  # (B, T, H)
        pad = word_embedding.weight[pad_token_id]  # (H,)
        baseline = torch.where(is_piece[..., None], pad.expand_as(inputs), inputs)  # (B, T, H)
    return inputs, baseline


def label_targets(predicted: Sequence[Sequence[str]], labels: Sequence[str]) -> Tensor:
    """(B, K) label indices to explain: each text's predicted labels, K the most of any text.

    A text with fewer than K labels repeats its last one (the extra columns are ignored).
    """
    index = {label: i for i, label in enumerate(labels)}
    K = max(len(p) for p in predicted)
    return torch.tensor([[index[p[min(k, len(p) - 1)]] for k in range(K)] for p in predicted])  # (B, K)


def trapezoid_weights(steps: int) -> tuple[Tensor, Tensor]:
    """Points α_0..α_steps on [0, 1] and their trapezoid-rule weights (summing to 1)."""
    if steps < 1:
        raise ValueError(f"steps must be at least 1, not {steps}")
    alphas = torch.linspace(0.0, 1.0, steps + 1)  # (S+1,)
    weights = torch.full((steps + 1,), 1.0 / steps)  # (S+1,)
    weights[0] = weights[-1] = 0.5 / steps
    return alphas, weights


def integrated_gradients(
    forward: Callable[[Tensor, Tensor], Tensor],
    inputs: Tensor,
    baseline: Tensor,
    targets: Tensor,
    steps: int = 50,
    batch_size: int = 32,
) -> IntegratedGradients:
    """Integrated gradients of ``forward``'s outputs ``targets`` with respect to ``inputs``.

    ``forward(embeds (n, T, H), text_index (n,)) -> outputs (n, L)``: the model from word
    embeddings to its outputs; ``text_index`` says which of the B texts each row belongs to
    (for its attention mask). ``inputs`` and ``baseline`` are (B, T, H); ``targets`` (B, K)
    are the output indices to explain for each text. ``batch_size`` interpolated inputs go
    through the model at once.
    """
    if inputs.shape != baseline.shape:
        raise ValueError(f"inputs {tuple(inputs.shape)} and baseline {tuple(baseline.shape)} differ in shape")
    B, T, H = inputs.shape
    K = targets.size(1)
    alphas, weights = trapezoid_weights(steps)  # (S+1,), (S+1,)
    inputs, baseline = inputs.detach(), baseline.detach()
    diff = inputs - baseline  # (B, T, H)
    averaged = torch.zeros(B, K, T, H, dtype=inputs.dtype)  # Σ_s w_s ∂F_k/∂x at each point
    text_of = torch.arange(B).repeat_interleave(steps + 1)  # (B·(S+1),)
    step_of = torch.arange(steps + 1).repeat(B)  # (B·(S+1),)
    for start in range(0, text_of.numel(), batch_size):
        b = text_of[start : start + batch_size]  # (n,)
        s = step_of[start : start + batch_size]  # (n,)
        x = (baseline[b] + alphas[s, None, None] * diff[b]).requires_grad_(True)  # (n, T, H)
        with torch.enable_grad():
            out = forward(x, b)  # (n, L)
            for k in range(K):
                chosen = out.gather(1, targets[b, k : k + 1]).sum()  # rows are independent: Σ keeps each gradient
                (grad,) = torch.autograd.grad(chosen, x, retain_graph=k < K - 1)  # (n, T, H)
                averaged[:, k].index_add_(0, b, grad * weights[s, None, None])
    attributions = (averaged * diff[:, None]).sum(dim=-1)  # (B, K, T)
    every = torch.arange(B)
    with torch.no_grad():
        output = forward(inputs, every).gather(1, targets)  # (B, K)
        baseline_output = forward(baseline, every).gather(1, targets)  # (B, K)
    return IntegratedGradients(attributions.detach(), output.detach(), baseline_output.detach())


def attention_rollout(attentions: Tensor) -> Tensor:
    """(layers, heads, T, T) attention of one text -> (T, T) rollout, rows summing to 1."""
    L, _, T, _ = attentions.shape
    eye = torch.eye(T, dtype=attentions.dtype, device=attentions.device)  # (T, T)
    rollout = eye
    for layer in range(L):
        a = attentions[layer].mean(dim=0)  # (T, T): heads averaged
        a = 0.5 * a + 0.5 * eye  # the residual connection carries the token itself through
        a = a / a.sum(dim=-1, keepdim=True)  # (T, T)
        rollout = a @ rollout  # (T, T): Â_l · ... · Â_1
    return rollout


def rollout_importance(attentions: Tensor, pooling: str) -> Tensor:
    """Per-token share of what the pooled vector draws on: the [CLS] row, or for "mean" the mean of all rows (T,)."""
    rollout = attention_rollout(attentions)  # (T, T)
    if pooling == "cls":
        return rollout[0]  # (T,)
    if pooling == "mean":
        return rollout.mean(dim=0)  # (T,): the mean-pooled vector averages every token's final vector
    raise ValueError(f"pooling must be 'mean' or 'cls', not {pooling!r}")
