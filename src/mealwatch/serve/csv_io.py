"""CSV in and out of the service: reading an uploaded complaint file, writing results and the log.

An upload is read whole or refused whole: a file that is not UTF-8, has no ``text`` column,
a row with more cells than the header (an unquoted comma would split a complaint), an
empty or over-long text, or too many rows is rejected with the lines at fault — no row is
ever skipped quietly.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timezone, tzinfo
from typing import Any

from ..textfile import NotUtf8Error, decode_utf8
from ..csvfile import write_csv
from ..records import (
    Record,
    RecordError,
    check_channel,
    check_extra,
    check_incident,
    check_phone,
    check_udise,
    clean_name,
)
from .schemas import MAX_CSV_BYTES, MAX_CSV_ROWS, check_complaint_text

#: columns of a result or log export, before one p_<label> column per label
RESULT_COLUMNS = ("line", "id", "text", "school", "labels", "urgency", "truncated", "needs_review", "review_reasons")
LOG_COLUMNS = ("id", "created_at", "status", "status_changed_at", "urgency", "labels", "needs_review", "review_reasons",
               "school", "text", "model_version", "corrected_labels", "corrected_by", "corrected_at", "udise",
               "district", "block", "incident_at", "channel", "reporter_phone", "assignee", "notes",
               "extra")  # fmt: skip
#: record field -> the header names an upload may give it (compared after ``header_key``)
RECORD_COLUMNS: dict[str, tuple[str, ...]] = {
    "school": ("school", "school_name", "schoolname", "name_of_school", "vidyalaya"),
    "udise": ("udise", "udise_code", "udise_no", "udise_number", "udise_id"),
    "district": ("district", "district_name", "zila", "jila"),
    "block": ("block", "block_name", "mandal", "taluka", "tehsil"),
    "incident_date": ("incident_date", "incident_at", "incident_time", "incident_day", "date_of_incident", "date",
                      "incident"),
    "channel": ("channel", "received_via", "received_by", "mode"),
    "reporter_phone": ("reporter_phone", "phone", "phone_number", "phone_no", "mobile", "mobile_number",
                       "mobile_no", "contact", "contact_number", "reporter_mobile"),
}  # fmt: skip
SHOWN_PROBLEMS = 10


class CsvUploadError(ValueError):
    """The uploaded file cannot be read as complaints; the message names the lines and what was expected."""


@dataclass
class UploadedRow:
    line: int  # line of the row's first physical line in the file (the header is line 1)
    text: str
    record: Record

    @property
    def school(self) -> str | None:
        return self.record.school


def header_key(name: str) -> str:
    """A header cell as compared with ``RECORD_COLUMNS``: lower case, spaces, dashes and dots as ``_``."""
    return "_".join(name.strip().lower().replace("-", " ").replace(".", " ").split())


def map_columns(header: list[str], filename: str) -> tuple[int, dict[str, int], dict[str, int]]:
    """The text column, the record fields' columns and the other (kept) columns of an upload's header."""
    keys = [header_key(h) for h in header]
    if "text" not in keys:
        raise CsvUploadError(
            f"{filename} has no 'text' column (its header is: {', '.join(header) or 'empty'}): "
            "expected a header line with a 'text' column and optionally school, udise, district, block, "
            "incident_date, channel and reporter_phone columns"
        )
    known = {variant: name for name, variants in RECORD_COLUMNS.items() for variant in variants}
    fields: dict[str, int] = {}
    extra: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key == "text":
            if i != keys.index("text"):
                raise CsvUploadError(f"{filename}: two 'text' columns ({i + 1} and {keys.index('text') + 1})")
        elif key in known:
            name = known[key]
            if name in fields:
                raise CsvUploadError(
                    f"{filename}: columns {header[fields[name]]!r} and {header[i]!r} both give {name}: keep one"
                )
            fields[name] = i
        elif header[i].strip():
            extra[header[i].strip()] = i  # kept with the complaint, under its own name
    return keys.index("text"), fields, extra


def read_upload(data: bytes, filename: str = "the upload", zone: tzinfo = timezone.utc) -> list[UploadedRow]:
    """The complaints of an uploaded CSV with a ``text`` column, its record columns mapped (``RECORD_COLUMNS``,
    incident dates read in ``zone``) and any other columns kept as the complaint's extra fields."""
    if len(data) > MAX_CSV_BYTES:
        raise CsvUploadError(
            f"{filename} is {len(data):,} bytes; the limit is {MAX_CSV_BYTES:,}: split it into smaller files"
        )
    try:
        content = decode_utf8(data)
    except NotUtf8Error as e:
        raise CsvUploadError(
            f"{filename} is not UTF-8 text (byte 0x{e.byte:02x} on line {e.line} cannot be read): "
            "save it as CSV UTF-8 and upload it again"
        ) from None
    if not content.strip():
        raise CsvUploadError(
            f"{filename} is empty: expected a header line with a 'text' column, then one complaint per line"
        )
    reader = csv.reader(io.StringIO(content, newline=""), strict=True)
    start = 1
    try:
        header = next(reader)
        text_at, field_at, extra_at = map_columns(header, filename)
        rows: list[UploadedRow] = []
        problems: list[str] = []
        start = reader.line_num + 1
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not any(c.strip() for c in cells):
                continue  # a blank line holds no complaint
            if len(cells) > len(header):
                problems.append(
                    f"line {line} has {len(cells)} cells but the header has {len(header)}: "
                    "put the text in double quotes if it contains commas"
                )
                continue
            cells += [""] * (len(header) - len(cells))
            try:
                text = check_complaint_text(cells[text_at])
                record = read_record({name: cells[i] for name, i in field_at.items()}, zone)
                record.extra = check_extra({name: cells[i] for name, i in extra_at.items()})
            except ValueError as e:
                problems.append(f"line {line}: {e}")
                continue
            rows.append(UploadedRow(line, text, record))
            if len(rows) > MAX_CSV_ROWS:
                raise CsvUploadError(
                    f"{filename} holds more than {MAX_CSV_ROWS:,} complaints: split it into smaller files"
                )
    except csv.Error as e:
        raise CsvUploadError(csv_problem(filename, str(e), start, reader.line_num)) from None
    if problems:
        more = f" (and {len(problems) - SHOWN_PROBLEMS} more)" if len(problems) > SHOWN_PROBLEMS else ""
        raise CsvUploadError(
            f"{filename}: {len(problems)} row(s) cannot be read, nothing was classified: "
            + "; ".join(problems[:SHOWN_PROBLEMS])
            + more
        )
    if not rows:
        raise CsvUploadError(
            f"{filename} has a header but no complaints: expected one complaint per line after the header"
        )
    return rows


