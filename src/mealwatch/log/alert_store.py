"""Outbreak alerts as the log keeps them: raised, extended while open, acknowledged by an officer; and which
complaints still wait for their alert check (table ``alert_checks``, marked in the transaction of each save or
correction).

The rules that decide when to raise one live in ``mealwatch.alerts``; this module only stores what they decide
(``AlertStore``, mixed into ``ComplaintLog``: each call one transaction).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from .shapes import Page, Scope, Store, Tx, from_stored_time, in_scope, page_clause, storable_id, to_stored_time

ALERT_STATUSES = ("open", "acknowledged")
ALERT_COLUMNS = (
    "id, rule, summary, group_key, school, udise, block, district, complaint_ids, first_at, last_at, status,"
    " raised_at, updated_at, acknowledged_at, acknowledged_by"
)


@dataclass
class AlertDraft:
    """What a rule found: the complaints (ids) of one place within its window, and their first and last times."""

    rule: str
    summary: str  # one line an officer reads in the banner
    group_key: str  # the place: a school's or a block's key (``records.school_group`` / ``block_group``)
    complaint_ids: list[int]
    first_at: str  # stored times (``to_stored_time``)
    last_at: str
    school: str | None = None
    udise: str | None = None
    block: str | None = None
    district: str | None = None


@dataclass
class AlertOutcome:
    """The alert as stored after ``record_alert``, and what happened: raised, extended or unchanged."""

    alert: dict[str, Any]
    kind: str
    added: list[int] = field(default_factory=list)  # complaint ids new to the alert


@dataclass
class DueChecks:
    """Complaints whose alert check is due (``complaint_ids``), as read up to the mark ``through``."""

    complaint_ids: list[int]
    through: int


def decode_alert(row: dict[str, Any]) -> dict[str, Any]:
    d = dict(row)
    d["id"] = int(d["id"])
    d["complaint_ids"] = json.loads(d["complaint_ids"])
    return d


def record_alert(tx: Tx, draft: AlertDraft, window: timedelta, now: str) -> AlertOutcome:
    """Extend the open alert of the draft's rule and place that overlaps it (each widened by ``window``),
    else raise a new one — unless an acknowledged alert of that rule and place already holds every one of the
    draft's complaints (a re-check, after a correction or a replayed save, never re-raises what an officer saw)."""
    tx.lock(f"alert|{draft.rule}|{draft.group_key}")
    rows = tx.all(
        f"SELECT {ALERT_COLUMNS} FROM alerts WHERE status = 'open' AND rule = ? AND group_key = ? ORDER BY id",
        (draft.rule, draft.group_key),
    )
    start, end = from_stored_time(draft.first_at), from_stored_time(draft.last_at)
    for row in map(decode_alert, rows):
        if start <= from_stored_time(row["last_at"]) + window and end >= from_stored_time(row["first_at"]) - window:
            added = [i for i in draft.complaint_ids if i not in row["complaint_ids"]]
            first, last = min(row["first_at"], draft.first_at), max(row["last_at"], draft.last_at)
            if not added and (first, last) == (row["first_at"], row["last_at"]):
                return AlertOutcome(row, "unchanged")
            ids = sorted(row["complaint_ids"] + added)
            tx.run(
                "UPDATE alerts SET complaint_ids = ?, first_at = ?, last_at = ?, summary = ?, updated_at = ?"
                " WHERE id = ?",
                (json.dumps(ids), first, last, draft.summary, now, row["id"]),
            )
            return AlertOutcome(get_alert(tx, row["id"]), "extended", added)
    for row in map(decode_alert, tx.all(
        f"SELECT {ALERT_COLUMNS} FROM alerts WHERE status <> 'open' AND rule = ? AND group_key = ? ORDER BY id",
        (draft.rule, draft.group_key),
    )):  # fmt: skip
        if set(draft.complaint_ids) <= set(row["complaint_ids"]):  # an officer has seen exactly these already
            return AlertOutcome(row, "unchanged")
    tx.run(
        "INSERT INTO alerts (rule, summary, group_key, school, udise, block, district, complaint_ids, first_at,"
        " last_at, status, raised_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)",
        (draft.rule, draft.summary, draft.group_key, draft.school, draft.udise, draft.block, draft.district,
         json.dumps(sorted(draft.complaint_ids)), draft.first_at, draft.last_at, now, now),
    )  # fmt: skip
    new = tx.one(
        f"SELECT {ALERT_COLUMNS} FROM alerts WHERE rule = ? AND group_key = ? ORDER BY id DESC LIMIT 1",
        (draft.rule, draft.group_key),
    )
    return AlertOutcome(decode_alert(new), "raised", sorted(draft.complaint_ids))


