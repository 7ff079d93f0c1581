"""Which way of teaching the encoder Hindi wins on the validation split (never the test split).

    python benchmarks/hindi_recipes.py [--recipes aug,vocab,distill] [--epochs N] [--threads 2]

Recipes, each trained with mealwatch's default training on the bundled train split and scored on
the validation split, overall and per script:
  base     the bundled English encoder, the train split as it is
  aug      + the parallel renderings (Devanagari and romanised) of the English training complaints
  vocab    aug + vocabulary extension (Hindi WordPiece pieces, rows initialised from romanisations)
  distill  vocab + multilingual distillation on the parallel complaints before fine-tuning
  mlm      vocab + continued masked-LM pre-training on the Hindi texts + distillation
Prints one table row per recipe (validation macro-F1 overall and per script, adaptation and
training seconds, peak RSS so far).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import torch

RECIPES = ("base", "aug", "vocab", "distill", "mlm")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", default=",".join(RECIPES))
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--distill-epochs", type=int, default=4)
    parser.add_argument("--mlm-epochs", type=int, default=2)
    parser.add_argument("--pieces", type=int, default=6000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from mealwatch.adapt.recipe import AdaptArguments, AdaptationData, adapt_encoder
    from mealwatch.data import read_parallel, read_splits
    from mealwatch.jobs import with_renderings
    from mealwatch.evaluation import evaluate_pipeline
    from mealwatch.training import TrainingArguments, train

    splits = read_splits(None)
    parallel = read_parallel()
    train_set, validation = splits["train"], splits["validation"]
    augmented = with_renderings(train_set, parallel)
    data = AdaptationData.of(train_set, parallel)
    print("| recipe | validation macro-F1 | " + " | ".join(["latn-en", "latn-hi", "deva", "mixed"])
          + " | best epoch | adapt s | train s | peak GB |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for recipe in [r.strip() for r in args.recipes.split(",") if r.strip()]:
        if recipe not in RECIPES:
            parser.error(f"unknown recipe {recipe!r}; choose from {', '.join(RECIPES)}")
        encoder_path, adapt_seconds = None, 0.0
        with tempfile.TemporaryDirectory() as tmp:
            if recipe in ("vocab", "distill", "mlm"):
                started = time.perf_counter()
                distill_epochs = args.distill_epochs if recipe in ("distill", "mlm") else 0
                mlm_epochs = args.mlm_epochs if recipe == "mlm" else 0
                adapt_args = AdaptArguments(pieces=args.pieces, distill_epochs=distill_epochs, mlm_epochs=mlm_epochs,
                                            seed=args.seed)  # fmt: skip
                encoder_path = str(adapt_encoder(Path(tmp) / "enc", data.texts, data.pairs, args=adapt_args,
                                                 progress=True))  # fmt: skip
                adapt_seconds = time.perf_counter() - started
            chosen = {"epochs": args.epochs}
            training = TrainingArguments(seed=args.seed, encoder_path=encoder_path,
                                         **{k: v for k, v in chosen.items() if v is not None})  # fmt: skip
            started = time.perf_counter()
            result = train(train_set if recipe == "base" else augmented, validation, training, progress=False)
            seconds = time.perf_counter() - started
            report = evaluate_pipeline(result.pipeline, validation, bootstrap=0)
        by = report.by_script or {}
        cells = " | ".join(
            f"{by[s]['macro_f1']:.4f}" if s in by else "–" for s in ("latn-en", "latn-hi", "deva", "mixed")
        )
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
        print(f"| {recipe} | {report.macro_f1:.4f} | {cells} | {result.best_epoch} | {adapt_seconds:.0f} | "
              f"{seconds:.0f} | {peak:.2f} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
