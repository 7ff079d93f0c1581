"""Write the bundled dataset's seeded, stratified 70/15/15 split.

    python scripts/make_splits.py                        # re-split the current train/validation/test files
    python scripts/make_splits.py parts/deva_sms.csv ...  # add freshly written parts, then split everything

Every row carries its severity annotation (``severity``: the worst that happened to a child; ``children``: how many
children it says were affected; both as the file gives them), its ``script`` (latn-en, latn-hi, deva, mixed: from
the file, else detected) and its ``source`` (the part it was written in: a file's ``source`` column, else the file's
name). The rows of the first release (source ``v1``) are split by label alone, exactly as they were, so earlier
figures stay comparable and their Hindi renderings in parallel.csv (all of train rows) never meet validation or
test; every later row is split stratified by label x script. The split depends only on the set of complaints and the
seed, so re-running on its own output writes the same files byte for byte. Texts that repeat after normalising case,
spaces and punctuation are refused with their lines, never dropped."""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

from mealwatch.data import SPLIT_NAMES, Example, bundled_data_dir, normalize_text, read_dataset, stratified_split
from mealwatch.labels import LABEL_SEPARATOR, LABELS
from mealwatch.children import ALL_CHILDREN
from mealwatch.text import detect_script

SEED = 13
FRACTIONS = (0.70, 0.15, 0.15)
FIRST_RELEASE = "v1"
#: the source of the complaints written for the severity levels (issue 33), split on their own
SEVERITY_PART = "severity"
COLUMNS = ["text", "labels", "script", "source", "severity", "children"]


def children_cell(children: int | None) -> str:
    """How a row's children are written: a number, ``all``, or empty (none stated, or not annotated)."""
    if not children:
        return ""
    return "all" if children == ALL_CHILDREN else str(children)


def read_sources(path: Path, default_source: str) -> dict[str, str]:
    """text -> source for every row of a CSV (its ``source`` column, else ``default_source``)."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        return {row["text"].strip(): (row.get("source") or default_source) for row in csv.DictReader(f)}


def split_rows(examples: list[Example], source: dict[str, str], seed: int = SEED) -> list[list[Example]]:
    """The first release split by label as before; the rows written for severity (``SEVERITY_PART``) by label x
    script x severity level, on their own, so that adding them moved no earlier row; every other row by label x
    script."""
    first = [e for e in examples if source[e.text] == FIRST_RELEASE]
    severity = [e for e in examples if source[e.text] == SEVERITY_PART]
    later = [e for e in examples if source[e.text] not in (FIRST_RELEASE, SEVERITY_PART)]
    parts = stratified_split(first, FRACTIONS, seed) if first else [[] for _ in FRACTIONS]
    if later:
        added = stratified_split(later, FRACTIONS, seed, also_by=lambda e: e.script or detect_script(e.text))
        parts = [a + b for a, b in zip(parts, added)]
    if severity:
        key = lambda e: f"{e.script or detect_script(e.text)}|{e.severity}"  # noqa: E731
        parts = [a + b for a, b in zip(parts, stratified_split(severity, FRACTIONS, seed, also_by=key))]
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, help="CSV files (text,labels[,script,source]) to add")
    parser.add_argument("--out", type=Path, default=bundled_data_dir())
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    current = [args.out / f"{name}.csv" for name in SPLIT_NAMES if (args.out / f"{name}.csv").is_file()]
    examples, seen, source = [], defaultdict(list), {}
    for path in current + list(args.sources):
        dataset = read_dataset(path, label_set=list(LABELS), multi_label=True)
        source.update(read_sources(path, FIRST_RELEASE if path in current else path.stem.replace("_", "-")))
        for e in dataset.examples:
            seen[normalize_text(e.text)].append(f"{path}:{e.line}")
        examples += dataset.examples
    repeats = [where for where in seen.values() if len(where) > 1]
    if repeats:
        for where in repeats:
            print("repeated text at " + ", ".join(where), file=sys.stderr)
        print(f"{len(repeats)} texts repeat: fix them in the sources first", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for name, part in zip(SPLIT_NAMES, split_rows(examples, source, args.seed)):
        part = sorted(part, key=lambda e: (source[e.text] != FIRST_RELEASE, normalize_text(e.text), e.text))
        with open(args.out / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            for e in part:
                ordered = [label for label in LABELS if label in e.labels]
                writer.writerow([e.text, LABEL_SEPARATOR.join(ordered), e.script or detect_script(e.text),
                                 source[e.text], e.severity or "", children_cell(e.children)])  # fmt: skip
        print(f"{name}: {len(part)} complaints -> {args.out / (name + '.csv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
