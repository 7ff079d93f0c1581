"""Evaluation metrics on tiny cases worked out by hand, and the written report files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mealwatch.learning.evaluation import (
    EvaluationReport,
    encode_labels,
    evaluate_predictions,
    format_report,
    report_markdown,
    write_report,
)

# single-label, labels a b c; true a a b b c c, predicted a b b b c a
TRUE_1 = np.array([0, 0, 1, 1, 2, 2])
PRED_1 = np.array([0, 1, 1, 1, 2, 0])

# multi-label, labels x y z
TRUE_M = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 1]])
PRED_M = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 1], [0, 1, 1]])


def test_single_label_metrics_by_hand():
    r = evaluate_predictions(TRUE_1, PRED_1, ["a", "b", "c"], multi_label=False, bootstrap=0)
    # a: predicted twice, right once -> P 1/2; 2 true, 1 found -> R 1/2; F1 1/2
    assert r.per_label["a"] == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2})
    # b: predicted 3 times, right twice -> P 2/3; both found -> R 1; F1 = 2 * (2/3) / (5/3) = 0.8
    assert r.per_label["b"] == pytest.approx({"precision": 2 / 3, "recall": 1.0, "f1": 0.8, "support": 2})
    # c: predicted once, right -> P 1; 1 of 2 found -> R 1/2; F1 2/3
    assert r.per_label["c"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "support": 2})
    assert r.macro_f1 == pytest.approx((0.5 + 0.8 + 2 / 3) / 3)
    assert r.weighted_f1 == pytest.approx((0.5 + 0.8 + 2 / 3) / 3)  # equal supports
    assert r.micro_f1 == pytest.approx(4 / 6)  # 4 of 6 right
    assert r.subset_accuracy == pytest.approx(4 / 6)
    assert r.samples_f1 is None and r.macro_f1_ci is None
    assert r.confusion == [[1, 1, 0], [0, 2, 0], [1, 0, 1]]
    assert r.n == 6


def test_multi_label_metrics_by_hand():
    r = evaluate_predictions(TRUE_M, PRED_M, ["x", "y", "z"], multi_label=True, bootstrap=0)
    assert r.per_label["x"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0, "support": 2})
    # y: right on row 3, wrong on row 2 (extra) and row 1 (missed)
    assert r.per_label["y"] == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2})
    assert r.macro_f1 == pytest.approx(2.5 / 3)
    assert r.micro_f1 == pytest.approx(5 / 6)  # 5 true positives, 1 false positive, 1 false negative
    # per row F1: 1, 2/3 (x of x,y), 2/3 (y,z for z), 1
    assert r.samples_f1 == pytest.approx((1 + 2 / 3 + 2 / 3 + 1) / 4)
    assert r.subset_accuracy == pytest.approx(0.5)  # rows 0 and 3 exactly right
    assert r.confusion[0] == [[2, 0], [0, 2]]
    assert r.confusion[1] == [[1, 1], [1, 1]]  # [[tn, fp], [fn, tp]]


def test_label_names_are_encoded_like_targets():
    true = [("x",), ("x", "y"), ("z",), ("y", "z")]
    pred = [["x"], ["x"], ["y", "z"], ["z", "y"]]
    assert encode_labels(true, ["x", "y", "z"], True).tolist() == TRUE_M.tolist()
    by_name = evaluate_predictions(true, pred, ["x", "y", "z"], multi_label=True, bootstrap=0)
    by_array = evaluate_predictions(TRUE_M, PRED_M, ["x", "y", "z"], multi_label=True, bootstrap=0)
    assert by_name == by_array
    single = evaluate_predictions(list("aabbcc"), list("abbbca"), ["a", "b", "c"], multi_label=False, bootstrap=0)
    assert single.macro_f1 == pytest.approx((0.5 + 0.8 + 2 / 3) / 3)
    with pytest.raises(ValueError, match=r"unknown labels \['q'\]"):
        encode_labels([["q"]], ["x"], True)


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    true = rng.integers(0, 3, 200)
    pred = np.where(rng.random(200) < 0.7, true, rng.integers(0, 3, 200))
    r = evaluate_predictions(true, pred, ["a", "b", "c"], multi_label=False, bootstrap=300, seed=5)
    lo, hi = r.macro_f1_ci
    assert lo < r.macro_f1 < hi and hi - lo < 0.2
    again = evaluate_predictions(true, pred, ["a", "b", "c"], multi_label=False, bootstrap=300, seed=5)
    assert again.macro_f1_ci == r.macro_f1_ci
    perfect = evaluate_predictions(true, true, ["a", "b", "c"], multi_label=False, bootstrap=50)
    assert perfect.macro_f1_ci == (1.0, 1.0)


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError, match="same, non-empty shape"):
        evaluate_predictions(TRUE_1, PRED_1[:3], ["a", "b", "c"], multi_label=False)


@pytest.mark.parametrize("multi_label", [False, True])
def test_write_report_files_round_trip(tmp_path, multi_label):
    true, pred, labels = (TRUE_M, PRED_M, ["x", "y", "z"]) if multi_label else (TRUE_1, PRED_1, ["a", "b", "c"])
    report = evaluate_predictions(true, pred, labels, multi_label=multi_label, bootstrap=100)
    write_report(report, tmp_path / "out", title="Test set")
    folder = tmp_path / "out"
    plot = "per_label_confusion.png" if multi_label else "confusion_matrix.png"
    assert sorted(p.name for p in folder.iterdir()) == sorted(["metrics.json", "report.md", plot])  # no temp files
    loaded = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    assert loaded == report.to_dict()
    assert EvaluationReport.from_dict(loaded) == report
    assert (folder / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Test set")
    first = labels[0]
    m = report.per_label[first]
    assert f"| {first} | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} | {m['support']} |" in markdown
    assert f"| macro-F1 | {report.macro_f1:.3f} |" in markdown


def test_format_report_lists_labels_and_averages():
    report = evaluate_predictions(TRUE_1, PRED_1, ["a", "b", "c"], multi_label=False, bootstrap=20)
    text = format_report(report)
    assert "b          0.667   1.000  0.800        2" in text
    assert "macro-F1         0.656" in text and "accuracy         0.667" in text
    assert "95 % bootstrap interval" in text


def test_scores_per_script_and_language_by_hand():
    # multi-label rows 0-1 are Tamil, 2-3 Hindi; a slice averages over the labels present in its truth or predictions
    r = evaluate_predictions(TRUE_M, PRED_M, ["x", "y", "z"], multi_label=True, bootstrap=0,
                             scripts=["taml", "taml", "deva", "deva"], languages=["ta", "ta", "hi", "hi"])  # fmt: skip
    # Tamil: x right twice (F1 1); y true once, never predicted (F1 0): macro 1/2; micro: tp 2, fp 0, fn 1 -> 4/5
    assert r.by_language["ta"] == pytest.approx({"n": 2, "macro_f1": 0.5, "micro_f1": 0.8})
    # Hindi: y predicted twice, true once (P 1/2, R 1 -> 2/3); z right twice (1): macro 5/6; micro tp 3 fp 1 -> 6/7
    assert r.by_language["hi"] == pytest.approx({"n": 2, "macro_f1": 5 / 6, "micro_f1": 6 / 7})
    assert r.by_script["taml"] == r.by_language["ta"]
    assert EvaluationReport.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    assert "by language:" in format_report(r) and "  ta           2 texts  macro-F1 0.500" in format_report(r)


def test_scores_per_month_of_arrival_by_hand():
    # the same rows as above, rows 0-1 arrived in 2026-11 and 2-3 in 2026-12: the months score as the languages did
    r = evaluate_predictions(TRUE_M, PRED_M, ["x", "y", "z"], multi_label=True, bootstrap=0,
                             months=["2026-11", "2026-11", "2026-12", "2026-12"])  # fmt: skip
    assert r.by_month["2026-11"] == pytest.approx({"n": 2, "macro_f1": 0.5, "micro_f1": 0.8})
    assert r.by_month["2026-12"] == pytest.approx({"n": 2, "macro_f1": 5 / 6, "micro_f1": 6 / 7})
    assert r.by_script is None and r.by_language is None
    assert EvaluationReport.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    assert "by month of arrival (UTC):" in format_report(r)
    assert "  2026-12      2 texts  macro-F1 0.833  micro-F1 0.857" in format_report(r)
    assert "| 2026-12 | 2 | 0.833 | 0.857 |" in report_markdown(r)
