"""Reading and validating complaint files (CSV or JSONL), and the train/validation/test splits of a dataset.

A complaint file holds one text and its labels per row, read by ``rowfile`` (the one reader of complaint files).
Every problem found while reading raises ``DataError`` (a ``rowfile.FileError``) naming the file, the line (as a
text editor numbers it; a CSV header is line 1), what is wrong and what was expected. Nothing is dropped: rows
whose text repeats another's are kept, listed in ``Dataset.duplicates`` and reported with a warning.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from .decisions import encode_labels
from .labels import LABEL_SEPARATOR
from .languages import LANGUAGES, detect_language, language_form
from .children import ALL_CHILDREN
from .severity import SEVERITY_LEVELS
from .learning.splits import normalize_text, stratified_split
from .text import SCRIPTS, detect_script
from .rowfile import FileError, NotUtf8Error, csv_rows, decode_utf8, jsonl_rows

__all__ = [
    "DataError",
    "Dataset",
    "Example",
    "bundled_data_dir",
    "normalize_text",
    "read_dataset",
    "read_splits",
    "stratified_split",
]

SPLIT_NAMES = ("train", "validation", "test")
#: optional column (or JSONL key) naming a row's script, one of ``text.SCRIPTS``
SCRIPT_COLUMN = "script"
#: the ``script`` values that name a row's language too (``text.SCRIPTS``: English, romanised Hindi in Latin letters)
SCRIPT_LANGUAGES = {"latn-en": "en", "latn-hi": "hi"}
LANGUAGE_COLUMN = "language"
#: optional columns: the worst that happened to a child (``severity.SEVERITY_LEVELS``) and the children affected
#: (a whole number, ``all``, or empty): annotations the severity head learns from and is scored on
SEVERITY_COLUMN, CHILDREN_COLUMN = "severity", "children"
SUFFIXES = (".csv", ".jsonl")


class LabelledTexts(Protocol):
    """What training and the n-gram channel's fitting need from a dataset (``Dataset`` has it)."""

    texts: list[str]
    label_set: list[str]
    multi_label: bool

    def targets(self) -> np.ndarray: ...

    def scripts(self) -> list[str]: ...

    def languages(self) -> list[str]: ...

    def forms(self) -> list[str]: ...

    def severities(self) -> np.ndarray: ...


class DataError(FileError):
    """A complaint file that cannot be used as it is: the file, the line, what is wrong and what was expected."""


@dataclass(frozen=True)
class Example:
    """One complaint: its text, its labels, the line of the file it starts on, and its script if the file names it."""

    text: str
    labels: tuple[str, ...]
    line: int
    script: str | None = None  # one of text.SCRIPTS; None: not given (``Dataset.scripts`` detects it)
    language: str | None = None  # one of languages.LANGUAGES; None: not given (``Dataset.languages`` detects it)
    severity: str | None = None  # one of severity.SEVERITY_LEVELS; None: not annotated
    children: int | None = None  # the children affected (severity.ALL_CHILDREN: all); 0: none stated; None: unknown


@dataclass
class Dataset:
    """Examples sharing one label set; ``duplicates`` holds (first line, repeated line) pairs of identical texts."""

    examples: list[Example]
    label_set: list[str]
    multi_label: bool
    path: Path | None = None
    duplicates: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def from_examples(
        cls, examples: Sequence[Example], label_set: Sequence[str], multi_label: bool, path: Path | None = None
    ) -> "Dataset":
        """A dataset of ``examples`` (a split of another one), with its duplicates found again."""
        return cls(list(examples), list(label_set), multi_label, path, find_duplicates(examples))

    def __len__(self) -> int:
        return len(self.examples)

    @property
    def texts(self) -> list[str]:
        return [e.text for e in self.examples]

    def targets(self) -> np.ndarray:
        """(N, L) 0/1 ints in ``label_set`` order if multi-label, else (N,) label indices."""
        return encode_labels([e.labels for e in self.examples], self.label_set, self.multi_label)

    def scripts(self) -> list[str]:
        """Each example's script: the file's ``script`` column where given, else ``text.detect_script``."""
        return [e.script or detect_script(e.text) for e in self.examples]

    def languages(self) -> list[str]:
        """Each example's language: the file's ``language`` column where given, else the one its ``script`` column
        names (``SCRIPT_LANGUAGES``: ``latn-hi`` is Hindi), else ``languages.detect_language``."""
        return [e.language or SCRIPT_LANGUAGES.get(e.script or "") or detect_language(e.text) for e in self.examples]

    def forms(self) -> list[str]:
        """Each example's language form: its language, with ``-latn`` when typed in Latin letters (``ta-latn``)."""
        return [language_form(lang, script) for lang, script in zip(self.languages(), self.scripts())]

    def severities(self) -> np.ndarray:
        """(N,) each example's severity level as an index of ``severity.SEVERITY_LEVELS``; -1 where not annotated."""
        return np.array([SEVERITY_LEVELS.index(e.severity) if e.severity else -1 for e in self.examples], dtype=int)

    def label_counts(self) -> dict[str, int]:
        """Number of examples carrying each label, in ``label_set`` order (0 for absent labels)."""
        counts = Counter(label for e in self.examples for label in e.labels)
        return {label: counts[label] for label in self.label_set}


