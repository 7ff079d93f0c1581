"""Does reading complaints in one script help the n-gram channel? Validation macro-F1 by feature set and script.

Loads a model trained on the bundled complaints (its encoder's probabilities only: a channel the model already
has is set aside) and fits the n-gram channel on the training split with its parallel renderings (what
`mealwatch train` fits it on), once per feature set:

  current      word 1-2-grams and char_wb 2-5-grams of the text as written (``ngram_channel.AS_WRITTEN``)
  +romanised   current + the same two blocks on the romanised view (Devanagari in Latin letters)
  +folded      current + the same two blocks on the romanised view with spelling variants folded
  romanised    the two blocks on the romanised view only, instead of the text
  folded       the two blocks on the folded view only (``ngram_channel.FEATURES``, the default since this comparison)

For each it prints, on the VALIDATION split only, the channel alone (thresholds tuned on its own validation
probabilities) and fused with the encoder at the weight validation chooses (``ngram_training.choose_weight``),
overall and per script; then, for each feature set against ``current``, a paired bootstrap of the fused
validation macro-F1 difference (examples resampled with replacement, every weight and threshold held as
chosen): its mean, 95 % interval and the share of resamples in which the feature set is ahead.

With ``--real-data ROOT`` (``../shared/data``) it also fits the channel alone on each real Hindi data set
(IITP reviews, Devanagari; SentiMix tweets, romanised; no parallel renderings, no encoder) for every feature set
and prints its validation macro-F1, overall and per script. Nothing here reads a test split.

    python benchmarks/transliteration.py --model runs/<name> [--threads 2] [--resamples 2000]
    python benchmarks/transliteration.py --real-data ../shared/data
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

SCRIPTS = ("latn-en", "latn-hi", "deva", "mixed")


def feature_sets() -> dict[str, tuple]:
    """The feature sets compared, by name."""
    from mealwatch.ngram_channel import AS_WRITTEN

    def on(view: str) -> tuple:
        return tuple(spec._replace(view=view) for spec in AS_WRITTEN)

    return {
        "current": AS_WRITTEN,
        "+romanised": AS_WRITTEN + on("romanised"),
        "+folded": AS_WRITTEN + on("folded"),
        "romanised": on("romanised"),
        "folded": on("folded"),
    }


def decided(probabilities: np.ndarray, thresholds, multi_label: bool) -> np.ndarray:
    """(N, L) 0/1 decisions (multi-label) or (N,) label indices, by mealwatch's decision rule."""
    from mealwatch.decisions import decided_targets

    return decided_targets(probabilities, multi_label=multi_label, thresholds=thresholds)


def macro_f1(targets: np.ndarray, predicted: np.ndarray) -> float:
    from mealwatch.decisions import targets_macro_f1

    return targets_macro_f1(targets, predicted)


def one_hot(values: np.ndarray, n_labels: int) -> np.ndarray:
    """(N, L) 0/1 from multi-label rows (kept) or single-label indices."""
    return values if values.ndim == 2 else np.eye(n_labels, dtype=int)[values]


