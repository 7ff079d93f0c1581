"""The scoring rules, one owner: decisions, label encoding, macro-F1, threshold tuning and certainty."""

import numpy as np
import pytest

from sklearn.metrics import f1_score

from mealwatch.decisions import (
    as_targets,
    certainty,
    decide,
    encode_labels,
    macro_f1,
    targets_macro_f1,
    tune_thresholds,
    tuned_macro_f1,
)


def test_decide_thresholds_and_fallback():
    probs = np.array([[0.9, 0.6, 0.1], [0.2, 0.3, 0.25], [0.1, 0.2, 0.7]])
    assert decide(probs, multi_label=False).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert as_targets(decide(probs, multi_label=False), False).tolist() == [0, 1, 2]
    # per-label thresholds 0.5, 0.7, 0.3: row 1 passes none -> its most probable label only
    assert decide(probs, multi_label=True, thresholds=[0.5, 0.7, 0.3]).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert decide(probs, multi_label=True).tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]  # 0.5 everywhere


def test_encode_labels_round_trips_with_the_dataset_targets():
    labels = ["a", "b", "c"]
    assert encode_labels([["a", "c"], ["b"]], labels, True).tolist() == [[1, 0, 1], [0, 1, 0]]
    assert encode_labels(["c", ["a"]], labels, False).tolist() == [2, 0]
    with pytest.raises(ValueError, match="unknown labels"):
        encode_labels([["z"]], labels, True)
    with pytest.raises(ValueError, match="exactly one label"):
        encode_labels([["a", "b"]], labels, False)


def test_tune_thresholds_picks_each_labels_best_f1():
    probs = np.array([[0.9, 0.2], [0.7, 0.35], [0.62, 0.1], [0.3, 0.8]])
    targets = np.array([[1, 1], [1, 1], [0, 0], [0, 1]])
    # label 0: only 0.65/0.70 separates the positives (0.9, 0.7) from 0.62; ties go nearest 0.5 -> 0.65
    # label 1: any threshold in (0.1, 0.2] keeps all three positives and drops 0.1 -> 0.15 and 0.2; 0.2 is nearer 0.5
    assert tune_thresholds(probs, targets) == [0.65, 0.2]


def test_macro_f1_decides_by_the_rule_then_scores():
    probs = np.array([[0.9, 0.6, 0.1], [0.2, 0.3, 0.25], [0.1, 0.2, 0.7]])
    multi = np.array([[1, 0, 0], [0, 1, 0], [0, 1, 1]])
    # thresholds 0.5, 0.7, 0.3 decide [[1,0,0],[0,1,0],[0,0,1]]: label F1s 1, 2/3 (1 of 2 found), 1
    assert macro_f1(probs, multi, multi_label=True, thresholds=[0.5, 0.7, 0.3]) == pytest.approx((1 + 2 / 3 + 1) / 3)
    # 0.5 everywhere decides row 0 as [1,1,0]: label 1 then has 1 false and 1 missed of 2 -> F1 1/2
    assert macro_f1(probs, multi, multi_label=True) == pytest.approx((1 + 0.5 + 1) / 3)
    single = np.array([0, 1, 1])  # most probable: 0, 1, 2
    assert macro_f1(probs, single, multi_label=False) == pytest.approx((1 + 2 / 3 + 0) / 3)
    # averaged over a label no row has nor gets (index 3 of a four-label set): it scores 0
    assert targets_macro_f1(single, np.array([0, 1, 2]), labels=[0, 1, 2, 3]) == pytest.approx((1 + 2 / 3) / 4)
    assert targets_macro_f1(single, np.array([0, 1, 2])) == f1_score(single, [0, 1, 2], average="macro")


def test_tuned_macro_f1_is_the_score_with_the_tuned_thresholds():
    probs = np.array([[0.9, 0.2], [0.7, 0.35], [0.62, 0.1], [0.3, 0.8]])
    targets = np.array([[1, 1], [1, 1], [0, 0], [0, 1]])
    tuned = tuned_macro_f1(probs, targets, multi_label=True)
    # row 2 clears neither threshold, so the rule turns on its most probable label (0): label 0's F1 is 2 / 2.5
    assert tuned.thresholds == [0.65, 0.2] and tuned.macro_f1 == pytest.approx((0.8 + 1.0) / 2)
    single = tuned_macro_f1(probs, np.array([0, 0, 0, 1]), multi_label=False)
    assert single.thresholds is None and single.macro_f1 == 1.0


def test_certainty_is_the_distance_from_flipping():
    probs = np.array([[0.9, 0.52, 0.1], [0.46, 0.40, 0.14]])
    # multi-label: the nearest label to its threshold (0.52 vs 0.5; 0.46 vs 0.5)
    np.testing.assert_allclose(certainty(probs, [0.5, 0.5, 0.5]), [0.02, 0.04])
    # single-label: the lead of the most probable label over the second
    np.testing.assert_allclose(certainty(probs, None), [0.38, 0.06])
    np.testing.assert_allclose(certainty(np.array([[1.0]]), None), [1.0])  # one label: nothing to flip to
