"""The children a complaint names, counted by the rules of ``mealwatch.children`` against the annotators' count.

    python benchmarks/children_count.py [--split train|validation] [--show-misses N]

Reads one split of the bundled complaints (English and Hindi) and of the ten other languages' complaints, and
compares ``children_named(text)`` with the ``children`` column on every row that is annotated with a number (or
``all``) or where the rules find one. Prints, per language form (``ta`` in its script, ``ta-latn`` typed in Latin
letters, ``hi-latn`` for romanised Hindi, ``en``) and overall: the rows that state a number, the share counted
exactly, and the false counts (a number found where the annotation is empty). ``--show-misses N`` prints up to N
rows where the two differ, with the text. Rules are chosen on train and validation; the test split is refused
unless ``--i-read-test-once`` is given (it is read once, at the end).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass

from mealwatch.children import ALL_CHILDREN, children_named, children_text
from mealwatch.data import Dataset, Example, bundled_data_dir, read_dataset, with_languages
from mealwatch.labels import LABELS
from mealwatch.languages import language_form
from mealwatch.text import detect_script

ALL_FORMS = "all"


@dataclass(frozen=True)
class Row:
    """One compared row: its form, text, the annotated count (0: none stated) and the rules' count."""

    form: str
    text: str
    annotated: int
    counted: int


def load(split: str) -> Dataset:
    """The split of the bundled complaints joined by the same split of the other languages (only that split's
    files are read)."""
    bundled = read_dataset(bundled_data_dir() / f"{split}.csv", label_set=list(LABELS))
    return with_languages({split: bundled})[split]


def form_of(example: Example) -> str:
    """The row's language form: the file's ``language`` and ``script`` columns where given; a bundled complaint
    without a language is English when its script is English in Latin letters, else Hindi."""
    script = example.script or detect_script(example.text)
    language = example.language or ("en" if script == "latn-en" else "hi")
    return language_form(language, script)


def compare(dataset: Dataset) -> list[Row]:
    """The rows with a ``children`` annotation or a count found by the rules."""
    rows = []
    for e in dataset.examples:
        if e.children is None:
            continue  # not annotated at all
        counted = children_named(e.text)
        if e.children or counted:
            rows.append(Row(form_of(e), e.text, e.children, counted))
    return rows


def table(rows: list[Row]) -> str:
    """Per form and overall: rows stating a number, exact share, rows missed, false counts."""
    by_form: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_form[r.form].append(r)
        by_form[ALL_FORMS].append(r)
    lines = [f"{'form':<9} {'stated':>6} {'exact':>6} {'missed':>6} {'false':>6}"]
    for form in sorted(by_form, key=lambda f: (f == ALL_FORMS, f)):
        group = by_form[form]
        stated = [r for r in group if r.annotated]
        exact = sum(r.counted == r.annotated for r in stated)
        false = sum(1 for r in group if not r.annotated and r.counted)
        share = f"{exact / len(stated):.3f}" if stated else "-"
        lines.append(f"{form:<9} {len(stated):>6} {share:>6} {len(stated) - exact:>6} {false:>6}")
    return "\n".join(lines)


def _shown(n: int) -> str:
    return children_text(n) or "-"


def misses(rows: list[Row], limit: int) -> str:
    """Up to ``limit`` rows where the rules and the annotation differ: form, annotated, counted, text."""
    wrong = [r for r in rows if r.counted != r.annotated]
    lines = [f"{len(wrong)} rows differ (annotated -> counted):"]
    for r in sorted(wrong, key=lambda r: r.form)[:limit]:
        lines.append(f"[{r.form}] {_shown(r.annotated)} -> {_shown(r.counted)}: {r.text}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "validation", "test"), default="validation")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print up to N rows that differ")
    parser.add_argument("--i-read-test-once", action="store_true", help="allow --split test (read once, at the end)")
    args = parser.parse_args()
    if args.split == "test" and not args.i_read_test_once:
        parser.error("the test split is held out: rules are chosen on train and validation (--i-read-test-once)")
    rows = compare(load(args.split))
    alls = sum(r.annotated == ALL_CHILDREN for r in rows)
    print(f"{args.split} split: {len(rows)} rows with a count annotated or found ({alls} annotated 'all')")
    print(table(rows))
    if args.show_misses:
        print()
        print(misses(rows, args.show_misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
