"""Labels as arrays, in one place: encoding rows of label names, and deciding labels from probabilities.

    multi-label:  label j is on when p_j >= t_j; when none is, the single most probable label is
    single-label: the most probable label

Both return (N, L) 0/1 arrays in the label set's order; ``as_targets`` turns them into what
scikit-learn's metrics take ((N,) indices for single-label).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def encode_labels(
    rows: Sequence[Sequence[str]] | Sequence[str], labels: Sequence[str], multi_label: bool
) -> np.ndarray:
    """Label names per row -> (N, L) 0/1 (multi-label) or (N,) indices (single-label: one name or a one-name list)."""
    index = {label: i for i, label in enumerate(labels)}
    rows = [[row] if isinstance(row, str) else list(row) for row in rows]
    unknown = sorted({label for row in rows for label in row if label not in index})
    if unknown:
        raise ValueError(f"unknown labels {unknown}; expected some of {list(labels)}")
    if not multi_label:
        if any(len(row) != 1 for row in rows):
            raise ValueError("single-label evaluation needs exactly one label per row")
        return np.array([index[row[0]] for row in rows], dtype=np.int64)
    out = np.zeros((len(rows), len(labels)), dtype=np.int64)
    for r, row in enumerate(rows):
        out[r, [index[label] for label in row]] = 1
    return out


def decide(probabilities: np.ndarray, *, multi_label: bool, thresholds: Sequence[float] | None = None) -> np.ndarray:
    """(N, L) probabilities -> (N, L) 0/1 decisions (see the module docstring); thresholds None: 0.5 each."""
    probabilities = np.asarray(probabilities)
    top = probabilities.argmax(axis=1)  # (N,)
    chosen = np.zeros(probabilities.shape, dtype=np.int64)  # (N, L)
    if multi_label:
        chosen = (probabilities >= np.asarray(thresholds if thresholds is not None else 0.5)).astype(np.int64)
    empty = chosen.sum(axis=1) == 0  # (N,)
    chosen[empty, top[empty]] = 1
    return chosen


def as_targets(decided: np.ndarray, multi_label: bool) -> np.ndarray:
    """(N, L) 0/1 decisions as scikit-learn targets: unchanged for multi-label, (N,) indices for single-label."""
    return decided if multi_label else decided.argmax(axis=1)
