"""benchmarks/retrain_corrections.py without training: its data file (labels, halves, no shared or bundled text),
the file checks, the officer's loop over the service with a tiny model, the export check, and the per-label table;
and that `mealwatch train --add` trains on the training split with the corrections folded in."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
from test_serve_api import tiny_classifier

from mealwatch.learning import training_run
from mealwatch.cli import main
from mealwatch.learning.corrections import corrected_complaints
from mealwatch.data import bundled_data_dir, read_dataset
from mealwatch.labels import LABELS
from mealwatch.log import Filters, open_log
from mealwatch.learning.splits import normalize_text

ROOT = Path(__file__).resolve().parents[1]
HEADER = "text,labels,sender,split\n"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("retrain_corrections", ROOT / "benchmarks" / "retrain_corrections.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


rc = load_benchmark()


@pytest.fixture(scope="module")
def kind():
    return rc.read_kind()


def officers(db: Path) -> list[str]:
    """Who corrected each complaint of the log, by id."""
    log = open_log(db)
    try:
        return [row["corrected_by"] for row in sorted(log.list(Filters(corrected=True), limit=None).items,
                                                      key=lambda row: row["id"])]  # fmt: skip
    finally:
        log.close()


def words(text: str) -> set[str]:
    return set(normalize_text(text).split())


def test_the_kind_has_100_corrections_and_100_held_out_of_other_senders(kind):
    assert (len(kind.corrections), len(kind.held_out)) == (100, 100)
    senders = [{c.sender for c in half} for half in (kind.corrections, kind.held_out)]
    assert senders[0] == {f"sms-{s}" for s in "abcdefghij"} and senders[1] == {f"sms-{s}" for s in "klmnopqrst"}
    for half in (kind.corrections, kind.held_out):
        counts = {label: sum(label in c.labels for c in half) for label in LABELS}
        assert min(counts.values()) >= 8, counts  # every label scored on enough complaints
    # the mealwatch reader takes the file as it is (labels of the label set, multi-label)
    assert len(read_dataset(rc.DATA, label_set=list(LABELS), multi_label=True)) == 200


def test_no_complaint_of_the_kind_repeats_a_bundled_one_or_paraphrases_across_halves(kind):
    bundled = set()
    for name in ("train", "validation", "test"):
        bundled |= {normalize_text(t) for t in read_dataset(bundled_data_dir() / f"{name}.csv").texts}
    every = kind.corrections + kind.held_out
    assert len({normalize_text(c.text) for c in every}) == 200
    assert not [c.text for c in every if normalize_text(c.text) in bundled]
    for held in kind.held_out:
        for taught in kind.corrections:
            a, b = words(held.text), words(taught.text)
            assert len(a & b) / len(a | b) < 0.5, (held.text, taught.text)


@pytest.mark.parametrize(
    "rows, message",
    [
        ("dal m kida,foreign_object,s1,corrections\n", None),
        ("dal m kida,insects,s1,corrections\n", "kind.csv:2: unknown label 'insects'"),
        ('dal m kida,"illness;foreign_object",s1,corrections\n', "kind.csv:2: labels repeated or out of"),
        ("dal m kida,foreign_object,s1,test\n", "kind.csv:2: split 'test', expected one of corrections, held_out"),
        ("dal m kida,foreign_object,s1,corrections\nDal  M kida,illness,s2,held_out\n", "kind.csv:3: the same text as"),
        ("dal m kida,foreign_object,s1,corrections\nkhana nhi,illness,s1,held_out\n", "senders in both halves: s1"),
        (" ,other,s1,corrections\n", "kind.csv:2: empty text"),
    ],
)
def test_a_broken_kind_file_is_refused_with_the_line_and_the_reason(tmp_path, rows, message):
    path = tmp_path / "kind.csv"
    path.write_text(HEADER + rows, encoding="utf-8")
    if message is None:
        assert rc.read_kind(path).corrections == [rc.Complaint("dal m kida", ("foreign_object",), "s1", "corrections")]
        return
    with pytest.raises(rc.KindFileError, match=re.escape(message)):
        rc.read_kind(path)


def test_a_kind_file_without_the_split_column_is_refused(tmp_path):
    path = tmp_path / "kind.csv"
    path.write_text("text,labels\ndal m kida,foreign_object\n", encoding="utf-8")
    with pytest.raises(rc.KindFileError, match="missing columns sender, split"):
        rc.read_kind(path)


def test_the_officers_loop_saves_corrects_and_exports_exactly_the_corrections(kind, tmp_path):
    model = tmp_path / "model"
    tiny_classifier(0).save(model)
    taught = kind.corrections[:12]
    saved = rc.save_and_correct(model, tmp_path / "log.db", taught)
    assert saved.ids == list(range(1, 13))
    stored = corrected_complaints(tmp_path / "log.db")
    want = [(i, c.text, c.labels, rc.OFFICER) for i, c in enumerate(taught, 1)]
    assert [(c.complaint_id, c.text, c.labels, by) for c, by in zip(stored, officers(tmp_path / "log.db"))] == want
    assert main(["export-training", "--db", str(tmp_path / "log.db"), "--out", str(tmp_path / "corrected.csv")]) == 0
    rc.check_export(tmp_path / "corrected.csv", taught)
    with pytest.raises(RuntimeError, match="12 rows, expected exactly the 13 corrected complaints"):
        rc.check_export(tmp_path / "corrected.csv", kind.corrections[:13])
    (tmp_path / "wrong.csv").write_text(
        "text,labels\n" + "".join(f'"{c.text}",other\n' for c in taught), encoding="utf-8"
    )  # the right texts with the model's (wrong) labels
    with pytest.raises(RuntimeError, match="12 rows, expected exactly"):
        rc.check_export(tmp_path / "wrong.csv", taught)


def test_the_per_label_lines_name_only_the_labels_that_moved():
    def scores(f1s):
        return {"per_label": {label: {"f1": f1s.get(label, 0.5)} for label in LABELS}}

    before, after = scores({"illness": 0.6, "other": 0.9}), scores({"illness": 0.75, "other": 0.898})
    assert rc.moved_labels(before, after) == ["| illness | 0.600 | 0.750 | +0.150 |"]
    assert rc.with_interval({"macro_f1": 0.7091, "macro_f1_ci": [0.6184, 0.7817]}) == "0.709 (0.618-0.782)"
    assert rc.with_interval({"macro_f1": 0.7091, "macro_f1_ci": None}) == "0.709"


def test_the_held_out_file_reads_back_as_the_kind(kind, tmp_path):
    written = read_dataset(rc.write_labelled(kind.held_out, tmp_path / "held_out.csv"), label_set=list(LABELS))
    assert [(e.text, e.labels) for e in written.examples] == [(c.text, c.labels) for c in kind.held_out]


def test_train_add_trains_with_the_corrections_folded_in(monkeypatch, tmp_path):
    (tmp_path / "train.csv").write_text("text,labels\nkhana me kida tha,foreign_object\nmdm band,meal_not_served\n")
    (tmp_path / "val.csv").write_text("text,labels\ndal me keeda,foreign_object\nkhana nahi bana,meal_not_served\n")
    (tmp_path / "corrected.csv").write_text("text,labels\nmdm nhi bna aj,meal_not_served\n")
    calls = []

    class Trained(Exception):
        pass

    def train_and_save(splits, args, out, progress=True, **kwargs):
        calls.append([e.text for e in splits["train"].examples])
        raise Trained

    monkeypatch.setattr(training_run, "train_and_save", train_and_save)
    with pytest.raises(Trained):
        main(["train", "--data", str(tmp_path / "train.csv"), "--validation", str(tmp_path / "val.csv"),
              "--add", str(tmp_path / "corrected.csv"), "--quiet"])  # fmt: skip
    assert calls == [["khana me kida tha", "mdm band", "mdm nhi bna aj"]]
