"""A run trained before the n-gram channel existed, finished as `mealwatch train` now finishes, and scored.

`mealwatch train` ends by fitting the n-gram channel on the training split (the bundled complaints plus
their parallel renderings), choosing its fusion weight and the thresholds on validation, and choosing the
review margin on validation (``training.add_ngram_channel``, ``training.review_policy_on``). This script runs
exactly those steps on an already fine-tuned model — the encoder's weights are not touched — saves the result
as a new run, and prints what `benchmarks/train_bundled.py` prints about the model: the channel's weight, the
test macro-F1 with its interval, the TF-IDF baseline on the same split and both per script, the time the steps
took and the peak memory of this process.

    python benchmarks/fuse_channel.py --model runs/<name> [--out runs/<name>-ngram] [--threads 2]

Settings are chosen on validation only; the test split is read once, for the report.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a run trained on the bundled complaints")
    parser.add_argument("--out", type=Path, help="where to save the finished run (default: MODEL-ngram)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from train_bundled import print_by_script

    from mealwatch.learning.baselines import tfidf_baseline
    from mealwatch.learning.evaluation import evaluate_pipeline, write_report
    from mealwatch.learning.training_run import default_parallel, load_training_data, with_renderings
    from mealwatch.pipeline import Pipeline
    from mealwatch.learning.ngram_training import add_ngram_channel
    from mealwatch.learning.training import review_policy_on

    splits = load_training_data(None)
    train = with_renderings(splits["train"], default_parallel(splits))
    validation = splits["validation"]
    pipeline = Pipeline.load(args.model)
    if pipeline.ngram is not None:
        parser.error(f"{args.model} already has an n-gram channel (weight {pipeline.config.ngram_weight:g})")
    before = evaluate_pipeline(pipeline, splits["test"])
    started = time.perf_counter()
    fusion = add_ngram_channel(pipeline, train, validation)
    pipeline.config.review = review_policy_on(pipeline, fusion.probabilities, validation.targets()).to_dict()
    seconds = time.perf_counter() - started
    out = args.out or args.model.with_name(args.model.name + "-ngram")
    pipeline.save(out)
    report = evaluate_pipeline(pipeline, splits["test"])
    write_report(report, out, title="Evaluation on the test split")
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2

    print(f"model {args.model}: training split {len(train)} texts (with renderings), validation {len(validation)}")
    print(fusion.summary())
    print(f"channel: {pipeline.ngram.detail if pipeline.ngram else 'not kept'}")
    print(f"fitting the channel, choosing its weight, thresholds and review margin: {seconds:.0f} s; "
          f"peak RSS of this process {peak_gb:.2f} GB")  # fmt: skip
    print(f"saved to {out}")
    lo, hi = report.macro_f1_ci
    print(f"test macro-F1: encoder alone {before.macro_f1:.4f}; with the channel {report.macro_f1:.4f} "
          f"(95 % CI {lo:.3f}-{hi:.3f})")  # fmt: skip
    tfidf = tfidf_baseline(splits)
    print(f"TF-IDF + logistic regression: test macro-F1 {tfidf.macro_f1:.4f}; with the channel "
          f"{100 * (report.macro_f1 - tfidf.macro_f1):+.1f} points (target >= +5)")  # fmt: skip
    print_by_script(report, tfidf.report)
    alone = ", ".join(f"{s} {m['macro_f1']:.4f}" for s, m in (before.by_script or {}).items())
    print(f"encoder alone, by script: {alone}")


if __name__ == "__main__":
    main()
