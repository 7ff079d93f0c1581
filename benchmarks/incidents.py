"""Incident grouping on the labelled replays (issue 25's target: pairwise F1 >= 0.90 on the test replay).

Reads data/incidents/validation.csv (complaints with the ``event`` each belongs to, their school, UDISE code,
district, block and report time), computes each complaint's sentence vector (``--vectors``: see
benchmarks/vector_sources.py), replays them in report order through ``search.grouping.replay`` for every rule of
a grid (threshold, window, linkage; group by school) and prints the best rules by pairwise F1 on validation.
With ``--test`` it then reads test.csv once and prints the chosen rule's pairwise precision, recall and F1
there, and how many incidents span two schools (must be 0 when grouping by school).

    python benchmarks/incidents.py [--vectors e5] [--data data/incidents] [--test] [--thresholds 0.70,0.96]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vector_sources import load_vectors  # noqa: E402

from mealwatch.search.grouping import DEFAULT_RULE, GroupingRule, pair_scores, replay  # noqa: E402
from mealwatch.search.vectors import dequantize, quantize  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WINDOWS = (12.0, 24.0, 48.0, 72.0)


def read_replay(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    needed = {"event", "text", "school", "udise", "district", "block", "reported_at"}
    if not rows or needed - set(rows[0]):
        raise SystemExit(f"{path}: expected a CSV with the columns {', '.join(sorted(needed))}")
    return rows


def evaluate(rule: GroupingRule, rows: list[dict[str, str]], vectors: np.ndarray):
    places = [rule.place(r["school"], r["udise"], r["district"], r["block"]) for r in rows]
    times = [datetime.fromisoformat(r["reported_at"]) for r in rows]
    found = replay(rule, places, times, vectors)
    schools: dict[int, set] = {}
    for r, n in zip(rows, found):
        schools.setdefault(n, set()).add(GroupingRule().place(r["school"], r["udise"], r["district"], r["block"]))
    spanning = sum(len(s) > 1 for s in schools.values())
    return pair_scores([r["event"] for r in rows], found), len(set(found)), spanning


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vectors", default="e5")
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "incidents")
    ap.add_argument("--test", action="store_true", help="read test.csv once with the rule validation chose")
    ap.add_argument(
        "--rule",
        choices=("best", "service"),
        default="service",
        help="for --test: the service's DEFAULT_RULE (default) or the best of the grid",
    )
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--thresholds", default="0.70,0.96", help="LOW,HIGH: the cosines tried, in steps of 0.01 "
                    "(a fine-tuned encoder's vectors lie closer together: try 0.2,0.8)")  # fmt: skip
    args = ap.parse_args()
    validation = read_replay(args.data / "validation.csv")
    source = load_vectors(args.vectors)
    t0 = time.perf_counter()
    vectors = dequantize(quantize(source.passages([r["text"] for r in validation])))  # as stored in the log
    print(f"vectors: {source.version} ({len(validation)} complaints, {time.perf_counter() - t0:.1f} s)")
    events = len({r["event"] for r in validation})
    low, high = (float(x) for x in args.thresholds.split(","))
    thresholds = [round(t, 2) for t in np.arange(low, high, 0.01)]
    results = []
    for linkage in ("max", "centroid"):
        for window in WINDOWS:
            for threshold in thresholds:
                rule = GroupingRule(threshold=threshold, window_hours=window, linkage=linkage)
                scores, n, spanning = evaluate(rule, validation, vectors)
                results.append((scores.f1, -abs(threshold - 0.85), rule, scores, n, spanning))
    results.sort(key=lambda r: (r[0], r[1]), reverse=True)
    print(f"validation: {len(validation)} complaints, {events} events; best rules by pairwise F1:")
    print(
        f"{'linkage':>8} {'window h':>8} {'threshold':>9} {'P':>6} {'R':>6} {'F1':>6} {'incidents':>9} {'spanning':>8}"
    )
    for f1, _, rule, s, n, spanning in results[: args.top]:
        print(f"{rule.linkage:>8} {rule.window_hours:>8.0f} {rule.threshold:>9.2f} {s.precision:>6.3f} "
              f"{s.recall:>6.3f} {f1:>6.3f} {n:>9} {spanning:>8}")  # fmt: skip
    chosen = results[0][2] if args.rule == "best" else DEFAULT_RULE
    default = next((r for r in results if r[2] == DEFAULT_RULE), None)
    if default is not None:
        print(f"the service's rule ({DEFAULT_RULE}): validation F1 {default[0]:.3f}")
    if args.test:
        test = read_replay(args.data / "test.csv")
        scores, n, spanning = evaluate(chosen, test, dequantize(quantize(source.passages([r["text"] for r in test]))))
        print(f"test ({len(test)} complaints, {len({r['event'] for r in test})} events) with {chosen}:")
        print(f"  pairwise precision {scores.precision:.3f}  recall {scores.recall:.3f}  F1 {scores.f1:.3f}  "
              f"({scores.true_pairs} true pairs, {scores.found_pairs} found; {n} incidents, {spanning} span two "
              "schools)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
