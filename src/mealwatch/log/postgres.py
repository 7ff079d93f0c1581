"""The complaint log in a PostgreSQL database (psycopg 3): for several servers sharing one log.

``PostgresLog("postgresql://user:password@host:5432/dbname")`` connects, migrates the schema
under an advisory lock (``migrations.migrate_postgres``) and keeps a small pool of connections
(``POOL_SIZE``), so it may be shared by threads. Every write is one transaction, committed before
the call returns; a status change locks its row (``SELECT ... FOR UPDATE``), so two processes moving
the same complaint take turns and the second sees the first's move. Reads that take two queries
(a page and its total, a complaint and its history) see one snapshot.

Rows come back exactly as from SQLite: the same columns (``complaint_rows.COLUMNS``), JSON stored as text,
times as ``utc_now()`` strings.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row

from .base import ComplaintLog
from .complaint_rows import insert_row, insert_sql
from .shapes import LogClosed, LogUnavailable, NewComplaint, StoreError, Tx, redact
from .migrations import migrate_postgres

#: most connections one log holds open at once (threads beyond wait for one)
POOL_SIZE = 8
#: seconds a call waits for a free connection before failing
POOL_TIMEOUT = 30.0
#: seconds to wait for the server when connecting, unless the URL sets ``connect_timeout``
CONNECT_TIMEOUT = 10


#: the driver's errors that say the server cannot be used now (stopped, restarting, unreachable, the link broken)
DOWN = (psycopg.OperationalError, psycopg.InterfaceError)


def one_line(error: BaseException) -> str:
    """A driver's (often multi-line) message as one line."""
    return "; ".join(" ".join(line.split()) for line in str(error).splitlines() if line.strip()).rstrip(".")


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
            raise LogClosed(self.url)
        if not self._slots.acquire(timeout=POOL_TIMEOUT):
            raise LogUnavailable(
                f"the database server {self.url} is busy: no free connection after {POOL_TIMEOUT:.0f} s"
            )
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
        self._closed = True  # a connection in use is closed as it comes back
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    def _insert(self, tx: Tx, complaints: Sequence[NewComplaint], now: str) -> list[int]:
        if not complaints:
            return []
        with tx.conn.cursor() as cur:
            cur.executemany(
                insert_sql("%s") + " RETURNING id", [insert_row(c, now) for c in complaints], returning=True
            )
            ids = [int(cur.fetchone()["id"])]
            while cur.nextset():
                ids.append(int(cur.fetchone()["id"]))
            cur.executemany(
                "INSERT INTO complaint_labels (complaint_id, label) VALUES (%s, %s)",
                [(i, label) for i, c in zip(ids, complaints) for label in dict.fromkeys(c.labels)],
            )
        return ids

    @contextmanager
    def _read(self) -> Iterator[Tx]:
        """A read-only transaction whose queries all see the same committed state."""
        try:
            with self._connection() as conn, conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                yield PostgresTx(conn)
        except DOWN as e:
            raise self._down(e, False) from e

    @contextmanager
    def _write(self) -> Iterator[Tx]:
        committing = False
        try:
            with self._connection() as conn, conn.transaction():
                yield PostgresTx(conn)
                committing = True  # the body is done: an error from here on is the commit's, its outcome unknown
        except DOWN as e:
            raise self._down(e, committing) from e

    def _down(self, error: BaseException, unknown_outcome: bool) -> LogUnavailable:
        """The server went away: the idle connections are dropped (they are dead too: the next call connects
        afresh), and the error said as the log's own."""
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                break
        return LogUnavailable(f"the database server {self.url} cannot be used ({one_line(error)})", unknown_outcome)


class PostgresTx(Tx):
    """A transaction on one pooled connection; ``?`` placeholders become psycopg's ``%s``."""

    for_update = " FOR UPDATE"  # a second server waits for this row, then reads what this transaction wrote

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute(self._sql(sql), tuple(params)).fetchall()]

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(self._sql(sql), tuple(params))

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.conn.cursor() as cur:
                cur.executemany(self._sql(sql), rows)

    def lock(self, key: str) -> None:
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))
