"""Reading complaint files: CSV and JSONL rows, each with the line it starts on, and the one error a file raises.

Three readers use it — labelled complaints (``data.read_dataset``), lists of texts (``textfile.read_texts``, the
``--input`` of predict, embed and explain) and the service's uploads (``serve/csv_io.read_upload``) — so a file is
decoded, cut into rows and located by line in one way:

- ``decode_utf8(data)``: bytes as text, a leading byte-order mark (Excel's "CSV UTF-8") dropped; ``NotUtf8Error``
  names the first byte that is not UTF-8 and its line.
- ``csv_rows(text, file, on_break)``: the header and every record with the line it starts on (a quoted text may span
  lines); blank records are kept, each caller saying what a blank line means; a quote the csv module cannot read
  raises ``on_break``'s error (``CsvBreak``: where the record began, where the reading stopped, and why, said plainly).
- ``jsonl_rows(text, file, error)``: every non-blank line's JSON value with its line; a line that is not JSON
  raises ``error``.

``FileError(file, line, problem, fix)`` is the one error: which file, which line (None: the file as a whole), what is
wrong, what to do, written ``{file}, line {line}: {problem}; {fix}``. The file readers' errors are its subclasses
(``data.DataError``; ``textfile.TextFileError``, written ``file:line:`` as ``--input`` has always printed it): one
``except FileError`` catches both. The service's upload reads its rows here but keeps its own ``CsvUploadError`` and
sentences (``serve/csv_io.csv_problem`` for a broken quote), which the service's tests pin.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class FileError(ValueError):
    """A file that cannot be read as it is: ``file``, ``line`` (None: the file as a whole), what is wrong
    (``problem``) and what to do (``fix``). ``of_path``: the problem is the path itself ("does not exist"), said
    ``{file} {problem}``."""

    def __init__(self, file: str | Path, line: int | None, problem: str, fix: str = "", *, of_path: bool = False):
        self.file, self.line, self.problem, self.fix, self.of_path = str(file), line, problem, fix, of_path
        super().__init__(self.message())

    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}, line {self.line}"

    def message(self) -> str:
        said = f"{self.file} {self.problem}" if self.of_path else f"{self.where()}: {self.problem}"
        return said + (f"; {self.fix}" if self.fix else "")

    @classmethod
    def broken(cls, file: str, why: "CsvBreak") -> "FileError":
        """The error of a CSV record the csv module cannot read (``csv_rows``), said plainly."""
        return cls(file, *why.problem())


class NotUtf8Error(ValueError):
    """Bytes that are not UTF-8 text: the first bad ``byte``, its ``offset`` and its ``line`` (from 1)."""

    def __init__(self, line: int, offset: int, byte: int) -> None:
        super().__init__(f"not UTF-8 text (byte 0x{byte:02x} at byte offset {offset}, line {line})")
        self.line, self.offset, self.byte = line, offset, byte


def decode_utf8(data: bytes) -> str:
    """``data`` as text, a leading byte-order mark dropped; ``NotUtf8Error`` where it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NotUtf8Error(data[: e.start].count(b"\n") + 1, e.start, data[e.start]) from None


@dataclass
class CsvBreak:
    """Why the csv module stopped: the record began on ``start``, the reading stopped on ``line``."""

    start: int
    line: int
    detail: str  # the csv module's words

    @property
    def unclosed_quote(self) -> bool:
        return self.detail == "unexpected end of data"

    @property
    def stray_quote(self) -> bool:
        return "expected after" in self.detail

    def problem(self) -> tuple[int, str, str]:
        """(line, what is wrong, what to do), said plainly."""
        if self.unclosed_quote:
            what = "the double quote that opens a text here is never closed, so every line after it would be one text"
            return self.start, what, 'close the quote (write a quote inside a quoted text as "")'
        if self.stray_quote:
            return self.line, "a double quote inside a quoted text", 'write it as "" or leave the text unquoted'
        return self.line, f"not valid CSV ({self.detail})", "save the file as CSV"


@dataclass
class CsvRows:
    """A CSV file's header (None: the file is empty) and its records, each ``(line it starts on, cells)``."""

    header: list[str] | None
    records: list[tuple[int, list[str]]] = field(default_factory=list)


def csv_rows(
    text: str, file: str | Path, on_break: Callable[[str, CsvBreak], Exception], *, strict: bool = False
) -> CsvRows:
    """Every record of a CSV text with the line it starts on, blank records kept; a record the csv module cannot
    read raises ``on_break(file, why)`` (``FileError.broken`` for the plain sentence; ``strict``: a quote inside an
    unquoted field is such a record too)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=strict)
    start = 1
    try:
        rows = CsvRows(next(reader, None))
        start = reader.line_num + 1
        for cells in reader:
            rows.records.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as e:
        raise on_break(str(file), CsvBreak(start, reader.line_num, str(e))) from None
    return rows


def jsonl_rows(
    text: str, file: str | Path, error: type[FileError], said: str = "malformed JSON"
) -> list[tuple[int, Any]]:
    """Every non-blank line's JSON value with its line (lines end at "\\n" only: a JSON string may hold U+2028); a line
    that is not JSON raises ``error``, its problem opening with ``said``."""
    rows = []
    for line, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            rows.append((line, json.loads(raw)))
        except json.JSONDecodeError as e:
            raise error(file, line, f"{said} ({e.msg} at column {e.colno})", "write one JSON object per line") from None
    return rows
