"""CSV into the service: reading an uploaded complaint file (writing results and the log: ``csv_out``).

An upload is read whole: a file that is not UTF-8 (or holds NUL characters: UTF-16 without its mark), has no
``text`` column, a row with more cells than the header (an unquoted comma would split a complaint), or too many
rows is refused. A row that cannot be read (an empty or over-long text, a bad record field, the header line again
in files joined into one) is named by its line: the service then refuses the whole file, or, when the
officer asks for it (``partial``), saves the others and lists the refused lines — no row is ever skipped quietly.

Every cell is read with the export's formula guard undone (``csvfile.unguard``), so a file mealwatch exported
reads back as it was; in such a file (``csv_out.is_own_export``) mealwatch's own columns (ids, labels,
probabilities, status ...) are left out and named, the officer's columns come back as extra fields (an older
export's one JSON ``extra`` column too), and a masked phone number is kept as the extra field
``reporter_phone (masked)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timezone, tzinfo

from ..csvfile import BOM, unguard
from ..rowfile import CsvBreak, NotUtf8Error, csv_rows, decode_utf8
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
from .csv_columns import EXTRA_PREFIX, OWN_COLUMNS, PROBABILITY_PREFIX, RECORD_COLUMNS, header_key, is_own_export
from .schemas import MAX_CSV_BYTES, MAX_CSV_ROWS, check_complaint_text

#: a phone number as the exports mask it (``******3210``)
MASKED_PHONE = re.compile(r"^\*+[0-9]{4}$")
MASKED_PHONE_FIELD = "reporter_phone (masked)"
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


@dataclass
class Upload:
    """An uploaded file read: its complaints, the lines that cannot be read (line, why), and the columns left out."""

    rows: list[UploadedRow]
    problems: list[tuple[int, str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # mealwatch's own columns of a file it exported

    def refusal(self, filename: str, what: str = "nothing was classified") -> str:
        """The message refusing the whole file for its unreadable lines (the first ``SHOWN_PROBLEMS`` named)."""
        return refusal(filename, [f"line {line}: {why}" for line, why in self.problems], what)


def refusal(filename: str, problems: list[str], what: str) -> str:
    more = f" (and {len(problems) - SHOWN_PROBLEMS} more)" if len(problems) > SHOWN_PROBLEMS else ""
    return f"{filename}: {len(problems)} row(s) cannot be read, {what}: " + "; ".join(problems[:SHOWN_PROBLEMS]) + more


@dataclass
class Columns:
    """Where an upload's text, record fields and extra fields are, and the columns left out."""

    text: int
    fields: dict[str, int]
    extra: dict[str, int]
    left_out: list[str]
    extra_json: int | None = None  # an older export's one JSON column of extra fields


def map_columns(header: list[str], filename: str) -> Columns:
    """The text column, the record fields' columns and the other (kept) columns of an upload's header."""
    header = [h.strip() for h in header]
    keys = [header_key(h) for h in header]
    if "text" not in keys:
        raise CsvUploadError(
            f"{filename} has no 'text' column (its header is: {', '.join(header) or 'empty'}): "
            "expected a header line with a 'text' column and optionally school, udise, district, block, "
            "incident_date, channel and reporter_phone columns"
        )
    own = is_own_export(header)
    known = {variant: name for name, variants in RECORD_COLUMNS.items() for variant in variants}
    columns = Columns(keys.index("text"), {}, {}, [])
    for i, key in enumerate(keys):
        if key == "text":
            if i != columns.text:
                raise CsvUploadError(f"{filename}: two 'text' columns ({i + 1} and {columns.text + 1})")
        elif header[i].startswith(EXTRA_PREFIX) and header[i][len(EXTRA_PREFIX) :].strip():
            columns.extra[header[i][len(EXTRA_PREFIX) :].strip()] = i  # an officer's column named like one of ours
        elif key in known:
            name = known[key]
            if name in columns.fields:
                raise CsvUploadError(
                    f"{filename}: columns {header[columns.fields[name]]!r} and {header[i]!r} both give {name}: keep one"
                )
            columns.fields[name] = i
        elif own and header[i] == "extra":
            columns.extra_json = i
        elif own and (header[i] in OWN_COLUMNS or header[i].startswith(PROBABILITY_PREFIX)):
            columns.left_out.append(header[i])
        elif header[i]:
            columns.extra[header[i]] = i  # kept with the complaint, under its own name
    return columns


