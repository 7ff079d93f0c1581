"""Outbreak alerts as the log keeps them: raised, extended while open, acknowledged by an officer.

The rules that decide when to raise one live in ``mealwatch.alerts``; this module only stores what
they decide, in the caller's transaction (``ComplaintLog.record_alert`` and friends).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from .base import Page, Tx, from_stored_time, page_clause, to_stored_time

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


__all__ = ["ALERT_STATUSES", "AlertDraft", "AlertOutcome", "to_stored_time"]
