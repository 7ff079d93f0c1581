"""The complaint log in one SQLite file: the embedded default.

One connection in WAL mode with ``synchronous = FULL`` (a complaint whose save returned survives a
power cut), behind one lock, so the log may be shared by threads; every write is one transaction,
committed before the call returns. The schema is versioned and migrated on open (``migrations.py``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .base import ComplaintLog, NewComplaint, StoreError, Tx, insert_row, insert_sql
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

    def _insert(self, tx: Tx, complaints: Sequence[NewComplaint], now: str) -> list[int]:
        ids = []
        for c in complaints:
            ids.append(int(tx.one(insert_sql() + " RETURNING id", insert_row(c, now))["id"]))
            tx.many(
                "INSERT INTO complaint_labels (complaint_id, label) VALUES (?, ?)",
                [(ids[-1], label) for label in dict.fromkeys(c.labels)],
            )
        return ids

    @contextmanager
    def _read(self) -> Iterator[Tx]:
        with self._lock:
            self._conn.execute("BEGIN")  # deferred: one snapshot for every query of the view
            try:
                yield SqliteTx(self._conn)
            finally:
                self._conn.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator["SqliteTx"]:
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")  # the write lock first: no other process writes meanwhile
            yield SqliteTx(self._conn)


class SqliteTx(Tx):
    """A transaction on the log's one connection (the log's lock held)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute(sql, tuple(params)).fetchall()]

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(sql, tuple(params))

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self.conn.executemany(sql, rows)

    def lock(self, key: str) -> None:
        """Nothing to do: BEGIN IMMEDIATE already made this the only writer of the file."""
