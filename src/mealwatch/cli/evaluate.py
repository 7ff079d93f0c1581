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
    p.add_argument("--data", type=Path, help="a labelled .csv or .jsonl file")
    p.add_argument(
        "--db",
        help="instead of --data: the corrected complaints of a complaint log (SQLite file or "
        "PostgreSQL URL), reported per label and per month of arrival, so that drift shows",
    )
    p.add_argument("--text-column", default="text", help="column/field holding the text (default: text)")
    p.add_argument("--labels-column", default="labels", help="column/field holding the labels (default: labels)")
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    p.add_argument("--encoder-alone", action="store_true",
                   help="score the fine-tuned encoder without the n-gram channel fused with it (what the channel "
                   "adds, measured); the Devanagari view stays")  # fmt: skip
    add_speed_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError
    from mealwatch.data import read_dataset
    from mealwatch.learning.evaluation import evaluate_pipeline, format_report
    from mealwatch.cli import speed_options
    from mealwatch.pipeline import Pipeline
    from mealwatch.runs import resolve_model

    if (args.data is None) == (args.db is None):
        raise UserError("give either --data FILE or --db LOG (not both, not neither)")
    folder = resolve_model(args.model)
    pipeline = Pipeline.from_folder(folder, **speed_options(args))
    if args.encoder_alone:
        pipeline.without_ngram_channel()
    if args.db is not None:
        return evaluate_log(args, folder, pipeline)
    dataset = read_dataset(
        args.data, text_column=args.text_column, labels_column=args.labels_column,
        label_set=pipeline.labels, multi_label=pipeline.multi_label,
    )  # fmt: skip
    from mealwatch.cli.progress import Progress

    shown = Progress(f"predicting {args.data.name}", len(dataset))
    report = evaluate_pipeline(pipeline, dataset, progress=shown.advance)
    shown.finish()
    if args.json:
        print(
            json.dumps(
                {"model": str(folder), "data": str(args.data), "encoder_alone": args.encoder_alone, **report.to_dict()}
            )
        )
    else:
        alone = " (the encoder alone, without its n-gram channel)" if args.encoder_alone else ""
        print(f"Model {folder}{alone} on {args.data}:\n")
        print(format_report(report))
    return 0


def evaluate_log(args: argparse.Namespace, folder, pipeline) -> int:
    """The model on the corrected complaints of a log: the usual report, with macro-F1 per month of arrival."""
    from mealwatch.cli import UserError
    from mealwatch.cli.progress import Progress
    from mealwatch.data import Dataset, Example
    from mealwatch.learning.corrections import corrected_complaints
    from mealwatch.learning.evaluation import evaluate_pipeline, format_report
    from mealwatch.log import redact

    if "://" not in args.db and not Path(args.db).is_file():
        raise UserError(f"--db {args.db}: no such file; pass the complaint log `mealwatch serve --db` uses")
    corrected = corrected_complaints(args.db)
    unknown = sorted({label for c in corrected for label in c.labels} - set(pipeline.labels))
    if unknown:
        raise UserError(f"{redact(args.db)}: corrected labels {', '.join(unknown)} are not the model's labels")
    if not corrected:
        raise UserError(f"{redact(args.db)} holds no corrected complaints: correct labels on the page first")
    order = pipeline.labels.index
    examples = [Example(c.text, tuple(sorted(c.labels, key=order)), 0) for c in corrected]
    dataset = Dataset.from_examples(examples, pipeline.labels, pipeline.multi_label)
    shown = Progress("predicting the corrected complaints", len(dataset))
    report = evaluate_pipeline(pipeline, dataset, progress=shown.advance, months=[c.month for c in corrected])
    shown.finish()
    if args.json:
        print(json.dumps({"model": str(folder), "db": redact(args.db), **report.to_dict()}))
        return 0
    print(f"Model {folder} on the {len(corrected)} corrected complaints of {redact(args.db)}:\n")
    print(format_report(report))
    return 0
