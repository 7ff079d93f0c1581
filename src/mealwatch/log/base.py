"""The complaint log's interface: what the service asks of any storage backend, and the shapes it trades in.

A row keeps what the model said *when the complaint was saved* (labels, probabilities,
urgency and the model's version); loading another model never rewrites old rows. Status
moves new -> in_progress -> resolved (see ``TRANSITIONS``); each change is recorded with its time.

Every backend returns the same dicts for the same calls: the keys of ``decode_row`` plus
``history`` from ``get``, times as ``utc_now()`` strings, JSON fields as Python lists and dicts.
The SQL that both SQL backends share (the filter clause, the queue order, the row decoding)
lives here so that they cannot drift apart.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

STATUSES = ("new", "in_progress", "resolved")
#: status -> the statuses it may move to
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "new": ("in_progress",),
    "in_progress": ("resolved", "new"),
    "resolved": ("in_progress",),
}


class StoreError(ValueError):
    """The database cannot be used as a complaint log; the message says why and what to do (one line)."""


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
class SavedAnswer:
    """The answer to a saving request that carried an idempotency key, as stored with the complaints it saved."""

    fingerprint: str  # what the request asked (a hash); the same key with another fingerprint is another request
    answer: str  # the response body
    media_type: str
    complaint_ids: list[int]
    replayed: bool = False  # True when an earlier request with this key saved it (nothing new was saved)


#: how long a saving request's answer is kept for its retries (older keys are forgotten, hours)
IDEMPOTENCY_HOURS = 24


@dataclass
class Page:
    total: int
    items: list[dict[str, Any]] = field(default_factory=list)


# --- time ------------------------------------------------------------------------------------------


def utc_now() -> str:
    """The current time as stored: ``2025-01-31T14:25:30.123456Z`` (sorts as text)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def to_stored_time(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.isoformat(timespec="microseconds") + "Z"  # strftime's %Y drops a year's leading zeros


def day_range(since: date, until: date) -> list[str]:
    """Every day from ``since`` to ``until`` inclusive, as YYYY-MM-DD."""
    return [(since + timedelta(days=i)).isoformat() for i in range((until - since).days + 1)]


def redact(db: object) -> str:
    """``db`` (a path or a URL) as it may be printed: a URL's password replaced by ``***``."""
    text = str(db)
    if "://" not in text:
        return text
    parts = urlsplit(text)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "***" if k == "password" else v) for k, v in pairs], safe="/:*")
    tail = (f"?{query}" if query else "") + (f"#{parts.fragment}" if parts.fragment else "")
    return f"{parts.scheme}://{netloc}{parts.path}{tail}"


# --- the interface ---------------------------------------------------------------------------------


class ComplaintLog(ABC):
    """The complaint log: safe to share between threads; every write is one transaction, committed on return."""

    #: the schema version the log was opened at (after migration: ``migrations.SCHEMA_VERSION``)
    schema_version: int

    @abstractmethod
    def close(self) -> None:
        """Release the connection(s); the log is unusable afterwards."""

    def add(self, complaint: NewComplaint) -> int:
        """Save one complaint; returns its id."""
        return self.add_many([complaint])[0]

    @abstractmethod
    def add_many(self, complaints: Sequence[NewComplaint]) -> list[int]:
        """Save complaints in one transaction (all or none); returns their ids in order."""

    @abstractmethod
    def saved_answer(self, key: str) -> SavedAnswer | None:
        """The stored answer of the saving request that carried idempotency ``key``, or None (none, or forgotten)."""

    @abstractmethod
    def add_many_once(
        self,
        key: str,
        fingerprint: str,
        complaints: Sequence[NewComplaint],
        answer: Callable[[list[int]], tuple[str, str]],
    ) -> SavedAnswer:
        """Save complaints and ``answer(ids)`` (body, media type) under ``key`` in one transaction — unless ``key``
        was saved already (by a retry racing this one, too): then nothing is saved and the stored answer returned,
        ``replayed`` True. Keys older than ``IDEMPOTENCY_HOURS`` are forgotten."""

    @abstractmethod
    def get(self, complaint_id: int) -> dict[str, Any] | None:
        """One complaint with its status ``history``, or None when there is no such id."""

    @abstractmethod
    def set_status(self, complaint_id: int, status: str) -> dict[str, Any] | None:
        """Move a complaint to ``status``; None for an unknown id, TransitionError when not allowed."""

    @abstractmethod
    def list(self, filters: Filters | None = None, limit: int | None = 50, offset: int = 0) -> Page:
        """Complaints matching ``filters`` (needing review first, then most urgent, then newest) and their total."""

    @abstractmethod
    def labels(self) -> set[str]:
        """Every label some saved complaint carries."""

    @abstractmethod
    def count(self) -> int:
        """How many complaints the log holds."""

    @abstractmethod
    def daily_label_counts(self, filters: Filters | None = None) -> dict[str, dict[str, int]]:
        """day (UTC, YYYY-MM-DD) -> label -> number of complaints that day carrying the label."""


