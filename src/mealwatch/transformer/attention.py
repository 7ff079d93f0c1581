"""Scaled dot-product attention and multi-head attention.

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V                 ("Attention Is All You Need", eq. 1)
    MultiHead(X) = Concat(head_1, ..., head_h) W_O,  head_i = Attention(X W_Q^i, X W_K^i, X W_V^i)
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


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

    Learned projections W_Q, W_K, W_V (``q_proj``, ``k_proj``, ``v_proj``) map each token
    into queries, keys and values; heads attend independently; their outputs are
    concatenated and projected once more by W_O (``out_proj``).
    """

    def __init__(self, hidden_size: int, num_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        if hidden_size % num_heads != 0:
            raise ValueError(f"hidden_size {hidden_size} is not divisible by num_heads {num_heads}")
        self.num_heads = num_heads
        self.head_size = hidden_size // num_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(hidden_size, hidden_size)  # W_Q for all heads at once
        self.k_proj = nn.Linear(hidden_size, hidden_size)  # W_K
        self.v_proj = nn.Linear(hidden_size, hidden_size)  # W_V
        self.out_proj = nn.Linear(hidden_size, hidden_size)  # W_O

    def split_heads(self, x: Tensor) -> Tensor:
        """(B, T, H) -> (B, nh, T, hs)."""
        B, T, _ = x.shape
        return x.view(B, T, self.num_heads, self.head_size).transpose(1, 2)  # (B, nh, T, hs)

    def forward(
        self, x: Tensor, key_mask: Tensor | None = None, need_weights: bool = False
    ) -> tuple[Tensor, Tensor | None]:
        """x: (B, T, H); key_mask: (B, T) bool, True for real tokens.

        Returns ``(output (B, T, H), weights (B, nh, T, T) or None)``. Without
        ``need_weights`` the fused ``torch.nn.functional.scaled_dot_product_attention``
        computes the same output faster.
        """
        B, T, H = x.shape
        q = self.split_heads(self.q_proj(x))  # (B, nh, T, hs)
        k = self.split_heads(self.k_proj(x))  # (B, nh, T, hs)
        v = self.split_heads(self.v_proj(x))  # (B, nh, T, hs)
        mask = None if key_mask is None else key_mask[:, None, None, :]  # (B, 1, 1, T)
        p = self.dropout if self.training else 0.0
        if need_weights:
            out, weights = scaled_dot_product_attention(q, k, v, mask, p)  # (B, nh, T, hs), (B, nh, T, T)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)  # (B, nh, T, hs)
            weights = None
        out = out.transpose(1, 2).reshape(B, T, H)  # concatenate heads: (B, T, nh*hs)
        return self.out_proj(out), weights  # (B, T, H)
