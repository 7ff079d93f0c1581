"""Corrections: true labels stored beside the predicted ones with who and when, assignee and notes, the history of
every change; the training file of corrected complaints, folding it into a training split, and `evaluate --db`."""

from __future__ import annotations

import csv
import json

import pytest
from test_serve_api import log_client, model_dir, predictor  # noqa: F401 - the tiny model and its clients

from mealwatch.cli import main
from mealwatch.learning.corrections import fold_in, read_additions
from mealwatch.data import Dataset, Example


def save(client, text: str) -> dict:
    return client.post("/api/classify", json={"text": text, "save": True, "explain": "none"}).json()


def test_a_correction_is_kept_beside_the_prediction_with_who_and_when(log_client):  # noqa: F811
    client, _ = log_client
    c = save(client, "Worms in the rice, two children vomited")
    r = client.patch(f"/api/complaints/{c['id']}", json={"labels": ["illness", "foreign_object"], "by": "Ravi"})
    assert r.status_code == 200, r.json()
    got = r.json()
    assert got["labels"] == c["labels"] and got["probabilities"] == c["probabilities"]  # the prediction untouched
    assert got["corrected_labels"] == ["foreign_object", "illness"]  # in the model's label order
    assert got["corrected_by"] == "Ravi" and got["corrected_at"] >= got["created_at"]
    assert got["urgency"] == "high" and got["needs_review"] is False  # a person has checked it
    # the header names who when the body does not; status, assignee and notes change together
    r = client.patch(f"/api/complaints/{c['id']}", json={"labels": ["illness"], "status": "in_progress",
                     "assignee": "BRP Sita", "notes": "डॉक्टर को बुलाया"}, headers={"X-Officer": "Sita"})  # fmt: skip
    assert r.status_code == 200 and r.json()["corrected_by"] == "Sita" and r.json()["notes"] == "डॉक्टर को बुलाया"
    history = client.get(f"/api/complaints/{c['id']}/history").json()
    assert [(h["field"], h["old"], h["new"], h["by"]) for h in history] == [
        ("labels", c["labels"], ["foreign_object", "illness"], "Ravi"),
        ("status", "new", "in_progress", "Sita"),
        ("labels", ["foreign_object", "illness"], ["illness"], "Sita"),
        ("assignee", None, "BRP Sita", "Sita"),
        ("notes", None, "डॉक्टर को बुलाया", "Sita"),
    ]
    assert history[0]["at"] == got["corrected_at"]
    cleared = client.patch(f"/api/complaints/{c['id']}", json={"assignee": ""}).json()
    assert cleared["assignee"] is None
    last = client.get(f"/api/complaints/{c['id']}/history").json()[-1]
    assert {k: last[k] for k in ("field", "old", "new", "by")} == {"field": "assignee", "old": "BRP Sita",
                                                                    "new": None, "by": None}  # fmt: skip
    listed = client.get("/api/complaints", params={"corrected": True}).json()
    assert [x["id"] for x in listed["items"]] == [c["id"]]
    assert client.get("/api/complaints", params={"label": "illness"}).json()["total"] == 1


@pytest.mark.parametrize(
    "body, status, message",
    [
        ({"labels": ["typhoid"]}, 422, "field 'labels': unknown label 'typhoid'; expected some of foreign_object"),
        ({"labels": []}, 422, "field 'labels' is empty: a correction needs at least one label"),
        ({}, 422, "nothing to change: send status, labels, assignee, notes, district or block"),
        ({"labels": "illness"}, 422, "field 'labels' must be a list"),
        ({"notes": "x" * 5001}, 422, "field 'notes': notes is 5,001 characters long; the limit is 5000"),
        ({"status": "resolved", "labels": ["illness"]}, 409, "complaint 1 is 'new'; it cannot move to 'resolved'"),
    ],
)
def test_a_bad_change_is_refused_whole(log_client, body, status, message):  # noqa: F811
    client, _ = log_client
    c = save(client, "No meal today")
    r = client.patch(f"/api/complaints/{c['id']}", json=body)
    assert r.status_code == status and r.json()["error"].startswith(message), r.json()
    assert client.get(f"/api/complaints/{c['id']}/history").json() == []  # nothing half-applied
    assert client.get(f"/api/complaints/{c['id']}").json()["corrected_labels"] is None
    assert client.get("/api/complaints/999/history").status_code == 404


