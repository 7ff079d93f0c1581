"""``mealwatch predict``: labels, per-label probabilities and urgency for texts or a file of texts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mealwatch.pipeline import Prediction

FORMATS = ("jsonl", "csv", "table")
#: probabilities are written to this many decimals (the model is not surer than that)
DECIMALS = 4


def register(sub: argparse._SubParsersAction) -> None:
    from mealwatch.cli import add_speed_arguments

    p = sub.add_parser(
        "predict",
        help="sort complaints: labels, probabilities and urgency for texts or a CSV/JSONL/TXT file",
        description="Predict the labels of complaints with a trained model. Multi-label models give every label "
        "whose probability reaches its tuned threshold, or the most probable one if none does.",
    )
    p.add_argument("texts", nargs="*", metavar="TEXT", help="complaint texts (or use --input)")
    p.add_argument(
        "--model", help="a model folder written by `mealwatch train` (default: $MEALWATCH_MODEL, else the newest run)"
    )
    p.add_argument("--input", type=Path, help="a .csv or .jsonl file (with a text column/field) or a .txt file, "
                   "one text per line")  # fmt: skip
    p.add_argument("--text-column", default="text", help="column/field holding the text (default: text)")
    p.add_argument("--output", type=Path, help="write the predictions to this file (default: standard output)")
    p.add_argument("--format", choices=FORMATS, help="jsonl, csv or table (default: from --output's suffix; on a "
                   "terminal a readable table, else jsonl)")  # fmt: skip
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--backend", choices=["torch", "onnxruntime"], default="torch",
                   help="torch (default), or onnxruntime for a folder written by `mealwatch export --format onnx` "
                   "(--precision fp32 or int8)")  # fmt: skip
    add_speed_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError, texts_from_args

    if args.output is not None and args.input is None:
        raise UserError("--output needs --input (TEXT arguments are answered on standard output)")
    if args.batch_size < 1:
        raise UserError("--batch-size must be at least 1")
    output_format = args.format or _format_of(args.output)
    if output_format == "table" and args.output is not None:
        raise UserError("--format table is for the terminal: write a file as jsonl or csv")
    texts = texts_from_args(args)

    from mealwatch.atomic import write_text_atomically
    from mealwatch.cli import speed_options
    from mealwatch.pipeline import Pipeline

    if args.backend == "onnxruntime" and args.precision not in ("fp32", "int8"):
        raise UserError("--backend onnxruntime runs --precision fp32 or int8")
    pipeline = Pipeline.load(args.model, backend=args.backend, **speed_options(args))
    predictions = pipeline.predict(texts, batch_size=args.batch_size)
    cut = [i for i, p in enumerate(predictions, start=1) if p.truncated]
    if cut:
        shown = ", ".join(map(str, cut[:10])) + (f" and {len(cut) - 10} more" if len(cut) > 10 else "")
        print(f"note: {len(cut)} text(s) are longer than {pipeline.max_length} word pieces; only their start "
              f"was read (text number {shown}; marked truncated in the output)", file=sys.stderr)  # fmt: skip
    review = [i for i, p in enumerate(predictions, start=1) if p.needs_review]
    if review:
        shown = ", ".join(map(str, review[:10])) + (f" and {len(review) - 10} more" if len(review) > 10 else "")
        print(f"note: {len(review)} text(s) need a person's review: their labels are not reliable (text number "
              f"{shown}; needs_review and review_reasons in the output say why)", file=sys.stderr)  # fmt: skip
    if output_format == "table":
        print_table(predictions)
        return 0
    content = format_predictions(predictions, pipeline.labels, output_format)
    if args.output is None:
        sys.stdout.write(content)
    else:
        write_text_atomically(args.output, content)
        print(f"wrote {len(predictions)} predictions to {args.output}", file=sys.stderr)
    return 0


def _format_of(output: Path | None) -> str:
    if output is not None and output.suffix.lower() == ".csv":
        return "csv"
    if output is None and sys.stdout.isatty():
        return "table"  # a person reads it; a program piping it gets JSON lines
    return "jsonl"


def print_table(predictions: Sequence["Prediction"]) -> None:
    """One row per text: its labels with their probabilities, urgency and the review flag; the text last (a
    terminal draws Devanagari at widths no count predicts, and the last column shifts nothing)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("#", justify="right")
    for name in ("labels", "urgency", "review", "text"):
        table.add_column(name, overflow="fold")
    for i, p in enumerate(predictions, start=1):
        labels = ", ".join(f"{label} {p.probabilities[label]:.2f}" for label in p.labels)
        review = "; ".join(p.review_reasons) if p.needs_review else ""
        text = p.text if len(p.text) <= 80 else p.text[:77] + "..."
        table.add_row(str(i), labels, p.urgency or "", review, text + (" (cut)" if p.truncated else ""))
    Console(highlight=False, soft_wrap=False).print(table)


def format_predictions(predictions: Sequence["Prediction"], labels: Sequence[str], output_format: str) -> str:
    """JSONL (one object per text) or CSV (``csvfile.write_csv``: text, labels, urgency, truncated, needs_review,
    review_reasons, one p_<label> column per label)."""
    from mealwatch.csvfile import write_csv

    if output_format == "jsonl":
        return "".join(json.dumps(rounded(p.to_dict()), ensure_ascii=False) + "\n" for p in predictions)
    header = [
        "text",
        "labels",
        "urgency",
        "truncated",
        "needs_review",
        "review_reasons",
        *(f"p_{label}" for label in labels),
    ]
    rows = ([p.text, p.labels, p.urgency, p.truncated, p.needs_review, p.review_reasons,
             *(p.probabilities[label] for label in labels)] for p in predictions)  # fmt: skip
    return write_csv(header, rows)


def rounded(answer: dict) -> dict:
    """A prediction's JSON with its probabilities to ``DECIMALS`` decimals (not 17 digits of float noise)."""
    return {**answer, "probabilities": {k: round(v, DECIMALS) for k, v in answer["probabilities"].items()}}
