"""The scoring rules, in one place: labels as arrays, the decision rule, macro-F1, threshold tuning and certainty.

    multi-label:  label j is on when p_j >= t_j; when none is, the single most probable label is
    single-label: the most probable label

``encode_labels`` and ``decide`` return (N, L) 0/1 arrays in the label set's order; ``as_targets`` turns them into
what scikit-learn's metrics take ((N,) indices for single-label). ``macro_f1`` scores probabilities by that rule;
``tune_thresholds`` picks each label's threshold from ``THRESHOLD_GRID`` (``tuned_macro_f1``: both at once, what
training, the n-gram channel and the baselines choose by); ``certainty`` is how far a prediction is from changing
(what the review flag's close calls and the log's certainty column read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: the decision thresholds tried for each label of a multi-label model
THRESHOLD_GRID = np.round(np.arange(0.05, 0.951, 0.05), 2)


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


def decided_targets(
    probabilities: np.ndarray, *, multi_label: bool, thresholds: Sequence[float] | None = None
) -> np.ndarray:  # fmt: skip
    """``decide`` then ``as_targets``: (N, L) probabilities -> (N, L) 0/1 (multi-label) or (N,) indices."""
    return as_targets(decide(probabilities, multi_label=multi_label, thresholds=thresholds), multi_label)


def targets_macro_f1(targets: np.ndarray, predicted: np.ndarray, *, labels: Sequence[int] | None = None) -> float:
    """Macro-F1 of decisions in scikit-learn's form (``as_targets``); a label with no true and no predicted example
    scores 0. ``labels``: the label indices averaged over (None: every column of multi-label targets, the labels
    present in the targets or predictions of single-label ones)."""
    from sklearn.metrics import f1_score

    return float(f1_score(targets, predicted, labels=labels, average="macro", zero_division=0))


def macro_f1(
    probabilities: np.ndarray, targets: np.ndarray, *, multi_label: bool, thresholds: Sequence[float] | None = None,
    labels: Sequence[int] | None = None,
) -> float:  # fmt: skip
    """Macro-F1 of the labels ``decide`` gives (N, L) ``probabilities`` against ``targets`` (``as_targets`` form);
    ``labels`` as for ``targets_macro_f1``."""
    decided = decided_targets(probabilities, multi_label=multi_label, thresholds=thresholds)
    return targets_macro_f1(targets, decided, labels=labels)


def tune_thresholds(probabilities: np.ndarray, targets: np.ndarray) -> list[float]:
    """Per label, the grid threshold with the best F1 on these examples (ties: the one nearest 0.5)."""
    from sklearn.metrics import f1_score

    thresholds = []
    for j in range(targets.shape[1]):
        scores = [f1_score(targets[:, j], probabilities[:, j] >= t, zero_division=0) for t in THRESHOLD_GRID]
        best = max(range(len(THRESHOLD_GRID)), key=lambda i: (round(scores[i], 10), -abs(THRESHOLD_GRID[i] - 0.5)))
        thresholds.append(float(THRESHOLD_GRID[best]))
    return thresholds


@dataclass(frozen=True)
class TunedScore:
    """The thresholds tuned on some examples (None: single-label) and the macro-F1 they give there."""

    thresholds: list[float] | None
    macro_f1: float


def tuned_macro_f1(probabilities: np.ndarray, targets: np.ndarray, *, multi_label: bool) -> TunedScore:
    """Multi-label: thresholds tuned on these (N, L) probabilities, and the macro-F1 with them; single-label: the
    macro-F1 of the most probable labels."""
    thresholds = tune_thresholds(probabilities, targets) if multi_label else None
    return TunedScore(thresholds, macro_f1(probabilities, targets, multi_label=multi_label, thresholds=thresholds))


def certainty(probabilities: np.ndarray, thresholds: Sequence[float] | None) -> np.ndarray:
    """(N, L) probabilities -> (N,) how far each prediction is from changing (0: a coin toss). With thresholds
    (multi-label): the smallest distance of a label's probability from its threshold; without: the most probable
    label's lead over the second (over nothing, with one label)."""
    probabilities = np.asarray(probabilities)
    if thresholds is not None:
        return np.abs(probabilities - np.asarray(thresholds)[None, :]).min(axis=1)
    top2 = -np.sort(-probabilities, axis=1)[:, :2]  # (N, 2) or (N, 1)
    return top2[:, 0] - top2[:, 1] if probabilities.shape[1] > 1 else top2[:, 0]