def read_upload(data: bytes, filename: str = "the upload", zone: tzinfo = timezone.utc) -> Upload:
    """The complaints of an uploaded CSV with a ``text`` column, its record columns mapped (``RECORD_COLUMNS``,
    incident dates read in ``zone``) and any other columns kept as the complaint's extra fields; the lines that
    cannot be read, each with why. CsvUploadError when the file as a whole cannot be read."""
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
    if "\x00" in content:  # UTF-16 without its byte-order mark reads as UTF-8 with a NUL beside every letter
        utf16 = data[0::2].count(0) > len(data) // 4 or data[1::2].count(0) > len(data) // 4
        raise CsvUploadError(
            f"{filename} holds NUL characters"
            + (" (it looks like UTF-16 text without a byte-order mark)" if utf16 else "")
            + ": save it as CSV UTF-8 and upload it again"
        )
    if not content.strip():
        raise CsvUploadError(
            f"{filename} is empty: expected a header line with a 'text' column, then one complaint per line"
        )
    table = csv_rows(content, filename, csv_problem, strict=True)  # strict: a stray quote is refused, not guessed at
    header = table.header or []
    at = map_columns(header, filename)
    upload = Upload([], left_out=at.left_out)
    for line, cells in table.records:
        if not any(c.strip() for c in cells):
            continue  # a blank line holds no complaint
        if [c.strip().lstrip(BOM).strip() for c in cells] == [h.strip() for h in header]:
            upload.problems.append((line, "it repeats the header line (two files joined into one?): remove it"))
            continue
        if len(cells) > len(header):
            upload.problems.append((line, f"it has {len(cells)} cells but the header has {len(header)}: "
                                          "put the text in double quotes if it contains commas"))  # fmt: skip
            continue
        cells = [unguard(c) for c in cells] + [""] * (len(header) - len(cells))
        try:
            upload.rows.append(UploadedRow(line, check_complaint_text(cells[at.text]), row_record(cells, at, zone)))
        except ValueError as e:
            upload.problems.append((line, str(e)))
        if len(upload.rows) + len(upload.problems) > MAX_CSV_ROWS:
            raise CsvUploadError(f"{filename} holds more than {MAX_CSV_ROWS:,} complaints: split it into smaller files")
    if not upload.rows and not upload.problems:
        raise CsvUploadError(
            f"{filename} has a header but no complaints: expected one complaint per line after the header"
        )
    return upload


def row_record(cells: list[str], at: Columns, zone: tzinfo) -> Record:
    """A row's record: its fields checked, its extra fields (an older export's JSON ones too) kept."""
    fields = {name: cells[i] for name, i in at.fields.items()}
    extra = {name: cells[i] for name, i in at.extra.items()}
    if at.extra_json is not None and cells[at.extra_json].strip():
        try:
            kept = json.loads(cells[at.extra_json])
        except ValueError:
            kept = None
        if not isinstance(kept, dict):
            raise RecordError("the 'extra' column must hold a JSON object of text fields, as mealwatch exported it")
        extra = {**{str(k): v if isinstance(v, str) else json.dumps(v) for k, v in kept.items()}, **extra}
    phone = fields.get("reporter_phone", "").strip()
    if MASKED_PHONE.match(phone):
        fields["reporter_phone"], extra[MASKED_PHONE_FIELD] = "", phone
    record = read_record(fields, zone)
    record.extra = check_extra(extra)
    return record


def csv_problem(filename: str, why: CsvBreak) -> CsvUploadError:
    """The refusal of an upload holding a record the csv module cannot read (``rowfile.csv_rows``), said plainly."""
    if why.unclosed_quote:
        return CsvUploadError(
            f"{filename}: the double quote that opens a text on line {why.start} is never closed, so every line after "
            "it would be read as one complaint; nothing was classified: close the quote (write a quote inside a "
            'quoted text as "")'
        )
    if why.stray_quote:
        return CsvUploadError(
            f"{filename}: line {why.line} has a double quote inside a quoted text; nothing was classified: "
            'write it as two double quotes ("") or leave the text unquoted'
        )
    return CsvUploadError(f"{filename} is not valid CSV on line {why.line}: {why.detail}; nothing was classified")


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