def find_duplicates(examples: Sequence[Example]) -> list[tuple[int, int]]:
    """(line of first occurrence, line of repeat) for every example whose text exactly repeats an earlier one."""
    first: dict[str, int] = {}
    pairs = []
    for e in examples:
        if e.text in first:
            pairs.append((first[e.text], e.line))
        else:
            first[e.text] = e.line
    return pairs


# ---------------------------------------------------------------------------- reading one file


@dataclass
class _Row:
    """A row as read, before the label set is known."""

    text: Any
    labels: Any
    line: int
    script: Any = None
    language: Any = None
    severity: Any = None
    children: Any = None


def read_dataset(
    path: str | Path,
    *,
    text_column: str = "text",
    labels_column: str = "labels",
    label_set: Sequence[str] | None = None,
    separator: str = LABEL_SEPARATOR,
    multi_label: bool | None = None,
) -> Dataset:
    """Read a CSV (header row, labels joined by ``separator``) or JSONL file of complaints.

    In JSONL each line is an object; its labels are a list of strings or one string (split on
    ``separator``). ``label_set`` None takes the sorted labels found; ``multi_label`` None is
    True when any row carries more than one label. Raises ``DataError`` on any problem.
    """
    path = Path(path)
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        raise DataError(path, None, what, "expected a .csv or .jsonl complaint file", of_path=True)
    if path.suffix.lower() not in SUFFIXES:
        raise DataError(path, None, f"unknown file type {path.suffix!r}", "expected a .csv or .jsonl file")
    text = _read_utf8(path)
    if path.suffix.lower() == ".csv":
        rows = _csv_rows(path, text, text_column, labels_column)
    else:
        rows = _jsonl_rows(path, text, text_column, labels_column)
    if not rows:
        raise DataError(path, None, "no examples", "expected at least one row with a text and its labels")

    parsed = [(_check_text(path, r, text_column), _split_labels(path, r, labels_column, separator), r.line,
               _check_script(path, r), _check_language(path, r), _check_severity(path, r), _check_children(path, r))
              for r in rows]  # fmt: skip
    if label_set is None:
        label_set = sorted({label for _, labels, *_ in parsed for label in labels})
    label_set = list(label_set)
    known = set(label_set)
    if multi_label is None:
        multi_label = any(len(labels) > 1 for _, labels, *_ in parsed)
    order = {label: i for i, label in enumerate(label_set)}
    examples = []
    for text_value, labels, line, script, language, severity, children in parsed:
        unknown = [label for label in labels if label not in known]
        if unknown:
            raise DataError(path, line, f"unknown label {unknown[0]!r}", f"valid labels are: {', '.join(label_set)}")
        if not multi_label and len(labels) > 1:
            raise DataError(path, line, f"{len(labels)} labels ({separator.join(labels)}) in a single-label dataset",
                            "expected exactly one label per row")  # fmt: skip
        examples.append(Example(text_value, tuple(sorted(labels, key=order.__getitem__)), line, script, language,
                                severity, children))  # fmt: skip

    dataset = Dataset.from_examples(examples, label_set, multi_label, path)
    if dataset.duplicates:
        shown = ", ".join(f"{a}={b}" for a, b in dataset.duplicates[:5])
        more = f" and {len(dataset.duplicates) - 5} more" if len(dataset.duplicates) > 5 else ""
        warnings.warn(
            f"{path}: {len(dataset.duplicates)} rows repeat an earlier row's text exactly "
            f"(lines {shown}{more}); they are kept",
            stacklevel=2,
        )
    return dataset


