"""Write the bundled dataset's seeded, stratified 70/15/15 split.

    python scripts/make_splits.py                    # re-split the current train/validation/test files
    python scripts/make_splits.py part1.csv part2.csv  # split freshly written source files

The split depends only on the set of complaints and the seed (mealwatch.data.stratified_split),
so re-running it on its own output writes the same three files. Texts that repeat after
normalising case, spaces and punctuation are refused with their lines, never dropped silently.
"""
from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

from mealwatch.data import SPLIT_NAMES, bundled_data_dir, normalize_text, read_dataset, stratified_split
from mealwatch.labels import LABEL_SEPARATOR, LABELS

SEED = 13
FRACTIONS = (0.70, 0.15, 0.15)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, help="CSV files (text,labels); default: the current splits")
    parser.add_argument("--out", type=Path, default=bundled_data_dir())
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    sources = args.sources or [args.out / f"{name}.csv" for name in SPLIT_NAMES]
    examples, seen = [], defaultdict(list)
    for source in sources:
        dataset = read_dataset(source, label_set=list(LABELS), multi_label=True)
        for e in dataset.examples:
            seen[normalize_text(e.text)].append(f"{source}:{e.line}")
        examples += [e for e in dataset.examples]
    repeats = [where for where in seen.values() if len(where) > 1]
    if repeats:
        for where in repeats:
            print("repeated text at " + ", ".join(where), file=sys.stderr)
        print(f"{len(repeats)} texts repeat: fix them in the sources first", file=sys.stderr)
        return 1
    parts = stratified_split(examples, FRACTIONS, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, part in zip(SPLIT_NAMES, parts):
        with open(args.out / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["text", "labels"])
            for e in part:
                ordered = [label for label in LABELS if label in e.labels]
                writer.writerow([e.text, LABEL_SEPARATOR.join(ordered)])
        print(f"{name}: {len(part)} complaints -> {args.out / (name + '.csv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