def test_review_order_puts_the_least_certain_first(log_client):  # noqa: F811
    client, _ = log_client
    saved = [save(client, t) for t in ("No meal today", "Worms in the dal", "The cook was drunk", "Tasty food")]
    queue = client.get("/api/complaints", params={"order": "review", "corrected": False}).json()["items"]
    flagged = [c for c in queue if c["needs_review"]]
    assert queue[: len(flagged)] == flagged  # needing review first
    rest = queue[len(flagged) :]
    assert [c["certainty"] for c in rest] == sorted(c["certainty"] for c in rest)
    client.patch(f"/api/complaints/{saved[0]['id']}", json={"labels": ["meal_not_served"]})
    ids = [
        c["id"] for c in client.get("/api/complaints", params={"order": "review", "corrected": False}).json()["items"]
    ]
    assert saved[0]["id"] not in ids and len(ids) == 3  # a corrected complaint leaves the review queue
    assert client.get("/api/complaints", params={"order": "sideways"}).status_code == 422


def test_export_training_writes_only_corrected_complaints(log_client, tmp_path, model_dir, capsys):  # noqa: F811
    client, db = log_client
    a, b, _ = (save(client, t) for t in ("=lizard in dal, kids sick", "No meal, gas over", "Food was fine"))
    client.patch(f"/api/complaints/{a['id']}", json={"labels": ["illness", "foreign_object"]})
    client.patch(f"/api/complaints/{b['id']}", json={"labels": ["meal_not_served"]})
    out = tmp_path / "corrected.csv"
    assert main(["export-training", "--db", str(db), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote 2 corrected complaints to {out}\n"
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    # a training file keeps each text exactly (no spreadsheet apostrophe); labels joined by ';' in the label order
    assert rows == [{"text": "=lizard in dal, kids sick", "labels": "foreign_object;illness"},
                    {"text": "No meal, gas over", "labels": "meal_not_served"}]  # fmt: skip
    assert main(["evaluate", "--model", str(model_dir), "--db", str(db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    month = client.get(f"/api/complaints/{a['id']}").json()["created_at"][:7]
    assert report["n"] == 2 and list(report["by_month"]) == [month] and report["by_month"][month]["n"] == 2
    empty = tmp_path / "empty.db"
    from mealwatch.log import open_log

    open_log(empty).close()
    assert main(["export-training", "--db", str(empty), "--out", str(out)]) == 2
    assert "holds no corrected complaints" in capsys.readouterr().err
    assert main(["evaluate", "--model", str(model_dir), "--db", str(tmp_path / "missing.db")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_corrections_fold_into_the_training_split_without_duplicates(tmp_path):
    labels = ["foreign_object", "illness", "meal_not_served", "other"]

    def dataset(rows):
        return Dataset.from_examples([Example(t, tuple(ls), i) for i, (t, ls) in enumerate(rows, 2)], labels, True)

    splits = {
        "train": dataset([("Worms in the rice", ["foreign_object"]), ("No meal today", ["meal_not_served"])]),
        "validation": dataset([("Kids vomited after lunch", ["illness"])]),
    }
    corrected = tmp_path / "corrected.csv"
    corrected.write_text(
        "text,labels\n"
        "Worms in the rice,foreign_object;illness\n"  # exact duplicate, other labels: the correction wins
        "No meal today,meal_not_served\n"  # exact duplicate, same labels: skipped
        '"no meal, today!",other\n'  # the same text once normalised: a near duplicate, skipped
        "kids vomited after lunch,illness\n"  # a validation text: would leak, skipped
        "A lizard in the dal,other\n"
        "A lizard in the dal,foreign_object\n"  # corrected twice: the later one wins
        "The cook hit a child,other\n",
        encoding="utf-8",
    )
    with pytest.warns(UserWarning, match="1 rows repeat an earlier row's text exactly"):
        additions = read_additions(corrected, labels)
    folded = fold_in(splits, additions)
    assert (folded.added, folded.replaced, folded.skipped) == (2, 1, 3)
    assert folded.summary() == "2 added, 1 replaced, 3 skipped"
    assert [(e.text, e.labels) for e in folded.train.examples] == [
        ("Worms in the rice", ("foreign_object", "illness")),
        ("No meal today", ("meal_not_served",)),
        ("A lizard in the dal", ("foreign_object",)),
        ("The cook hit a child", ("other",)),
    ]
    assert len(splits["train"]) == 2  # the original split is untouched
