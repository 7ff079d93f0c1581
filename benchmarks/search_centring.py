"""Language centring, measured on the validation parts only: does subtracting a language's mean vector help search?

multilingual-e5-small places a short query closer to unrelated complaints in its own language than to the same
event told in another script. Centring subtracts from each vector a mean of the stored complaints' vectors and
scales it to unit length again: ``global`` the mean of every complaint; ``language`` the mean of the complaints of
its language (``languages.detect_language``, as the log stores it; the query: its detected language); ``script``
the same with romanised Hindi apart from Devanagari. A language with fewer than ``--min-vectors`` complaints is
centred on the overall mean. The query is centred on its language's mean (``q:same``) or left as it is
(``q:raw``). Prints data/search's validation recall@10 of each variant, encoder alone and with the concept lexicon
at several weights (as benchmarks/search.py), and the best pairwise F1 of incident grouping on
data/incidents/validation.csv with the vectors centred the same way (``search.grouping.replay``, thresholds swept).
The test parts are never read here.

    python benchmarks/search_centring.py [--min-vectors 10]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

from mealwatch.languages import detect_language, script_counts
from mealwatch.search.concepts import concepts_of, mask_of
from mealwatch.search.grouping import GroupingRule, pair_scores, replay
from mealwatch.search.index import Boost, VectorIndex
from mealwatch.search.vectors import SentenceVectors, dequantize, quantize

ROOT = Path(__file__).resolve().parents[1]
K = 10
WEIGHTS = (0, 0.1, 0.2, 0.3, 0.5, 1.0)


def read(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def script_language(text: str) -> str:
    """``detect_language``, with a language written mostly in Latin letters (romanised Hindi) apart."""
    language, counts = detect_language(text), script_counts(text)
    native = sum(n for k, n in counts.items() if k not in ("latin", "other"))
    return f"{language}-Latn" if language != "en" and counts["latin"] > native else language


def unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def centre(vectors, keys, means, overall, mode: str) -> np.ndarray:
    if mode == "off":
        return vectors
    if mode == "global":
        return unit(vectors - overall)
    return unit(vectors - np.stack([means.get(k, overall) for k in keys]))


def means_of(vectors: np.ndarray, keys: list[str], min_vectors: int) -> dict[str, np.ndarray]:
    return {k: vectors[[i for i, x in enumerate(keys) if x == k]].mean(0) for k in set(keys)
            if keys.count(k) >= min_vectors and k != "und"}  # fmt: skip


def recall(corpus, queries, passages, query_vectors, weight) -> float:
    q = quantize(passages)
    index = VectorIndex(passages.shape[1], "centring")
    index.add(list(range(len(corpus))), q.values, q.scales, [None] * len(corpus),
              [mask_of(concepts_of(r["text"])) for r in corpus])  # fmt: skip
    recalls = []
    for r, v in zip(queries, query_vectors):
        relevant = set(r["relevant"].split(";"))
        mask = mask_of(concepts_of(r["query"]))
        boost = Boost(mask, weight) if mask and weight else None
        top = {corpus[h.complaint_id]["id"] for h in index.search(v, K, boost=boost)}
        recalls.append(len(relevant & top) / len(relevant))
    return float(np.mean(recalls))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min-vectors", type=int, default=10, help="complaints a language needs for a mean of its own")
    args = ap.parse_args()
    corpus = read(ROOT / "data" / "search" / "corpus.csv")
    queries = [r for r in read(ROOT / "data" / "search" / "queries.csv") if r["split"] == "validation"]
    replay_rows = read(ROOT / "data" / "incidents" / "validation.csv")
    vectors = SentenceVectors.pretrained("e5")
    t0 = time.perf_counter()
    passages = dequantize(quantize(vectors.passages([r["text"] for r in corpus])))  # as stored in the log
    query_vectors = vectors.queries([r["query"] for r in queries])
    replay_vectors = dequantize(quantize(vectors.passages([r["text"] for r in replay_rows])))
    print(f"vectors: {vectors.version} ({len(corpus)} complaints, {len(queries)} validation queries, "
          f"{len(replay_rows)} replay complaints, {time.perf_counter() - t0:.1f} s); min vectors "
          f"{args.min_vectors}")  # fmt: skip
    print(f"validation recall@{K} by concept weight: " + "  ".join(f"{w:>5}" for w in WEIGHTS))
    overall = passages.mean(0)
    for key_name, key in (("language", detect_language), ("script", script_language)):
        keys, query_keys = [key(r["text"]) for r in corpus], [key(r["query"]) for r in queries]
        means = means_of(passages, keys, args.min_vectors)
        for mode in ("off", "global", "language") if key_name == "language" else ("language",):
            centred = centre(passages, keys, means, overall, mode)
            for query_mode in ("same", "raw") if mode != "off" else ("same",):
                q = centre(query_vectors, query_keys, means, overall, mode) if query_mode == "same" else query_vectors
                name = "off" if mode == "off" else f"{'global' if mode == 'global' else key_name}/q:{query_mode}"
                found = [recall(corpus, queries, centred, q, w) for w in WEIGHTS]
                print(f"  {name:<18}" + "  ".join(f"{x:.3f}" for x in found))
    times = [datetime.fromisoformat(r["reported_at"]) for r in replay_rows]
    keys = [detect_language(r["text"]) for r in replay_rows]
    means = means_of(replay_vectors, keys, args.min_vectors)
    for mode in ("off", "global", "language"):
        centred = dequantize(quantize(centre(replay_vectors, keys, means, replay_vectors.mean(0), mode)))
        best = None
        for window in (24.0, 48.0):
            for threshold in np.arange(-0.2, 0.96, 0.02):
                rule = GroupingRule(threshold=round(float(threshold), 2), window_hours=window)
                places = [rule.place(r["school"], r["udise"], r["district"], r["block"]) for r in replay_rows]
                s = pair_scores([r["event"] for r in replay_rows], replay(rule, places, times, centred))
                if best is None or s.f1 > best[0].f1:
                    best = (s, rule)
        s, rule = best
        print(f"incidents, validation, centring {mode}: best pairwise F1 {s.f1:.3f} (P {s.precision:.3f} R "
              f"{s.recall:.3f}) at cosine {rule.threshold:.2f}, window {rule.window_hours:.0f} h")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
