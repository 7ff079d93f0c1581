"""Which way of teaching the encoder Hindi wins on the validation split (never the test split).

    python benchmarks/hindi_recipes.py [--recipes aug,vocab,distill] [--epochs N] [--threads 2]

Recipes, each trained with mealwatch's default training on the bundled train split and scored on
the validation split, overall and per script:
  base     the bundled English encoder, the train split as it is
  aug      + the parallel renderings (Devanagari and romanised) of the English training complaints
  vocab    aug + vocabulary extension (Hindi WordPiece pieces, rows initialised from romanisations)
  distill  vocab + multilingual distillation on the parallel complaints before fine-tuning
  everyday distill, the everyday parallel sentences (data/hindi_parallel/) distilled beside the complaints
           (tried as the default, not kept: docs/multilingual.md)
  mlm      vocab + continued masked-LM pre-training on the Hindi texts + distillation
  translit distill with every Devanagari text (training split, renderings, distillation pairs and validation)
           romanised first (``romanise.romanise_text``): the encoder sees one script; vocabulary extension
           still runs on whatever Devanagari remains
Prints one table row per recipe: validation macro-F1 as `mealwatch train` finishes (fused with the n-gram
channel at the weight validation chose) overall and per script (the script of the text as written, before any
romanisation), the same for the encoder alone, the weight, adaptation and training seconds, peak RSS so far.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import sys
import tempfile
import time
from pathlib import Path

import torch

RECIPES = ("base", "aug", "vocab", "distill", "everyday", "mlm", "translit")
DISTILLED = ("distill", "everyday", "mlm", "translit")  # recipes that distil
ADAPTED = ("vocab", *DISTILLED)  # recipes that build an adapted encoder
SCRIPTS = ("latn-en", "latn-hi", "deva", "mixed")


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
    from mealwatch.data import read_parallel, read_parallel_sentences, read_splits
    from mealwatch.evaluation import evaluate_pipeline
    from mealwatch.jobs import with_renderings
    from mealwatch.romanise import romanise_text
    from mealwatch.training import TrainingArguments, train

    splits = read_splits(None)
    parallel = read_parallel()
    train_set, validation = splits["train"], splits["validation"]
    alone_cells = " | ".join(f"alone {s}" for s in SCRIPTS)
    print(f"| recipe | validation macro-F1 | {' | '.join(SCRIPTS)} | encoder alone | {alone_cells} | weight | "
          "best epoch | adapt s | train s | peak GB |")  # fmt: skip
    print("|---|" + "---:|" * 15)
    for recipe in [r.strip() for r in args.recipes.split(",") if r.strip()]:
        if recipe not in RECIPES:
            parser.error(f"unknown recipe {recipe!r}; choose from {', '.join(RECIPES)}")
        if recipe == "translit":
            recipe_train, recipe_validation = romanised(train_set), romanised(validation)
            recipe_parallel = [dataclasses.replace(p, devanagari=romanise_text(p.devanagari)) for p in parallel]
        else:
            recipe_train, recipe_validation, recipe_parallel = train_set, validation, parallel
        augmented = with_renderings(recipe_train, recipe_parallel)
        sentences = read_parallel_sentences() if recipe == "everyday" else []
        data = AdaptationData.of(recipe_train, recipe_parallel, sentences)
        encoder_path, adapt_seconds = None, 0.0
        with tempfile.TemporaryDirectory() as tmp:
            if recipe in ADAPTED:
                started = time.perf_counter()
                distill_epochs = args.distill_epochs if recipe in DISTILLED else 0
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
            result = train(recipe_train if recipe == "base" else augmented, recipe_validation, training,
                           progress=False)  # fmt: skip
            seconds = time.perf_counter() - started
            pipeline = result.pipeline
            weight = pipeline.config.ngram_weight
            fused = evaluate_pipeline(pipeline, recipe_validation, bootstrap=0)
            pipeline.without_ngram_channel()  # the encoder's own probabilities and thresholds
            alone = evaluate_pipeline(pipeline, recipe_validation, bootstrap=0)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
        print(f"| {recipe} | {fused.macro_f1:.4f} | {by_script(fused)} | {alone.macro_f1:.4f} | {by_script(alone)} | "
              f"{weight:g} | {result.best_epoch} | {adapt_seconds:.0f} | {seconds:.0f} | {peak:.2f} |",
              flush=True)  # fmt: skip
    return 0


def romanised(dataset):
    """``dataset`` with every text romanised (``romanise_text``), each example keeping its script as written."""
    from mealwatch.data import Dataset
    from mealwatch.romanise import romanise_text

    examples = [dataclasses.replace(e, text=romanise_text(e.text), script=script)
                for e, script in zip(dataset.examples, dataset.scripts())]  # fmt: skip
    return Dataset.from_examples(examples, dataset.label_set, dataset.multi_label, dataset.path)


def by_script(report) -> str:
    """The report's macro-F1 per script as table cells, in ``SCRIPTS`` order."""
    by = report.by_script or {}
    return " | ".join(f"{by[s]['macro_f1']:.4f}" if s in by else "–" for s in SCRIPTS)


if __name__ == "__main__":
    sys.exit(main())
