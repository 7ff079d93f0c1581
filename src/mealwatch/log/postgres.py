"""The complaint log in a PostgreSQL database (psycopg 3): for several servers sharing one log.

``PostgresLog("postgresql://user:password@host:5432/dbname")`` connects, migrates the schema
under an advisory lock (``migrations.migrate_postgres``) and keeps a small pool of connections
(``POOL_SIZE``), so it may be shared by threads. Every write is one transaction, committed before
the call returns; a status change locks its row (``SELECT ... FOR UPDATE``), so two processes moving
the same complaint take turns and the second sees the first's move. Reads that take two queries
(a page and its total, a complaint and its history) see one snapshot.

Rows come back exactly as from SQLite: the same columns (``base.COLUMNS``), JSON stored as text,
times as ``utc_now()`` strings.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row

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
    redact,
    storable_id,
    utc_now,
    where_clause,
)
from .migrations import migrate_postgres

#: most connections one log holds open at once (threads beyond wait for one)
POOL_SIZE = 8
#: seconds a call waits for a free connection before failing
POOL_TIMEOUT = 30.0
#: seconds to wait for the server when connecting, unless the URL sets ``connect_timeout``
CONNECT_TIMEOUT = 10


def one_line(error: BaseException) -> str:
    """A driver's (often multi-line) message as one line."""
    return "; ".join(" ".join(line.split()) for line in str(error).splitlines() if line.strip()).rstrip(".")


class _Taken(Exception):
    """Another request holds the idempotency key: roll back, then read its answer."""


