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
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..labels import urgency_rank
from ..records import block_group, fold, school_group
from ..languages import detect_language
from ..severity import severity
from .account_store import AccountStore, AuditEntry, write_audit
from .alert_store import AlertStore
from .preference_store import PreferenceStore
from .incident_store import IncidentStore, refresh_incident_of
from .vector_store import VectorStore
from .shapes import (  # noqa: F401 - the shapes are part of this interface, re-exported
    ComplaintChange,
    CursorError,
    Filters,
    LogClosed,
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
    page_clause,
    redact,
    storable_id,
    to_stored_time,
    utc_now,
)


class ComplaintLog(AccountStore, AlertStore, PreferenceStore, VectorStore, IncidentStore, ABC):
    """The complaint log: safe to share between threads; every write is one transaction, committed on return.

    A backend opens its database and implements ``close``, ``_insert``, ``_read`` and ``_write``; every
    other method is written once, here, on top of ``Tx`` (accounts: ``account_store.AccountStore``; alerts and
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
                tx.run("UPDATE complaints SET severity = ? WHERE id = ?", (severity(old["text"], change.urgency),
                                                                          complaint_id))  # fmt: skip
                refresh_incident_of(tx, complaint_id, now)  # its incident's worst urgency and lead
            if change.district is not None or change.block is not None:
                changes += _move(tx, old, change)
                if change.labels is None:  # its school is now one of that district's: its alerts are checked again
                    tx.run("INSERT INTO alert_checks (complaint_id, queued_at) VALUES (?, ?)", (complaint_id, now))
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
        most urgent, then newest), ``review`` (needing review first, then the least certain) or ``triage`` (the
        most severe first, then those needing review, then newest).

        ``after`` (a previous page's ``next_cursor``) starts the page just after that page's last complaint, at
        the cost of a short page, however deep; ``offset`` (not with ``after``) skips that many complaints,
        at the cost of reading their index entries. CursorError when ``after`` is not a cursor of this ``order``.
        """
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        filters = filters or Filters()
        from .cursor import decode_cursor

        start = decode_cursor(after, order) if after is not None else None
        if start is not None and offset:
            raise CursorError("give either a cursor or an offset, not both")
        from .counts import count_matches
        from .cursor import encode_cursor, keyset_rows

        with self._read() as tx:
            where, params = where_clause(filters, places=matching_places(tx, filters))
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
                where, params = where_clause(filters, places=matching_places(tx, filters))
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


# --- shared by the SQL backends --------------------------------------------------------------------

#: the columns a complaint is read with, in the order of the dicts returned
COLUMNS = (
    "id, text, school, udise, district, block, incident_at, channel, reporter_phone, extra, labels, probabilities,"
    " urgency, model_version, created_at, status, status_changed_at, needs_review, review, corrected_labels,"
    " corrected_by, corrected_at, assignee, notes, certainty, severity, language, incident_id, signals"
)
#: the columns a new complaint is written with (``insert_row`` gives its values in this order)
INSERT_COLUMNS = (
    "text, school, udise, district, block, incident_at, channel, reporter_phone, extra, labels, probabilities,"
    " urgency, urgency_rank, model_version, created_at, status, status_changed_at, review, needs_review, certainty,"
    " school_key, district_key, block_key, school_group, block_group, event_at, severity, language"
)
#: the queue: complaints needing review first, then most urgent, then newest
QUEUE_ORDER = " ORDER BY needs_review DESC, urgency_rank, created_at DESC, id DESC"
#: the review queue: complaints needing review first, then the least certain (unknown certainty last)
REVIEW_ORDER = " ORDER BY needs_review DESC, COALESCE(certainty, 2.0), created_at DESC, id DESC"
#: the triage queue: the most severe first (``mealwatch.severity``: a death or a hospital admission, the urgency,
#: the children named), then those needing review, then newest
TRIAGE_ORDER = " ORDER BY severity DESC, needs_review DESC, created_at DESC, id DESC"
ORDERS = {"queue": QUEUE_ORDER, "review": REVIEW_ORDER, "triage": TRIAGE_ORDER}
DAILY_COUNTS = (
    "SELECT substr(c.created_at, 1, 10) AS day, l.label AS label, count(*) AS n "
    "FROM complaint_labels l JOIN (SELECT id, created_at FROM complaints{where}) c ON c.id = l.complaint_id "
    "GROUP BY day, label ORDER BY day, label"
)


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
        block_group(c.district, c.block), incident or now, severity(c.text, c.urgency), detect_language(c.text),
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
    d["severity"] = int(d["severity"])
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


