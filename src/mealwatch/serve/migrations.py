"""The complaint log's schema, versioned with ``PRAGMA user_version``, and its migrations.

  1: complaints (labels and probabilities as JSON) and status_changes
  2: complaint_labels, one row per (complaint, label), for filtering and daily counts
  3: review reasons (JSON list) and needs_review on complaints; flagged complaints head the queue

``migrate`` applies the missing steps in order, one transaction each. A file written by a
newer mealwatch, or a SQLite file holding other tables, is refused rather than guessed at.
"""
from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 3

_MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE complaints (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        text TEXT NOT NULL,
        school TEXT,
        labels TEXT NOT NULL,          -- JSON list, in the model's label order
        probabilities TEXT NOT NULL,   -- JSON object label -> probability
        urgency TEXT NOT NULL,
        urgency_rank INTEGER NOT NULL, -- 0 high, 1 medium, 2 low
        model_version TEXT NOT NULL,
        created_at TEXT NOT NULL,      -- UTC, ISO 8601 with microseconds and Z
        status TEXT NOT NULL DEFAULT 'new',
        status_changed_at TEXT NOT NULL
    );
    CREATE INDEX complaints_triage ON complaints (urgency_rank, created_at DESC);
    CREATE TABLE status_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        complaint_id INTEGER NOT NULL REFERENCES complaints (id),
        old_status TEXT NOT NULL,
        new_status TEXT NOT NULL,
        changed_at TEXT NOT NULL
    );
    """,
    2: """
    CREATE TABLE complaint_labels (
        complaint_id INTEGER NOT NULL REFERENCES complaints (id),
        label TEXT NOT NULL,
        PRIMARY KEY (complaint_id, label)
    );
    CREATE INDEX complaint_labels_label ON complaint_labels (label);
    INSERT INTO complaint_labels (complaint_id, label)
        SELECT complaints.id, json_each.value FROM complaints, json_each(complaints.labels);
    """,
    3: """
    ALTER TABLE complaints ADD COLUMN review TEXT NOT NULL DEFAULT '[]';  -- JSON list of reasons
    ALTER TABLE complaints ADD COLUMN needs_review INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX complaints_queue ON complaints (needs_review DESC, urgency_rank, created_at DESC);
    """,
}


class StoreError(ValueError):
    """The database file cannot be used as a complaint log; the message says why and what to do."""


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the database up to schema ``target``, one step per transaction; returns the version reached."""
    current = schema_version(conn)
    if current > SCHEMA_VERSION:
        raise StoreError(
            f"the complaint log has schema version {current}, newer than this mealwatch understands "
            f"({SCHEMA_VERSION}): upgrade mealwatch, or pass another --db file"
        )
    if current == 0:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if tables:
            raise StoreError(
                f"the database holds tables ({', '.join(sorted(tables))}) but no complaint-log schema version: "
                "it is not a mealwatch complaint log; pass another --db file"
            )
    for version in range(current + 1, target + 1):
        with conn:  # one transaction per step: a failed step leaves the previous version intact
            conn.execute("BEGIN IMMEDIATE")
            for statement in _MIGRATIONS[version].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
    return schema_version(conn)