class PostgresLog(ComplaintLog):
    """The complaint log in a PostgreSQL database; safe to share between threads and between processes."""

    def __init__(self, url: str, pool_size: int = POOL_SIZE) -> None:
        self.url = redact(url)  # printable: no password
        self._conninfo = url
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(pool_size)
        self._closed = False
        try:
            options = conninfo_to_dict(url)
            defaults = {"application_name": "mealwatch", "connect_timeout": CONNECT_TIMEOUT}
            self._options: dict[str, Any] = {k: v for k, v in defaults.items() if k not in options}
            conn = self._connect()
        except psycopg.Error as e:
            raise StoreError(
                f"cannot open the complaint log {self.url} ({one_line(e)}): check the --db URL, that the server "
                "is running, and that the database and user exist"
            ) from e
        try:
            self.schema_version = migrate_postgres(conn)
        except StoreError as e:
            conn.close()
            raise StoreError(f"{self.url}: {e}") from e
        except psycopg.Error as e:
            conn.close()
            raise StoreError(f"{self.url} cannot be used as a complaint log ({one_line(e)}): pass another --db") from e
        self._idle.put(conn)

    def __repr__(self) -> str:
        return f"PostgresLog({self.url!r})"

    def _connect(self) -> psycopg.Connection:
        return psycopg.connect(self._conninfo, autocommit=True, row_factory=dict_row, **self._options)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """A connection from the pool (a new one when none is idle), returned afterwards unless it broke."""
        if self._closed:
            raise StoreError(f"the complaint log {self.url} is closed")
        if not self._slots.acquire(timeout=POOL_TIMEOUT):
            raise StoreError(f"the complaint log {self.url}: no free connection after {POOL_TIMEOUT:.0f} s")
        conn = None
        try:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._connect()
            yield conn
        finally:
            if conn is not None:
                if self._closed or conn.closed or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.close()  # broken, or left inside a transaction: never hand it on
                else:
                    self._idle.put(conn)
            self._slots.release()

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    def add_many(self, complaints: Sequence[NewComplaint]) -> list[int]:
        if not complaints:
            return []
        with self._connection() as conn, conn.transaction():
            return self._insert(conn, complaints)

    @staticmethod
    def _insert(conn: psycopg.Connection, complaints: Sequence[NewComplaint]) -> list[int]:
        """Insert within the caller's transaction; the ids in order."""
        now = utc_now()
        rows = []
        for c in complaints:
            stored = encode(c)
            rows.append(
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
                    stored["needs_review"],
                )  # fmt: skip
            )
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version,"
                " created_at, status, status_changed_at, review, needs_review)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 'new', %s, %s, %s) RETURNING id",
                rows,
                returning=True,
            )
            ids = [int(cur.fetchone()["id"])]
            while cur.nextset():
                ids.append(int(cur.fetchone()["id"]))
            cur.executemany(
                "INSERT INTO complaint_labels (complaint_id, label) VALUES (%s, %s)",
                [(i, label) for i, c in zip(ids, complaints) for label in dict.fromkeys(c.labels)],
            )
        return ids

    def saved_answer(self, key: str) -> SavedAnswer | None:
        with self._connection() as conn:
            row = conn.execute(SAVED_ANSWER.replace("?", "%s"), (key, forgotten_before())).fetchone()
        return decode_saved(row, replayed=True) if row else None

    def add_many_once(
        self,
        key: str,
        fingerprint: str,
        complaints: Sequence[NewComplaint],
        answer: Callable[[list[int]], tuple[str, str]],
    ) -> SavedAnswer:
        cutoff = forgotten_before()
        with self._connection() as conn:
            try:
                with conn.transaction():
                    conn.execute("DELETE FROM saved_requests WHERE created_at < %s", (cutoff,))
                    # the key first: a retry racing this request waits on it here, then finds it taken
                    claimed = conn.execute(
                        "INSERT INTO saved_requests (key, fingerprint, answer, media_type, complaint_ids, created_at)"
                        " VALUES (%s, %s, '', '', '[]', %s) ON CONFLICT (key) DO NOTHING RETURNING key",
                        (key, fingerprint, utc_now()),
                    ).fetchone()
                    if claimed is None:
                        raise _Taken
                    ids = self._insert(conn, complaints) if complaints else []
                    body, media_type = answer(ids)
                    conn.execute(
                        "UPDATE saved_requests SET answer = %s, media_type = %s, complaint_ids = %s WHERE key = %s",
                        (body, media_type, json.dumps(ids), key),
                    )
                    return SavedAnswer(fingerprint, body, media_type, ids)
            except _Taken:
                row = conn.execute(SAVED_ANSWER.replace("?", "%s"), (key, cutoff)).fetchone()
                if row is None:
                    raise StoreError(f"the complaint log {self.url}: idempotency key {key!r} vanished") from None
                return decode_saved(row, replayed=True)

    @staticmethod
    def _get(conn: psycopg.Connection, complaint_id: int) -> dict[str, Any] | None:
        row = conn.execute(f"SELECT {COLUMNS} FROM complaints WHERE id = %s", (complaint_id,)).fetchone()
        if row is None:
            return None
        history = conn.execute(
            "SELECT old_status, new_status, changed_at FROM status_changes WHERE complaint_id = %s ORDER BY id",
            (complaint_id,),
        ).fetchall()
        d = decode_row(row)
        d["history"] = [dict(h) for h in history]
        return d

    @contextmanager
    def _snapshot(self) -> Iterator[psycopg.Connection]:
        """A read-only transaction whose queries all see the same committed state."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield conn

    def get(self, complaint_id: int) -> dict[str, Any] | None:
        if not storable_id(complaint_id):
            return None
        with self._snapshot() as conn:
            return self._get(conn, complaint_id)

    def set_status(self, complaint_id: int, status: str) -> dict[str, Any] | None:
        check_status(status)
        if not storable_id(complaint_id):
            return None
        now = utc_now()
        with self._connection() as conn, conn.transaction():
            # the row lock makes a second process wait, then read the status this move wrote
            row = conn.execute("SELECT status FROM complaints WHERE id = %s FOR UPDATE", (complaint_id,)).fetchone()
            if row is None:
                return None
            old = row["status"]
            check_move(complaint_id, old, status)
            conn.execute(
                "UPDATE complaints SET status = %s, status_changed_at = %s WHERE id = %s", (status, now, complaint_id)
            )
            conn.execute(
                "INSERT INTO status_changes (complaint_id, old_status, new_status, changed_at) VALUES (%s, %s, %s, %s)",
                (complaint_id, old, status, now),
            )
            return self._get(conn, complaint_id)

    def list(self, filters: Filters | None = None, limit: int | None = 50, offset: int = 0) -> Page:
        where, params = where_clause(filters or Filters(), "%s")
        with self._snapshot() as conn:
            total = conn.execute(f"SELECT count(*) AS n FROM complaints{where}", params).fetchone()["n"]
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM complaints{where}{QUEUE_ORDER}{page_clause(limit, offset)}", params
            ).fetchall()
        return Page(total=int(total), items=[decode_row(r) for r in rows])

    def labels(self) -> set[str]:
        with self._connection() as conn:
            return {r["label"] for r in conn.execute("SELECT DISTINCT label FROM complaint_labels")}

    def count(self) -> int:
        with self._connection() as conn:
            return int(conn.execute("SELECT count(*) AS n FROM complaints").fetchone()["n"])

    def daily_label_counts(self, filters: Filters | None = None) -> dict[str, dict[str, int]]:
        where, params = where_clause(filters or Filters(), "%s")
        with self._connection() as conn:
            rows = conn.execute(DAILY_COUNTS.format(where=where), params).fetchall()
        counts: dict[str, dict[str, int]] = {}
        for r in rows:
            counts.setdefault(r["day"], {})[r["label"]] = int(r["n"])
        return counts