def _read_utf8(path: Path) -> str:
    try:
        return decode_utf8(path.read_bytes())  # a leading byte-order mark is dropped
    except NotUtf8Error as e:
        problem = f"not UTF-8 text (byte 0x{e.byte:02x} at byte offset {e.offset})"
        raise DataError(path, e.line, problem, "save the file as UTF-8") from None


def _csv_rows(path: Path, text: str, text_column: str, labels_column: str) -> list[_Row]:
    table = csv_rows(text, path, DataError.broken)
    if table.header is None:
        raise DataError(path, None, "empty file",
                        f"expected a header row with columns {text_column!r} and {labels_column!r}")  # fmt: skip
    header = [name.strip() for name in table.header]
    for column in (text_column, labels_column):
        if column not in header:
            raise DataError(path, 1, f"no column {column!r}", f"columns found: {', '.join(header)}")
    i_text, i_labels = header.index(text_column), header.index(labels_column)
    i_script = header.index(SCRIPT_COLUMN) if SCRIPT_COLUMN in header else None
    i_language = header.index(LANGUAGE_COLUMN) if LANGUAGE_COLUMN in header else None
    optional = [header.index(c) if c in header else None for c in (SEVERITY_COLUMN, CHILDREN_COLUMN)]
    rows = []
    for line, record in table.records:
        if not record or (len(record) == 1 and not record[0].strip() and len(header) > 1):
            continue  # a blank line carries no data
        if len(record) != len(header):
            raise DataError(path, line, f"{len(record)} fields, expected {len(header)} ({', '.join(header)})",
                            "quote a text that contains commas")  # fmt: skip
        rows.append(_Row(record[i_text], record[i_labels], line, None if i_script is None else record[i_script],
                         None if i_language is None else record[i_language],
                         *(None if i is None else record[i] for i in optional)))  # fmt: skip
    return rows


def _jsonl_rows(path: Path, text: str, text_column: str, labels_column: str) -> list[_Row]:
    rows = []
    for line, obj in jsonl_rows(text, path, DataError):
        if not isinstance(obj, dict):
            raise DataError(path, line, f'expected a JSON object like {{"{text_column}": "...", "{labels_column}": '
                            f"[...]}}, found {type(obj).__name__}")  # fmt: skip
        for key in (text_column, labels_column):
            if key not in obj:
                raise DataError(path, line, f"no key {key!r}", f"keys found: {', '.join(obj) or 'none'}")
        rows.append(_Row(obj[text_column], obj[labels_column], line, obj.get(SCRIPT_COLUMN), obj.get(LANGUAGE_COLUMN),
                         obj.get(SEVERITY_COLUMN), obj.get(CHILDREN_COLUMN)))  # fmt: skip
    return rows


def _check_text(path: Path, row: _Row, column: str) -> str:
    if not isinstance(row.text, str):
        raise DataError(path, row.line, f"{column!r} must be a string, found {type(row.text).__name__}")
    if not row.text.strip():
        raise DataError(path, row.line, f"empty text in {column!r}", "expected the complaint's text")
    return row.text.strip()


def _choice(path: Path, row: _Row, column: str, value: Any, choices: Sequence[str], empty: str,
            kind: str = "one") -> str | None:  # fmt: skip
    """An optional column's value, one of ``choices`` (``kind`` names what they are); None for an empty cell (which
    means ``empty``)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str) or value.strip() not in choices:
        raise DataError(path, row.line, f"{column!r} is {value!r}",
                        f"expected {kind} of {', '.join(choices)}, or an empty cell ({empty})")  # fmt: skip
    return value.strip()


def _check_script(path: Path, row: _Row) -> str | None:
    """The row's script, if the file gives one (an empty cell means "detect it")."""
    return _choice(path, row, SCRIPT_COLUMN, row.script, SCRIPTS, "detected from the text")


def _check_language(path: Path, row: _Row) -> str | None:
    """The row's language (an ISO 639-1 code), if the file gives one (an empty cell means "detect it")."""
    return _choice(
        path, row, LANGUAGE_COLUMN, row.language, list(LANGUAGES), "detected from the text", "an ISO 639-1 code, one"
    )


