"""The complaint log, on every backend (``log_backend``: SQLite, and PostgreSQL when its server is installed):
schema versions and migration, ordering, filters, status changes, concurrency; then what only one backend has."""

from __future__ import annotations

import re
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest
from log_backends import complaint

from mealwatch.log import (
    BACKENDS,
    SCHEMA_VERSION,
    Filters,
    LogClosed,
    NewComplaint,
    StoreError,
    TransitionError,
    open_log,
    redact,
)
from mealwatch.log.migrations import sqlite_version
from mealwatch.log.sqlite import SqliteLog

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


# --- every backend ---------------------------------------------------------------------------------


def test_new_log_gets_the_current_schema(log_backend):
    log = log_backend.open()
    assert log.schema_version == SCHEMA_VERSION == 15
    assert {
        "complaints",
        "complaint_changes",
        "complaint_labels",
        "alerts",
        "saved_requests",
        "users",
        "sessions",
        "api_tokens",
        "audit_log",
        "audit_districts",
        "alert_checks",
    } <= log_backend.tables()
    assert "status_changes" not in log_backend.tables()  # version 4 moved its rows to complaint_changes
    assert log.count() == 0 and log.list().total == 0 and log.labels() == set() and log.daily_label_counts() == {}
    assert log.add_many([]) == []
    assert log_backend.open().schema_version == SCHEMA_VERSION  # opening again migrates nothing


def test_version_1_file_is_migrated_and_keeps_its_rows(log_backend):
    assert log_backend.migrate_to(1) == 1
    assert "complaint_labels" not in log_backend.tables()
    log_backend.execute(
        "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version, created_at,"
        " status, status_changed_at) VALUES ('lizard in dal', 'S1', ?, ?, 'high', 0, 'old-model',"
        " '2024-05-01T10:00:00.000000Z', 'new', '2024-05-01T10:00:00.000000Z')",
        ('["foreign_object", "illness"]', '{"foreign_object": 0.9, "illness": 0.8}'),
    )

    store = log_backend.open()
    assert store.schema_version == SCHEMA_VERSION == 15
    [row] = store.list(Filters(label="illness")).items
    assert (row["text"], row["labels"], row["model_version"]) == (
        "lizard in dal",
        ["foreign_object", "illness"],
        "old-model",
    )
    assert (row["needs_review"], row["review_reasons"]) == (False, [])  # old rows were never flagged
    assert row["language"] == "en"  # filled in from the text by the migration
    assert store.labels() == {"foreign_object", "illness"}
    assert store.list(Filters(label="spoiled_food")).total == 0
    assert store.daily_label_counts() == {"2024-05-01": {"foreign_object": 1, "illness": 1}}
    new = store.add(complaint("worms", ["foreign_object"], "high"))
    assert new > row["id"] and store.get(new)["labels"] == ["foreign_object"]  # ids go on after the old rows


def test_closing_twice_is_fine_and_every_later_use_is_the_same_clear_error(log_backend):
    store = log_backend.open()
    saved = store.add(complaint("rice with worms", ["foreign_object"], "high"))
    store.close()
    store.close()  # again: nothing happens
    uses = {
        "count": store.count,
        "get": lambda: store.get(saved),
        "list": lambda: store.list(Filters()),
        "add": lambda: store.add(complaint("dal was cold", ["spoiled_food"], "medium")),
        "saved_answer": lambda: store.saved_answer("key"),
        "list_alerts": lambda: store.list_alerts(None, 10, 0),
        "has_users": store.has_users,
    }
    where = str(log_backend.db) if log_backend.name == "sqlite" else redact(str(log_backend.db))
    said = f"the complaint log {where} is closed: open it again (mealwatch.log.open_log) to use it"
    for name, use in uses.items():
        with pytest.raises(LogClosed) as closed:
            use()
        assert isinstance(closed.value, StoreError) and str(closed.value) == said, name
    store.close()  # and after a use: still nothing
    assert log_backend.open().count() == 1  # the saved complaint is kept; the closed store added nothing


def test_version_2_log_is_migrated_to_the_current_version(log_backend):
    assert log_backend.migrate_to(2) == 2
    assert log_backend.open().schema_version == SCHEMA_VERSION
    assert log_backend.open().add(complaint("x", ["other"], "low")) == 1


