"""CSV in and out of the service: reading an uploaded complaint file, writing results and the log.

An upload is read whole or refused whole: a file that is not UTF-8, has no ``text`` column,
a row with more cells than the header (an unquoted comma would split a complaint), an
empty or over-long text, or too many rows is rejected with the lines at fault — no row is
ever skipped quietly.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..textfile import NotUtf8Error, decode_utf8
from ..csvfile import write_csv
from .schemas import MAX_CSV_BYTES, MAX_CSV_ROWS, check_complaint_text, check_school

#: columns of a result or log export, before one p_<label> column per label
RESULT_COLUMNS = ("line", "id", "text", "school", "labels", "urgency", "truncated", "needs_review", "review_reasons")
LOG_COLUMNS = ("id", "created_at", "status", "status_changed_at", "urgency", "labels", "needs_review", "review_reasons",
               "school", "text", "model_version")  # fmt: skip
SHOWN_PROBLEMS = 10


class CsvUploadError(ValueError):
    """The uploaded file cannot be read as complaints; the message names the lines and what was expected."""


@dataclass
class UploadedRow:
    line: int  # line of the row's first physical line in the file (the header is line 1)
    text: str
    school: str | None


def read_upload(data: bytes, filename: str = "the upload") -> list[UploadedRow]:
    """The complaints of an uploaded CSV with a ``text`` column (and optionally ``school``)."""
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
        header = [h.strip().lower() for h in next(reader)]
        if "text" not in header:
            raise CsvUploadError(
                f"{filename} has no 'text' column (its header is: {', '.join(header) or 'empty'}): "
                "expected a header line with a 'text' column and optionally a 'school' column"
            )
        text_at, school_at = header.index("text"), header.index("school") if "school" in header else None
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
                school = check_school(cells[school_at]) if school_at is not None else None
            except ValueError as e:
                problems.append(f"line {line}: {e}")
                continue
            rows.append(UploadedRow(line, text, school))
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
