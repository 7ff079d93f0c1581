"""Shared fixtures: tiny random configs and the bundled tokenizer."""
from __future__ import annotations

import pytest
import torch

from mealwatch import EncoderConfig, Tokenizer


@pytest.fixture(scope="session")
def tokenizer() -> Tokenizer:
    """The bundled all-MiniLM-L6-v2 WordPiece tokenizer (fast; no weights loaded)."""
    return Tokenizer.from_pretrained()


@pytest.fixture
def tiny_config(tokenizer: Tokenizer) -> EncoderConfig:
    """A tiny random BERT over the real vocabulary: 2 layers, hidden 32, 4 heads."""
    torch.manual_seed(0)
    return EncoderConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=128,
    )


@pytest.fixture
def one_thread():
    """Tiny models run fastest on one thread (and do not fight other processes for the cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
