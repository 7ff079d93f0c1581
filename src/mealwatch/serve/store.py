"""The complaint log: every saved complaint with the prediction it got, in one SQLite file.

A row keeps what the model said *when the complaint was saved* (labels, probabilities,
urgency and the model's version); loading another model never rewrites old rows. Status
moves new -> in_progress -> resolved (see ``TRANSITIONS``); each change is recorded with its time.

The schema is versioned and migrated on open (see ``migrations.py``).

The store holds one connection in WAL mode behind a lock, so it may be shared by threads;
every write is one transaction, committed before the call returns.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..labels import URGENCY_LEVELS, urgency_rank
from .migrations import SCHEMA_VERSION, StoreError, migrate, schema_version

STATUSES = ("new", "in_progress", "resolved")
#: status -> the statuses it may move to
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "new": ("in_progress",),
    "in_progress": ("resolved", "new"),
    "resolved": ("in_progress",),
}


class TransitionError(ValueError):
    """A status change that is not allowed from the complaint's current status."""


@dataclass
class NewComplaint:
    """What is saved for one complaint."""

    text: str
    labels: list[str]
    probabilities: dict[str, float]
    urgency: str
    model_version: str
    school: str | None = None
    review_reasons: list[str] = field(default_factory=list)  # why a person should check the labels


@dataclass
class Filters:
    """Which complaints to list; every field left None matches everything."""

    label: str | None = None
    urgency: str | None = None
    school: str | None = None
    status: str | None = None
    needs_review: bool | None = None
    since: datetime | None = None  # created at or after (UTC)
    until: datetime | None = None  # created before (UTC)


@dataclass
class Page:
    total: int
    items: list[dict[str, Any]] = field(default_factory=list)


