"""Check a freshly written file of complaints in one of India's other languages before it joins the data.

    python scripts/check_written.py data/languages/written/ta.csv            # new complaints
    python scripts/check_written.py data/languages/written/ta-existing.csv   # severity of the 80 existing rows

A new-complaints file (``<code>.csv``) has the columns ``text,labels,script,source,severity,children``:

- ``labels``: labels of ``mealwatch.labels`` joined by ``;``;
- ``script``: ``native`` (the language's own script) or ``latn`` (Latin letters, as typed on phones);
- ``severity``: the worst that happened to a child, one of ``SEVERITY_LEVELS``;
- ``children``: how many children the text says were affected (digits or number words), ``all`` when it says
  all the children without a number, empty when it gives no number.

Once merged (``make_language_splits.py``), a file's own rows are in the splits too and are not counted as repeats
of themselves (the merge refuses any other repeat).

An existing-rows file (``<code>-existing.csv``) has ``text,severity,children`` for every row of that language
already in data/languages/{train,validation,test}.csv, the text copied exactly.

Prints what is wrong (exit 1) or a summary of the counts (exit 0).
"""

from __future__ import annotations

import csv
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from mealwatch.labels import LABEL_SEPARATOR, LABELS  # noqa: E402
from mealwatch.languages import LANGUAGES, script_counts  # noqa: E402

SEVERITY_LEVELS = ("none", "unwell", "clinic", "hospital", "death")
NEW_COLUMNS = ["text", "labels", "script", "source", "severity", "children"]
EXISTING_COLUMNS = ["text", "severity", "children"]
SCRIPT_KEY = {"mr": "deva", "bn": "bn", "pa": "pa", "gu": "gu", "or": "or", "ta": "ta", "te": "te", "kn": "kn",
              "ml": "ml", "ur": "ur"}  # fmt: skip


def normalize(text: str) -> str:
    """Case, spaces and punctuation folded; an Indic word's vowel signs and viramas kept (they are no ``\\w``)."""
    text = unicodedata.normalize("NFC", text).casefold()
    return " ".join(regex.sub(r"[^\w\s\p{M}]", " ", text).split())


def known_texts() -> dict[str, str]:
    seen = {}
    for folder in ("complaints", "languages"):
        for split in ("train", "validation", "test"):
            path = ROOT / "data" / folder / f"{split}.csv"
            with open(path, encoding="utf-8", newline="") as f:
                for i, row in enumerate(csv.DictReader(f), start=2):
                    seen[normalize(row["text"])] = f"data/{folder}/{split}.csv:{i}"
    return seen


def check_children(value: str) -> bool:
    return value == "" or value == "all" or (value.isdigit() and int(value) > 0)


def read_rows(path: Path, columns: list[str]) -> list[dict[str, str]] | None:
    """The file's rows; None (and the reason printed) when its header is not ``columns``."""
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != columns:
            print(f"{path}: the header must be {','.join(columns)}, not {reader.fieldnames}")
            return None
        return list(reader)


