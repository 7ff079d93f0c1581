"""The complaint log: one interface (``ComplaintLog``, in base.py), one module per storage backend.

``open_log(db)`` opens (creating and migrating when needed) the log that ``db`` names: a URL whose
scheme is in ``BACKENDS`` opens that backend (``postgresql://`` / ``postgres://``: PostgreSQL),
anything else is a SQLite file path. A new backend is one module defining a ``ComplaintLog``
subclass whose constructor takes the URL, plus its line in ``BACKENDS``.

The log knows nothing of the model: it stores what it is given.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from .account_store import AuditEntry
from .alert_store import ALERT_STATUSES, AlertDraft, AlertOutcome
from .base import ComplaintLog
from .complaint_rows import effective_labels
from .migrations import SCHEMA_VERSION
from .saved_requests import SavedAnswer
from .shapes import (
    STATUSES,
    TRANSITIONS,
    ComplaintChange,
    CursorError,
    Filters,
    LogClosed,
    LogDamaged,
    LogUnavailable,
    NewComplaint,
    Page,
    Scope,
    StoreError,
    TransitionError,
    day_range,
    from_stored_time,
    in_scope,
    redact,
    scope,
    to_stored_time,
    utc_now,
)

#: URL scheme -> "module:class" of the backend that opens it (imported only when used)
BACKENDS: dict[str, str] = {
    "postgresql": "postgres:PostgresLog",
    "postgres": "postgres:PostgresLog",
}


def open_log(db: str | Path) -> ComplaintLog:
    """The complaint log at ``db``: a ``postgresql://`` URL, or the path of a SQLite file (created when missing).

    Raises ``StoreError`` (one line, naming ``db`` without its password) when it cannot be used.
    """
    text = str(db)
    if not isinstance(db, Path) and "://" in text:
        scheme = text.split("://", 1)[0].lower()
        if scheme not in BACKENDS:
            known = ", ".join(f"{s}://" for s in BACKENDS)
            raise StoreError(
                f"{redact(text)}: unknown database URL scheme {scheme!r}: "
                f"pass a {known} URL or the path of a SQLite file"
            )
        module, name = BACKENDS[scheme].split(":")
        try:
            backend = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        except ImportError as e:
            raise StoreError(
                f"the {scheme}:// complaint log needs a package that is missing ({e}): reinstall mealwatch"
            ) from e
        return backend(text)
    from .sqlite import SqliteLog

    return SqliteLog(db)


__all__ = [
    "ALERT_STATUSES",
    "AlertDraft",
    "AlertOutcome",
    "AuditEntry",
    "BACKENDS",
    "ComplaintChange",
    "ComplaintLog",
    "CursorError",
    "Filters",
    "LogClosed",
    "LogDamaged",
    "LogUnavailable",
    "NewComplaint",
    "Page",
    "SavedAnswer",
    "SCHEMA_VERSION",
    "Scope",
    "STATUSES",
    "StoreError",
    "TRANSITIONS",
    "TransitionError",
    "day_range",
    "effective_labels",
    "from_stored_time",
    "in_scope",
    "open_log",
    "redact",
    "scope",
    "to_stored_time",
    "utc_now",
]
