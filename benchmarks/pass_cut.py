"""Passes cut by length: the fixed cost of a forward pass, and what cutting mixed-length passes buys.

1. Times the trained model's encoder on padded batches of n texts × T word pieces over a grid of shapes and
   fits  time ≈ a + b · n · T  by least squares of the relative error (so that the small shapes, where the
   fixed cost shows, count as much as the large ones): ``a / b`` is the fixed cost of one pass counted in token
   positions, the ``overhead`` of ``inference.batches.cut_by_length`` (set as ``PASS_OVERHEAD_TOKENS``).
2. Runs the service's kind of pass — k complaints drawn at random from the test split, one call of
   ``Pipeline.probabilities`` with batch size k — with the pass cut by length (the default) and as one padded
   batch (overhead set so high that no cut pays), alternating, and prints complaints/s of each and their ratio.

    python benchmarks/pass_cut.py --model runs/<name> [--threads 2] [--passes 60]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
import torch


def forward_ms(model, n: int, T: int, repeats: int) -> float:
    ids = torch.randint(1000, 2000, (n, T))  # (n, T)
    mask = torch.ones(n, T, dtype=torch.long)  # (n, T)
    times = []
    with torch.inference_mode():
        for k in range(repeats + 2):
            start = time.perf_counter()
            model(input_ids=ids, attention_mask=mask)
            if k >= 2:
                times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a trained model folder")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=60, help="random passes per size and setting (default: 60)")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per shape in part 1 (default: 7)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from mealwatch.data import read_splits
    from mealwatch.inference import batches
    from mealwatch.pipeline import Pipeline
    from mealwatch.transformer.precision import cpu_name

    pipeline = Pipeline.from_folder(args.model)
    print(f"CPU: {cpu_name()}; {args.threads} threads; model {args.model} in {pipeline.mode}")
    shapes = [(n, T) for n in (1, 2, 4, 8, 16, 32) for T in (16, 32, 64, 128)]
    rows = [(n, T, forward_ms(pipeline.model, n, T, args.repeats)) for n, T in shapes]
    X = np.array([[1.0, n * T] for n, T, _ in rows])  # (S, 2)
    y = np.array([ms for _, _, ms in rows])  # (S,)
    (a, b), *_ = np.linalg.lstsq(
        X / y[:, None], np.ones_like(y), rcond=None
    )  # least relative error: small shapes count
    print(f"fit over {len(rows)} shapes: time = {a:.2f} ms + {1000 * b:.2f} us per token position "
          f"-> one pass costs as much as {a / b:.0f} token positions (PASS_OVERHEAD_TOKENS = "
          f"{batches.PASS_OVERHEAD_TOKENS})")  # fmt: skip
    for n, T, ms in rows:
        print(f"  {n:>2} x {T:<3}: {ms:8.2f} ms (fit {a + b * n * T:8.2f})")

    texts = list(read_splits(None)["test"].texts)
    rng = random.Random(0)
    default = batches.PASS_OVERHEAD_TOKENS
    print("\n| texts per pass | one padded batch, complaints/s | cut by length, complaints/s | ratio |")
    print("|---:|---:|---:|---:|")
    for k in (4, 8, 16, 32):
        draws = [rng.sample(texts, k) for _ in range(args.passes)]
        spent = {"one": 0.0, "cut": 0.0}
        for draw in draws:  # alternating, the same draws for both
            for setting in ("one", "cut"):
                batches.PASS_OVERHEAD_TOKENS = 1e12 if setting == "one" else default
                start = time.perf_counter()
                pipeline.probabilities(draw, batch_size=k)
                spent[setting] += time.perf_counter() - start
        batches.PASS_OVERHEAD_TOKENS = default
        one, cut = k * len(draws) / spent["one"], k * len(draws) / spent["cut"]
        print(f"| {k} | {one:.1f} | {cut:.1f} | {cut / one:.2f}x |")


if __name__ == "__main__":
    main()