def test_version_8_schools_and_alerts_by_udise_move_within_their_district(log_backend):
    """Version 9: a school named by its UDISE code is that code within its district, for the complaints saved
    before it and their alerts, so that later complaints of the school still find them."""
    assert log_backend.migrate_to(8) == 8
    values = (
        "'dal', '10010101001', 'Gaya', 'gaya', 'udise:10010101001', '[]', '{}', 'low', 2, 'm', "
        "'2025-03-01T06:00:00.000000Z', 'new', '2025-03-01T06:00:00.000000Z', '2025-03-01T06:00:00.000000Z'"
    )
    log_backend.execute(
        "INSERT INTO complaints (text, udise, district, district_key, school_group, labels, probabilities, urgency,"
        f" urgency_rank, model_version, created_at, status, status_changed_at, event_at) VALUES ({values})"
    )
    log_backend.execute(
        "INSERT INTO alerts (rule, summary, group_key, udise, district, complaint_ids, first_at, last_at, status,"
        " raised_at, updated_at) VALUES ('r', 's', 'udise:10010101001', '10010101001', 'GAYA', '[1]', 'a', 'a',"
        " 'open', 'a', 'a')"
    )
    assert log_backend.open().schema_version == SCHEMA_VERSION
    assert log_backend.execute("SELECT school_group FROM complaints") == [("udise:gaya|10010101001",)]
    assert log_backend.execute("SELECT group_key FROM alerts") == [("udise:gaya|10010101001",)]


def test_complaints_needing_review_head_the_queue_and_can_be_filtered(log_backend):
    store = log_backend.open()
    sure = NewComplaint("lizard in the dal", ["foreign_object"], {"foreign_object": 0.97}, "high", "m1")
    unsure = NewComplaint(
        "खाने में कुछ था",
        ["other"],
        {"other": 0.08},
        "low",
        "m1",
        review_reasons=["no label reached its threshold (most probable: other 0.08 < 0.40)"],
    )
    first, second = store.add_many([sure, unsure])
    items = store.list().items
    assert [c["id"] for c in items] == [second, first]  # low urgency but flagged: reviewed before a sure high one
    assert items[0]["needs_review"] is True and items[0]["review_reasons"] == unsure.review_reasons
    assert [c["id"] for c in store.list(Filters(needs_review=True)).items] == [second]
    assert [c["id"] for c in store.list(Filters(needs_review=False)).items] == [first]


def test_newer_schema_is_refused(log_backend):
    log_backend.migrate_to(SCHEMA_VERSION)
    log_backend.set_version(SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1}, newer than this mealwatch"):
        log_backend.open()


def test_foreign_database_is_refused(log_backend):
    log_backend.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreError, match=r"holds tables \(invoices\).*not a mealwatch complaint log"):
        log_backend.open()
    assert log_backend.tables() == {"invoices"}  # refused without touching it


def test_order_is_urgency_then_newest_and_paging_counts_all(log_backend):
    store = log_backend.open()
    ids = [
        store.add(complaint("a low", ["other"], "low")),
        store.add(complaint("b high", ["illness"], "high")),
        store.add(complaint("c medium", ["poor_hygiene"], "medium")),
        store.add(complaint("d high", ["foreign_object"], "high")),
    ]
    for i, day in zip(ids, ["2024-05-04", "2024-05-01", "2024-05-02", "2024-05-03"]):
        log_backend.backdate(i, f"{day}T09:00:00.000000Z")
    assert [c["text"] for c in store.list().items] == ["d high", "b high", "c medium", "a low"]
    page = store.list(limit=2, offset=1)
    assert page.total == 4 and [c["text"] for c in page.items] == ["b high", "c medium"]
    assert store.list(limit=2, offset=10).total == 4  # past the end: no items, the total still counted


def test_same_time_falls_back_to_the_newest_id(log_backend):
    store = log_backend.open()
    ids = store.add_many([complaint(t, ["illness"], "high") for t in "abc"])  # one transaction: one timestamp
    assert len({c["created_at"] for c in store.list().items}) == 1
    assert [c["id"] for c in store.list().items] == ids[::-1]


def test_filters(log_backend):
    store = log_backend.open()
    a = store.add(complaint("a", ["illness", "spoiled_food"], "high", school="S1"))
    b = store.add(complaint("b", ["spoiled_food"], "medium", school="S2"))
    c = store.add(complaint("c", ["other"], "low", school="S1"))
    log_backend.backdate(a, "2024-05-01T23:59:59.000000Z")
    log_backend.backdate(b, "2024-05-02T00:00:00.000000Z")
    log_backend.backdate(c, "2024-05-03T12:00:00.000000Z")
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


