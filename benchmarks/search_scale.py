"""Search at a state's size: the vector index at 1,000,000 complaints on 2 cores (issue 25's target: p95 <= 50 ms,
within an account's districts), exact numpy scoring against faiss's inverted lists, and the index rebuilt from
the log.

Fills a log (``--db`` SQLite file or PostgreSQL URL; ``--pg-temp`` a throw-away PostgreSQL) as
benchmarks/log_scale.py does (30 districts, 30,000 schools) unless it holds complaints already, then stores a
sentence vector for every complaint through ``ComplaintLog.store_vectors``: synthetic unit vectors (384
dimensions, drawn around 2,000 topics, int8 with a scale — the model plays no part in the index's speed). Then:

- rebuild: a fresh ``VectorIndex`` reads every vector from the log (``Search.catch_up``), timed;
- trains faiss's ``IndexIVFScalarQuantizer`` (``VectorIndex.train``), timed;
- for scopes of one district, three districts and every district, ``--queries`` searches (a stored vector with
  noise): p50/p95 of exact scoring (over a scope of more than 200,000 complaints, the first 20 queries), of the
  approximate index (and its recall@10 against exact), and of the whole answer as the service gives it
  (``Search._found``: exact or approximate as ``VectorIndex`` chooses, with a concept boost, then the complaints
  read from the log and their scope checked again);
- with ``--encoder``, p50/p95 of turning a short query into a vector (e5-small) on the same cores.

    python benchmarks/search_scale.py [--complaints 1000000] [--db PATH_OR_URL | --pg-temp] [--encoder] [--fill-only]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_scale import cpu_model, fill, is_url, temp_postgres  # noqa: E402

from mealwatch.log import open_log  # noqa: E402
from mealwatch.search.engine import Search  # noqa: E402
from mealwatch.search.index import Boost  # noqa: E402
from mealwatch.search.vectors import quantize  # noqa: E402

DIM, TOPICS = 384, 2000
VERSION = "synthetic-384:v1"
#: scopes up to this many complaints are searched exactly with every query (for its time and faiss's recall);
#: larger ones with the first EXACT_SOME queries
EXACT_ALL, EXACT_SOME = 200_000, 20


class Synthetic:
    """Stands in for ``SentenceVectors`` where only the version and dimension are read."""

    version, dimension = VERSION, DIM


def topic_vectors(rng: np.random.Generator, n: int, centres: np.ndarray) -> np.ndarray:
    v = centres[rng.integers(0, len(centres), n)] + 0.6 * rng.normal(size=(n, DIM)).astype(np.float32) / np.sqrt(DIM)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def store_synthetic(store, n_max: int, centres: np.ndarray) -> float:
    rng = np.random.default_rng(1)
    began = time.perf_counter()
    last = store.last_complaint_id()
    for start in range(1, last + 1, 5000):
        ids = list(range(start, min(last, start + 4999) + 1))
        q = quantize(topic_vectors(rng, len(ids), centres))
        masks = rng.integers(0, 2**40, len(ids))  # concept bits (a boosted search reads them)
        store.store_vectors(VERSION, [(i, q.values[k].tobytes(), float(q.scales[k]), int(masks[k]))
                                      for k, i in enumerate(ids)])  # fmt: skip
        if (start // 5000) % 40 == 0:
            print(f"  vectors for {start + len(ids) - 1:,} complaints, {time.perf_counter() - began:.0f} s", flush=True)
    return time.perf_counter() - began


def percentiles(times: list[float]) -> str:
    return f"p50 {np.percentile(times, 50) * 1000:6.1f} ms  p95 {np.percentile(times, 95) * 1000:6.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--complaints", type=int, default=1_000_000)
    ap.add_argument("--db", default="/tmp/search-scale/log.db")
    ap.add_argument("--pg-temp", action="store_true")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--encoder", action="store_true", help="also time e5-small turning a query into a vector")
    ap.add_argument("--fill-only", action="store_true",
                    help="fill the log and store its vectors, then stop (time later with the same --db)")  # fmt: skip
    args = ap.parse_args()
    print(f"CPU: {cpu_model()}")
    with temp_postgres() if args.pg_temp else contextlib.nullcontext(args.db) as db:
        if not is_url(db):
            Path(db).parent.mkdir(parents=True, exist_ok=True)
        return run(db, args)


def run(db: str, args: argparse.Namespace) -> int:
    store = open_log(db)
    centres = np.random.default_rng(0).normal(size=(TOPICS, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    try:
        if store.count() == 0:
            print(f"filling {db} with {args.complaints:,} complaints")
            print(f"  filled in {fill(store, args.complaints, 0):.0f} s")
        if store.vector_count(VERSION) < store.count():
            print(f"  vectors stored in {store_synthetic(store, args.complaints, centres):.0f} s")
        if args.fill_only:
            print(f"{db}: {store.count():,} complaints, {store.vector_count(VERSION):,} vectors; filled only")
            return 0
        n = store.vector_count(VERSION)
        search = Search(store, Synthetic(), signals=())  # type: ignore[arg-type]
        search.version = VERSION
        t0 = time.perf_counter()
        while search.catch_up(limit=50_000):
            pass
        print(f"{db}: {n:,} vectors; the index rebuilt from the log in {time.perf_counter() - t0:.1f} s")
        index = search.index
        t0 = time.perf_counter()
        index.ann_min_rows = min(index.ann_min_rows, n)
        index.train()
        print(f"faiss IVF-SQ8 trained and filled in {time.perf_counter() - t0:.1f} s (nprobe {index.nprobe})")
        rng = np.random.default_rng(2)
        queries = topic_vectors(rng, args.queries, centres)
        districts = sorted({f"district {d:02d}" for d in range(30)})
        for name, scope in (("one district", tuple(districts[:1])), ("three districts", tuple(districts[:3])),
                            ("every district", None)):  # fmt: skip
            rows = index.in_scope(scope)
            exact, ann, whole, recall = [], [], [], []
            for n_query, q in enumerate(queries):
                t0 = time.perf_counter()
                got = index.search_approximate(q, 10, scope)
                ann.append(time.perf_counter() - t0)
                if rows <= EXACT_ALL or n_query < EXACT_SOME:  # exact over a million takes seconds a query
                    t0 = time.perf_counter()
                    want = index.search_exact(q, 10, scope)
                    exact.append(time.perf_counter() - t0)
                    recall.append(len({h.complaint_id for h in want} & {h.complaint_id for h in got}) / 10)
                t0 = time.perf_counter()
                search._found(q, 10, scope, None, Boost(0b111, 0.2))
                whole.append(time.perf_counter() - t0)
            print(f"{name} ({rows:,} complaints): exact ({len(exact)} queries) {percentiles(exact)} | faiss "
                  f"{percentiles(ann)}, recall@10 {np.mean(recall):.3f} | whole answer (as chosen) "
                  f"{percentiles(whole)}")  # fmt: skip
    finally:
        store.close()
    if args.encoder:
        from mealwatch.search.vectors import SentenceVectors

        vectors = SentenceVectors.pretrained("e5")
        texts = ["children fainting after lunch", "खाने में छिपकली", "bachon ko dast lag gaye", "மயக்கம்"] * 25
        vectors.queries(texts[:4])
        times = []
        for t in texts:
            t0 = time.perf_counter()
            vectors.queries([t])
            times.append(time.perf_counter() - t0)
        print(f"a query's vector (e5-small, {len(texts)} short queries): {percentiles(times)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
