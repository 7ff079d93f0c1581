"""The shapes the complaint log trades in: complaints, filters, changes, pages, scopes, stored times, errors;
``Tx``, the transaction every store of ``ComplaintLog`` is written on, and ``Store``, what each store asks of it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from ..records import fold

STATUSES = ("new", "in_progress", "resolved")
#: status -> the statuses it may move to
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "new": ("in_progress",),
    "in_progress": ("resolved", "new"),
    "resolved": ("in_progress",),
}


class StoreError(ValueError):
    """The database cannot be used as a complaint log; the message says why and what to do (one line)."""


class LogClosed(StoreError):
    """The log was closed (``ComplaintLog.close``): every later use, on either backend."""

    def __init__(self, where: str) -> None:
        super().__init__(f"the complaint log {where} is closed: open it again (mealwatch.log.open_log) to use it")


class LogUnavailable(StoreError):
    """The log cannot be read or written just now (a full disk, a database server stopped or unreachable, a lock
    held too long); the message names the cause. ``unknown_outcome``: a write whose commit was sent but never
    acknowledged (the connection broke): it may or may not have been saved."""

    def __init__(self, message: str, unknown_outcome: bool = False) -> None:
        super().__init__(message)
        self.unknown_outcome = unknown_outcome


class LogDamaged(StoreError):
    """The log's file is damaged (its pages do not read as a database); the message says how to restore it."""


class TransitionError(ValueError):
    """A status change that is not allowed from the complaint's current status."""


@dataclass
class NewComplaint:
    """What is saved for one complaint: its text, the model's prediction, and its record (all optional)."""

    text: str
    labels: list[str]
    probabilities: dict[str, float]
    urgency: str
    model_version: str
    school: str | None = None
    review_reasons: list[str] = field(default_factory=list)  # why a person should check the labels
    udise: str | None = None
    district: str | None = None
    block: str | None = None
    incident_at: datetime | None = None  # when it happened (aware); alerts fall back to the arrival time
    channel: str | None = None
    reporter_phone: str | None = None
    extra: dict[str, str] = field(default_factory=dict)  # fields mealwatch has no column for, kept whole
    certainty: float | None = None  # how far the prediction is from its nearest decision threshold (0: a coin toss)
    severity: str | None = None  # the model's severity level (``severity.SEVERITY_LEVELS``); None: by the rule
    language: str | None = None  # the language the model identified (ISO 639-1); None: ``detect_language``


#: the districts an account may see, as ``scope(names)`` gives them; None: every district (and complaints naming
#: none). A complaint, or an alert, outside the scope does not exist for that account.
Scope = tuple[str, ...] | None


def scope(districts: Sequence[str]) -> Scope:
    """The scope of an account's district list: ``["*"]`` is every district, else their folded names."""
    return None if "*" in districts else tuple(sorted({fold(d) for d in districts}))


def in_scope(district: str | None, scope: Scope) -> bool:
    """Whether a complaint or an alert of ``district`` (None: it names none) lies in ``scope``."""
    return scope is None or (district is not None and fold(district) in scope)


@dataclass
class Filters:
    """Which complaints to list; every field left None matches everything."""

    label: str | None = None  # the complaint's labels: the corrected ones where an officer set them
    urgency: str | None = None
    school: str | None = None  # part of the school's name, any case
    status: str | None = None
    needs_review: bool | None = None
    since: datetime | None = None  # created (or, ``dates="incident"``, happened) at or after (UTC)
    until: datetime | None = None  # created (or happened) before (UTC)
    district: str | None = None  # any part of the name, any case
    block: str | None = None  # any part of the name, any case
    channel: str | None = None
    udise: str | None = None
    corrected: bool | None = None  # only complaints whose labels an officer set (True) or did not (False)
    assignee: str | None = None  # exact, any case
    districts: Scope = None  # an account's districts (``scope``): only complaints of these
    unassigned: bool | None = None  # only complaints naming no district (True), or only those naming one (False)
    dates: str = "arrival"  # what since/until read: "arrival" (created_at), or "incident" (its time, else arrival)
    one_per_incident: bool = False  # of each incident (log/incident_store.py) only its lead complaint


@dataclass
class ComplaintChange:
    """Changes to one complaint, applied together; None leaves a field as it is, "" clears assignee or notes."""

    status: str | None = None
    labels: list[str] | None = None  # the true labels (a correction), stored beside the predicted ones
    urgency: str | None = None  # the urgency of the corrected labels (needed with ``labels``)
    assignee: str | None = None
    notes: str | None = None
    district: str | None = None  # another district ("" takes it out of any: unassigned)
    block: str | None = None  # another block ("" clears it)


@dataclass
class Page:
    total: int
    items: list[dict[str, Any]] = field(default_factory=list)
    next_cursor: str | None = None  # pass as ``after`` for the page after this one; None: this is the last


class CursorError(ValueError):
    """A page cursor that this log did not give out for this order; the message says what to do."""


def storable_id(record_id: int) -> bool:
    """Whether ``record_id`` fits a 64-bit integer column (any other id belongs to no complaint or alert)."""
    return -(2**63) <= record_id < 2**63


def page_clause(limit: int | None, offset: int) -> str:
    """`` LIMIT n OFFSET m`` of a page (nothing for every row)."""
    return "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"


# --- time ------------------------------------------------------------------------------------------


def utc_now() -> str:
    """The current time as stored: ``2025-01-31T14:25:30.123456Z`` (sorts as text)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def to_stored_time(moment: datetime) -> str:
    """A time as stored (UTC, ``...Z``); a naive one is taken as UTC."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.isoformat(timespec="microseconds") + "Z"  # strftime's %Y drops a year's leading zeros


def from_stored_time(text: str) -> datetime:
    """A stored time as an aware UTC datetime."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


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


class Tx(ABC):
    """One database transaction (or, for reads, one consistent view) as the shared methods below use it.

    SQL is written with ``?`` placeholders; a backend translates them. Rows come back as dicts.
    """

    #: appended to a SELECT that must lock its rows until the transaction ends ("" where the write lock covers it)
    for_update: str = ""

    @abstractmethod
    def all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    def one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self.all(sql, params)
        return rows[0] if rows else None

    @abstractmethod
    def run(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    @abstractmethod
    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    @abstractmethod
    def lock(self, key: str) -> None:
        """Hold a lock named ``key`` until the transaction ends (writers of the same key take turns)."""


class Store(ABC):
    """What each resource's store (mixed into ``ComplaintLog``) is written on: the log's clock and its one
    transaction boundary, which the backend provides."""

    #: the current time as stored (``utc_now``)
    clock: Callable[[], str]

    @abstractmethod
    def _read(self) -> AbstractContextManager[Tx]:
        """A consistent read-only view."""

    @abstractmethod
    def _write(self) -> AbstractContextManager[Tx]:
        """A write transaction, committed when the block ends without an exception."""
