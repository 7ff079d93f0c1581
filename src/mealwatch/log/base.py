"""The complaint log's interface: what the service asks of any storage backend.

``ComplaintLog`` is the composition of one store per resource — complaints (``complaint_store.py``), accounts and
the audit log (``account_store.py``), alerts and the alert checks due (``alert_store.py``), the page's preferences
(``preference_store.py``), sentence vectors (``vector_store.py``), incidents (``incident_store.py``) — around the
one transaction boundary (``_read``, ``_write``) and the connection's life (``close``, ``check_pages``) that a
backend provides. The shapes they trade in are ``shapes.py``'s.

A row keeps what the model said *when the complaint was saved* (labels, probabilities,
urgency and the model's version); loading another model never rewrites old rows. Status
moves new -> in_progress -> resolved (see ``TRANSITIONS``); each change is recorded with its time.

Every backend returns the same dicts for the same calls: the keys of ``complaint_rows.decode_row`` plus
``history`` from ``get``, times as ``utc_now()`` strings, JSON fields as Python lists and dicts.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

from .account_store import AccountStore
from .alert_store import AlertStore
from .complaint_store import ComplaintStore
from .incident_store import IncidentStore
from .preference_store import PreferenceStore
from .shapes import utc_now
from .vector_store import VectorStore


class ComplaintLog(ComplaintStore, AccountStore, AlertStore, PreferenceStore, VectorStore, IncidentStore):
    """The complaint log: safe to share between threads; every write is one transaction, committed on return.

    A backend opens its database and implements ``close``, ``_insert``, ``_read`` and ``_write``; every
    other method is written once, in its resource's store, on top of ``Tx`` (complaints:
    ``complaint_store.ComplaintStore``; accounts: ``account_store.AccountStore``; alerts and
    the alert checks due: ``alert_store.AlertStore``; the page's preferences: ``preference_store.PreferenceStore``;
    sentence vectors: ``vector_store.VectorStore``; incidents: ``incident_store.IncidentStore``).
    A method taking a ``scope`` treats a complaint or alert outside it as missing.
    """

    #: the schema version the log was opened at (after migration: ``migrations.SCHEMA_VERSION``)
    schema_version: int
    #: the current time as stored (``utc_now``); a test or a replay may replace it
    clock: Callable[[], str] = staticmethod(utc_now)

    @abstractmethod
    def close(self) -> None:
        """Release the connection(s); closing again does nothing, and every later use is a ``LogClosed``."""

    def check_pages(self) -> int | None:
        """Read the storage once for damage (LogDamaged naming it); the pages read, None where the backend checks
        its own storage (PostgreSQL's checksums) or the file is too large to read at every start."""
        return None