# --- shared by the SQL backends --------------------------------------------------------------------

#: the columns a complaint is read with, in the order of the dicts returned
COLUMNS = (
    "id, text, school, labels, probabilities, urgency, model_version, created_at, status, status_changed_at,"
    " needs_review, review"
)
#: the queue: complaints needing review first, then most urgent, then newest
QUEUE_ORDER = " ORDER BY needs_review DESC, urgency_rank, created_at DESC, id DESC"
DAILY_COUNTS = (
    "SELECT substr(c.created_at, 1, 10) AS day, l.label AS label, count(*) AS n "
    "FROM complaint_labels l JOIN (SELECT id, created_at FROM complaints{where}) c ON c.id = l.complaint_id "
    "GROUP BY day, label ORDER BY day, label"
)


def storable_id(complaint_id: int) -> bool:
    """Whether ``complaint_id`` fits a 64-bit integer column (any other id belongs to no complaint)."""
    return -(2**63) <= complaint_id < 2**63


def check_status(status: str) -> None:
    if status not in STATUSES:
        raise TransitionError(f"unknown status {status!r}: expected one of {', '.join(STATUSES)}")


def check_move(complaint_id: int, old: str, status: str) -> None:
    """TransitionError when a complaint in status ``old`` may not move to ``status``."""
    if status not in TRANSITIONS[old]:
        allowed = " or ".join(TRANSITIONS[old])
        raise TransitionError(
            f"complaint {complaint_id} is {old!r}; it cannot move to {status!r} (from {old!r} it may move to {allowed})"
        )


def encode(c: NewComplaint) -> dict[str, Any]:
    """The stored form of a new complaint's fields (JSON as text, exactly as every backend writes it)."""
    return {
        "labels": json.dumps(list(c.labels)),
        "probabilities": json.dumps(c.probabilities),
        "review": json.dumps(list(c.review_reasons), ensure_ascii=False),
        "needs_review": bool(c.review_reasons),
    }


def decode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A stored row (selected with ``COLUMNS``) as the service sees it."""
    d = dict(row)
    d["id"] = int(d["id"])
    d["labels"] = json.loads(d["labels"])
    d["probabilities"] = json.loads(d["probabilities"])
    d["needs_review"] = bool(d["needs_review"])
    d["review_reasons"] = json.loads(d.pop("review"))
    return d


def where_clause(filters: Filters, mark: str = "?") -> tuple[str, list[Any]]:
    """`` WHERE ...`` (or "") and its parameters; ``mark`` is the driver's placeholder."""
    clauses, params = [], []
    if filters.label is not None:
        clauses.append(f"id IN (SELECT complaint_id FROM complaint_labels WHERE label = {mark})")
        params.append(filters.label)
    for column in ("urgency", "school", "status"):
        value = getattr(filters, column)
        if value is not None:
            clauses.append(f"{column} = {mark}")
            params.append(value)
    if filters.needs_review is not None:
        clauses.append(f"needs_review = {mark}")
        params.append(bool(filters.needs_review))
    if filters.since is not None:
        clauses.append(f"created_at >= {mark}")
        params.append(to_stored_time(filters.since))
    if filters.until is not None:
        clauses.append(f"created_at < {mark}")
        params.append(to_stored_time(filters.until))
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def page_clause(limit: int | None, offset: int) -> str:
    return "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"


#: a saving request's stored answer, by key, unless forgotten (parameters: key, forgotten_before(); "?" marks)
SAVED_ANSWER = (
    "SELECT fingerprint, answer, media_type, complaint_ids FROM saved_requests WHERE key = ? AND created_at >= ?"
)


def decode_saved(row: Mapping[str, Any], replayed: bool) -> SavedAnswer:
    """A ``saved_requests`` row (fingerprint, answer, media_type, complaint_ids) as a SavedAnswer."""
    return SavedAnswer(row["fingerprint"], row["answer"], row["media_type"], json.loads(row["complaint_ids"]), replayed)


def forgotten_before() -> str:
    """The stored time before which idempotency keys are forgotten."""
    return to_stored_time(datetime.now(timezone.utc) - timedelta(hours=IDEMPOTENCY_HOURS))