def csv_problem(filename: str, error: str, start: int, line: int) -> str:
    """The csv module's complaint about a record that began on line ``start`` (read up to ``line``), said plainly."""
    if error == "unexpected end of data":
        return (
            f"{filename}: the double quote that opens a text on line {start} is never closed, so every line after "
            "it would be read as one complaint; nothing was classified: close the quote (write a quote inside a "
            'quoted text as "")'
        )
    if "expected after" in error:
        return (
            f"{filename}: line {line} has a double quote inside a quoted text; nothing was classified: "
            'write it as two double quotes ("") or leave the text unquoted'
        )
    return f"{filename} is not valid CSV on line {line}: {error}; nothing was classified"


def read_record(cells: dict[str, str], zone: tzinfo) -> Record:
    """A row's record fields, each checked (``records``); RecordError names every bad one."""
    checks = {
        "school": lambda v: clean_name(v, "the school name"),
        "udise": check_udise,
        "district": lambda v: clean_name(v, "district"),
        "block": lambda v: clean_name(v, "block"),
        "incident_at": lambda v: check_incident(v, zone),
        "channel": check_channel,
        "reporter_phone": check_phone,
    }
    values, problems = {}, []
    for name, check in checks.items():
        try:
            values[name] = check(cells.get("incident_date" if name == "incident_at" else name))
        except RecordError as e:
            problems.append(str(e))
    if problems:
        raise RecordError("; ".join(problems))
    return Record(**values)


def log_row(complaint: dict[str, Any]) -> dict[str, Any]:
    """A stored complaint as the log export writes it: extra fields as one JSON object."""
    extra = complaint.get("extra") or {}
    return {**complaint, "extra": json.dumps(extra, ensure_ascii=False) if extra else None}


def probability_columns(labels: Sequence[str], rows: Iterable[dict[str, Any]]) -> list[str]:
    """The labels to write a probability column for: ``labels`` first, then any other label found in ``rows``."""
    seen = dict.fromkeys(labels)
    for row in rows:
        seen.update(dict.fromkeys(row["probabilities"]))
    return list(seen)


def write_rows(columns: Sequence[str], labels: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """CSV text (``csvfile.write_csv``): ``columns``, then ``p_<label>`` for each label (empty when unknown)."""
    header = [*columns, *(f"p_{label}" for label in labels)]
    values = ([row.get(c) for c in columns] + [row["probabilities"].get(label) for label in labels] for row in rows)
    return write_csv(header, values)
