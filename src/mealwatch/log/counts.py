"""Complaint counts kept as complaints arrive and change (table ``complaint_counts``, schema version 7).

One row per UTC day of arrival, label ('' for the complaints themselves), status, urgency, review flag and
correction holds how many complaints are in that state; every save and every change adjusts it in its own
transaction, so a list's total, the daily counts, the log's size and the labels it holds are a sum over a few
thousand rows, not a count over millions. Only filters on those fields (and date ranges of whole UTC days) can
be answered so; any other filter counts rows through its index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from .complaint_rows import effective_labels
from .shapes import Filters, NewComplaint, Tx, to_stored_time

#: the key of a counts row: day, label, status, urgency, needs_review, corrected
CountKey = tuple[str, str, str, str, bool, bool]
UPSERT = (
    "INSERT INTO complaint_counts (day, label, status, urgency, needs_review, corrected, n)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (day, label, status, urgency, needs_review, corrected)"
    " DO UPDATE SET n = complaint_counts.n + excluded.n"
)

#: the counts rebuilt from the rows (schema step 7; a tool that writes rows behind the log's back runs it after)
RECOUNT = (
    "DELETE FROM complaint_counts",
    "INSERT INTO complaint_counts (day, label, status, urgency, needs_review, corrected, n)"
    " SELECT substr(created_at, 1, 10), '', status, urgency, needs_review, corrected_labels IS NOT NULL, count(*)"
    " FROM complaints GROUP BY 1, 2, 3, 4, 5, 6",
    "INSERT INTO complaint_counts (day, label, status, urgency, needs_review, corrected, n)"
    " SELECT substr(c.created_at, 1, 10), l.label, c.status, c.urgency, c.needs_review,"
    " c.corrected_labels IS NOT NULL, count(*)"
    " FROM complaint_labels l JOIN complaints c ON c.id = l.complaint_id GROUP BY 1, 2, 3, 4, 5, 6",
)

#: every label some complaint carries now (a label every complaint of which was corrected away keeps rows of 0)
KNOWN_LABELS = "SELECT DISTINCT label FROM complaint_counts WHERE label <> '' AND n > 0"


def keys_of(
    day: str, status: str, urgency: str, review: bool, corrected: bool, labels: Iterable[str]
) -> list[CountKey]:
    state = (status, urgency, bool(review), bool(corrected))
    return [(day, "", *state)] + [(day, label, *state) for label in dict.fromkeys(labels)]


def count_keys(row: Mapping[str, Any]) -> list[CountKey]:
    """The counts rows a stored complaint (as ``decode_row`` gives it) adds one to."""
    return keys_of(row["created_at"][:10], row["status"], row["urgency"], row["needs_review"],
                   row["corrected_labels"] is not None, effective_labels(row))  # fmt: skip


def add_counts(tx: Tx, deltas: Mapping[CountKey, int]) -> None:
    """Add ``deltas`` to the counts, in key order (two writers lock the rows they share in the same order)."""
    tx.many(UPSERT, [(*key, n) for key, n in sorted(deltas.items()) if n])


def count_new(tx: Tx, complaints: Sequence[NewComplaint], now: str) -> None:
    """Count complaints just saved at ``now`` and keep their schools', districts' and blocks' search keys (in the
    saving transaction)."""
    from ..records import fold

    deltas: Counter[CountKey] = Counter()
    for c in complaints:
        deltas.update(keys_of(now[:10], "new", c.urgency, bool(c.review_reasons), False, c.labels))
    add_counts(tx, deltas)
    schools = sorted({fold(c.school) for c in complaints if c.school})
    tx.many("INSERT INTO school_keys (school_key) VALUES (?) ON CONFLICT DO NOTHING", [(k,) for k in schools])
    keep_places(tx, [(c.district, c.block) for c in complaints])


def keep_places(tx: Tx, places: Sequence[tuple[str | None, str | None]]) -> None:
    """Keep the search keys of (district, block) pairs in ``place_keys`` (each once)."""
    from ..records import fold

    keys = sorted({(kind, fold(name)) for pair in places for kind, name in zip(("district", "block"), pair) if name})
    tx.many("INSERT INTO place_keys (kind, place_key) VALUES (?, ?) ON CONFLICT DO NOTHING", keys)


def whole_day(moment: datetime | None) -> str | None:
    """``moment``'s UTC day when it is a UTC midnight (a date filter the counts can answer); else None."""
    if moment is None:
        return None
    stored = to_stored_time(moment)
    return stored[:10] if stored.endswith("T00:00:00.000000Z") else None


def countable(filters: Filters) -> bool:
    """Whether the counts can answer ``filters``: only label, status, urgency, review, correction, whole days.

    The counts are not kept per district: an account's district scope (``filters.districts``) is counted from
    the rows, like a district filter."""
    others = (filters.school, filters.district, filters.block, filters.channel, filters.udise, filters.assignee,
              filters.districts, filters.unassigned)  # fmt: skip
    if any(v is not None for v in others) or filters.dates != "arrival" or filters.one_per_incident:
        return False
    return all(m is None or whole_day(m) is not None for m in (filters.since, filters.until))


def counts_clause(filters: Filters) -> tuple[str, list[Any]]:
    """`` AND ...`` over ``complaint_counts`` for a ``countable`` filter's fields other than the label."""
    clauses, params = [], []
    for name in ("status", "urgency", "needs_review", "corrected"):
        value = getattr(filters, name)
        if value is not None:
            clauses.append(f" AND {name} = ?")
            params.append(bool(value) if name in ("needs_review", "corrected") else value)
    if filters.since is not None:
        clauses.append(" AND day >= ?")
        params.append(whole_day(filters.since))
    if filters.until is not None:
        clauses.append(" AND day < ?")
        params.append(whole_day(filters.until))
    return "".join(clauses), params


def count_matches(tx: Tx, filters: Filters, where: str, params: Sequence[Any]) -> int:
    """How many complaints match ``filters`` (``where``/``params``: its clause): from the counts when they can
    tell, else by counting rows."""
    if countable(filters):
        kept, values = counts_clause(filters)
        row = tx.one(f"SELECT sum(n) AS n FROM complaint_counts WHERE label = ?{kept}", [filters.label or "", *values])
        return int(row["n"] or 0)
    return int(tx.one(f"SELECT count(*) AS n FROM complaints{where}", params)["n"])
