"""Batch prediction speed: complaints per second through `Classifier.predict` (tokenizing included).

Uses a trained model (--model, else the latest under runs/, else an untrained head on the
bundled all-MiniLM-L6-v2: the speed does not depend on the weights) and the bundled test
complaints, repeated to --count texts. Target: >= 200 complaints/s on 2 cores.

    python benchmarks/predict_speed.py [--threads 2] [--count 1000] [--batch-size 64] [--model DIR]

Every precision mode runs the same texts, alternating run by run: fp32 on PyTorch's default kernel,
fp32 on oneDNN (where this machine's probe found it faster; else the same as fp32), bf16 and int8
(``mealwatch.inference``), and the model as ``--precision auto`` loads it (the fastest mode that decides
as fp32 does; what it chose and why is printed). Issue 13's target: ``auto`` >= 3x fp32 on the same machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

TARGET = 200.0


def load_model(path: str | None):
    """(the fp32 pipeline, its folder or None for an untrained head)."""
    from mealwatch.labels import LABELS
    from mealwatch.pipeline import Pipeline
    from mealwatch.runs import NoModelError, resolve_model
    from mealwatch.learning.training import TrainingArguments, build_pipeline

    try:
        folder = resolve_model(path)
    except NoModelError:
        if path is not None:
            raise
        print("no trained model found: timing an untrained head on the bundled encoder")
        pipeline = build_pipeline(LABELS, True, TrainingArguments())
        pipeline.model.eval()
        return pipeline, None
    print(f"model: {folder}")
    return Pipeline.from_folder(folder), folder


def auto_pipeline(model, folder):
    """The model as ``--precision auto`` loads it (measured on this machine, or read from its cache)."""
    import copy

    from mealwatch.pipeline import Pipeline

    if folder is not None:
        return Pipeline.from_folder(folder, precision="auto", log=lambda line: print("auto: " + line))
    fresh = model.with_model(copy.deepcopy(model.model))
    fresh.prepare("auto", log=lambda line: print("auto: " + line))
    return fresh


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from mealwatch.data import bundled_data_dir, read_dataset

    texts = read_dataset(bundled_data_dir() / "test.csv").texts
    texts = (texts * (args.count // len(texts) + 1))[: args.count]
    model, folder = load_model(args.model)
    lengths = model.tokenizer(texts[:500]).attention_mask.sum(dim=1).float()
    print(f"{len(texts)} texts, {lengths.mean():.1f} tokens on average (max {int(lengths.max())}); "
          f"threads {torch.get_num_threads()}, batch size {args.batch_size}")  # fmt: skip
    from mealwatch.inference.modes import Mode, build
    from mealwatch.transformer.precision import supported_precisions

    modes = [Mode("fp32"), Mode("fp32", onednn=True)] + [Mode(p) for p in supported_precisions() if p != "fp32"]
    pipelines = {}
    for mode in modes:  # each mode's converted copy of the same fp32 model
        built = build(model.model, mode, copy_model=True)
        pipelines[mode.name] = model.with_model(built.model, built.forward)
        pipelines[mode.name].predict(texts[:64], batch_size=args.batch_size)  # warm-up
    auto = auto_pipeline(model, folder)
    auto_name = f"auto ({auto.mode})"
    pipelines[auto_name] = auto
    auto.predict(texts[:64], batch_size=args.batch_size)
    rates: dict[str, list[float]] = {name: [] for name in pipelines}
    for _ in range(args.repeats):  # the modes alternate, so that machine noise hits them alike
        for name, pipeline in pipelines.items():
            started = time.perf_counter()
            pipeline.predict(texts, batch_size=args.batch_size)
            rates[name].append(len(texts) / (time.perf_counter() - started))
    base = statistics.median(rates["fp32"])
    for name, runs in rates.items():
        rate = statistics.median(runs)
        shown = ", ".join(f"{r:.0f}" for r in runs)
        print(f"{name}: texts/s median {rate:.0f} ({rate / base:.2f}x fp32; runs: {shown})   (target >= {TARGET:.0f})")
    ratio = statistics.median(rates[auto_name]) / base
    print(f"{'PASS' if ratio >= 3 else 'FAIL'}: {auto_name} runs at {ratio:.2f}x fp32 (target >= 3x)")


if __name__ == "__main__":
    main()