def _check_severity(path: Path, row: _Row) -> str | None:
    """The row's severity level, if the file gives one (an empty cell: not annotated)."""
    return _choice(path, row, SEVERITY_COLUMN, row.severity, SEVERITY_LEVELS, "not annotated")


def _check_children(path: Path, row: _Row) -> int | None:
    """The children the row says were affected: a whole number, ``all`` (``ALL_CHILDREN``), 0 for an empty cell of
    an annotated row; None when the file has no such column."""
    value = row.children
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and (value.strip() == "" or value.strip().isdigit() or value.strip() == "all"):
        v = value.strip()
        return 0 if v == "" else ALL_CHILDREN if v == "all" else int(v)
    raise DataError(path, row.line, f"{CHILDREN_COLUMN!r} is {value!r}",
                    "expected a whole number of children, 'all', or an empty cell (none stated)")  # fmt: skip


def _split_labels(path: Path, row: _Row, column: str, separator: str) -> list[str]:
    value = row.labels
    if isinstance(value, str):
        pieces = value.split(separator)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        pieces = value
    else:
        raise DataError(path, row.line, f"{column!r} must be a list of label strings or a string, found {value!r}")
    labels = list(dict.fromkeys(p.strip() for p in pieces if p.strip()))  # unique, in the order given
    if not labels:
        raise DataError(
            path, row.line, f"no labels in {column!r}", f"expected one or more labels joined by {separator!r}"
        )
    return labels


def bundled_data_dir() -> Path:
    """The bundled complaint dataset's folder (data/complaints in the source tree)."""
    return Path(__file__).resolve().parents[2] / "data" / "complaints"


def languages_data_dir() -> Path:
    """The bundled complaints in ten more Indian languages (data/languages in the source tree)."""
    return Path(__file__).resolve().parents[2] / "data" / "languages"


def with_languages(splits: dict[str, Dataset], folder: Path | None = None) -> dict[str, Dataset]:
    """Each bundled split joined by the same split of the complaints in India's other languages (each row with its
    ``language``); the joined splits keep the bundled files' paths, so they still count as the bundled data."""
    folder = folder or languages_data_dir()
    out = {}
    for name, split in splits.items():
        file = _split_file(folder, name)
        if file is None:
            raise DataError(
                folder, None, f"no {name}.csv", "scripts/make_language_splits.py writes the languages' splits"
            )
        more = read_dataset(file, label_set=split.label_set, multi_label=split.multi_label).examples
        out[name] = Dataset.from_examples(split.examples + more, split.label_set, split.multi_label, split.path)
    return out


PARALLEL_FILE = "parallel.csv"


@dataclass(frozen=True)
class ParallelComplaint:
    """One English training complaint with its Devanagari and romanised-Hindi renderings."""

    english: str
    labels: tuple[str, ...]
    devanagari: str
    romanised: str

    def renderings(self, of: Example | None = None) -> list[Example]:
        """The two renderings as labelled examples (script deva and latn-hi; line 0: not from a split file), with the
        severity annotation of the English example ``of`` where given (a rendering keeps every fact of it)."""
        severity, children = (of.severity, of.children) if of is not None else (None, None)
        return [Example(self.devanagari, self.labels, 0, "deva", "hi", severity, children),
                Example(self.romanised, self.labels, 0, "latn-hi", "hi", severity, children)]  # fmt: skip


def read_parallel(path: str | Path | None = None) -> list[ParallelComplaint]:
    """The bundled parallel renderings (data/complaints/parallel.csv), or another file of the same columns."""
    path = Path(path) if path is not None else bundled_data_dir() / PARALLEL_FILE
    rows = _parallel_rows(path, ("english", "labels", "devanagari", "romanised"))
    return [
        ParallelComplaint(
            row["english"],
            tuple(label.strip() for label in row["labels"].split(LABEL_SEPARATOR) if label.strip()),
            row["devanagari"],
            row["romanised"],
        )
        for row in rows
    ]


