"""The complaint log in one SQLite file: the embedded default.

One connection in WAL mode with ``synchronous = FULL`` (a complaint whose save returned survives a
power cut), behind one lock, so the log may be shared by threads; every write is one transaction,
committed before the call returns. The schema is versioned and migrated on open (``migrations.py``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .base import ComplaintLog, NewComplaint, StoreError, Tx, insert_row, insert_sql
from .counts import count_new
from .migrations import migrate_sqlite


class SqliteLog(ComplaintLog):
    """The complaint log in one SQLite file; safe to share between threads (not between processes on a network disk)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"the complaint log {self.path} is not a file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")  # a committed complaint survives a power cut
            self._conn.execute("PRAGMA foreign_keys = ON")
            self.schema_version = migrate_sqlite(self._conn)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path} cannot be opened as a complaint log ({e}): pass another --db file") from e
        except StoreError as e:
            self._conn.close()
            raise StoreError(f"{self.path}: {e}") from e

    def __repr__(self) -> str:
        return f"SqliteLog({str(self.path)!r})"

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def add_many(self, complaints: Sequence[NewComplaint]) -> list[int]:
        now = self.clock()
        ids = []
        with self._write() as tx:
            for c in complaints:
                cur = tx.conn.execute(insert_sql() + " RETURNING id", insert_row(c, now))
                ids.append(int(cur.fetchone()[0]))
                tx.many(
                    "INSERT INTO complaint_labels (complaint_id, label) VALUES (?, ?)",
                    [(ids[-1], label) for label in dict.fromkeys(c.labels)],
                )
            count_new(tx, complaints, now)
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
