"""The SQLite complaint log: schema versions and migration, ordering, filters, status changes, concurrency."""
from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timezone

import pytest

from mealwatch.serve.store import (
    SCHEMA_VERSION,
    ComplaintStore,
    Filters,
    NewComplaint,
    StoreError,
    TransitionError,
    migrate,
    schema_version,
)


def complaint(text: str, labels: list[str], urgency: str, school: str | None = None, version: str = "m1") -> NewComplaint:
    probs = {label: 0.9 for label in labels} | {"other": 0.1}
    return NewComplaint(text, labels, probs, urgency, version, school)


def set_created(path, complaint_id: int, when: str) -> None:
    """Backdate a row (the store always stamps the current time)."""
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE complaints SET created_at = ? WHERE id = ?", (when, complaint_id))


def test_new_file_gets_the_current_schema_and_wal(tmp_path):
    store = ComplaintStore(tmp_path / "sub" / "log.db")
    assert store.schema_version == SCHEMA_VERSION
    with sqlite3.connect(tmp_path / "sub" / "log.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert schema_version(conn) == SCHEMA_VERSION


def test_version_1_file_is_migrated_and_keeps_its_rows(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, target=1) == 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "complaint_labels" not in tables
    conn.execute(
        "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version, created_at,"
        " status, status_changed_at) VALUES ('lizard in dal', 'S1', ?, ?, 'high', 0, 'old-model',"
        " '2024-05-01T10:00:00.000000Z', 'new', '2024-05-01T10:00:00.000000Z')",
        (json.dumps(["foreign_object", "illness"]), json.dumps({"foreign_object": 0.9, "illness": 0.8})),
    )
    conn.close()

    store = ComplaintStore(path)
    assert store.schema_version == SCHEMA_VERSION == 3
    [row] = store.list(Filters(label="illness")).items
    assert (row["text"], row["labels"], row["model_version"]) == ("lizard in dal", ["foreign_object", "illness"], "old-model")
    assert (row["needs_review"], row["review_reasons"]) == (False, [])  # old rows were never flagged
    assert store.labels() == {"foreign_object", "illness"}
    assert store.list(Filters(label="spoiled_food")).total == 0


def test_complaints_needing_review_head_the_queue_and_can_be_filtered(tmp_path):
    store = ComplaintStore(tmp_path / "log.db")
    sure = NewComplaint("lizard in the dal", ["foreign_object"], {"foreign_object": 0.97}, "high", "m1")
    unsure = NewComplaint("खाने में कुछ था", ["other"], {"other": 0.08}, "low", "m1",
                          review_reasons=["no label reached its threshold (most probable: other 0.08 < 0.40)"])
    first, second = store.add_many([sure, unsure])
    items = store.list().items
    assert [c["id"] for c in items] == [second, first]  # low urgency but flagged: reviewed before a sure high one
    assert items[0]["needs_review"] is True and items[0]["review_reasons"] == unsure.review_reasons
    assert [c["id"] for c in store.list(Filters(needs_review=True)).items] == [second]
    assert [c["id"] for c in store.list(Filters(needs_review=False)).items] == [first]


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE complaints (id INTEGER)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1}, newer than this mealwatch"):
        ComplaintStore(path)


def test_foreign_database_and_non_database_are_refused(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreError, match="not a mealwatch complaint log"):
        ComplaintStore(other)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(StoreError, match="cannot be opened as a complaint log"):
        ComplaintStore(junk)
    with pytest.raises(StoreError, match="not a file"):
        ComplaintStore(tmp_path)


def test_order_is_urgency_then_newest_and_paging_counts_all(tmp_path):
    store = ComplaintStore(tmp_path / "log.db")
    ids = [
        store.add(complaint("a low", ["other"], "low")),
        store.add(complaint("b high", ["illness"], "high")),
        store.add(complaint("c medium", ["poor_hygiene"], "medium")),
        store.add(complaint("d high", ["foreign_object"], "high")),
    ]
    for i, day in zip(ids, ["2024-05-04", "2024-05-01", "2024-05-02", "2024-05-03"]):
        set_created(store.path, i, f"{day}T09:00:00.000000Z")
    assert [c["text"] for c in store.list().items] == ["d high", "b high", "c medium", "a low"]
    page = store.list(limit=2, offset=1)
    assert page.total == 4 and [c["text"] for c in page.items] == ["b high", "c medium"]


def test_filters(tmp_path):
    store = ComplaintStore(tmp_path / "log.db")
    a = store.add(complaint("a", ["illness", "spoiled_food"], "high", school="S1"))
    b = store.add(complaint("b", ["spoiled_food"], "medium", school="S2"))
    c = store.add(complaint("c", ["other"], "low", school="S1"))
    set_created(store.path, a, "2024-05-01T23:59:59.000000Z")
    set_created(store.path, b, "2024-05-02T00:00:00.000000Z")
    set_created(store.path, c, "2024-05-03T12:00:00.000000Z")
    store.set_status(c, "in_progress")

    def texts(**kw):
        return sorted(x["text"] for x in store.list(Filters(**kw)).items)

    assert texts(label="spoiled_food") == ["a", "b"]
    assert texts(urgency="low") == ["c"]
    assert texts(school="S1") == ["a", "c"]
    assert texts(status="new") == ["a", "b"]
    assert texts(label="spoiled_food", school="S1") == ["a"]
    day2 = datetime(2024, 5, 2, tzinfo=timezone.utc)
    assert texts(since=day2) == ["b", "c"]
    assert texts(until=day2) == ["a"]
    assert store.daily_label_counts() == {
        "2024-05-01": {"illness": 1, "spoiled_food": 1},
        "2024-05-02": {"spoiled_food": 1},
        "2024-05-03": {"other": 1},
    }
    assert store.daily_label_counts(Filters(school="S1")) == {
        "2024-05-01": {"illness": 1, "spoiled_food": 1},
        "2024-05-03": {"other": 1},
    }


def test_status_moves_and_history(tmp_path):
    store = ComplaintStore(tmp_path / "log.db")
    i = store.add(complaint("x", ["illness"], "high"))
    with pytest.raises(TransitionError, match="'new'; it cannot move to 'resolved'.*in_progress"):
        store.set_status(i, "resolved")
    with pytest.raises(TransitionError, match="unknown status 'done'"):
        store.set_status(i, "done")
    assert store.set_status(i, "in_progress")["status"] == "in_progress"
    row = store.set_status(i, "resolved")
    assert row["status"] == "resolved"
    assert [(h["old_status"], h["new_status"]) for h in row["history"]] == [("new", "in_progress"), ("in_progress", "resolved")]
    assert row["status_changed_at"] == row["history"][-1]["changed_at"]
    with pytest.raises(TransitionError):
        store.set_status(i, "resolved")
    assert store.set_status(999, "in_progress") is None
    assert store.get(999) is None


def test_concurrent_saves_lose_nothing_and_survive_a_reopen(tmp_path):
    path = tmp_path / "log.db"
    store = ComplaintStore(path)
    errors = []

    def save(worker: int) -> None:
        try:
            for n in range(25):
                store.add(complaint(f"worker {worker} complaint {n}", ["illness"], "high", school=f"S{worker}"))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=save, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.count() == 200
    store.close()
    reopened = ComplaintStore(path)
    texts = {c["text"] for c in reopened.list(limit=None).items}
    assert texts == {f"worker {w} complaint {n}" for w in range(8) for n in range(25)}
    assert reopened.list(Filters(school="S3")).total == 25