def bootstrap_macro_f1(targets: np.ndarray, predicted: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(B,) macro-F1 of ``predicted`` against ``targets`` (N, L 0/1) on each resample; ``counts`` (B, N): how often
    each example is drawn (a label with no true or predicted example on a resample scores 0, as zero_division=0)."""
    tp = counts @ (targets * predicted)  # (B, L)
    fp = counts @ ((1 - targets) * predicted)  # (B, L)
    fn = counts @ (targets * (1 - predicted))  # (B, L)
    denominator = 2 * tp + fp + fn
    f1 = np.divide(2 * tp, denominator, out=np.zeros_like(denominator, dtype=np.float64), where=denominator > 0)
    return f1.mean(axis=1)


def by_script(targets: np.ndarray, predicted: np.ndarray, scripts: np.ndarray) -> str:
    return ", ".join(f"{s} {macro_f1(targets[scripts == s], predicted[scripts == s]):.4f}" for s in SCRIPTS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a model folder trained on the bundled complaints")
    parser.add_argument("--real-data", help="the folder holding iitp_hindi_reviews/ and sentimix_hinglish/")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples of the validation split")
    args = parser.parse_args()
    if not (args.model or args.real_data):
        parser.error("give --model, --real-data or both")
    torch.set_num_threads(args.threads)
    if args.model:
        on_bundled(args)
    if args.real_data:
        on_real_data(args.real_data)


def on_real_data(root: str) -> None:
    """The channel alone on each real data set's validation split, for every feature set."""
    from pathlib import Path

    from mealwatch.data import read_splits
    from mealwatch.learning.ngram_training import fit_ngram_channel

    for name in ("iitp_hindi_reviews", "sentimix_hinglish"):
        splits = read_splits(Path(root) / name)
        train, validation = splits["train"], splits["validation"]
        targets, scripts = validation.targets(), np.array(validation.scripts())
        present = tuple(s for s in SCRIPTS if (scripts == s).sum() >= 20)
        print(f"{name}: train {len(train)}, validation {len(validation)}; the channel alone on validation")
        for feature_set, features in feature_sets().items():
            started = time.perf_counter()
            channel = fit_ngram_channel(train, validation, features=features)
            seconds = time.perf_counter() - started
            own = decided(channel.probabilities(validation.texts), None, train.multi_label)
            cells = ", ".join(f"{s} {macro_f1(targets[scripts == s], own[scripts == s]):.4f}" for s in present)
            print(f"  {feature_set}: {macro_f1(targets, own):.4f} ({cells}; {channel.detail}; {seconds:.0f} s)",
                  flush=True)  # fmt: skip


def on_bundled(args: argparse.Namespace) -> None:
    """The comparison on the bundled complaints, with the trained model's encoder."""
    from mealwatch.learning.training_run import default_parallel, load_training_data, with_renderings
    from mealwatch.ngram_channel import fuse
    from mealwatch.learning.ngram_training import choose_weight, fit_ngram_channel
    from mealwatch.pipeline import Pipeline
    from mealwatch.decisions import tune_thresholds

    splits = load_training_data(None)
    train = with_renderings(splits["train"], default_parallel(splits))
    validation = splits["validation"]
    pipeline = Pipeline.load(args.model)
    pipeline.without_ngram_channel()  # the encoder's own probabilities
    thresholds = pipeline.thresholds()
    multi_label, n_labels = pipeline.multi_label, len(pipeline.labels)
    encoder = pipeline.probabilities(validation.texts).numpy()  # (N, L)
    targets, scripts = validation.targets(), np.array(validation.scripts())
    alone = decided(encoder, thresholds, multi_label)
    print(f"model {args.model}; training split {len(train)} texts (with renderings); validation {len(validation)}")
    print(f"encoder alone (its own thresholds): validation macro-F1 {macro_f1(targets, alone):.4f} "
          f"({by_script(targets, alone, scripts)})")  # fmt: skip
    print("| feature set | channel alone | channel alone, by script | chosen weight | fused | fused, by script | "
          "fit s |")  # fmt: skip
    print("|---|---:|---|---:|---:|---|---:|")
    fused_decisions: dict[str, np.ndarray] = {}
    weights: dict[str, str] = {}
    for name, features in feature_sets().items():
        started = time.perf_counter()
        channel = fit_ngram_channel(train, validation, features=features)
        seconds = time.perf_counter() - started
        ngram = channel.probabilities(validation.texts)  # (N, L)
        own = decided(ngram, tune_thresholds(ngram, targets) if multi_label else None, multi_label)
        choice = choose_weight(encoder, ngram, targets, multi_label)
        fused = decided(fuse(encoder, ngram, choice.weight), choice.thresholds, multi_label)
        fused_decisions[name] = fused
        weights[name] = ", ".join(f"{w:g}: {f:.4f}" for w, f in choice.scores.items())
        print(f"| {name} | {macro_f1(targets, own):.4f} | {by_script(targets, own, scripts)} | {choice.weight:g} | "
              f"{macro_f1(targets, fused):.4f} | {by_script(targets, fused, scripts)} | {seconds:.1f} |",
              flush=True)  # fmt: skip
    for name, scores in weights.items():
        print(f"  {name}: fused validation macro-F1 by weight {scores}")

    rng = np.random.default_rng(0)
    n = len(validation)
    counts = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(args.resamples)])  # (B, N)
    truth = one_hot(targets, n_labels)
    base = bootstrap_macro_f1(truth, one_hot(fused_decisions["current"], n_labels), counts)  # (B,)
    print(f"paired bootstrap against 'current' ({args.resamples} resamples of the validation split, fused):")
    for name, fused in fused_decisions.items():
        if name == "current":
            continue
        difference = bootstrap_macro_f1(truth, one_hot(fused, n_labels), counts) - base  # (B,)
        lo, hi = np.percentile(difference, [2.5, 97.5])
        print(f"  {name}: {100 * difference.mean():+.2f} points (95 % interval {100 * lo:+.2f} to {100 * hi:+.2f}; "
              f"ahead in {100 * (difference > 0).mean():.0f} % of resamples)")  # fmt: skip


if __name__ == "__main__":
    main()
