"""``mealwatch train``: fine-tune the encoder on complaint data and save the model with its evaluation."""

from __future__ import annotations

import argparse
import sys
import textwrap
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mealwatch.learning.training_run import FinishedRun

N_EXAMPLES = 5


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="fine-tune the classifier (default: the bundled complaints) and save it as a new run",
        description="Fine-tune the BERT encoder with a classification head, pick the best epoch on the validation "
        "split, save the model and report its metrics on the test split.",
    )
    p.add_argument("--data", type=Path, help="a folder of train/validation/test files, or one CSV/JSONL file "
                   "(split 70/15/15); default: the bundled complaints")  # fmt: skip
    p.add_argument("--validation", type=Path, help="a separate validation file (then --data is the training file)")
    p.add_argument("--test", type=Path, help="a separate test file")
    p.add_argument(
        "--out",
        type=Path,
        help="folder to save the model in (default: a new folder under $MEALWATCH_HOME/runs/, "
        "i.e. ~/.local/share/mealwatch/runs/)",
    )
    p.add_argument("--epochs", type=int, help="maximum number of epochs (default: 6)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument(
        "--patience", type=int, help="stop after this many epochs without a better validation macro-F1 (default: 3)"
    )
    p.add_argument("--batch-size", type=int, help="texts per step (default: 16)")
    p.add_argument("--lr", type=float, help="encoder learning rate (default: 1e-4)")
    p.add_argument("--pooling", choices=["mean", "cls"], default="mean",
                   help="sentence vector: mean of the tokens (default) or the [CLS] pooler")  # fmt: skip
    p.add_argument("--text-column", default="text", help="column/field holding the text (default: text)")
    p.add_argument("--labels-column", default="labels", help="column/field holding the labels (default: labels)")
    p.add_argument("--labels", help="the label set, comma-separated (default: the labels found in the data)")
    p.add_argument("--encoder", help="the pre-trained encoder to start from: e5 (multilingual-e5-small, about 100 "
                   "languages; the default), minilm (all-MiniLM-L6-v2, English) or a checkpoint folder")  # fmt: skip
    p.add_argument("--parallel", type=Path, help="a CSV of parallel renderings (english,labels,devanagari,romanised) "
                   "of training complaints, added to the training split "
                   "(default: the bundled parallel.csv when training on the bundled complaints)")  # fmt: skip
    p.add_argument("--no-languages", dest="languages", action="store_false",
                   help="leave out the bundled complaints in India's ten other languages (data/languages), which "
                   "join the bundled complaints' splits by default; the bundled data only")  # fmt: skip
    p.add_argument(
        "--add",
        metavar="DB_OR_FILE",
        help="fold officers' corrections into the training split: a "
        "complaint log (its corrected complaints) or a text,labels file from `mealwatch export-training`; "
        "de-duplicated against the training data, a correction's labels win for an exact duplicate",
    )
    p.add_argument("--no-ngram-channel", dest="ngram_channel", action="store_false",
                   help="do not fit the word and character n-gram channel fused with the encoder's probabilities "
                   "(by default it is fitted on train and kept at the weight validation macro-F1 prefers; see "
                   "docs/multilingual.md)")  # fmt: skip
    p.add_argument("--max-length", type=int, help="tokens per text (default: 128)")
    p.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's choice)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError

    if args.labels is not None:
        labels = [label.strip() for label in args.labels.split(",") if label.strip()]
        if not labels:
            raise UserError("--labels: expected labels separated by commas, e.g. --labels food,service,other")
    for name in ("data", "validation", "test"):
        path = getattr(args, name)
        if path is not None and not path.exists():
            raise UserError(f"--{name} {path}: no such file or folder")
    if not args.languages and args.data is not None:
        raise UserError("--no-languages leaves out the bundled complaints in other languages: it applies to the "
                        "bundled data only (without --data)")  # fmt: skip
    if args.parallel is not None and not args.parallel.is_file():
        raise UserError(f"--parallel {args.parallel}: no such file")
    from mealwatch.encoders import NAMED

    if args.encoder is not None and args.encoder not in NAMED and not Path(args.encoder).is_dir():
        raise UserError(f"--encoder {args.encoder}: not a folder nor an encoder's name; expected "
                        f"{' or '.join(NAMED)}, or a checkpoint folder")  # fmt: skip

    from mealwatch.cli import checked_threads
    from mealwatch.learning.training_run import load_training_data, train_and_save
    from mealwatch.learning.training import TrainingArguments

    chosen = {"epochs": args.epochs, "batch_size": args.batch_size, "learning_rate": args.lr, "max_length":
              args.max_length, "threads": checked_threads(args.threads), "patience": args.patience}  # fmt: skip
    training_args = TrainingArguments(
        seed=args.seed, pooling=args.pooling, encoder_path=args.encoder,
        ngram_channel=args.ngram_channel, **{k: v for k, v in chosen.items() if v is not None},
    )  # fmt: skip
    read_kwargs = {"text_column": args.text_column, "labels_column": args.labels_column}
    if args.labels is not None:
        read_kwargs["label_set"] = labels
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        splits = load_training_data(args.data, args.validation, args.test, languages=args.languages, **read_kwargs)
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    if args.add is not None:
        from mealwatch.learning.corrections import fold_in, read_additions

        train = splits["train"]
        folded = fold_in(splits, read_additions(args.add, train.label_set, train.multi_label))
        splits["train"] = folded.train
        print(f"Corrections from {args.add}: {folded.summary()}.", flush=True)
        for note in folded.notes:
            print(f"  skipped: {note}", file=sys.stderr)
    from mealwatch.data import read_parallel

    parallel = read_parallel(args.parallel) if args.parallel else None  # None: the bundled renderings, if bundled
    print(describe_start(splits, training_args), flush=True)
    finished = train_and_save(splits, training_args, args.out, progress=not args.quiet, parallel=parallel)
    print(describe_result(finished))
    return 0


