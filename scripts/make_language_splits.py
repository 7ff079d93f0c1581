"""Write the split of the complaints in India's other languages (data/languages/, its README is the datasheet).

    python scripts/make_language_splits.py

Two kinds of rows make the split:

- the **first release** (80 complaints per language in its own script, each listed with its severity and children
  in ``written/<code>-existing.csv``): they keep the split they have (so that earlier figures stay comparable);
  a row of the split files that is neither there nor in a written file (rewritten or removed since) is left out,
  and said so;
- the **written** complaints (``written/<code>.csv``: ``text,labels,script,source,severity,children``, in the
  language's script or in Latin letters): split per language form, stratified by label and by how grave the
  severity is, seeded — in the language's script 60 % train, 15 % validation, 25 % test; in Latin letters 50 %,
  15 %, 35 % (so that every form has at least 50 test complaints).

The split depends only on these files and the seed: re-running on its own output writes the same files byte for
byte. Texts that repeat after normalising case, spaces and punctuation — within the files, or against the bundled
Hindi/English complaints — are refused with their lines, never dropped.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from mealwatch.data import SPLIT_NAMES, bundled_data_dir, normalize_text, read_dataset, stratified_split
from mealwatch.labels import LABEL_SEPARATOR, LABELS
from mealwatch.languages import LANGUAGES
from mealwatch.severity import GRAVE_LEVELS, SEVERITY_LEVELS

SEED = 13
FRACTIONS = {"native": (0.60, 0.15, 0.25), "latn": (0.50, 0.15, 0.35)}
COLUMNS = ["text", "labels", "language", "script", "source", "severity", "children"]
ROOT = Path(__file__).resolve().parents[1] / "data" / "languages"


@dataclass(frozen=True)
class Row:
    text: str
    labels: tuple[str, ...]
    language: str
    script: str  # "" for the language's own script, "latn" for Latin letters
    source: str
    severity: str
    children: str
    line: int = 0

    def out(self) -> list[str]:
        return [self.text, LABEL_SEPARATOR.join(self.labels), self.language, self.script, self.source, self.severity,
                self.children]  # fmt: skip


def read(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def labels_of(cell: str, where: str) -> tuple[str, ...]:
    given = cell.split(LABEL_SEPARATOR)
    unknown = [label for label in given if label not in LABELS]
    if unknown or not given:
        raise SystemExit(f"{where}: unknown labels {unknown}")
    return tuple(label for label in LABELS if label in given)


def written_rows(folder: Path) -> list[Row]:
    rows = []
    for path in sorted(folder.glob("*.csv")):
        if path.stem.endswith("-existing"):
            continue
        if path.stem not in LANGUAGES:
            raise SystemExit(f"{path}: name a written file <code>.csv, code one of {', '.join(LANGUAGES)}")
        for i, r in enumerate(read(path), start=2):
            script = {"native": "", "latn": "latn"}.get(r["script"])
            if script is None:
                raise SystemExit(f"{path}:{i}: script {r['script']!r} is not native or latn")
            children = r["children"]
            if r["severity"] not in SEVERITY_LEVELS or not (children in ("", "all") or children.isdigit()):
                raise SystemExit(f"{path}:{i}: severity {r['severity']!r} or children {children!r} is not valid "
                                 "(python scripts/check_written.py checks a written file)")  # fmt: skip
            rows.append(Row(r["text"].strip(), labels_of(r["labels"], f"{path}:{i}"), path.stem, script, r["source"],
                            r["severity"], r["children"], i))  # fmt: skip
    return rows


def first_release(out: Path, written: set[str], folder: Path) -> dict[str, list[Row]]:
    """The current split files' rows that no written file holds, by split, with their severity annotation."""
    annotated: dict[str, tuple[str, str]] = {}
    for path in sorted(folder.glob("*-existing.csv")):
        for r in read(path):
            annotated[r["text"]] = (r["severity"], r["children"])
    parts: dict[str, list[Row]] = {}
    for name in SPLIT_NAMES:
        path = out / f"{name}.csv"
        parts[name] = []
        for i, r in enumerate(read(path) if path.is_file() else [], start=2):
            text = r["text"].strip()
            if normalize_text(text) in written:
                continue
            if r["text"] not in annotated:  # once written, since rewritten or removed there: written/ is the source
                print(f"{path}:{i}: left out, in neither written/ nor the first release: {text[:60]}", file=sys.stderr)
                continue
            severity, children = annotated[r["text"]]
            if severity not in SEVERITY_LEVELS:
                raise SystemExit(f"{path}:{i}: no severity for this first-release row (written/<code>-existing.csv)")
            parts[name].append(Row(text, labels_of(r["labels"], f"{path}:{i}"), r["language"], r.get("script", ""),
                                   r["source"], severity, children, i))  # fmt: skip
    return parts


def grade(row: Row) -> str:
    """How grave a row is, a second key of the strata: so that deaths and admissions reach every part."""
    return "grave" if row.severity in GRAVE_LEVELS else "ill" if row.severity != "none" else "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT)
    parser.add_argument("--written", type=Path, default=ROOT / "written")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    written = written_rows(args.written)
    parts = first_release(args.out, {normalize_text(r.text) for r in written}, args.written)
    seen = defaultdict(list)
    for split in SPLIT_NAMES:
        for e in read_dataset(bundled_data_dir() / f"{split}.csv", label_set=list(LABELS), multi_label=True).examples:
            seen[normalize_text(e.text)].append(f"data/complaints/{split}.csv:{e.line}")
    for row in written + [r for part in parts.values() for r in part]:
        seen[normalize_text(row.text)].append(f"{row.language}: {row.text[:40]}")
    repeats = [where for where in seen.values() if len(where) > 1]
    if repeats:
        for where in repeats:
            print("repeated text: " + " | ".join(where), file=sys.stderr)
        return 1
    by_form: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in written:
        by_form[(row.language, row.script)].append(row)
    for (language, script), rows in sorted(by_form.items()):
        fractions = FRACTIONS["latn" if script else "native"]
        for name, part in zip(SPLIT_NAMES, stratified_split(rows, fractions, args.seed, also_by=grade)):
            parts[name] += part
    for name in SPLIT_NAMES:
        part = sorted(parts[name], key=lambda r: (r.language, r.script, normalize_text(r.text), r.text))
        with open(args.out / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            writer.writerows(r.out() for r in part)
        print(f"{name}: {len(part)} complaints -> {args.out / (name + '.csv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
