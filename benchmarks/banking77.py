"""Fine-tuning on a public benchmark: BANKING77 (single-label, 77 intents, 10,003 train / 3,080 test).

Validation is carved from train (10 %, seeded and stratified); the model is fitted with the
default TrainingArguments (mean pooling) and scored on the official test split. Target:
accuracy >= 0.92. About a minute an epoch on 2 cores (bf16 autocast); longer without native bf16.

    python benchmarks/banking77.py [--epochs 4] [--limit N] [--threads 2] [--data ../shared/data/banking77]
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings
from pathlib import Path

import torch

TARGET_ACCURACY = 0.92


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "banking77"
    )
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--limit", type=int, help="use only this many training texts (seeded, stratified)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pooling", choices=["mean", "cls"], default="mean")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from mealwatch.data import Dataset, read_dataset, stratified_split
    from mealwatch.learning.evaluation import evaluate_pipeline
    from mealwatch.learning.training import TrainingArguments, train

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BANKING77 repeats a few texts; they are kept
        full = read_dataset(args.data / "train.csv", labels_column="category", multi_label=False)
        test = read_dataset(
            args.data / "test.csv", labels_column="category", label_set=full.label_set, multi_label=False
        )
        examples = full.examples
        if args.limit and args.limit < len(examples):
            examples = stratified_split(
                examples, (args.limit / len(examples), 1 - args.limit / len(examples)), args.seed
            )[0]
        kept, held_out = stratified_split(examples, (0.9, 0.1), args.seed)
    train_set = Dataset.from_examples(kept, full.label_set, False)
    validation = Dataset.from_examples(held_out, full.label_set, False)
    print(f"BANKING77: {len(train_set)} train, {len(validation)} validation, {len(test)} test, "
          f"{len(full.label_set)} labels; threads {torch.get_num_threads()}", flush=True)  # fmt: skip

    started = time.perf_counter()
    training = TrainingArguments(epochs=args.epochs, seed=args.seed, pooling=args.pooling, patience=args.epochs)
    result = train(train_set, validation, training, progress=False)
    report = evaluate_pipeline(result.pipeline, test)
    seconds = time.perf_counter() - started
    for h in result.history:
        print(f"  epoch {h['epoch']}: loss {h['loss']:.4f}, validation macro-F1 {h['validation_macro_f1']:.4f}")
    print(f"arguments: {training}")
    print(f"best epoch {result.best_epoch}; training {result.seconds:.0f} s, total {seconds:.0f} s "
          f"({seconds / len(result.history) / 60:.1f} min an epoch with evaluation)")  # fmt: skip
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2:.2f} GB")
    print(f"test accuracy {report.subset_accuracy:.4f}   (target >= {TARGET_ACCURACY})")
    print(f"test macro-F1 {report.macro_f1:.4f} (95 % CI {report.macro_f1_ci[0]:.3f}-{report.macro_f1_ci[1]:.3f})")


if __name__ == "__main__":
    main()
