"""Context-aware sentence embeddings from the encoder: mean-pooled token vectors or [CLS]."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from .tokenizer import Tokenizer
from .transformer import Encoder, mean_pool

POOLINGS = ("mean", "cls")


@torch.inference_mode()
def embed_texts(
    encoder: Encoder,
    tokenizer: Tokenizer,
    texts: Sequence[str],
    pooling: str = "mean",
    batch_size: int = 64,
    normalize: bool = False,
    max_length: int | None = None,
    *,
    forward: Callable[..., Any] | None = None,
) -> np.ndarray:
    """One (H,) vector per text, as a float32 array (N, H), in input order.

    ``pooling``: "mean" averages the last layer over real tokens (what all-MiniLM-L6-v2
    was trained for); "cls" takes the last layer's [CLS] vector. ``normalize`` scales
    each vector to unit length. Texts are batched by length so padding stays small. ``forward`` runs
    the encoder in its place (a compiled form of it, ``inference.modes.build``).
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, not {pooling!r}")
    encoder.eval()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths share a batch
    out = np.zeros((len(texts), encoder.config.hidden_size), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        batch = tokenizer([texts[i] for i in idx], max_length=max_length)
        hidden = (forward or encoder)(**batch.model_inputs()).last_hidden_state  # (B, T, H)
        vectors = mean_pool(hidden, batch.attention_mask) if pooling == "mean" else hidden[:, 0]  # (B, H)
        if normalize:
            vectors = torch.nn.functional.normalize(vectors, dim=-1)  # (B, H)
        out[idx] = vectors.numpy()
    return out
