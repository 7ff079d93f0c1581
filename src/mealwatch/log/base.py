"""The complaint log's interface: what the service asks of any storage backend (the shapes it trades in are
defined in ``shapes.py`` and importable from here).

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
import math
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..labels import urgency_rank
from ..records import block_group, fold, school_group
from .account_store import AccountStore, AuditEntry, write_audit
from .incident_store import IncidentStore, refresh_incident_of
from .vector_store import VectorStore
from .shapes import (  # noqa: F401 - the shapes are part of this interface, re-exported
    ComplaintChange,
    CursorError,
    Filters,
    LogDamaged,
    LogUnavailable,
    NewComplaint,
    Page,
    STATUSES,
    Scope,
    StoreError,
    TRANSITIONS,
    TransitionError,
    Tx,
    day_range,
    from_stored_time,
    in_scope,
    redact,
    to_stored_time,
    utc_now,
)


class ComplaintLog(AccountStore, VectorStore, IncidentStore, ABC):
    """The complaint log: safe to share between threads; every write is one transaction, committed on return.

    A backend opens its database and implements ``close``, ``_insert``, ``_read`` and ``_write``; every
    other method is written once, here, on top of ``Tx`` (accounts: ``account_store.AccountStore``; sentence
    vectors: ``vector_store.VectorStore``; incidents: ``incident_store.IncidentStore``). A method
    taking a ``scope`` treats a complaint or alert outside it as missing.
    """

    #: the schema version the log was opened at (after migration: ``migrations.SCHEMA_VERSION``)
    schema_version: int
    #: the current time as stored (``utc_now``); a test or a replay may replace it
    clock: Callable[[], str] = staticmethod(utc_now)

    @abstractmethod
    def close(self) -> None:
        """Release the connection(s); the log is unusable afterwards."""

    def check_pages(self) -> int | None:
        """Read the storage once for damage (LogDamaged naming it); the pages read, None where the backend checks
        its own storage (PostgreSQL's checksums) or the file is too large to read at every start."""
        return None

    def add(self, complaint: NewComplaint) -> int:
        """Save one complaint; returns its id."""
        return self.add_many([complaint])[0]

    def add_many(self, complaints: Sequence[NewComplaint], audit: AuditEntry | None = None) -> list[int]:
        """Save complaints in one transaction (all or none), with their ``audit`` line (its target and detail
        name the ids); returns their ids in order."""
        if not complaints:
            return []
        with self._write() as tx:
            return self._save(tx, complaints, self.clock(), audit)

    def saved_answer(self, key: str) -> SavedAnswer | None:
        """The stored answer of the saving request that carried idempotency ``key``, or None (none, or forgotten)."""
        from .saved_requests import SAVED_ANSWER, decode_saved, forgotten_before

        with self._read() as tx:
            row = tx.one(SAVED_ANSWER, (key, forgotten_before(self.clock())))
        return decode_saved(row, replayed=True) if row else None

    def add_many_once(
        self,
        key: str,
        fingerprint: str,
        complaints: Sequence[NewComplaint],
        answer: Callable[[list[int]], tuple[str, str]],
        audit: AuditEntry | None = None,
    ) -> SavedAnswer:
        """Save complaints, their ``audit`` line and ``answer(ids)`` (body, media type) under ``key`` in one
        transaction — unless ``key`` was saved already (by a retry racing this one, too): then nothing is saved and
        the stored answer returned, ``replayed`` True. Keys older than ``saved_requests.IDEMPOTENCY_HOURS`` are
        forgotten."""
        from .saved_requests import SAVED_ANSWER, SavedAnswer, decode_saved, forgotten_before

        now = self.clock()
        cutoff = forgotten_before(now)
        with self._write() as tx:
            tx.lock(f"idempotency-key {key}")  # a retry racing this request waits here, then finds the key taken
            tx.run("DELETE FROM saved_requests WHERE created_at < ?", (cutoff,))
            row = tx.one(SAVED_ANSWER, (key, cutoff))
            if row is not None:
                return decode_saved(row, replayed=True)
            ids = self._save(tx, complaints, now, audit)
            body, media_type = answer(ids)
            tx.run(
                "INSERT INTO saved_requests (key, fingerprint, answer, media_type, complaint_ids, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (key, fingerprint, body, media_type, json.dumps(ids), now),
            )
        return SavedAnswer(fingerprint, body, media_type, ids)

    def _save(self, tx: Tx, complaints: Sequence[NewComplaint], now: str, audit: AuditEntry | None) -> list[int]:
        """Every save's writes within ``tx``: the complaints and their label rows (``_insert``), their counts and
        their schools' search keys (log/counts.py), their alert check marked due, and the audit line naming them;
        their ids in order."""
        from .counts import count_new

        ids = self._insert(tx, complaints, now)
        count_new(tx, complaints, now)
        tx.many("INSERT INTO alert_checks (complaint_id, queued_at) VALUES (?, ?)", [(i, now) for i in ids])
        if audit is not None:
            target = f"complaints {ids[0]}" + (f"-{ids[-1]}" if len(ids) > 1 else "")
            write_audit(tx, replace(audit, target=target, detail={**audit.detail, "ids": ids}), now)
        return ids

    @abstractmethod
    def _insert(self, tx: Tx, complaints: Sequence[NewComplaint], now: str) -> list[int]:
        """Insert new complaints (and their label rows) within ``tx``, created at ``now``; their ids in order."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Tx]:
        """A consistent read-only view."""

    @abstractmethod
    def _write(self) -> AbstractContextManager[Tx]:
        """A write transaction, committed when the block ends without an exception."""

    # --- one complaint ---------------------------------------------------------------------------

    def get(self, complaint_id: int, scope: Scope = None) -> dict[str, Any] | None:
        """One complaint with its status ``history``, or None when there is no such id (in ``scope``)."""
        if not storable_id(complaint_id):
            return None
        with self._read() as tx:
            found = _get(tx, complaint_id)
        return found if found is not None and in_scope(found["district"], scope) else None

    def set_status(self, complaint_id: int, status: str, by: str | None = None) -> dict[str, Any] | None:
        """Move a complaint to ``status``; None for an unknown id, TransitionError when not allowed."""
        return self.update(complaint_id, ComplaintChange(status=status), by)

    def update(
        self, complaint_id: int, change: ComplaintChange, by: str | None = None, scope: Scope = None
    ) -> dict[str, Any] | None:
        """Apply ``change`` in one transaction, each changed field recorded in the history with ``by`` and the time.

        None for an unknown id; TransitionError (nothing changed) when a status move is not allowed.
        A correction stores the labels beside the predicted ones, makes them the complaint's labels for
        filters and counts, sets its urgency, takes it off the review queue (a person has checked it), and marks
        its alert check due (corrected labels may complete an outbreak).
        """
        if change.status is not None:
            check_status(change.status)
        if change.labels is not None and change.urgency is None:
            raise ValueError("a correction needs the urgency of its labels")
        if not storable_id(complaint_id):
            return None
        now = self.clock()
        with self._write() as tx:
            row = tx.one(f"SELECT {COLUMNS} FROM complaints WHERE id = ?{tx.for_update}", (complaint_id,))
            if row is None or not in_scope(row["district"], scope):
                return None
            old = decode_row(row)
            changes: list[tuple[str, Any, Any]] = []
            if change.status is not None:  # the same status again is no move: refused like any other
                check_move(complaint_id, old["status"], change.status)
                tx.run("UPDATE complaints SET status = ?, status_changed_at = ? WHERE id = ?",
                       (change.status, now, complaint_id))  # fmt: skip
                changes.append(("status", old["status"], change.status))
            if change.labels is not None:
                labels = list(dict.fromkeys(change.labels))
                before = old["corrected_labels"] if old["corrected_labels"] is not None else old["labels"]
                tx.run(
                    "UPDATE complaints SET corrected_labels = ?, corrected_by = ?, corrected_at = ?, urgency = ?,"
                    " urgency_rank = ?, needs_review = ? WHERE id = ?",
                    (json.dumps(labels), by, now, change.urgency, urgency_rank(change.urgency), False, complaint_id),
                )
                tx.run("DELETE FROM complaint_labels WHERE complaint_id = ?", (complaint_id,))
                tx.many("INSERT INTO complaint_labels (complaint_id, label) VALUES (?, ?)",
                        [(complaint_id, label) for label in labels])  # fmt: skip
                changes.append(("labels", before, labels))
                tx.run("INSERT INTO alert_checks (complaint_id, queued_at) VALUES (?, ?)", (complaint_id, now))
                refresh_incident_of(tx, complaint_id, now)  # its incident's worst urgency and lead
            for name in ("assignee", "notes"):
                value = getattr(change, name)
                if value is not None and (value or None) != old[name]:
                    tx.run(f"UPDATE complaints SET {name} = ? WHERE id = ?", (value or None, complaint_id))
                    changes.append((name, old[name], value or None))
            tx.many(
                "INSERT INTO complaint_changes (complaint_id, field, old_value, new_value, changed_by, changed_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(complaint_id, f, _change_text(f, a), _change_text(f, b), by, now) for f, a, b in changes],
            )
            from .counts import add_counts, count_keys

            new = _get(tx, complaint_id)
            deltas = Counter(count_keys(new))
            deltas.subtract(count_keys(old))
            add_counts(tx, deltas)
            return new

    def changes(self, complaint_id: int, scope: Scope = None) -> list[dict[str, Any]] | None:
        """Every change of a complaint's status, labels, assignee and notes, oldest first: ``field, old, new, by,
        at``; None when there is no such complaint (in ``scope``)."""
        if not storable_id(complaint_id):
            return None
        with self._read() as tx:
            row = tx.one("SELECT district FROM complaints WHERE id = ?", (complaint_id,))
            if row is None or not in_scope(row["district"], scope):
                return None
            rows = tx.all(
                "SELECT field, old_value, new_value, changed_by, changed_at FROM complaint_changes"
                " WHERE complaint_id = ? ORDER BY id",
                (complaint_id,),
            )
        return [
            {"field": r["field"], "old": _change_value(r["field"], r["old_value"]),
             "new": _change_value(r["field"], r["new_value"]), "by": r["changed_by"], "at": r["changed_at"]}
            for r in rows
        ]  # fmt: skip

    # --- many complaints -------------------------------------------------------------------------

    def list(
        self,
        filters: Filters | None = None,
        limit: int | None = 50,
        offset: int = 0,
        order: str = "queue",
        after: str | None = None,
    ) -> Page:
        """Complaints matching ``filters`` and their total, in ``order``: ``queue`` (needing review first, then
        most urgent, then newest) or ``review`` (needing review first, then the least certain).

        ``after`` (a previous page's ``next_cursor``) starts the page just after that page's last complaint, at
        the cost of a short page, however deep; ``offset`` (not with ``after``) skips that many complaints,
        at the cost of reading their index entries. CursorError when ``after`` is not a cursor of this ``order``.
        """
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        filters = filters or Filters()
        where, params = where_clause(filters)
        from .cursor import decode_cursor

        start = decode_cursor(after, order) if after is not None else None
        if start is not None and offset:
            raise CursorError("give either a cursor or an offset, not both")
        from .counts import count_matches
        from .cursor import encode_cursor, keyset_rows

        with self._read() as tx:
            total = count_matches(tx, filters, where, params)
            if start is None:
                more = None if limit is None else limit + 1
                rows = tx.all(offset_page_sql(order, where, more, offset), params)
            else:
                rows = keyset_rows(tx, order, where, params, start, 50 if limit is None else limit + 1)
        items = [decode_row(r) for r in rows]
        following = None
        if limit is not None and len(items) > limit:
            items = items[:limit]
            following = encode_cursor(order, items[-1]) if items else None  # limit 0: the total alone
        return Page(total=int(total), items=items, next_cursor=following)

    def labels(self) -> set[str]:
        """Every label some saved complaint carries (its labels as they stand: corrected where an officer set them).

        Read from the counts (``counts.KNOWN_LABELS``), a few thousand rows however large the log."""
        from .counts import KNOWN_LABELS

        with self._read() as tx:
            return {r["label"] for r in tx.all(KNOWN_LABELS)}

    def count(self) -> int:
        """How many complaints the log holds (from the counts)."""
        from .counts import count_matches

        with self._read() as tx:
            return count_matches(tx, Filters(), "", [])

    def daily_label_counts(self, filters: Filters | None = None) -> dict[str, dict[str, int]]:
        """day (UTC, YYYY-MM-DD) -> label -> number of complaints that day carrying the label."""
        from .counts import countable, counts_clause

        filters = filters or Filters()
        with self._read() as tx:
            if countable(filters) and filters.label is None:
                kept, values = counts_clause(filters)
                rows = tx.all(
                    f"SELECT day, label, sum(n) AS n FROM complaint_counts WHERE label <> ''{kept}"
                    " GROUP BY day, label HAVING sum(n) > 0 ORDER BY day, label",
                    values,
                )
            else:
                where, params = where_clause(filters)
                rows = tx.all(DAILY_COUNTS.format(where=where), params)
        counts: dict[str, dict[str, int]] = {}
        for r in rows:
            counts.setdefault(r["day"], {})[r["label"]] = int(r["n"])
        return counts

    def nearby(self, group: str, key: str, since: datetime, until: datetime) -> list[dict[str, Any]]:
        """Complaints of one school (``group`` "school") or block ("block") whose incident time (else arrival
        time) is in [since, until], oldest first, with their labels as corrected where they were."""
        column = {"school": "school_group", "block": "block_group"}[group]
        with self._read() as tx:
            rows = tx.all(
                f"SELECT {COLUMNS} FROM complaints WHERE {column} = ? AND event_at >= ? AND event_at <= ?"
                " ORDER BY event_at, id",
                (key, to_stored_time(since), to_stored_time(until)),
            )
        return [decode_row(r) for r in rows]

    def get_many(self, complaint_ids: Sequence[int]) -> list[dict[str, Any]]:
        """The complaints of these ids (without their history), in id order; unknown ids are left out."""
        wanted = sorted({i for i in complaint_ids if storable_id(i)})
        found = []
        with self._read() as tx:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                found += tx.all(f"SELECT {COLUMNS} FROM complaints WHERE id IN ({marks}) ORDER BY id", chunk)
        return [decode_row(r) for r in found]

    # --- alerts (log/alert_store.py) -------------------------------------------------------------

    def alert_checks_due(self, limit: int = 5000) -> DueChecks:
        """The complaints saved or corrected whose alert check has not run yet, oldest first (at most ``limit``
        marks); hand it back to ``alert_checks_done`` once they are checked."""
        with self._read() as tx:
            rows = tx.all(f"SELECT id, complaint_id FROM alert_checks ORDER BY id LIMIT {int(limit)}")
        ids = list(dict.fromkeys(int(r["complaint_id"]) for r in rows))
        return DueChecks(ids, max((int(r["id"]) for r in rows), default=0))

    def alert_checks_done(self, due: DueChecks) -> None:
        """Clear the marks ``due`` read (a complaint marked again since, by a correction, stays due)."""
        with self._write() as tx:
            tx.run("DELETE FROM alert_checks WHERE id <= ?", (due.through,))

    def record_alert(self, draft: "AlertDraft", window: timedelta) -> "AlertOutcome":
        """Raise the alert ``draft`` describes, or extend the open alert of its rule and place that it overlaps
        (within ``window``), in one transaction; concurrent saves of one place take turns."""
        from .alert_store import record_alert

        with self._write() as tx:
            return record_alert(tx, draft, window, self.clock())

    def list_alerts(
        self, status: str | None = None, limit: int | None = 100, offset: int = 0, scope: Scope = None
    ) -> Page:
        """Alerts (of ``scope``'s districts), open ones first, then the most recent."""
        from .alert_store import list_alerts

        with self._read() as tx:
            if scope is None:
                return list_alerts(tx, status, limit, offset)
            every = [a for a in list_alerts(tx, status, None, 0).items if in_scope(a["district"], scope)]
        return Page(len(every), every[offset:] if limit is None else every[offset : offset + limit])

    def get_alert(self, alert_id: int, scope: Scope = None) -> dict[str, Any] | None:
        from .alert_store import get_alert

        if not storable_id(alert_id):
            return None
        with self._read() as tx:
            alert = get_alert(tx, alert_id)
        return alert if alert is not None and in_scope(alert["district"], scope) else None

    def acknowledge_alert(self, alert_id: int, by: str | None = None, scope: Scope = None) -> dict[str, Any] | None:
        """Mark an alert acknowledged (again: unchanged); None when there is no such alert (in ``scope``)."""
        from .alert_store import acknowledge_alert, get_alert

        if not storable_id(alert_id):
            return None
        with self._write() as tx:
            alert = get_alert(tx, alert_id)
            if alert is None or not in_scope(alert["district"], scope):
                return None
            return acknowledge_alert(tx, alert_id, by, self.clock())


# --- shared by the SQL backends --------------------------------------------------------------------

#: the columns a complaint is read with, in the order of the dicts returned
COLUMNS = (
    "id, text, school, udise, district, block, incident_at, channel, reporter_phone, extra, labels, probabilities,"
    " urgency, model_version, created_at, status, status_changed_at, needs_review, review, corrected_labels,"
    " corrected_by, corrected_at, assignee, notes, certainty, incident_id, signals"
)
#: the columns a new complaint is written with (``insert_row`` gives its values in this order)
INSERT_COLUMNS = (
    "text, school, udise, district, block, incident_at, channel, reporter_phone, extra, labels, probabilities,"
    " urgency, urgency_rank, model_version, created_at, status, status_changed_at, review, needs_review, certainty,"
    " school_key, district_key, block_key, school_group, block_group, event_at"
)
#: the queue: complaints needing review first, then most urgent, then newest
QUEUE_ORDER = " ORDER BY needs_review DESC, urgency_rank, created_at DESC, id DESC"
#: the review queue: complaints needing review first, then the least certain (unknown certainty last)
REVIEW_ORDER = " ORDER BY needs_review DESC, COALESCE(certainty, 2.0), created_at DESC, id DESC"
ORDERS = {"queue": QUEUE_ORDER, "review": REVIEW_ORDER}
DAILY_COUNTS = (
    "SELECT substr(c.created_at, 1, 10) AS day, l.label AS label, count(*) AS n "
    "FROM complaint_labels l JOIN (SELECT id, created_at FROM complaints{where}) c ON c.id = l.complaint_id "
    "GROUP BY day, label ORDER BY day, label"
)
HISTORY_FIELDS = ("status", "labels", "assignee", "notes")


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


def insert_row(c: NewComplaint, now: str) -> tuple:
    """A new complaint's values in ``INSERT_COLUMNS`` order (JSON as text, exactly as every backend writes it);
    ValueError for a probability or certainty that is not a finite number (a NaN is never stored)."""
    numbers = [*c.probabilities.values(), *([c.certainty] if c.certainty is not None else [])]
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers):
        raise ValueError(f"complaint {c.text[:40]!r}: its probabilities are not all finite numbers; nothing is saved")
    incident = to_stored_time(c.incident_at) if c.incident_at is not None else None
    return (
        c.text, c.school, c.udise, c.district, c.block, incident, c.channel, c.reporter_phone,
        json.dumps(c.extra, ensure_ascii=False), json.dumps(list(c.labels)), json.dumps(c.probabilities), c.urgency,
        urgency_rank(c.urgency), c.model_version, now, "new", now,
        json.dumps(list(c.review_reasons), ensure_ascii=False), bool(c.review_reasons), c.certainty,
        fold(c.school) if c.school else None, fold(c.district) if c.district else None,
        fold(c.block) if c.block else None, school_group(c.school, c.udise, c.district),
        block_group(c.district, c.block), incident or now,
    )  # fmt: skip


def insert_sql(mark: str = "?") -> str:
    n = len(INSERT_COLUMNS.split(","))
    return f"INSERT INTO complaints ({INSERT_COLUMNS}) VALUES ({', '.join([mark] * n)})"


def decode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A stored row (selected with ``COLUMNS``) as the service sees it."""
    d = dict(row)
    d["id"] = int(d["id"])
    d["extra"] = json.loads(d["extra"])
    d["labels"] = json.loads(d["labels"])
    d["probabilities"] = json.loads(d["probabilities"])
    d["needs_review"] = bool(d["needs_review"])
    d["review_reasons"] = json.loads(d.pop("review"))
    d["corrected_labels"] = json.loads(d["corrected_labels"]) if d["corrected_labels"] is not None else None
    d["certainty"] = float(d["certainty"]) if d["certainty"] is not None else None
    d["incident_id"] = int(d["incident_id"]) if d["incident_id"] is not None else None
    d["signals"] = json.loads(d["signals"]) if d["signals"] is not None else []
    return d


def effective_labels(row: Mapping[str, Any]) -> list[str]:
    """A complaint's labels as they stand: the corrected ones where an officer set them, else the predicted ones."""
    return row["corrected_labels"] if row["corrected_labels"] is not None else row["labels"]


def _get(tx: Tx, complaint_id: int) -> dict[str, Any] | None:
    row = tx.one(f"SELECT {COLUMNS} FROM complaints WHERE id = ?", (complaint_id,))
    if row is None:
        return None
    history = tx.all(
        "SELECT old_value, new_value, changed_at FROM complaint_changes WHERE complaint_id = ? AND field = 'status'"
        " ORDER BY id",
        (complaint_id,),
    )
    d = decode_row(row)
    d["history"] = [
        {"old_status": h["old_value"], "new_status": h["new_value"], "changed_at": h["changed_at"]} for h in history
    ]
    return d


def _change_text(name: str, value: Any) -> str | None:
    return json.dumps(value, ensure_ascii=False) if name == "labels" and value is not None else value


def _change_value(name: str, text: str | None) -> Any:
    return json.loads(text) if name == "labels" and text is not None else text


def like_pattern(text: str) -> str:
    """A LIKE pattern matching ``text`` anywhere, with ``%``, ``_`` and the escape character itself escaped."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def where_clause(filters: Filters, mark: str = "?") -> tuple[str, list[Any]]:
    """`` WHERE ...`` (or "") and its parameters; ``mark`` is the driver's placeholder."""
    clauses, params = [], []
    if filters.label is not None:
        clauses.append(
            f"EXISTS (SELECT 1 FROM complaint_labels l WHERE l.complaint_id = complaints.id AND l.label = {mark})"
        )
        params.append(filters.label)
    for column in ("urgency", "status", "channel", "udise"):
        value = getattr(filters, column)
        if value is not None:
            clauses.append(f"{column} = {mark}")
            params.append(value)
    if filters.school is not None:
        # a partial name is looked for among the schools (one row each), then their complaints by index
        clauses.append(f"school_key IN (SELECT school_key FROM school_keys WHERE school_key LIKE {mark} ESCAPE '\\')")
        params.append(like_pattern(fold(filters.school)))
    for column in ("district", "block"):
        value = getattr(filters, column)
        if value is not None:
            clauses.append(f"{column}_key = {mark}")
            params.append(fold(value))
    if filters.assignee is not None:
        clauses.append(f"assignee IS NOT NULL AND lower(assignee) = lower({mark})")
        params.append(filters.assignee.strip())
    if filters.corrected is not None:
        clauses.append("corrected_labels IS NOT NULL" if filters.corrected else "corrected_labels IS NULL")
    if filters.districts is not None:
        clauses.append(f"district_key IN ({', '.join([mark] * len(filters.districts))})" if filters.districts
                       else "1 = 0")  # fmt: skip
        params.extend(filters.districts)
    if filters.one_per_incident:  # an incident's lead complaint stands for the others
        clauses.append("(incident_id IS NULL OR EXISTS (SELECT 1 FROM incidents i WHERE i.id = complaints.incident_id"
                       " AND i.lead_id = complaints.id))")  # fmt: skip
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


def offset_page_sql(order: str, where: str, limit: int | None, offset: int) -> str:
    """The query of a page of complaints matching ``where`` in ``order`` that skips ``offset`` of them.

    Deep in the list, the skipped complaints are read as ids from the order's index alone (no row of theirs is
    fetched), then the page's own rows by id: a page 400,000 in reads 400,000 index entries, not 400,000 rows.
    """
    if limit is None or not offset:
        return f"SELECT {COLUMNS} FROM complaints{where}{ORDERS[order]}{page_clause(limit, offset)}"
    return (
        f"SELECT {COLUMNS} FROM complaints WHERE id IN"
        f" (SELECT id FROM complaints{where}{ORDERS[order]}{page_clause(limit, offset)}){ORDERS[order]}"
    )


@dataclass
class DueChecks:
    """Complaints whose alert check is due (``complaint_ids``), as read up to the mark ``through``."""

    complaint_ids: list[int]
    through: int


if TYPE_CHECKING:
    from .alert_store import AlertDraft, AlertOutcome
    from .saved_requests import SavedAnswer
