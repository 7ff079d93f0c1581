"""Does the n-gram channel help a trained model? Validation macro-F1 of the encoder alone and fused, per weight.

Loads a model trained on the bundled complaints (its encoder's probabilities only: a channel the model already
has is set aside), fits the n-gram channel's blocks on the text as written (``ngram_channel.AS_WRITTEN``; the
views are compared by ``benchmarks/transliteration.py``) on the training split for each word pattern
(scikit-learn's default ``\\w\\w+`` and mealwatch's Devanagari-aware ``WORD_PATTERN``), and prints, on the VALIDATION
split only, the channel alone, the fused macro-F1 at every weight of ``ngram_training.WEIGHT_GRID``, the weight
validation chooses, and the fused macro-F1 per script at that weight. Nothing here reads the test split.

    python benchmarks/ngram_channel.py --model runs/<name> [--threads 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

DEFAULT_PATTERN = r"(?u)\b\w\w+\b"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a model folder trained on the bundled complaints")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from mealwatch import ngram_channel
    from mealwatch.decisions import macro_f1
    from mealwatch.data import read_splits
    from mealwatch.learning.ngram_training import choose_weight, fit_ngram_channel
    from mealwatch.pipeline import Pipeline

    splits = read_splits(None)
    train, validation = splits["train"], splits["validation"]
    pipeline = Pipeline.load(args.model)
    pipeline.without_ngram_channel()  # the encoder's own probabilities
    thresholds = pipeline.thresholds()
    encoder = pipeline.probabilities(validation.texts).numpy()  # (N, L)
    targets, scripts = validation.targets(), np.array(validation.scripts())
    print(f"model {args.model}; validation {len(validation)} texts")
    print(f"encoder alone (its own thresholds): validation macro-F1 "
          f"{macro_f1(encoder, targets, multi_label=pipeline.multi_label, thresholds=thresholds):.4f}")  # fmt: skip
    print("| word pattern | channel alone | fused, by weight | chosen weight | fused, by script |")
    print("|---|---|---|---:|---|")
    for name, pattern in (("scikit-learn default", DEFAULT_PATTERN), ("Devanagari-aware", ngram_channel.WORD_PATTERN)):
        features = tuple(spec._replace(token_pattern=pattern if spec.analyzer == "word" else None)
                         for spec in ngram_channel.AS_WRITTEN)  # fmt: skip
        started = time.perf_counter()
        channel = fit_ngram_channel(train, validation, features=features)
        seconds = time.perf_counter() - started
        ngram = channel.probabilities(validation.texts)  # (N, L)
        choice = choose_weight(encoder, ngram, targets, pipeline.multi_label)
        fused = ngram_channel.fuse(encoder, ngram, choice.weight)
        multi, chosen = pipeline.multi_label, choice.thresholds
        by_script = ", ".join(
            f"{s} {macro_f1(fused[scripts == s], targets[scripts == s], multi_label=multi, thresholds=chosen):.4f}"
            for s in sorted(set(scripts))
        )
        per_weight = ", ".join(f"{w:g}: {f:.4f}" for w, f in choice.scores.items())
        print(f"| {name} | {channel.detail} | {per_weight} | {choice.weight:g} | {by_script} |")
        print(f"  ({name}: channel fitted in {seconds:.0f} s)")


if __name__ == "__main__":
    main()
