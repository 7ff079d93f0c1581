"""One encoder layer: multi-head self-attention and a feed-forward network,
each wrapped in a residual connection and LayerNorm.

Post-LN (the original paper and BERT)::

    h   = LayerNorm(x + Dropout(MultiHead(x)))
    out = LayerNorm(h + Dropout(W_2 · GELU(W_1 · h + b_1) + b_2))

Pre-LN (``norm_first=True``, steadier when training from scratch)::

    h   = x + Dropout(MultiHead(LayerNorm(x)))
    out = h + Dropout(FFN(LayerNorm(h)))
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn

from .attention import MultiHeadAttention
from .linear import Linear

#: activation name (as in a Hugging Face config) -> function; "gelu" is the exact erf form
ACTIVATIONS = {
    "gelu": lambda x: F.gelu(x, approximate="none"),
    "relu": F.relu,
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
}


class FeedForward(nn.Module):
    """Position-wise feed-forward: FFN(x) = W_2 · act(W_1 · x + b_1) + b_2, applied to each token alone."""

    def __init__(self, hidden_size: int, intermediate_size: int, activation: str = "gelu") -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"unsupported activation {activation!r}; expected one of {sorted(ACTIVATIONS)}")
        self.up = Linear(hidden_size, intermediate_size)  # W_1
        self.down = Linear(intermediate_size, hidden_size)  # W_2
        self.act = ACTIVATIONS[activation]

    def forward(self, x: Tensor) -> Tensor:
        """(B, T, H) -> (B, T, H)."""
        return self.down(self.act(self.up(x)))  # (B, T, I) -> (B, T, H)


class EncoderLayer(nn.Module):
    """Self-attention + feed-forward, with residuals and LayerNorm (post-LN by default)."""

    def __init__(
        self,
        hidden_size: int,
        num_heads: int,
        intermediate_size: int,
        activation: str = "gelu",
        dropout: float = 0.1,
        attention_dropout: float = 0.1,
        layer_norm_eps: float = 1e-12,
        norm_first: bool = False,
    ) -> None:
        super().__init__()
        self.norm_first = norm_first
        self.attention = MultiHeadAttention(hidden_size, num_heads, attention_dropout)
        self.attention_norm = nn.LayerNorm(hidden_size, eps=layer_norm_eps)
        self.feed_forward = FeedForward(hidden_size, intermediate_size, activation)
        self.feed_forward_norm = nn.LayerNorm(hidden_size, eps=layer_norm_eps)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self, x: Tensor, key_mask: Tensor | None = None, need_weights: bool = False
    ) -> tuple[Tensor, Tensor | None]:
        """x: (B, T, H), key_mask: (B, T) bool -> (B, T, H) and the (B, nh, T, T) weights if asked."""
        if self.norm_first:
            attended, weights = self.attention(self.attention_norm(x), key_mask, need_weights)
            x = x + self.dropout(attended)  # (B, T, H)
            x = x + self.dropout(self.feed_forward(self.feed_forward_norm(x)))  # (B, T, H)
        else:
            attended, weights = self.attention(x, key_mask, need_weights)
            x = self.attention_norm(x + self.dropout(attended))  # (B, T, H)
            x = self.feed_forward_norm(x + self.dropout(self.feed_forward(x)))  # (B, T, H)
        return x, weights
