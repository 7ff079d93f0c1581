"""Reading plain lists of texts (no labels) from .txt, .csv or .jsonl files, with line-numbered errors.

The file is decoded and cut into rows by ``rowfile`` (the one reader of complaint files); its errors are
``TextFileError``, written ``file:line: what is wrong`` as ``--input`` has always printed them.
"""

from __future__ import annotations

from pathlib import Path

from .rowfile import FileError, NotUtf8Error, csv_rows, decode_utf8, jsonl_rows

TEXT_SUFFIXES = (".txt", ".csv", ".jsonl")


class TextFileError(FileError):
    """A text file that cannot be read; the message names the file and the line (``file:line:``)."""

    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


def _decode(path: Path) -> str:
    if not path.is_file():
        raise TextFileError(path, None, "no such file")
    try:
        return decode_utf8(path.read_bytes())
    except NotUtf8Error as e:
        raise TextFileError(path, e.line, f"not UTF-8 (byte {e.offset})", "save the file as UTF-8") from None


def read_texts(path: str | Path, text_column: str = "text") -> list[str]:
    """All texts of a file, in order: .txt one per line, .csv the ``text_column``, .jsonl objects' ``text_column``.

    Empty texts are an error naming their line, never skipped (blank lines at the very end
    of a .txt file are ignored).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in TEXT_SUFFIXES:
        raise TextFileError(
            path, None, f"unsupported file type {suffix or '(none)'!r}", f"expected one of {TEXT_SUFFIXES}"
        )
    content = _decode(path)
    rows: list[tuple[int, str]] = []
    if suffix == ".txt":
        lines = content.rstrip("\n").split("\n") if content.strip() else []
        rows = [(i, line.rstrip("\r")) for i, line in enumerate(lines, start=1)]
    elif suffix == ".csv":
        table = csv_rows(content, path, TextFileError.broken)
        header = table.header or []
        if text_column not in header:
            found = ", ".join(header) or "none"
            raise TextFileError(path, 1, f"no {text_column!r} column (columns found: {found})", "use --text-column")
        at = header.index(text_column)
        rows = [(line, cells[at] if at < len(cells) else "") for line, cells in table.records if cells]
    else:
        for line, obj in jsonl_rows(content, path, TextFileError, said="not valid JSON"):
            if not isinstance(obj, dict) or not isinstance(obj.get(text_column), str):
                raise TextFileError(path, line, f"expected an object with a string {text_column!r} field")
            rows.append((line, obj[text_column]))
    for line, text in rows:
        if not text.strip():
            raise TextFileError(path, line, "empty text")
    if not rows:
        raise TextFileError(path, None, "no texts found")
    return [text for _, text in rows]
