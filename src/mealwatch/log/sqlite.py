"""The complaint log in one SQLite file: the embedded default.

One connection in WAL mode with ``synchronous = FULL`` (a complaint whose save returned survives a
power cut), behind one lock, so the log may be shared by threads; every write is one transaction,
committed before the call returns. The schema is versioned and migrated on open (``migrations.py``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .base import ComplaintLog
from .complaint_rows import insert_row, insert_sql
from .shapes import LogClosed, LogDamaged, LogUnavailable, NewComplaint, StoreError, Tx
from .migrations import migrate_sqlite

#: sqlite3's words for a log that cannot be used now -> what the service says (a 503 naming it)
UNAVAILABLE = {
    "database or disk is full": "the disk holding the complaint log is full",
    "disk i/o error": "the complaint log's disk reports an input/output error",
    "database is locked": "the complaint log is locked by another process",
    "readonly": "the complaint log has become read-only",
    "unable to open database file": "the complaint log's file cannot be opened",
}
#: the largest log file whose every page is read at start (a quick check reads about a gigabyte in seconds)
CHECK_PAGES_BYTES = 1 << 30
#: sqlite3's words for a damaged file
DAMAGED = ("malformed", "file is not a database", "database corrupt")


def translated(error: sqlite3.Error, path: Path) -> Exception:
    """A driver error as the log's own: LogDamaged, LogUnavailable, or the error itself (a bug, not the disk)."""
    text = str(error).lower()
    if isinstance(error, sqlite3.DatabaseError) and any(d in text for d in DAMAGED):
        return LogDamaged(
            f"the complaint log {path} is damaged ({error}): stop the service, restore the file from a backup "
            f"(`sqlite3 {path} .recover` may save its rows), and start again"
        )
    if isinstance(error, sqlite3.OperationalError):
        cause = next((v for k, v in UNAVAILABLE.items() if k in text), None)
        if cause is not None:
            return LogUnavailable(f"{cause} ({path}: {error})")
    return error


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


def create_private(path: Path) -> None:
    """Create the log's file, when missing, readable and writable by this user alone (0600): it holds reporters'
    phone numbers and password hashes. SQLite gives its journal files the same mode."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass


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
            create_private(self.path)
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
            if "malformed" in str(e) or "corrupt" in str(e):  # a log once; not a file of something else
                raise translated(e, self.path) from None
            raise StoreError(f"{self.path} cannot be opened as a complaint log ({e}): pass another --db file") from None
        except OSError as e:
            self._close_quietly()
            why = e.strerror or e
            raise StoreError(f"cannot create the complaint log {self.path} ({why}): pass another --db") from None
        except StoreError as e:
            self._close_quietly()
            raise StoreError(f"{self.path}: {e}") from None

    def check_pages(self) -> int | None:
        """Read every page of the file (``PRAGMA quick_check``; LogDamaged naming the first problems); the pages
        read, or None for a file over ``CHECK_PAGES_BYTES`` (checked by hand: ``sqlite3 FILE 'PRAGMA quick_check'``)."""
        if self.path.stat().st_size > CHECK_PAGES_BYTES:
            return None
        with self._read() as tx:
            found = [" ".join(r["quick_check"].split()) for r in tx.all("PRAGMA quick_check(3)")]  # one line
            pages = int(tx.one("PRAGMA page_count")["page_count"])
        if found != ["ok"]:
            raise translated(sqlite3.DatabaseError(f"database disk image is malformed: {'; '.join(found)}"), self.path)
        return pages

    def _close_quietly(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __repr__(self) -> str:
        return f"SqliteLog({str(self.path)!r})"

    def close(self) -> None:
        with self._lock:
            self._close_quietly()

    def _open_connection(self) -> sqlite3.Connection:
        """The log's connection (its lock held); LogClosed once the log was closed."""
        if self._conn is None:
            raise LogClosed(str(self.path))
        return self._conn

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
            conn = self._open_connection()
            try:
                conn.execute("BEGIN")  # deferred: one snapshot for every query of the view
                try:
                    yield SqliteTx(conn)
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as e:
                raise translated(e, self.path) from e

    @contextmanager
    def _write(self) -> Iterator["SqliteTx"]:
        with self._lock:
            conn = self._open_connection()
            try:
                with conn:  # a commit that fails (a full disk) rolls back: nothing half written
                    conn.execute("BEGIN IMMEDIATE")  # the write lock first: no other process writes meanwhile
                    yield SqliteTx(conn)
            except sqlite3.Error as e:
                raise translated(e, self.path) from e


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
