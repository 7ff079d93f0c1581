"""A complaint as the SQL backends store it, written once so that SQLite and PostgreSQL cannot drift apart:
the columns it is read and written with, the queue orders, the filter clause, a stored row decoded into the dict
every backend returns, and the status moves allowed."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..labels import urgency_rank
from ..languages import detect_language
from ..records import block_group, fold, school_group
from ..children import children_text
from ..severity import TriageKey, keyword_level, triage_key
from .shapes import STATUSES, TRANSITIONS, Filters, NewComplaint, TransitionError, Tx, page_clause, to_stored_time

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
        block_group(c.district, c.block), incident or now,
        triage_key(c.severity or keyword_level(c.text, c.labels), c.urgency, c.text),
        c.language or detect_language(c.text),
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
    parts = TriageKey.of(d["severity"])
    d["severity_level"], d["children"] = parts.level, children_text(parts.children)
    d["incident_id"] = int(d["incident_id"]) if d["incident_id"] is not None else None
    d["signals"] = json.loads(d["signals"]) if d["signals"] is not None else []
    return d


def effective_labels(row: Mapping[str, Any]) -> list[str]:
    """A complaint's labels as they stand: the corrected ones where an officer set them, else the predicted ones."""
    return row["corrected_labels"] if row["corrected_labels"] is not None else row["labels"]


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
