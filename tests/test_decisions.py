"""One decision rule and one label encoder, shared by the pipeline, the baselines and the metrics."""

import numpy as np
import pytest

from mealwatch.decisions import as_targets, decide, encode_labels


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
