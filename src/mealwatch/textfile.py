"""Reading plain lists of texts (no labels) from .txt, .csv or .jsonl files, with line-numbered errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

TEXT_SUFFIXES = (".txt", ".csv", ".jsonl")


class TextFileError(ValueError):
    """A text file that cannot be read; the message names the file and the line."""


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


def _decode(path: Path) -> str:
    if not path.is_file():
        raise TextFileError(f"{path}: no such file")
    try:
        return decode_utf8(path.read_bytes())
    except NotUtf8Error as e:
        raise TextFileError(f"{path}:{e.line}: not UTF-8 (byte {e.offset}); save the file as UTF-8") from None


def read_texts(path: str | Path, text_column: str = "text") -> list[str]:
    """All texts of a file, in order: .txt one per line, .csv the ``text_column``, .jsonl objects' ``text_column``.

    Empty texts are an error naming their line, never skipped (blank lines at the very end
    of a .txt file are ignored).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in TEXT_SUFFIXES:
        raise TextFileError(f"{path}: unsupported file type {suffix or '(none)'!r}; expected one of {TEXT_SUFFIXES}")
    content = _decode(path)
    rows: list[tuple[int, str]] = []
    if suffix == ".txt":
        lines = content.rstrip("\n").split("\n") if content.strip() else []
        rows = [(i, line.rstrip("\r")) for i, line in enumerate(lines, start=1)]
    elif suffix == ".csv":
        reader = csv.DictReader(io.StringIO(content, newline=""))
        if reader.fieldnames is None or text_column not in reader.fieldnames:
            found = ", ".join(reader.fieldnames or []) or "none"
            raise TextFileError(f"{path}:1: no {text_column!r} column (columns found: {found}); use --text-column")
        for row in reader:
            rows.append((reader.line_num, row[text_column] or ""))
    else:
        for i, line in enumerate(content.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise TextFileError(f"{path}:{i}: not valid JSON ({e.msg})") from e
            if not isinstance(obj, dict) or not isinstance(obj.get(text_column), str):
                raise TextFileError(f"{path}:{i}: expected an object with a string {text_column!r} field")
            rows.append((i, obj[text_column]))
    for line, text in rows:
        if not text.strip():
            raise TextFileError(f"{path}:{line}: empty text")
    if not rows:
        raise TextFileError(f"{path}: no texts found")
    return [text for _, text in rows]
