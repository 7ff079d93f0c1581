"""benchmarks/transliteration.py's vectorised bootstrap macro-F1 equals scikit-learn's on each resample."""

import importlib.util
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "transliteration.py"


def test_bootstrap_macro_f1_equals_scikit_learn_on_every_resample():
    spec = importlib.util.spec_from_file_location("transliteration", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    targets = rng.integers(0, 2, (40, 4))
    predicted = rng.integers(0, 2, (40, 4))
    targets[:, 3] = predicted[:, 3] = 0  # a label with no true and no predicted example scores 0
    counts = np.stack([np.bincount(rng.integers(0, 40, 40), minlength=40) for _ in range(5)])  # (5, 40)
    ours = module.bootstrap_macro_f1(targets, predicted, counts)
    for b in range(5):
        rows = np.repeat(np.arange(40), counts[b])
        expected = f1_score(targets[rows], predicted[rows], average="macro", zero_division=0)
        assert abs(ours[b] - expected) < 1e-12
