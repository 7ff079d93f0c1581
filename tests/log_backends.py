"""The complaint-log backends as the tests see them, and a throw-away PostgreSQL cluster.

``SqliteBackend`` and ``PostgresBackend`` name one fresh, empty log each (``backend.db``: a file
path or a ``postgresql://`` URL) and give raw SQL access for what the interface does not offer on
purpose: backdating a row, building a log at an old schema version, planting a newer one.

``PgCluster`` runs Debian's PostgreSQL server binaries (``/usr/lib/postgresql/*/bin``) in a temp
folder: initdb as a non-root user (``postgres`` via runuser when the tests run as root), a free
port on 127.0.0.1 with password authentication, its unix socket in the temp folder (trusted, for
the fixture's own admin connection), fsync off. It is started once per test session and deleted
at the end; each test gets a database of its own.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from mealwatch.log import ComplaintLog, NewComplaint, open_log
from mealwatch.log.shapes import utc_now
from mealwatch.log.counts import RECOUNT
from mealwatch.log.migrations import migrate_postgres, migrate_sqlite

PG_USER = "mealwatch"
PG_PASSWORD = "test-password"


def complaint(text: str, labels: list[str], urgency: str, school: str | None = None, version: str = "m1"):
    probs = {label: 0.9 for label in labels} | {"other": 0.1}
    return NewComplaint(text, labels, probs, urgency, version, school)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def execute(db: str | Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Run one statement on the log at ``db`` (a path or a URL), outside the interface; ``?`` marks parameters."""
    if str(db).startswith(("postgresql://", "postgres://")):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as conn:
        return conn.execute(sql, params).fetchall()


def backdate(db: str | Path, complaint_id: int, when: str) -> None:
    """Set a complaint's ``created_at`` (the log always stamps the current time), and rebuild the counts kept by day."""
    execute(db, "UPDATE complaints SET created_at = ? WHERE id = ?", (when, complaint_id))
    for statement in RECOUNT:
        execute(db, statement)


class Backend:
    """One fresh complaint log of one kind; logs opened through ``open`` are closed at the end of the test."""

    name: str
    db: str | Path

    def __init__(self) -> None:
        self.opened: list[ComplaintLog] = []

    def open(self) -> ComplaintLog:
        log = open_log(self.db)
        self.opened.append(log)
        return log

    def close_all(self) -> None:
        for log in self.opened:
            log.close()

    def execute(self, sql: str, params: tuple = ()) -> list[tuple]:
        return execute(self.db, sql, params)

    def backdate(self, complaint_id: int, when: str) -> None:
        backdate(self.db, complaint_id, when)


class SqliteBackend(Backend):
    name = "sqlite"

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.db = folder / "log.db"

    def migrate_to(self, version: int) -> int:
        with contextlib.closing(sqlite3.connect(self.db, isolation_level=None)) as conn:
            return migrate_sqlite(conn, target=version)

    def set_version(self, version: int) -> None:
        self.execute(f"PRAGMA user_version = {int(version)}")

    def tables(self) -> set[str]:
        return {r[0] for r in self.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


class PostgresBackend(Backend):
    name = "postgres"

    def __init__(self, cluster: PgCluster) -> None:
        super().__init__()
        self.cluster = cluster
        self.db = cluster.url(cluster.create_database())

    def migrate_to(self, version: int) -> int:
        import psycopg

        with psycopg.connect(self.db, autocommit=True) as conn:
            return migrate_postgres(conn, target=version)

    def set_version(self, version: int) -> None:
        self.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (version, utc_now()))

    def tables(self) -> set[str]:
        rows = self.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        return {r[0] for r in rows}


def postgres_bin_dir() -> Path | None:
    """The newest Debian PostgreSQL server's bin folder (or the one on PATH); None when there is none."""

    def major(path: str) -> int:
        try:
            return int(Path(path).parent.name.split(".")[0])
        except ValueError:
            return 0

    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=major, reverse=True):
        if os.access(Path(folder) / "initdb", os.X_OK) and os.access(Path(folder) / "pg_ctl", os.X_OK):
            return Path(folder)
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl and Path(initdb).parent == Path(pg_ctl).parent:
        return Path(initdb).parent
    return None


class PgCluster:
    """A PostgreSQL server of its own in a temp folder (see the module's docstring)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="mealwatch-pg-"))
        self.data, self.logfile = self.root / "data", self.root / "server.log"
        self.port = free_port()
        self._names = itertools.count()
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root: run the server as Debian's postgres user
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                self.remove()
                raise RuntimeError("the tests run as root, and there is no 'postgres' user to run the server") from None
            if not shutil.which("runuser"):
                self.remove()
                raise RuntimeError("the tests run as root and runuser (util-linux) is missing")
            self.as_user = ["runuser", "-u", "postgres", "--"]
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._owner = owner

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self.as_user, *args], capture_output=True, text=True, timeout=120)
        if done.returncode:
            log = self.logfile.read_text(errors="replace")[-2000:] if self.logfile.exists() else ""
            raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}): {done.stdout}{done.stderr}{log}")

    def start(self) -> PgCluster:
        pwfile = self.root / "pwfile"
        pwfile.write_text(PG_PASSWORD + "\n")
        if self.as_user:
            os.chown(pwfile, self._owner.pw_uid, self._owner.pw_gid)
        self._run(
            str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", PG_USER, f"--pwfile={pwfile}", "-E", "UTF8",
            "--no-locale", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "--no-instructions",
        )  # fmt: skip
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
            " -c full_page_writes=off -c max_connections=300"
        )
        pg_ctl = [str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.logfile)]
        self._run(*pg_ctl, "-o", options, "-w", "-t", "60", "start")
        return self

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(Exception):
                self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        self.remove()

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, dbname: str, password: str = PG_PASSWORD, user: str = PG_USER) -> str:
        """A URL over TCP with a password, as a user of `mealwatch serve --db` would write it."""
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{dbname}"

    def admin(self):
        """A connection over the unix socket (trusted) to the maintenance database."""
        import psycopg

        return psycopg.connect(host=str(self.root), port=self.port, user=PG_USER, dbname="postgres", autocommit=True)

    def create_database(self) -> str:
        name = f"log_{next(self._names)}"
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return name
