"""Print the bundled dataset's statistics, the figures its datasheet (data/complaints/README.md) quotes.

python scripts/dataset_stats.py [FOLDER]
"""

from __future__ import annotations

import csv
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

from mealwatch.data import SPLIT_NAMES, bundled_data_dir, normalize_text, read_dataset
from mealwatch.labels import LABELS
from mealwatch.severity import SEVERITY_LEVELS
from mealwatch.text import SCRIPTS as ALL_SCRIPTS


def ngrams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    """The distinct n-word sequences of a text (normalised: lower case, no punctuation)."""
    words = normalize_text(text).split()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def repeated_ngrams(texts: list[str], n: int = 8) -> list[tuple[tuple[str, ...], int]]:
    """n-grams shared by more than one text, most shared first, with the number of texts sharing each."""
    counts = Counter(g for t in texts for g in ngrams(t, n))
    return [(g, c) for g, c in counts.most_common() if c > 1]


def main(folder: Path) -> None:
    splits = {
        name: read_dataset(folder / f"{name}.csv", label_set=list(LABELS), multi_label=True) for name in SPLIT_NAMES
    }
    every = [e for s in splits.values() for e in s.examples]
    n = len(every)
    print(f"complaints: {n}  (" + ", ".join(f"{k} {len(v)} = {len(v) / n:.1%}" for k, v in splits.items()) + ")\n")

    scripts = [s for s in ALL_SCRIPTS if any(e.script == s for e in every)]  # the scripts this data set has
    print("| label | " + " | ".join(SPLIT_NAMES) + " | all |")
    print("|---|" + "---|" * (len(SPLIT_NAMES) + 1))
    for label in LABELS:
        counts = [splits[s].label_counts()[label] for s in SPLIT_NAMES]
        print(f"| {label} | " + " | ".join(map(str, counts)) + f" | {sum(counts)} |")

    print("\n| script | " + " | ".join(SPLIT_NAMES) + " | all |")
    print("|---|" + "---|" * (len(SPLIT_NAMES) + 1))
    for script in scripts:
        counts = [splits[s].scripts().count(script) for s in SPLIT_NAMES]
        print(f"| {script} | " + " | ".join(map(str, counts)) + f" | {sum(counts)} |")

    print("\n| severity | " + " | ".join(SPLIT_NAMES) + " | all |")
    print("|---|" + "---|" * (len(SPLIT_NAMES) + 1))
    for level in SEVERITY_LEVELS:
        counts = [sum(e.severity == level for e in s.examples) for s in splits.values()]
        print(f"| {level} | " + " | ".join(map(str, counts)) + f" | {sum(counts)} |")
    stated = [sum(bool(e.children) for e in s.examples) for s in splits.values()]
    print("| children stated | " + " | ".join(map(str, stated)) + f" | {sum(stated)} |")

    print("\n| label | " + " | ".join(scripts) + " |  (all splits)")
    print("|---|" + "---|" * len(scripts))
    for label in LABELS:
        counts = [sum(label in e.labels for e in every if e.script == script) for script in scripts]
        print(f"| {label} | " + " | ".join(map(str, counts)) + " |")

    sources = Counter()
    for name in SPLIT_NAMES:
        with open(folder / f"{name}.csv", encoding="utf-8", newline="") as f:
            sources.update((row.get("source") or "?", row.get("script") or "?") for row in csv.DictReader(f))
    print(
        "\nrows per source (the part each was written in) and script: "
        + ", ".join(f"{src}/{script} {n}" for (src, script), n in sorted(sources.items()))
    )
    parallel = folder / "parallel.csv"
    if parallel.is_file():
        with open(parallel, encoding="utf-8", newline="") as f:
            print(
                f"parallel renderings (parallel.csv): {sum(1 for _ in csv.DictReader(f))} English training complaints"
            )

    sizes = Counter(len(e.labels) for e in every)
    print("\nlabels per complaint: " + ", ".join(f"{k}: {sizes[k]} ({sizes[k] / n:.1%})" for k in sorted(sizes)))

    for script in ("all", *scripts):
        lengths = sorted(len(e.text.split()) for e in every if script in ("all", e.script))
        q = statistics.quantiles(lengths, n=10)
        print(
            f"words per complaint ({script}): min {lengths[0]}, 10% {q[0]:.0f}, "
            f"median {statistics.median(lengths):.0f}, "
            f"90% {q[-1]:.0f}, max {lengths[-1]}"
        )
    lengths = sorted(len(e.text.split()) for e in every)
    q = statistics.quantiles(lengths, n=10)
    print(
        f"words per complaint: min {lengths[0]}, 10% {q[0]:.0f}, median {statistics.median(lengths):.0f}, "
        f"90% {q[-1]:.0f}, max {lengths[-1]}, mean {statistics.mean(lengths):.1f}"
    )
    bins = [(1, 5), (6, 15), (16, 30), (31, 60), (61, 90), (91, 10_000)]
    print(
        "length histogram (words): "
        + ", ".join(f"{lo}-{hi if hi < 10_000 else ''}: {sum(lo <= x <= hi for x in lengths)}" for lo, hi in bins)
    )
    caps = sum(1 for e in every if re.sub(r"[^A-Za-z]", "", e.text).isupper())
    print(f"all-caps complaints: {caps}")

    repeated = repeated_ngrams([e.text for e in every])
    print(f"\n8-word sequences shared by more than one complaint: {len(repeated)}")
    for gram, count in repeated[:10]:
        print(f"  {count} complaints: {' '.join(gram)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else bundled_data_dir())
