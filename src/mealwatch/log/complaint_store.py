"""Complaints as the log keeps them: saved (each save with its counts, its alert check marked due, its audit line
and, for a request carrying an idempotency key, its answer, in one transaction), read one by one or a page at a
time, corrected, moved and counted (``ComplaintStore``, mixed into ``ComplaintLog``: each call one transaction).

How a complaint is stored as a row (columns, orders, filters) is ``complaint_rows.py``'s; the counts kept beside
the rows ``counts.py``'s; the keyset cursors ``cursor.py``'s; the requests' answers ``saved_requests.py``'s.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..labels import urgency_rank
from ..records import block_group, fold, school_group
from ..severity import with_urgency
from .account_store import AuditEntry, write_audit
from .complaint_rows import (
    COLUMNS,
    DAILY_COUNTS,
    ORDERS,
    check_move,
    check_status,
    decode_row,
    matching_places,
    offset_page_sql,
    where_clause,
)
from .counts import (
    KNOWN_LABELS,
    add_counts,
    count_keys,
    count_matches,
    count_new,
    countable,
    counts_clause,
    keep_places,
)
from .cursor import decode_cursor, encode_cursor, keyset_rows
from .incident_store import leave_incident, refresh_incident_of
from .vector_store import touch_vector
from .saved_requests import SAVED_ANSWER, SavedAnswer, decode_saved, forgotten_before
from .shapes import (
    ComplaintChange,
    CursorError,
    Filters,
    NewComplaint,
    Page,
    Scope,
    Store,
    Tx,
    in_scope,
    storable_id,
    to_stored_time,
)


class ComplaintStore(Store):
    """The complaints: saved, read, paged, corrected and counted, each call one transaction (mixed into
    ``ComplaintLog``, whose backend writes a save's complaint and label rows: ``_insert``). A method taking a
    ``scope`` treats a complaint outside it as missing."""

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
                tx.run(
                    "UPDATE complaints SET severity = ? WHERE id = ?",
                    (with_urgency(old["severity"], change.urgency), complaint_id),
                )
                refresh_incident_of(tx, complaint_id, now)  # its incident's worst urgency and lead
            if change.district is not None or change.block is not None:
                changes += _move(tx, old, change, now)
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
        start = decode_cursor(after, order) if after is not None else None
        if start is not None and offset:
            raise CursorError("give either a cursor or an offset, not both")
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
        with self._read() as tx:
            return {r["label"] for r in tx.all(KNOWN_LABELS)}

    def count(self) -> int:
        """How many complaints the log holds (from the counts)."""
        with self._read() as tx:
            return count_matches(tx, Filters(), "", [])

    def daily_label_counts(self, filters: Filters | None = None) -> dict[str, dict[str, int]]:
        """day (UTC, YYYY-MM-DD) -> label -> number of complaints that day carrying the label."""
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


def _move(tx: Tx, old: dict[str, Any], change: ComplaintChange, now: str) -> list[tuple[str, Any, Any]]:
    """Put a complaint in another district or block ("" takes it out of one), its search and grouping keys with
    it; moved to another district, it leaves its incident (``leave_incident``) and its vector is written again, so
    that every search index reads its new district; the fields that changed, as history rows."""
    district = old["district"] if change.district is None else (change.district or None)
    block = old["block"] if change.block is None else (change.block or None)
    tx.run(
        "UPDATE complaints SET district = ?, district_key = ?, block = ?, block_key = ?, school_group = ?,"
        " block_group = ? WHERE id = ?",
        (district, fold(district) if district else None, block, fold(block) if block else None,
         school_group(old["school"], old["udise"], district), block_group(district, block), old["id"]),
    )  # fmt: skip
    keep_places(tx, [(district, block)])
    if (fold(district) if district else None) != (fold(old["district"]) if old["district"] else None):
        leave_incident(tx, old["id"], now)
        touch_vector(tx, old["id"])
    return [(name, old[name], new) for name, new in (("district", district), ("block", block)) if new != old[name]]


def _change_text(name: str, value: Any) -> str | None:
    return json.dumps(value, ensure_ascii=False) if name == "labels" and value is not None else value


def _change_value(name: str, text: str | None) -> Any:
    return json.loads(text) if name == "labels" and text is not None else text