def _parallel_rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of a parallel CSV, each column stripped; DataError naming the line for a missing column or value."""
    table = csv_rows(_read_utf8(path), path, DataError.broken)
    header = table.header or []
    missing = [c for c in columns if c not in header]
    if missing:
        raise DataError(path, 1, f"no column {missing[0]!r}", f"expected columns {', '.join(columns)}")
    rows = []
    for line, record in table.records:
        if not record:
            continue  # a blank line carries no data
        values = {c: (record[header.index(c)] if header.index(c) < len(record) else "").strip() for c in columns}
        if not all(values.values()):
            raise DataError(path, line, f"every column needs a value ({', '.join(columns)})")
        rows.append(values)
    return rows


def read_splits(path: str | Path | None = None, *, seed: int = 0, **read_kwargs: Any) -> dict[str, Dataset]:
    """Train, validation and (if there is one) test datasets sharing one label set.

    ``path`` None is the bundled dataset (labels ``mealwatch.labels.LABELS``); a folder holds
    train/validation/test .csv or .jsonl files (validation missing: 15 % of train is carved
    off; test is optional); one file is split 70/15/15. Splits we carve are seeded and
    stratified. ``read_kwargs`` go to ``read_dataset``.
    """
    if path is None:
        folder = bundled_data_dir()
        if not _split_file(folder, "train"):
            raise DataError(folder, None, "the bundled dataset is not here (an installed copy has no data folder)",
                            "pass --data PATH with your own train/validation/test files")  # fmt: skip
        from .labels import LABELS

        read_kwargs.setdefault("label_set", list(LABELS))
        path = folder
    path = Path(path)
    if path.is_dir():
        return _read_folder(path, seed, read_kwargs)
    whole = read_dataset(path, **read_kwargs)
    parts = stratified_split(whole.examples, (0.70, 0.15, 0.15), seed)
    splits = {
        name: Dataset.from_examples(p, whole.label_set, whole.multi_label, path) for name, p in zip(SPLIT_NAMES, parts)
    }
    _warn_missing_labels(splits, carved=("validation", "test"))
    return splits


def _split_file(folder: Path, name: str) -> Path | None:
    found = [folder / f"{name}{suffix}" for suffix in SUFFIXES if (folder / f"{name}{suffix}").is_file()]
    if len(found) > 1:
        raise DataError(folder, None, f"both {found[0].name} and {found[1].name}", f"keep only one {name} file")
    return found[0] if found else None


def _read_folder(folder: Path, seed: int, read_kwargs: dict[str, Any]) -> dict[str, Dataset]:
    train_file = _split_file(folder, "train")
    if train_file is None:
        raise DataError(folder, None, "no train.csv or train.jsonl", "expected train, validation and test files there")
    train = read_dataset(train_file, **read_kwargs)
    others = {**read_kwargs, "label_set": train.label_set, "multi_label": train.multi_label}
    splits = {"train": train}
    carved: tuple[str, ...] = ()
    validation_file = _split_file(folder, "validation")
    if validation_file is None:
        kept, held_out = stratified_split(train.examples, (0.85, 0.15), seed)
        splits["train"] = Dataset.from_examples(kept, train.label_set, train.multi_label, train_file)
        splits["validation"] = Dataset.from_examples(held_out, train.label_set, train.multi_label, train_file)
        carved = ("validation",)
    else:
        splits["validation"] = read_dataset(validation_file, **others)
    test_file = _split_file(folder, "test")
    if test_file is not None:
        splits["test"] = read_dataset(test_file, **others)
    in_train = {label for label, n in train.label_counts().items() if n}
    for name, split in splits.items():
        missing = [label for label, n in split.label_counts().items() if label in in_train and n == 0]
        if missing and name not in carved and name != "train":
            raise DataError(split.path, None, f"no example of {', '.join(missing)} (present in {train_file.name})",
                            "every split needs at least one example of each training label")  # fmt: skip
    _warn_missing_labels(splits, carved=carved)
    return splits


def _warn_missing_labels(splits: dict[str, Dataset], carved: Sequence[str]) -> None:
    """Warn about labels absent from a split (too rare to reach every part of a split we carved)."""
    for name, split in splits.items():
        missing = [label for label, n in split.label_counts().items() if n == 0]
        if missing:
            origin = f" (carved from {split.path.name})" if name in carved and split.path else ""
            warnings.warn(f"{name} split{origin} has no example of: {', '.join(missing)}", stacklevel=3)
