"""The sinusoidal table of "Attention Is All You Need" at known positions."""

import math

import pytest
import torch

from mealwatch.transformer import sinusoidal_table


def test_sinusoidal_table_matches_the_formula():
    d = 8
    table = sinusoidal_table(50, d)
    assert table.shape == (50, d)
    assert torch.equal(table[0], torch.tensor([0.0, 1.0] * (d // 2)))  # sin 0, cos 0
    for pos in (1, 7, 49):
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_odd_dimension_keeps_the_pattern():
    table = sinusoidal_table(5, 5)
    assert table[3, 4].item() == pytest.approx(math.sin(3 / 10000 ** (4 / 5)), abs=1e-6)
    assert table[3, 3].item() == pytest.approx(math.cos(3 / 10000 ** (2 / 5)), abs=1e-6)