def utc_now() -> str:
    """The current time as stored: ``2025-01-31T14:25:30.123456Z`` (sorts as text)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def to_stored_time(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _row_to_dict(row: sqlite3.Row) -> dict[str, Any]:
    d = dict(row)
    d["labels"] = json.loads(d["labels"])
    d["probabilities"] = json.loads(d["probabilities"])
    d["review_reasons"] = json.loads(d.pop("review"))
    d["needs_review"] = bool(d["needs_review"])
    d.pop("urgency_rank", None)
    return d


class ComplaintStore:
    """The complaint log in one SQLite file; safe to share between threads."""

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
            self.schema_version = migrate(self._conn)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path} cannot be opened as a complaint log ({e}): pass another --db file") from e
        except StoreError as e:
            self._conn.close()
            raise StoreError(f"{self.path}: {e}") from e

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def add(self, complaint: NewComplaint) -> int:
        """Save one complaint; returns its id."""
        return self.add_many([complaint])[0]

    def add_many(self, complaints: Sequence[NewComplaint]) -> list[int]:
        """Save complaints in one transaction (all or none); returns their ids in order."""
        now = utc_now()
        ids = []
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            for c in complaints:
                cur = self._conn.execute(
                    "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version,"
                    " created_at, status, status_changed_at, review, needs_review)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'new', ?, ?, ?)",
                    (
                        c.text,
                        c.school,
                        json.dumps(list(c.labels)),
                        json.dumps(c.probabilities),
                        c.urgency,
                        urgency_rank(c.urgency),
                        c.model_version,
                        now,
                        now,
                        json.dumps(list(c.review_reasons), ensure_ascii=False),
                        int(bool(c.review_reasons)),
                    ),
                )
                ids.append(int(cur.lastrowid))
                self._conn.executemany(
                    "INSERT INTO complaint_labels (complaint_id, label) VALUES (?, ?)",
                    [(ids[-1], label) for label in dict.fromkeys(c.labels)],
                )
        return ids

    def get(self, complaint_id: int) -> dict[str, Any] | None:
        """One complaint with its status history, or None when there is no such id."""
        with self._lock:
            row = self._conn.execute("SELECT * FROM complaints WHERE id = ?", (complaint_id,)).fetchone()
            if row is None:
                return None
            history = self._conn.execute(
                "SELECT old_status, new_status, changed_at FROM status_changes WHERE complaint_id = ? ORDER BY id",
                (complaint_id,),
            ).fetchall()
        d = _row_to_dict(row)
        d["history"] = [dict(h) for h in history]
        return d

    def set_status(self, complaint_id: int, status: str) -> dict[str, Any] | None:
        """Move a complaint to ``status``; None for an unknown id, TransitionError when not allowed."""
        if status not in STATUSES:
            raise TransitionError(f"unknown status {status!r}: expected one of {', '.join(STATUSES)}")
        now = utc_now()
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            row = self._conn.execute("SELECT status FROM complaints WHERE id = ?", (complaint_id,)).fetchone()
            if row is None:
                return None
            old = row["status"]
            if status not in TRANSITIONS[old]:
                allowed = " or ".join(TRANSITIONS[old])
                raise TransitionError(
                    f"complaint {complaint_id} is {old!r}; it cannot move to {status!r} (from {old!r} it may move to {allowed})"
                )
            self._conn.execute(
                "UPDATE complaints SET status = ?, status_changed_at = ? WHERE id = ?", (status, now, complaint_id)
            )
            self._conn.execute(
                "INSERT INTO status_changes (complaint_id, old_status, new_status, changed_at) VALUES (?, ?, ?, ?)",
                (complaint_id, old, status, now),
            )
        return self.get(complaint_id)

    @staticmethod
    def _where(filters: Filters) -> tuple[str, list[Any]]:
        clauses, params = [], []
        if filters.label is not None:
            clauses.append("id IN (SELECT complaint_id FROM complaint_labels WHERE label = ?)")
            params.append(filters.label)
        for column in ("urgency", "school", "status"):
            value = getattr(filters, column)
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if filters.needs_review is not None:
            clauses.append("needs_review = ?")
            params.append(int(filters.needs_review))
        if filters.since is not None:
            clauses.append("created_at >= ?")
            params.append(to_stored_time(filters.since))
        if filters.until is not None:
            clauses.append("created_at < ?")
            params.append(to_stored_time(filters.until))
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params

    def list(self, filters: Filters | None = None, limit: int | None = 50, offset: int = 0) -> Page:
        """Complaints matching ``filters``: those needing review first, then most urgent, then newest; ``total`` counts all."""
        where, params = self._where(filters or Filters())
        order = " ORDER BY needs_review DESC, urgency_rank, created_at DESC, id DESC"
        page = "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"
        with self._lock:
            total = self._conn.execute(f"SELECT count(*) FROM complaints{where}", params).fetchone()[0]
            rows = self._conn.execute(f"SELECT * FROM complaints{where}{order}{page}", params).fetchall()
        return Page(total=int(total), items=[_row_to_dict(r) for r in rows])

    def labels(self) -> set[str]:
        """Every label some saved complaint carries."""
        with self._lock:
            return {r[0] for r in self._conn.execute("SELECT DISTINCT label FROM complaint_labels")}

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM complaints").fetchone()[0])

    def daily_label_counts(self, filters: Filters | None = None) -> dict[str, dict[str, int]]:
        """day (UTC, YYYY-MM-DD) -> label -> number of complaints that day carrying the label."""
        where, params = self._where(filters or Filters())
        sql = (
            "SELECT substr(c.created_at, 1, 10) AS day, l.label AS label, count(*) AS n "
            f"FROM complaint_labels l JOIN (SELECT id, created_at FROM complaints{where}) c ON c.id = l.complaint_id "
            "GROUP BY day, label ORDER BY day, label"
        )
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        counts: dict[str, dict[str, int]] = {}
        for r in rows:
            counts.setdefault(r["day"], {})[r["label"]] = int(r["n"])
        return counts


def day_range(since: date, until: date) -> list[str]:
    """Every day from ``since`` to ``until`` inclusive, as YYYY-MM-DD."""
    return [(since + timedelta(days=i)).isoformat() for i in range((until - since).days + 1)]


__all__ = [
    "ComplaintStore",
    "Filters",
    "NewComplaint",
    "Page",
    "SCHEMA_VERSION",
    "STATUSES",
    "StoreError",
    "TRANSITIONS",
    "TransitionError",
    "URGENCY_LEVELS",
    "migrate",
    "schema_version",
]
