"""``mealwatch evaluate``: score a trained model on a labelled CSV/JSONL file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    from mealwatch.cli import add_speed_arguments

    p = sub.add_parser(
        "evaluate",
        help="precision, recall and F1 of a trained model on a labelled file",
        description="Predict the labels of a labelled CSV/JSONL file and compare them with the truth.",
    )
    p.add_argument(
        "--model", help="a model folder written by `mealwatch train` (default: $MEALWATCH_MODEL, else the newest run)"
    )
    p.add_argument("--data", type=Path, required=True, help="a labelled .csv or .jsonl file")
    p.add_argument("--text-column", default="text", help="column/field holding the text (default: text)")
    p.add_argument("--labels-column", default="labels", help="column/field holding the labels (default: labels)")
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    add_speed_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.data import read_dataset
    from mealwatch.evaluation import evaluate_pipeline, format_report
    from mealwatch.cli import speed_options
    from mealwatch.pipeline import Pipeline
    from mealwatch.runs import resolve_model

    folder = resolve_model(args.model)
    pipeline = Pipeline.from_folder(folder, **speed_options(args))
    dataset = read_dataset(
        args.data, text_column=args.text_column, labels_column=args.labels_column,
        label_set=pipeline.labels, multi_label=pipeline.multi_label,
    )  # fmt: skip
    report = evaluate_pipeline(pipeline, dataset)
    if args.json:
        print(json.dumps({"model": str(folder), "data": str(args.data), **report.to_dict()}))
    else:
        print(f"Model {folder} on {args.data}:\n")
        print(format_report(report))
    return 0