def _move(tx: Tx, old: dict[str, Any], change: ComplaintChange) -> list[tuple[str, Any, Any]]:
    """Put a complaint in another district or block ("" takes it out of one), its search and grouping keys with
    it; the fields that changed, as history rows."""
    district = old["district"] if change.district is None else (change.district or None)
    block = old["block"] if change.block is None else (change.block or None)
    tx.run(
        "UPDATE complaints SET district = ?, district_key = ?, block = ?, block_key = ?, school_group = ?,"
        " block_group = ? WHERE id = ?",
        (district, fold(district) if district else None, block, fold(block) if block else None,
         school_group(old["school"], old["udise"], district), block_group(district, block), old["id"]),
    )  # fmt: skip
    from .counts import keep_places

    keep_places(tx, [(district, block)])
    return [(name, old[name], new) for name, new in (("district", district), ("block", block)) if new != old[name]]


def _change_text(name: str, value: Any) -> str | None:
    return json.dumps(value, ensure_ascii=False) if name == "labels" and value is not None else value


def _change_value(name: str, text: str | None) -> Any:
    return json.loads(text) if name == "labels" and text is not None else text


def like_pattern(text: str) -> str:
    """A LIKE pattern matching ``text`` anywhere, with ``%``, ``_`` and the escape character itself escaped."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def matching_places(tx: Tx, filters: Filters) -> dict[str, list[str]]:
    """The search keys of the districts and blocks whose names hold ``filters``' district and block (any part, any
    case), looked up among the places (``place_keys``: one row each), so that a list then seeks each in its index."""
    found = {}
    for kind in ("district", "block"):
        value = getattr(filters, kind)
        if value is not None:
            rows = tx.all("SELECT place_key FROM place_keys WHERE kind = ? AND place_key LIKE ? ESCAPE '\\'"
                          " ORDER BY place_key", (kind, like_pattern(fold(value))))  # fmt: skip
            found[kind] = [r["place_key"] for r in rows]
    return found


def where_clause(
    filters: Filters, mark: str = "?", places: Mapping[str, Sequence[str]] | None = None
) -> tuple[str, list[Any]]:
    """`` WHERE ...`` (or "") and its parameters; ``mark`` is the driver's placeholder; ``places``: the keys of the
    districts and blocks the filters' partial names match (``matching_places``), else looked up in the query."""
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
    for column in ("district", "block"):  # any part of the name, any case: looked up among places, as schools
        value = getattr(filters, column)
        if value is not None and places is not None and column in places:
            keys = list(places[column])
            clauses.append(f"{column}_key IN ({', '.join([mark] * len(keys))})" if keys else "1 = 0")
            params.extend(keys)
        elif value is not None:
            clauses.append(f"{column}_key IN (SELECT place_key FROM place_keys WHERE kind = '{column}'"
                           f" AND place_key LIKE {mark} ESCAPE '\\')")  # fmt: skip
            params.append(like_pattern(fold(value)))
    if filters.unassigned is not None:
        clauses.append("district_key IS NULL" if filters.unassigned else "district_key IS NOT NULL")
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
    moment = "event_at" if filters.dates == "incident" else "created_at"  # the incident time, else the arrival
    if filters.since is not None:
        clauses.append(f"{moment} >= {mark}")
        params.append(to_stored_time(filters.since))
    if filters.until is not None:
        clauses.append(f"{moment} < {mark}")
        params.append(to_stored_time(filters.until))
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


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


if TYPE_CHECKING:
    from .saved_requests import SavedAnswer
