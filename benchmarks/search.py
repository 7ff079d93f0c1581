"""Cross-language search on the written query set (issue 25's target: recall@10 >= 0.90 on the test queries).

Reads data/search/corpus.csv (complaints with ids, labels, language, district) and queries.csv (a query, its
language, the ids of its relevant complaints, its split), embeds the corpus as saved complaints and each query as
a search (``--vectors``: see benchmarks/vector_sources.py), ranks the whole corpus as the service does (a
``search.index.VectorIndex``, exact at this size: the cosine plus ``--weights`` times the share of the query's
concepts a complaint shares, ``search.concepts``; 0 is the encoder alone) and prints, per split, recall@10 (the
share of a query's relevant complaints in its first 10, averaged over queries), recall@10 over the relevant
complaints written in another language than the query, MRR, and the worst queries of validation. ``--split test``
reads the test queries (read once, after choosing on validation, with the service's ``engine.CONCEPT_WEIGHT``).

    python benchmarks/search.py [--vectors e5] [--data data/search] [--split validation|test|both]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vector_sources import load_vectors  # noqa: E402

from mealwatch.search.concepts import concepts_of, mask_of  # noqa: E402
from mealwatch.search.engine import CONCEPT_WEIGHT  # noqa: E402
from mealwatch.search.index import Boost, VectorIndex  # noqa: E402
from mealwatch.search.vectors import quantize  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
K = 10
#: the validation queries with the lowest recall printed
WORST = 10


def read(path: Path, needed: set[str]) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or needed - set(rows[0]):
        raise SystemExit(f"{path}: expected a CSV with the columns {', '.join(sorted(needed))}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vectors", default="e5")
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "search")
    ap.add_argument("--split", choices=("validation", "test", "both"), default="validation")
    ap.add_argument(
        "--weights",
        default="0,0.05,0.1,0.15,0.2,0.3,0.5",
        help="concept weights tried on validation (test: the service's CONCEPT_WEIGHT alone)",
    )
    ap.add_argument(
        "--second-from",
        default="q62",
        help="validation: also report the queries before this id and from it on separately (data/search: q62 on are "
        "the second validation set, written after the lexicon)",
    )
    ap.add_argument(
        "--corpus-upto",
        default=None,
        help="search only the complaints up to this id (data/search: c403 is the corpus the test queries were judged "
        "on; later complaints were written for the second validation set, and one that answers a test query counts "
        "against it)",
    )
    args = ap.parse_args()
    corpus = read(args.data / "corpus.csv", {"id", "text", "language"})
    if args.corpus_upto:
        corpus = [r for r in corpus if id_number(r["id"]) <= id_number(args.corpus_upto)]
        if not corpus:
            raise SystemExit(f"--corpus-upto {args.corpus_upto}: no complaint has an id up to it")
    queries = read(args.data / "queries.csv", {"id", "query", "language", "relevant", "split"})
    source = load_vectors(args.vectors)
    t0 = time.perf_counter()
    q = quantize(source.passages([r["text"] for r in corpus]))
    print(f"vectors: {source.version} ({len(corpus)} complaints, {time.perf_counter() - t0:.1f} s)")
    index = VectorIndex(source.dimension, source.version)
    index.add(
        list(range(len(corpus))),
        q.values,
        q.scales,
        [None] * len(corpus),
        [mask_of(concepts_of(r["text"])) for r in corpus],
    )
    language = {r["id"]: r["language"] for r in corpus}
    splits = ("validation", "test") if args.split == "both" else (args.split,)
    for split in splits:
        chosen = [r for r in queries if r["split"] == split]
        vectors = source.queries([r["query"] for r in chosen])
        weights = [float(w) for w in args.weights.split(",")] if split == "validation" else [CONCEPT_WEIGHT]
        for weight in weights:
            report(split, weight, chosen, vectors, corpus, index, language, args.second_from)
    return 0


def id_number(qid: str) -> int:
    digits = "".join(ch for ch in qid if ch.isdigit())
    return int(digits) if digits else 0


def report(split, weight, chosen, vectors, corpus, index, language, second_from) -> None:
    recalls, cross, mrr, worst, answered = [], [], [], [], []
    for r, v in zip(chosen, vectors):
        relevant = set(r["relevant"].split(";")) & language.keys()  # --corpus-upto: those in the searched corpus
        if not relevant:
            continue
        answered.append(r)
        mask = mask_of(concepts_of(r["query"]))
        boost = Boost(mask, weight) if mask and weight else None
        ranked = [corpus[h.complaint_id]["id"] for h in index.search(v, len(corpus), boost=boost)]
        top = set(ranked[:K])
        recalls.append(len(relevant & top) / len(relevant))
        other = {i for i in relevant if language[i].split("-")[0] != r["language"].split("-")[0]}
        if other:
            cross.append(len(other & top) / len(other))
        mrr.append(1 / (1 + min(ranked.index(i) for i in relevant)))
        worst.append((recalls[-1], r["id"], r["query"]))
    print(f"{split}, concept weight {weight}: {len(answered)} queries, recall@{K} {np.mean(recalls):.3f}, "
          f"recall@{K} of relevant complaints in another language {np.mean(cross):.3f} ({len(cross)} queries), MRR "
          f"{np.mean(mrr):.3f}")  # fmt: skip
    if split == "validation" and second_from:
        cut = id_number(second_from)
        first = [x for x, r in zip(recalls, answered) if id_number(r["id"]) < cut]
        second = [x for x, r in zip(recalls, answered) if id_number(r["id"]) >= cut]
        if first and second:
            print(f"  before {second_from}: {len(first)} queries, recall@{K} {np.mean(first):.3f}; from {second_from}: "
                  f"{len(second)} queries, recall@{K} {np.mean(second):.3f}")  # fmt: skip
    if split == "validation" and weight == CONCEPT_WEIGHT:
        for recall, qid, text in sorted(worst)[:WORST]:
            print(f"  {qid} recall@{K} {recall:.2f}: {text}")


if __name__ == "__main__":
    sys.exit(main())
