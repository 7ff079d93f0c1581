"""Passes cut by length: hand-computed cuts, and the cut checked against every cut of small cases."""

import itertools
import random

import pytest

from mealwatch.inference.batches import cut_by_length, padded_positions


def cost(lengths, groups, overhead):
    return sum(overhead + (g.stop - g.start) * lengths[g.stop - 1] for g in groups)


def every_cut(n, max_size):
    """Every way to cut n sorted texts into consecutive groups of at most max_size."""
    for bars in itertools.product([False, True], repeat=max(0, n - 1)):
        starts = [0] + [i + 1 for i, bar in enumerate(bars) if bar] + [n]
        groups = [slice(a, b) for a, b in zip(starts, starts[1:])]
        if all(g.stop - g.start <= max_size for g in groups):
            yield groups


def test_hand_computed_cuts():
    assert cut_by_length([10] * 8, 64) == [slice(0, 8)]  # equal lengths: one pass
    # five texts of 5 and one of 100: together 6 · 100 = 600 + 32; apart 5 · 5 + 32 + 100 + 32 = 189
    assert cut_by_length([5, 5, 5, 5, 5, 100], 64, overhead=32) == [slice(0, 5), slice(5, 6)]
    # a small saving is not worth a pass: [30, 31] together 62 + 32 = 94, apart 30 + 31 + 64 = 125
    assert cut_by_length([30, 31], 64, overhead=32) == [slice(0, 2)]
    assert cut_by_length([30, 31], 64, overhead=0) == [slice(0, 1), slice(1, 2)]
    assert [g.stop - g.start for g in cut_by_length([3] * 10, 4)] == [2, 4, 4]  # the fewest passes of at most 4
    assert cut_by_length([], 8) == []


def test_the_cut_is_the_cheapest_of_all_cuts():
    rng = random.Random(0)
    for _ in range(200):
        n, max_size, overhead = rng.randint(1, 9), rng.randint(1, 5), rng.choice([0, 8, 32, 100])
        lengths = sorted(rng.randint(2, 128) for _ in range(n))
        got = cut_by_length(lengths, max_size, overhead)
        assert got[0].start == 0 and got[-1].stop == n and all(a.stop == b.start for a, b in zip(got, got[1:]))
        assert all(g.stop - g.start <= max_size for g in got)
        best = min(cost(lengths, groups, overhead) for groups in every_cut(n, max_size))
        assert cost(lengths, got, overhead) == pytest.approx(best)


def test_broken_input_is_refused():
    with pytest.raises(ValueError, match="sorted"):
        cut_by_length([5, 3], 4)
    with pytest.raises(ValueError, match="max_size"):
        cut_by_length([5], 0)


def test_padded_positions_count_each_group_at_its_longest():
    assert padded_positions([5, 5, 5, 5, 5, 100], 64) == 5 * 5 + 100  # cut in two: no padding at all
    assert padded_positions([30, 31], 64) == 2 * 31  # one pass, one position of padding
    assert padded_positions([], 8) == 0
