"""CSV out of the service, ready for a spreadsheet: the upload's results and the log export, with the same columns.

- a UTF-8 byte-order mark first, so Excel reads every script as written (``csvfile.write_csv(bom=True)``);
- times in the officers' zone (``mealwatch serve --timezone``) as ``2025-05-27 14:05:31``, which a spreadsheet
  reads as a date and time; an incident given as a day is written as that day (``2025-05-27``), not the
  moment in UTC its midnight falls on;
- the record's fields, then the officer's own columns (``extra``) each as a column of its own, under its own
  name (one that would clash with a column of mealwatch's is written ``extra: <name>``), so a file uploaded,
  classified and exported keeps its columns; ``csv_io.read_upload`` reads such an export back (its formula
  guard undone, its columns mapped back to fields and extras, mealwatch's own columns left out and named).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import time, tzinfo
from typing import Any

from ..csvfile import write_csv
from ..log import from_stored_time
from .csv_columns import EXTRA_PREFIX, LOG_COLUMNS, PROBABILITY_PREFIX, RESULT_COLUMNS, clashes


def local_time(stored: str | None, zone: tzinfo) -> str | None:
    """A stored UTC time (``...Z``) in ``zone``, to the second: ``2025-05-27 14:05:31``."""
    if not stored:
        return None
    return from_stored_time(stored).astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")


def incident_day_or_time(stored: str | None, zone: tzinfo) -> str | None:
    """An incident time in ``zone``: its day alone when it is the day's start (given as a day), else to the minute
    (to the second when it has seconds)."""
    if not stored:
        return None
    moment = from_stored_time(stored).astimezone(zone)
    if moment.time() == time(0):
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M" + (":%S" if moment.second else ""))


def extra_columns(rows: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """(header, extra field name) of every officer's column found in ``rows``, in order of first appearance; a
    name an upload would read as another column (``csv_columns.clashes``) is headed ``extra: <name>``."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row.get("extra") or {}))
    return [(f"{EXTRA_PREFIX}{name}" if clashes(name) else name, name) for name in seen]


def probability_columns(labels: Sequence[str], rows: Iterable[dict[str, Any]]) -> list[str]:
    """The labels to write a probability column for: ``labels`` first, then any other label found in ``rows``."""
    seen = dict.fromkeys(labels)
    for row in rows:
        seen.update(dict.fromkeys(row["probabilities"]))
    return list(seen)


def spreadsheet_csv(columns: Sequence[str], labels: Sequence[str], rows: Sequence[dict[str, Any]], zone: tzinfo) -> str:
    """The CSV of ``rows`` (answers or stored complaints): ``columns``, the officer's columns, ``p_<label>`` per
    label (empty when unknown); times in ``zone``; a byte-order mark first."""
    extras = extra_columns(rows)
    header = [*columns, *(h for h, _ in extras), *(f"{PROBABILITY_PREFIX}{label}" for label in labels)]

    def values(row: dict[str, Any]) -> list[Any]:
        shown = {
            **row,
            "incident_date": incident_day_or_time(row.get("incident_at"), zone),
            **{c: local_time(row.get(c), zone) for c in ("created_at", "status_changed_at", "corrected_at")},
        }
        extra = row.get("extra") or {}
        return ([shown.get(c) for c in columns] + [extra.get(name) for _, name in extras]
                + [row["probabilities"].get(label) for label in labels])  # fmt: skip

    return write_csv(header, (values(row) for row in rows), bom=True)


def results_csv(labels: Sequence[str], results: Sequence[dict[str, Any]], zone: tzinfo) -> str:
    """The upload's results as a spreadsheet file (``RESULT_COLUMNS``)."""
    return spreadsheet_csv(RESULT_COLUMNS, labels, results, zone)


def log_csv(labels: Sequence[str], complaints: Sequence[dict[str, Any]], zone: tzinfo) -> str:
    """Stored complaints as a spreadsheet file (``LOG_COLUMNS``), a probability column for every label found."""
    return spreadsheet_csv(LOG_COLUMNS, probability_columns(labels, complaints), complaints, zone)
