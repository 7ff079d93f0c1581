"""Scaled dot-product attention and multi-head attention.

Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V                 ("Attention Is All You Need", eq. 1)
MultiHead(X) = Concat(head_1, ..., head_h) W_O,  head_i = Attention(X W_Q^i, X W_K^i, X W_V^i)
"""

from __future__ import annotations

import math

import torch.nn.functional as F
from torch import Tensor, nn

from .linear import Linear


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    dropout_p: float = 0.0,
) -> tuple[Tensor, Tensor]:
    """Attend from every query to every key; return ``(output, weights)``.

    q, k, v: (..., T, d_k). ``mask`` is boolean and broadcastable to (..., T_q, T_k):
    ``True`` where a query may look at a key, ``False`` for padding. Masked keys get
    exactly zero weight. ``dropout_p`` drops attention weights (training only).
    """
    d_k = q.size(-1)
    # scores_ij = q_i · k_j / √d_k : how well query i matches key j
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # (..., T_q, T_k)
    # softmax over keys: each query's weights are positive and sum to 1
    weights = scores.softmax(dim=-1)  # (..., T_q, T_k)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    # output_i = Σ_j weight_ij · v_j : a weighted sum of the values
    output = weights @ v  # (..., T_q, d_v)
    return output, weights


class MultiHeadAttention(nn.Module):
    """Self-attention in ``num_heads`` parallel heads of size ``hidden_size / num_heads``.

    Learned projections W_Q, W_K, W_V map each token into a query, a key and a value. They
    are stored stacked in one linear layer, ``qkv_proj`` (rows ``[0:H]`` are W_Q, ``[H:2H]``
    W_K, ``[2H:3H]`` W_V — the layout of ``torch.nn.MultiheadAttention.in_proj_weight``), so
    the three projections run as one matrix multiply; ``w_q``/``w_k``/``w_v`` show each one.
    Heads attend independently; their outputs are concatenated and projected once more by
    W_O (``out_proj``).
    """

    def __init__(self, hidden_size: int, num_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        if hidden_size % num_heads != 0:
            raise ValueError(f"hidden_size {hidden_size} is not divisible by num_heads {num_heads}")
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_size = hidden_size // num_heads
        self.dropout = dropout
        self.qkv_proj = Linear(hidden_size, 3 * hidden_size)  # [W_Q; W_K; W_V] for all heads at once
        self.out_proj = Linear(hidden_size, hidden_size)  # W_O

    @property
    def w_q(self) -> Tensor:
        """W_Q as a (H, H) view (``nn.Linear`` layout: output x input)."""
        return self.qkv_proj.weight[: self.hidden_size]

    @property
    def w_k(self) -> Tensor:
        """W_K as a (H, H) view."""
        return self.qkv_proj.weight[self.hidden_size : 2 * self.hidden_size]

    @property
    def w_v(self) -> Tensor:
        """W_V as a (H, H) view."""
        return self.qkv_proj.weight[2 * self.hidden_size :]

    def forward(
        self, x: Tensor, key_mask: Tensor | None = None, need_weights: bool = False
    ) -> tuple[Tensor, Tensor | None]:
        """x: (B, T, H); key_mask: (B, T) bool, True for real tokens.

        Returns ``(output (B, T, H), weights (B, nh, T, T) or None)``. Without
        ``need_weights`` the fused ``torch.nn.functional.scaled_dot_product_attention``
        computes the same output faster.
        """
        B, T, H = x.shape
        qkv = self.qkv_proj(x)  # [x W_Q | x W_K | x W_V]: (B, T, 3H)
        q, k, v = (
            qkv.view(B, T, 3, self.num_heads, self.head_size).permute(2, 0, 3, 1, 4).unbind(0)
        )  # 3 × (B, nh, T, hs)
        mask = None if key_mask is None else key_mask[:, None, None, :]  # (B, 1, 1, T)
        p = self.dropout if self.training else 0.0
        if need_weights:
            out, weights = scaled_dot_product_attention(q, k, v, mask, p)  # (B, nh, T, hs), (B, nh, T, T)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)  # (B, nh, T, hs)
            weights = None
        out = out.transpose(1, 2).reshape(B, T, H)  # concatenate heads: (B, T, nh*hs)
        return self.out_proj(out), weights  # (B, T, H)
