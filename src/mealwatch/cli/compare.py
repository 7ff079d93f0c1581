"""``mealwatch compare``: TF-IDF, frozen embeddings, from-scratch and fine-tuned models on the same splits."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

BASELINE_NAMES = ("tfidf", "frozen", "scratch", "finetune")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="compare the fine-tuned Transformer with TF-IDF, frozen-embedding and from-scratch baselines",
        description="Fit each method on train, tune it on validation, and print one table of test scores, "
        "training time and prediction speed.",
    )
    p.add_argument("--data", type=Path, help="a folder of train/validation/test files or one file to split "
                   "70/15/15 (default: the bundled complaints)")  # fmt: skip
    p.add_argument("--only", default=",".join(BASELINE_NAMES), metavar="NAMES",
                   help=f"comma-separated subset of {','.join(BASELINE_NAMES)} (default: all)")  # fmt: skip
    p.add_argument("--epochs", type=int, help="training epochs for scratch and finetune (default: training's)")
    p.add_argument("--seed", type=int, default=0, help="seed of the splits we carve and of training (default: 0)")
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    p.add_argument("--out", type=Path, metavar="FILE.md", help="also write the table to this markdown file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError

    which = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in which if name not in BASELINE_NAMES]
    if unknown or not which:
        raise UserError(f"--only {args.only!r}: expected names from {','.join(BASELINE_NAMES)}")
    if args.epochs is not None and args.epochs < 1:
        raise UserError("--epochs must be at least 1")
    if args.out and args.out.suffix.lower() != ".md":
        raise UserError(f"--out {args.out}: expected a file ending in .md")

    from mealwatch.atomic import write_text_atomically
    from mealwatch.learning.baselines import compare, format_table
    from mealwatch.data import read_splits

    splits = read_splits(args.data, seed=args.seed)
    if "test" not in splits:
        raise UserError(f"{args.data}: no test.csv or test.jsonl; comparing needs a test split")
    sizes = ", ".join(f"{name} {len(split)}" for name, split in splits.items())
    print(f"comparing {', '.join(which)} on {sizes}", file=sys.stderr)
    results, which = [], [name for name in BASELINE_NAMES if name in which]
    for i, name in enumerate(which, start=1):  # one method at a time, each said as it starts and ends
        started = time.perf_counter()
        print(f"[{i}/{len(which)}] {name}: fitting and scoring ...", file=sys.stderr, flush=True)
        results += compare(splits, which=[name], epochs=args.epochs, seed=args.seed, progress=True)
        print(f"[{i}/{len(which)}] {name}: done in {time.perf_counter() - started:.0f} s (test macro-F1 "
              f"{results[-1].macro_f1:.3f})", file=sys.stderr, flush=True)  # fmt: skip
    table = format_table(results)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        print(table)
    if args.out:
        source = args.data if args.data else "the bundled complaints (data/complaints)"
        text = f"# Comparison on {source}\n\nSplits: {sizes}; seed {args.seed}.\n\n{table}\n"
        write_text_atomically(args.out, text)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0