def check_new(path: Path, code: str) -> int:
    problems: list[str] = []
    rows = read_rows(path, NEW_COLUMNS)
    if rows is None:
        return 1
    seen = known_texts()
    for row in rows:  # once merged, the file's own rows are in the splits: not a repeat of themselves
        key = normalize(row["text"] or "")
        if seen.get(key, "").startswith("data/languages/"):
            del seen[key]
    mine: dict[str, int] = {}
    grams: dict[tuple[str, ...], int] = {}
    counts: Counter = Counter()
    for i, row in enumerate(rows, start=2):
        where = f"{path.name}:{i}"
        if any(v is None for v in row.values()) or None in row:
            problems.append(f"{where}: wrong number of fields")
            continue
        text = row["text"].strip()
        labels = row["labels"].split(LABEL_SEPARATOR)
        bad = [label for label in labels if label not in LABELS]
        if bad or not labels:
            problems.append(f"{where}: unknown labels {bad}")
        if labels != [label for label in LABELS if label in labels]:
            problems.append(f"{where}: labels must be in the label set's order: {';'.join(LABELS)}")
        if "other" in labels and len(labels) > 1:
            problems.append(f"{where}: 'other' goes alone")
        if row["script"] not in ("native", "latn"):
            problems.append(f"{where}: script must be native or latn")
        if row["severity"] not in SEVERITY_LEVELS:
            problems.append(f"{where}: severity must be one of {SEVERITY_LEVELS}")
        if not check_children(row["children"]):
            problems.append(f"{where}: children must be empty, a positive whole number or 'all'")
        letters = script_counts(text)
        total = sum(letters.values()) or 1
        if row["script"] == "native" and letters[SCRIPT_KEY[code]] / total < 0.9:
            problems.append(f"{where}: under 90% of the letters are in the language's script")
        if row["script"] == "latn" and letters["latin"] / total < 0.97:
            problems.append(f"{where}: a romanised complaint should be in Latin letters")
        if len(text.split()) < 4:
            problems.append(f"{where}: too short to be a complaint (4 words at least)")
        key = normalize(text)
        if key in seen:
            problems.append(f"{where}: repeats {seen[key]}")
        if key in mine:
            problems.append(f"{where}: repeats line {mine[key]}")
        mine[key] = i
        words = key.split()
        for j in range(len(words) - 7):
            gram = tuple(words[j : j + 8])
            if gram in grams and grams[gram] != i:
                problems.append(f"{where}: shares the 8 words '{' '.join(gram)}' with line {grams[gram]}")
                break
            grams[gram] = i
        if row["severity"] != "none" and "illness" not in labels:
            print(f"note {where}: severity {row['severity']} without 'illness' - check it is meant")
        if row["severity"] == "none" and "illness" in labels:
            problems.append(f"{where}: 'illness' with severity none")
        counts[("script", row["script"])] += 1
        counts[(row["script"], "severity", row["severity"])] += 1
        counts[(row["script"], "children", "stated" if row["children"] else "none")] += 1
        for label in labels:
            counts[(row["script"], "label", label)] += 1
    for p in problems:
        print(p)
    for key in sorted(counts):
        print(" ".join(key), counts[key])
    return 1 if problems else 0


def check_existing(path: Path, code: str) -> int:
    written = path.with_name(f"{code}.csv")  # once merged, its rows are in the splits too: not the first release
    new = {r["text"] for r in read_rows(written, NEW_COLUMNS) or []} if written.is_file() else set()
    texts = []
    for split in ("train", "validation", "test"):
        with open(ROOT / "data" / "languages" / f"{split}.csv", encoding="utf-8", newline="") as f:
            texts += [r["text"] for r in csv.DictReader(f) if r["language"] == code and r["text"] not in new]
    rows = read_rows(path, EXISTING_COLUMNS)
    if rows is None:
        return 1
    problems = []
    given = Counter(r["text"] for r in rows)
    for t in texts:
        if given[t] != 1:
            problems.append(f"existing row given {given[t]} times: {t[:60]}")
    for t in given:
        if t not in texts:
            problems.append(f"not an existing row of {code}: {t[:60]}")
    for i, r in enumerate(rows, start=2):
        if r["severity"] not in SEVERITY_LEVELS:
            problems.append(f"line {i}: severity must be one of {SEVERITY_LEVELS}")
        if not check_children(r["children"]):
            problems.append(f"line {i}: children must be empty, a positive whole number or 'all'")
    for p in problems:
        print(p)
    print(Counter(r["severity"] for r in rows), sum(bool(r["children"]) for r in rows), "with children stated")
    return 1 if problems else 0


def main() -> int:
    path = Path(sys.argv[1])
    code = path.stem.removesuffix("-existing")
    if code not in LANGUAGES:
        print(f"name the file <code>.csv or <code>-existing.csv, code one of {', '.join(LANGUAGES)}")
        return 2
    return check_existing(path, code) if path.stem.endswith("-existing") else check_new(path, code)


if __name__ == "__main__":
    sys.exit(main())
