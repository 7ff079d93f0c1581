"""Write the split of the complaints in India's other languages (data/languages/, its README is the datasheet).

    python scripts/make_language_splits.py                 # re-split the current train/validation/test files
    python scripts/make_language_splits.py ta.csv te.csv   # add freshly written files (text,labels,source),
                                                           # each named after its language's ISO 639-1 code

Each language is split on its own, stratified by label and seeded: 20 % train, 20 % validation, 60 % test,
so that every language has at least 40 test complaints and the model can be scored with no training rows in
a language (leave its train rows out) or with them. The split depends only on the set of complaints and the
seed: re-running on its own output writes the same files byte for byte. Texts that repeat after normalising
case, spaces and punctuation — within the files, or against the bundled Hindi/English complaints — are refused
with their lines, never dropped.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

from mealwatch.data import SPLIT_NAMES, Example, bundled_data_dir, normalize_text, read_dataset, stratified_split
from mealwatch.labels import LABEL_SEPARATOR, LABELS
from mealwatch.languages import LANGUAGES

SEED = 13
FRACTIONS = (0.20, 0.20, 0.60)
COLUMNS = ["text", "labels", "language", "source"]
ROOT = Path(__file__).resolve().parents[1] / "data" / "languages"


def read_rows(path: Path, language: str | None) -> list[dict[str, str]]:
    """The rows of one file, each with its language (the file's ``language`` column, else ``language``)."""
    read_dataset(path, label_set=list(LABELS), multi_label=True)  # the labels and texts are checked here
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = [{**row, "language": row.get("language") or language} for row in csv.DictReader(f)]
    for i, row in enumerate(rows, start=2):
        if row["language"] not in LANGUAGES:
            raise SystemExit(f"{path}, line {i}: language {row['language']!r} is not one of {', '.join(LANGUAGES)}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, help="written files to add, named <code>.csv")
    parser.add_argument("--out", type=Path, default=ROOT)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    current = [args.out / f"{name}.csv" for name in SPLIT_NAMES if (args.out / f"{name}.csv").is_file()]
    rows = [r for path in current for r in read_rows(path, None)]
    rows += [r for path in args.sources for r in read_rows(path, path.stem)]
    seen = defaultdict(list)
    for split in SPLIT_NAMES:
        for e in read_dataset(bundled_data_dir() / f"{split}.csv", label_set=list(LABELS), multi_label=True).examples:
            seen[normalize_text(e.text)].append(f"data/complaints/{split}.csv:{e.line}")
    for row in rows:
        seen[normalize_text(row["text"])].append(f"{row['language']}: {row['text'][:40]}")
    repeats = [where for where in seen.values() if len(where) > 1]
    if repeats:
        for where in repeats:
            print("repeated text: " + " | ".join(where), file=sys.stderr)
        return 1
    by_language: dict[str, list[tuple[Example, dict[str, str]]]] = defaultdict(list)
    for i, row in enumerate(rows):
        labels = tuple(label for label in LABELS if label in row["labels"].split(LABEL_SEPARATOR))
        by_language[row["language"]].append((Example(row["text"].strip(), labels, i), row))
    parts: list[list[dict[str, str]]] = [[] for _ in SPLIT_NAMES]
    for language in sorted(by_language):
        pairs = by_language[language]
        row_of = {id(e): r for e, r in pairs}
        for i, part in enumerate(stratified_split([e for e, _ in pairs], FRACTIONS, args.seed)):
            parts[i] += [row_of[id(e)] for e in part]
    for name, part in zip(SPLIT_NAMES, parts):
        part.sort(key=lambda r: (r["language"], normalize_text(r["text"]), r["text"]))
        with open(args.out / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            for r in part:
                labels = [label for label in LABELS if label in r["labels"].split(LABEL_SEPARATOR)]
                writer.writerow([r["text"].strip(), LABEL_SEPARATOR.join(labels), r["language"], r["source"]])
        print(f"{name}: {len(part)} complaints -> {args.out / (name + '.csv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