def test_status_moves_and_history(log_backend):
    store = log_backend.open()
    i = store.add(complaint("x", ["illness"], "high"))
    with pytest.raises(TransitionError, match="'new'; it cannot move to 'resolved'.*in_progress"):
        store.set_status(i, "resolved")
    with pytest.raises(TransitionError, match="unknown status 'done'"):
        store.set_status(i, "done")
    assert store.set_status(i, "in_progress")["status"] == "in_progress"
    row = store.set_status(i, "resolved")
    assert row["status"] == "resolved"
    assert [(h["old_status"], h["new_status"]) for h in row["history"]] == [
        ("new", "in_progress"),
        ("in_progress", "resolved"),
    ]
    assert row["status_changed_at"] == row["history"][-1]["changed_at"]
    with pytest.raises(TransitionError):
        store.set_status(i, "resolved")
    assert store.set_status(999, "in_progress") is None
    assert store.get(999) is None
    assert store.get(10**30) is None and store.set_status(10**30, "in_progress") is None  # no 64-bit id: none
    assert store.get(i)["history"] == row["history"]  # a refused move left no trace


def test_rows_have_the_same_shape_on_every_backend(log_backend):
    store = log_backend.open()
    probabilities = {"illness": 0.5, "foreign_object": 0.875, "other": 1e-05}
    labels = ["foreign_object", "illness"]
    saved = NewComplaint("छिपकली मिली", labels, probabilities, "high", "run-a-0123456789ab", None,
                         ["बहुत कम भरोसा"])  # fmt: skip
    i = store.add(saved)
    row = store.set_status(i, "in_progress")
    assert list(row) == ["id", "text", "school", "udise", "district", "block", "incident_at", "channel",
                         "reporter_phone", "extra", "labels", "probabilities", "urgency", "model_version", "created_at",
                         "status", "status_changed_at", "needs_review", "corrected_labels", "corrected_by",
                         "corrected_at", "assignee", "notes", "certainty", "severity", "language", "incident_id",
                         "signals", "review_reasons", "severity_level", "children",
                         "history"]  # fmt: skip
    assert (row["id"], row["text"], row["school"]) == (i, saved.text, None)
    assert (row["labels"], row["urgency"]) == (saved.labels, "high")
    assert list(row["probabilities"].items()) == list(saved.probabilities.items())  # same order, same floats
    assert type(row["id"]) is int and row["needs_review"] is True and row["review_reasons"] == ["बहुत कम भरोसा"]
    assert row["language"] == "hi"  # languages.detect_language, stored with the complaint
    assert TIME.match(row["created_at"]) and TIME.match(row["status_changed_at"])
    assert row["created_at"] <= row["status_changed_at"]
    moved = {"old_status": "new", "new_status": "in_progress", "changed_at": row["status_changed_at"]}
    assert row["history"] == [moved]
    listed = store.list().items[0]
    assert listed == {k: v for k, v in row.items() if k != "history"}


def test_concurrent_saves_lose_nothing_and_survive_a_reopen(log_backend):
    store = log_backend.open()
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
    reopened = log_backend.open()
    texts = {c["text"] for c in reopened.list(limit=None).items}
    assert texts == {f"worker {w} complaint {n}" for w in range(8) for n in range(25)}
    assert reopened.list(Filters(school="S3")).total == 25


# --- SQLite ----------------------------------------------------------------------------------------


def test_new_file_gets_the_current_schema_and_wal(tmp_path):
    store = open_log(tmp_path / "sub" / "log.db")
    assert isinstance(store, SqliteLog) and store.schema_version == SCHEMA_VERSION
    with sqlite3.connect(tmp_path / "sub" / "log.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert sqlite_version(conn) == SCHEMA_VERSION
    store.close()


def test_non_database_and_folder_are_refused(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(StoreError, match="cannot be opened as a complaint log"):
        open_log(junk)
    with pytest.raises(StoreError, match="not a file"):
        open_log(tmp_path)


def test_open_log_picks_the_backend_by_url_scheme(tmp_path):
    assert set(BACKENDS) == {"postgresql", "postgres"}
    assert isinstance(open_log(str(tmp_path / "a.db")), SqliteLog)
    with pytest.raises(StoreError, match=r"mysql://u:\*\*\*@h/db: unknown database URL scheme 'mysql'.*postgresql://"):
        open_log("mysql://u:secret@h/db")


def test_urls_are_printed_without_their_password():
    assert redact("postgresql://ann:s3cret@db.example:5432/log") == "postgresql://ann:***@db.example:5432/log"
    assert (
        redact("postgresql://ann@db/log?password=s3cret&sslmode=require")
        == "postgresql://ann@db/log?password=***&sslmode=require"
    )
    assert redact("postgresql:///log") == "postgresql:///log"
    assert redact(Path("runs/complaints.db")) == "runs/complaints.db"
