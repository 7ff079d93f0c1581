"""Positional encodings: how a Transformer learns word order.

Attention by itself is blind to order (a permutation of the tokens permutes its output),
so each token's embedding gets a vector that depends on its position.

Sinusoidal (the original paper, section 3.5)::

    PE(pos, 2i)   = sin(pos / 10000^(2i / d_model))
    PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model))

Learned (BERT): one trainable vector per position, ``max_positions`` of them.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


def sinusoidal_table(max_positions: int, dim: int) -> Tensor:
    """The (max_positions, dim) table of sines and cosines of "Attention Is All You Need"."""
    pos = torch.arange(max_positions, dtype=torch.float64)[:, None]  # (P, 1)
    i2 = torch.arange(0, dim, 2, dtype=torch.float64)  # the even indices 2i: (ceil(dim/2),)
    angle = pos / torch.pow(10000.0, i2 / dim)  # pos / 10000^(2i/d): (P, ceil(dim/2))
    table = torch.zeros(max_positions, dim, dtype=torch.float64)  # (P, dim)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : dim // 2])
    return table.float()


class SinusoidalPositions(nn.Module):
    """Fixed sinusoidal positions (no parameters; the table is a non-persistent buffer)."""

    def __init__(self, max_positions: int, dim: int) -> None:
        super().__init__()
        self.register_buffer("table", sinusoidal_table(max_positions, dim), persistent=False)

    def forward(self, position_ids: Tensor) -> Tensor:
        """position_ids (B, T) -> (B, T, dim)."""
        return self.table[position_ids]  # (B, T, dim)


class LearnedPositions(nn.Module):
    """BERT's learned absolute positions: one trainable vector per position."""

    def __init__(self, max_positions: int, dim: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(max_positions, dim)

    def forward(self, position_ids: Tensor) -> Tensor:
        """position_ids (B, T) -> (B, T, dim)."""
        return self.embedding(position_ids)  # (B, T, dim)


def check_length(length: int, max_positions: int) -> None:
    """Raise a clear error when a sequence is longer than the position table."""
    if length > max_positions:
        raise ValueError(
            f"sequence of {length} tokens is longer than the model's {max_positions} positions; "
            "truncate it (the tokenizer's max_length) or split the text"
        )
