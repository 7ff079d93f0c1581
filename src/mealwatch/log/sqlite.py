"""The complaint log in one SQLite file: the embedded default.

One connection in WAL mode with ``synchronous = FULL`` (a complaint whose save returned survives a
power cut), behind one lock, so the log may be shared by threads; every write is one transaction,
committed before the call returns. The schema is versioned and migrated on open (``migrations.py``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..labels import urgency_rank
from .base import (
    COLUMNS,
    DAILY_COUNTS,
    QUEUE_ORDER,
    ComplaintLog,
    Filters,
    NewComplaint,
    SAVED_ANSWER,
    Page,
    SavedAnswer,
    StoreError,
    check_move,
    check_status,
    decode_row,
    decode_saved,
    encode,
    forgotten_before,
    page_clause,
    storable_id,
    utc_now,
    where_clause,
)
from .migrations import migrate_sqlite


def check_writable(path: Path) -> None:
    """StoreError when this user cannot write the log file or the folder beside it (its journal files go there)."""
    for target, what in ((path, "file"), (path.parent, "folder")):
        if (target.exists() or what == "folder") and not os.access(target, os.W_OK):
            raise StoreError(
                f"the complaint log's {what} {target} is read-only for this user: every save would fail; make it "
                "writable, or pass another --db"
            )


def probe_write(conn: sqlite3.Connection) -> None:
    """Raise sqlite3's error when the database cannot be written (a read-only file system or file), writing nothing."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        conn.execute(f"PRAGMA user_version = {version}")  # writes the header page: refused when read-only
    finally:
        conn.execute("ROLLBACK")


class SqliteLog(ComplaintLog):
    """The complaint log in one SQLite file; safe to share between threads (not between processes on a network disk)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"the complaint log {self.path} is not a file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(
                f"cannot create the folder {self.path.parent} for the complaint log ({e.strerror or e}): "
                "pass a --db file in a folder you can write to"
            ) from None
        check_writable(self.path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        try:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")  # a committed complaint survives a power cut
            self._conn.execute("PRAGMA foreign_keys = ON")
            self.schema_version = migrate_sqlite(self._conn)
            probe_write(self._conn)
        except sqlite3.DatabaseError as e:
            self._close_quietly()
            if "readonly" in str(e) or "read-only" in str(e):
                raise StoreError(
                    f"the complaint log {self.path} is read-only ({e}): every save would fail; make the file and its "
                    "folder writable by this user, or pass another --db"
                ) from None
            raise StoreError(f"{self.path} cannot be opened as a complaint log ({e}): pass another --db file") from None
        except StoreError as e:
            self._close_quietly()
            raise StoreError(f"{self.path}: {e}") from None

    def _close_quietly(self) -> None:
        if self._conn is not None:
            self._conn.close()

    def __repr__(self) -> str:
        return f"SqliteLog({str(self.path)!r})"

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def add_many(self, complaints: Sequence[NewComplaint]) -> list[int]:
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            return self._insert(complaints)

    def _insert(self, complaints: Sequence[NewComplaint]) -> list[int]:
        """Insert within the caller's transaction; the ids in order."""
        now = utc_now()
        ids = []
        for c in complaints:
            stored = encode(c)
            cur = self._conn.execute(
                "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version,"
                " created_at, status, status_changed_at, review, needs_review)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'new', ?, ?, ?)",
                (
                    c.text,
                    c.school,
                    stored["labels"],
                    stored["probabilities"],
                    c.urgency,
                    urgency_rank(c.urgency),
                    c.model_version,
                    now,
                    now,
                    stored["review"],
                    int(stored["needs_review"]),
                ),
            )
            ids.append(int(cur.lastrowid))
            self._conn.executemany(
                "INSERT INTO complaint_labels (complaint_id, label) VALUES (?, ?)",
                [(ids[-1], label) for label in dict.fromkeys(c.labels)],
            )
        return ids

    def saved_answer(self, key: str) -> SavedAnswer | None:
        with self._lock:
            row = self._conn.execute(SAVED_ANSWER, (key, forgotten_before())).fetchone()
        return decode_saved(row, replayed=True) if row else None

    def add_many_once(
        self,
        key: str,
        fingerprint: str,
        complaints: Sequence[NewComplaint],
        answer: Callable[[list[int]], tuple[str, str]],
    ) -> SavedAnswer:
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")  # the write lock first: a retry in another process waits here
            cutoff = forgotten_before()
            self._conn.execute("DELETE FROM saved_requests WHERE created_at < ?", (cutoff,))
            row = self._conn.execute(SAVED_ANSWER, (key, cutoff)).fetchone()
            if row is not None:
                return decode_saved(row, replayed=True)
            ids = self._insert(complaints)
            body, media_type = answer(ids)
            self._conn.execute(
                "INSERT INTO saved_requests (key, fingerprint, answer, media_type, complaint_ids, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (key, fingerprint, body, media_type, json.dumps(ids), utc_now()),
            )
        return SavedAnswer(fingerprint, body, media_type, ids)

    def get(self, complaint_id: int) -> dict[str, Any] | None:
        if not storable_id(complaint_id):
            return None
        with self._lock:
            row = self._conn.execute(f"SELECT {COLUMNS} FROM complaints WHERE id = ?", (complaint_id,)).fetchone()
            if row is None:
                return None
            history = self._conn.execute(
                "SELECT old_status, new_status, changed_at FROM status_changes WHERE complaint_id = ? ORDER BY id",
                (complaint_id,),
            ).fetchall()
        d = decode_row(row)
        d["history"] = [dict(h) for h in history]
        return d

    def set_status(self, complaint_id: int, status: str) -> dict[str, Any] | None:
        check_status(status)
        if not storable_id(complaint_id):
            return None
        now = utc_now()
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")  # the write lock first: no other process moves it meanwhile
            row = self._conn.execute("SELECT status FROM complaints WHERE id = ?", (complaint_id,)).fetchone()
            if row is None:
                return None
            old = row["status"]
            check_move(complaint_id, old, status)
            self._conn.execute(
                "UPDATE complaints SET status = ?, status_changed_at = ? WHERE id = ?", (status, now, complaint_id)
            )
            self._conn.execute(
                "INSERT INTO status_changes (complaint_id, old_status, new_status, changed_at) VALUES (?, ?, ?, ?)",
                (complaint_id, old, status, now),
            )
        return self.get(complaint_id)

    def list(self, filters: Filters | None = None, limit: int | None = 50, offset: int = 0) -> Page:
        where, params = where_clause(filters or Filters())
        with self._lock:
            total = self._conn.execute(f"SELECT count(*) FROM complaints{where}", params).fetchone()[0]
            rows = self._conn.execute(
                f"SELECT {COLUMNS} FROM complaints{where}{QUEUE_ORDER}{page_clause(limit, offset)}", params
            ).fetchall()
        return Page(total=int(total), items=[decode_row(r) for r in rows])

    def labels(self) -> set[str]:
        with self._lock:
            return {r[0] for r in self._conn.execute("SELECT DISTINCT label FROM complaint_labels")}

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM complaints").fetchone()[0])

    def daily_label_counts(self, filters: Filters | None = None) -> dict[str, dict[str, int]]:
        where, params = where_clause(filters or Filters())
        with self._lock:
            rows = self._conn.execute(DAILY_COUNTS.format(where=where), params).fetchall()
        counts: dict[str, dict[str, int]] = {}
        for r in rows:
            counts.setdefault(r["day"], {})[r["label"]] = int(r["n"])
        return counts