def describe_start(splits: dict, args) -> str:
    """One paragraph: the data sizes, the labels and the encoder."""
    train = splits["train"]
    kind = "multi-label" if train.multi_label else "single-label"
    sizes = ", ".join(f"{len(d)} {name}" for name, d in splits.items())
    from mealwatch.encoders import describe

    encoder = describe(args.encoder_path)
    return (f"Training on {sizes} texts; {len(train.label_set)} labels ({kind}).\n"
            f"Encoder: {encoder}{'' if args.pretrained else ' (random initialisation)'}, {args.pooling} pooling; "
            f"up to {args.epochs} epochs, batch {args.batch_size}, learning rate {args.learning_rate:g}.")  # fmt: skip


def describe_result(finished: "FinishedRun") -> str:
    """The training summary, the evaluation report and a few example predictions."""
    from mealwatch.learning.evaluation import format_report
    from mealwatch.learning.triage_evaluation import format_triage

    result, report = finished.result, finished.report
    best = result.history[result.best_epoch - 1]
    minutes, seconds = divmod(round(result.seconds), 60)
    lines = [
        "",
        f"Best epoch: {result.best_epoch} of {len(result.history)} run "
        f"(validation macro-F1 {best['validation_macro_f1']:.3f}); trained in {minutes}m{seconds:02d}s.",
        *([f"Fused with the word and character n-gram channel: {result.fusion.summary()}."] if result.fusion else []),
        f"Model saved to {finished.folder}/ (with metrics.json, report.md and plots).",
        "",
        f"== Evaluation on the {finished.report_split} split ==",
        format_report(report),
        "",
        *(
            [
                f"== Triage on the {finished.report_split} split, per language form ==",
                format_triage(finished.triage),
                "",
            ]
            if finished.triage is not None
            else []
        ),
        f"== Example predictions ({finished.report_split} split) ==",
    ]
    examples = pick_examples(finished.splits[finished.report_split].examples, N_EXAMPLES)
    for example, prediction in zip(examples, result.pipeline.predict([e.text for e in examples])):
        mark = "correct" if set(prediction.labels) == set(example.labels) else "differs"
        chances = ", ".join(f"{label} {prediction.probabilities[label]:.2f}" for label in prediction.labels)
        lines.append(textwrap.fill(example.text, width=100, initial_indent="  \u2022 ", subsequent_indent="    "))
        lines.append(f"    predicted: {chances}  [urgency: {prediction.urgency}]")
        lines.append(f"    true:      {', '.join(example.labels)}  ({mark})")
    lines.append("")
    lines.append(f'Try it: mealwatch predict --model {finished.folder} "the dal had a dead lizard in it"')
    return "\n".join(lines)


def pick_examples(examples: list, n: int) -> list:
    """The first ``n`` examples with different label sets (then the next ones, if there are too few kinds)."""
    chosen, seen = [], set()
    for i, e in enumerate(examples):
        if e.labels not in seen and len(chosen) < n:
            chosen.append(i)
            seen.add(e.labels)
    chosen += [i for i in range(len(examples)) if i not in chosen][: n - len(chosen)]
    return [examples[i] for i in sorted(chosen)]
