"""Cutting texts sorted by length into forward passes that waste little on padding and on per-pass overhead.

A padded batch of ``n`` texts whose longest has ``T`` word pieces costs the encoder about ``n · T`` token
positions, plus a fixed cost per forward pass (Python dispatch of every layer's operations, small matrix
products running below the kernel's best rate), counted here in token positions, ``overhead``. For texts
sorted by length ``l_1 ≤ … ≤ l_n`` the cheapest cut into consecutive groups of at most ``max_size`` texts is a
shortest path (dynamic programming over the cut points):

    cost(0) = 0
    cost(j) = min over i in [j − max_size, j) of  cost(i) + overhead + (j − i) · l_j

A group of similar lengths stays one pass; a pass that would pad five short texts to one long one is cut
in two when the padding saved is worth more than one more pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the fixed cost of one forward pass, in token positions (see docs/benchmarks.md, "Passes cut by length")
PASS_OVERHEAD_TOKENS = 35


def cut_by_length(sorted_lengths: Sequence[int], max_size: int, overhead: float | None = None) -> list[slice]:
    """Consecutive groups (slices into ``sorted_lengths``, which ascend) of at most ``max_size`` texts with the
    least total ``overhead · passes + Σ texts · longest`` (``overhead``: ``PASS_OVERHEAD_TOKENS`` when None)."""
    overhead = PASS_OVERHEAD_TOKENS if overhead is None else overhead
    lengths = np.asarray(sorted_lengths, dtype=np.float64)  # (n,)
    n = len(lengths)
    if max_size < 1:
        raise ValueError(f"max_size must be at least 1, not {max_size}")
    if n and np.any(np.diff(lengths) < 0):
        raise ValueError("the lengths must be sorted, shortest first")
    cost = np.zeros(n + 1)  # cost[j]: the cheapest cut of the first j texts
    start = np.zeros(n + 1, dtype=np.int64)  # start[j]: where the last group of that cut begins
    for j in range(1, n + 1):
        i = np.arange(max(0, j - max_size), j)  # candidate starts of the group ending at text j
        total = cost[i] + overhead + (j - i) * lengths[j - 1]  # (candidates,)
        best = int(np.argmin(total))  # ties: the earliest start, i.e. the larger group
        cost[j], start[j] = total[best], i[best]
    groups: list[slice] = []
    j = n
    while j > 0:
        groups.append(slice(int(start[j]), j))
        j = int(start[j])
    return groups[::-1]


def padded_positions(sorted_lengths: Sequence[int], max_size: int) -> int:
    """Token positions the passes of ``cut_by_length`` compute (each group padded to its longest), padding included."""
    return sum((g.stop - g.start) * int(sorted_lengths[g.stop - 1]) for g in cut_by_length(sorted_lengths, max_size))