def get_alert(tx: Tx, alert_id: int) -> dict[str, Any] | None:
    row = tx.one(f"SELECT {ALERT_COLUMNS} FROM alerts WHERE id = ?", (alert_id,))
    return with_incidents(tx, decode_alert(row)) if row is not None else None


def with_incidents(tx: Tx, alert: dict[str, Any]) -> dict[str, Any]:
    """The alert with ``incident_ids``: the incidents (log/incident_store.py) its complaints belong to."""
    from .incident_store import incidents_of

    alert["incident_ids"] = incidents_of(tx, alert["complaint_ids"])
    return alert


def list_alerts(tx: Tx, status: str | None, limit: int | None, offset: int) -> Page:
    where, params = ("", []) if status is None else (" WHERE status = ?", [status])
    total = tx.one(f"SELECT count(*) AS n FROM alerts{where}", params)["n"]
    rows = tx.all(
        f"SELECT {ALERT_COLUMNS} FROM alerts{where} ORDER BY status = 'open' DESC, last_at DESC, id DESC"
        f"{page_clause(limit, offset)}",
        params,
    )
    return Page(int(total), [with_incidents(tx, decode_alert(r)) for r in rows])


def acknowledge_alert(tx: Tx, alert_id: int, by: str | None, now: str) -> dict[str, Any] | None:
    row = tx.one(f"SELECT status FROM alerts WHERE id = ?{tx.for_update}", (alert_id,))
    if row is None:
        return None
    if row["status"] == "open":
        tx.run(
            "UPDATE alerts SET status = 'acknowledged', acknowledged_at = ?, acknowledged_by = ?, updated_at = ?"
            " WHERE id = ?",
            (now, by, now, alert_id),
        )
    return get_alert(tx, alert_id)


class AlertStore(Store):
    """Alerts and the alert checks due, each call one transaction (mixed into ``ComplaintLog``)."""

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

    def record_alert(self, draft: AlertDraft, window: timedelta) -> AlertOutcome:
        """Raise the alert ``draft`` describes, or extend the open alert of its rule and place that it overlaps
        (within ``window``), in one transaction; concurrent saves of one place take turns."""
        with self._write() as tx:
            return record_alert(tx, draft, window, self.clock())

    def list_alerts(
        self, status: str | None = None, limit: int | None = 100, offset: int = 0, scope: Scope = None
    ) -> Page:
        """Alerts (of ``scope``'s districts), open ones first, then the most recent."""
        with self._read() as tx:
            if scope is None:
                return list_alerts(tx, status, limit, offset)
            every = [a for a in list_alerts(tx, status, None, 0).items if in_scope(a["district"], scope)]
        return Page(len(every), every[offset:] if limit is None else every[offset : offset + limit])

    def get_alert(self, alert_id: int, scope: Scope = None) -> dict[str, Any] | None:
        if not storable_id(alert_id):
            return None
        with self._read() as tx:
            alert = get_alert(tx, alert_id)
        return alert if alert is not None and in_scope(alert["district"], scope) else None

    def acknowledge_alert(self, alert_id: int, by: str | None = None, scope: Scope = None) -> dict[str, Any] | None:
        """Mark an alert acknowledged (again: unchanged); None when there is no such alert (in ``scope``)."""
        if not storable_id(alert_id):
            return None
        with self._write() as tx:
            alert = get_alert(tx, alert_id)
            if alert is None or not in_scope(alert["district"], scope):
                return None
            return acknowledge_alert(tx, alert_id, by, self.clock())


__all__ = ["ALERT_STATUSES", "AlertDraft", "AlertOutcome", "AlertStore", "DueChecks", "to_stored_time"]
