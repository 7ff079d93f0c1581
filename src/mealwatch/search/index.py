"""The vector index: every complaint's sentence vector of one version in memory, top-k by cosine within a scope.

Rows hold int8 components and a scale (``vectors.Quantized``: 384 bytes a complaint for e5-small), the complaint's
id and its district. A search names the districts it may see (an account's scope; None: every district): rows
of other districts are never scored, so an officer never sees another district's complaint through it.

Two ways to answer, chosen per search by the number of rows in scope:
- exact: every row in scope scored (numpy, in blocks), for scopes up to ``exact_limit`` rows;
- approximate: faiss's inverted lists over 8-bit components (``IndexIVFScalarQuantizer``, inner product),
  with the scope as a bitmap that faiss checks before scoring a row, for larger scopes once the index holds
  ``ann_min_rows`` rows (trained in the background; exact until it is ready). ``nprobe`` lists are read.
The choice of method and sizes is measured by benchmarks/search_scale.py (docs/benchmarks.md).

``seq`` is the number of the last vector write (``ComplaintLog.vectors_since``) the index has read: the worker
(``search.worker``) keeps it in step with the log, written by any server, and rebuilds it from the log at start.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: up to this many rows in scope, every one is scored (measured: docs/benchmarks.md)
EXACT_LIMIT = 200_000
#: the approximate index is trained once the index holds this many rows
ANN_MIN_ROWS = 200_000
#: rows scored together in exact search
BLOCK = 65_536
NO_DISTRICT = ""


@dataclass(frozen=True)
class Hit:
    complaint_id: int
    score: float  # cosine, -1 to 1


class VectorIndex:
    """Sentence vectors of one version by complaint id, with their districts; thread-safe."""

    def __init__(self, dimension: int, version: str, *, exact_limit: int = EXACT_LIMIT,
                 ann_min_rows: int = ANN_MIN_ROWS, nprobe: int = 48) -> None:  # fmt: skip
        self.dimension, self.version = dimension, version
        self.exact_limit, self.ann_min_rows, self.nprobe = exact_limit, ann_min_rows, nprobe
        self.seq = 0
        self._lock = threading.RLock()
        self._values = np.zeros((1024, dimension), np.int8)
        self._scales = np.zeros(1024, np.float32)
        self._ids = np.zeros(1024, np.int64)
        self._districts = np.zeros(1024, np.int32)
        self._n = 0
        self._row_of: dict[int, int] = {}
        self._codes: dict[str, int] = {NO_DISTRICT: 0}
        self._ann = None  # faiss index over rows, once trained
        self._ann_rows = 0  # rows added to it
        self._training = False

    def __len__(self) -> int:
        return self._n

    def add(self, ids: Sequence[int], values: np.ndarray, scales: np.ndarray,
            districts: Sequence[str | None]) -> None:  # fmt: skip
        """Add or replace the vectors of ``ids`` (int8 ``values`` (N, H), ``scales`` (N,), folded districts)."""
        values = np.asarray(values, np.int8).reshape(len(ids), self.dimension)
        with self._lock:
            changed = []
            for i, cid in enumerate(ids):
                row = self._row_of.get(int(cid))
                if row is None:
                    row = self._grow()
                    self._row_of[int(cid)] = row
                    self._ids[row] = int(cid)
                else:
                    changed.append(row)
                self._values[row] = values[i]
                self._scales[row] = scales[i]
                self._districts[row] = self._codes.setdefault(districts[i] or NO_DISTRICT, len(self._codes))
            if self._ann is not None:
                self._update_ann(changed)

    def _grow(self) -> int:
        if self._n == len(self._ids):
            size = 2 * len(self._ids)
            self._values = np.resize(self._values, (size, self.dimension))
            self._scales, self._ids = np.resize(self._scales, size), np.resize(self._ids, size)
            self._districts = np.resize(self._districts, size)
        self._n += 1
        return self._n - 1

    def scope_rows(self, scope: Sequence[str] | None) -> np.ndarray | None:
        """A boolean mask of the rows an account of ``scope`` may see (None: every row)."""
        if scope is None:
            return None
        codes = [self._codes[d] for d in scope if d in self._codes]
        return np.isin(self._districts[: self._n], np.asarray(codes, np.int32))

    def search(self, query: np.ndarray, k: int = 10, scope: Sequence[str] | None = None,
               exclude: int | None = None) -> list[Hit]:  # fmt: skip
        """The ``k`` rows (of ``scope``'s districts) closest to the unit ``query`` (H,), best first; ``exclude``
        leaves one complaint out (the one whose neighbours are asked for)."""
        query = np.asarray(query, np.float32).reshape(self.dimension)
        want = k + (exclude is not None)
        with self._lock:
            mask = self.scope_rows(scope)
            in_scope = self._n if mask is None else int(mask.sum())
            if in_scope == 0:
                return []
            if in_scope > self.exact_limit and self._ann is not None and self._ann_rows == self._n:
                hits = self._search_ann(query, want, mask)
            else:
                hits = self._search_exact(query, want, mask)
        return [h for h in hits if h.complaint_id != exclude][:k]

    def _search_exact(self, query: np.ndarray, k: int, mask: np.ndarray | None) -> list[Hit]:
        rows = np.arange(self._n) if mask is None else np.flatnonzero(mask)
        best_scores, best_rows = np.zeros(0, np.float32), np.zeros(0, np.int64)
        for start in range(0, len(rows), BLOCK):
            block = rows[start : start + BLOCK]
            scores = (self._values[block].astype(np.float32) @ query) * self._scales[block]
            if len(scores) > k:
                top = np.argpartition(-scores, k)[:k]
                scores, block = scores[top], block[top]
            best_scores, best_rows = np.concatenate([best_scores, scores]), np.concatenate([best_rows, block])
        order = np.lexsort((self._ids[best_rows], -best_scores))[:k]
        return [Hit(int(self._ids[best_rows[i]]), float(best_scores[i])) for i in order]

    # --- the approximate index (faiss) ------------------------------------------------------------

    def needs_training(self) -> bool:
        """Whether the approximate index should be (re)built: none yet and enough rows, or the rows have doubled."""
        with self._lock:
            if self._training or self._n < self.ann_min_rows:
                return False
            return self._ann is None or self._n >= 2 * self._trained_on

    def train(self) -> None:
        """Build the approximate index over the rows held now (slow: call it off the request path); rows added
        meanwhile are added to it before it is used."""
        import faiss

        with self._lock:
            if self._training:
                return
            self._training = True
            n = self._n
            sample_rows = np.random.default_rng(0).choice(n, min(n, 100_000), replace=False)
            sample = self._floats(np.sort(sample_rows))
        try:
            lists = max(64, int(4 * np.sqrt(n)))
            quantizer = faiss.IndexFlatIP(self.dimension)
            ann = faiss.IndexIVFScalarQuantizer(quantizer, self.dimension, lists, faiss.ScalarQuantizer.QT_8bit,
                                                faiss.METRIC_INNER_PRODUCT)  # fmt: skip
            ann.train(sample)
            done = 0
            while True:
                with self._lock:
                    upto = self._n
                    if done == upto:
                        self._ann, self._ann_rows, self._trained_on = ann, upto, n
                        return
                    chunk = self._floats(np.arange(done, min(upto, done + BLOCK)))
                ann.add_with_ids(chunk, np.arange(done, done + len(chunk), dtype=np.int64))
                done += len(chunk)
        finally:
            with self._lock:
                self._training = False

    _trained_on = 0

    def _floats(self, rows: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(self._values[rows].astype(np.float32) * self._scales[rows, None])

    def _update_ann(self, changed: list[int]) -> None:
        import faiss

        changed = [r for r in changed if r < self._ann_rows]  # rows not in it yet are added below
        if changed:
            self._ann.remove_ids(faiss.IDSelectorBatch(np.asarray(changed, np.int64)))
            self._ann.add_with_ids(self._floats(np.asarray(changed)), np.asarray(changed, np.int64))
        if self._ann_rows < self._n:
            rows = np.arange(self._ann_rows, self._n)
            self._ann.add_with_ids(self._floats(rows), rows.astype(np.int64))
            self._ann_rows = self._n

    def _search_ann(self, query: np.ndarray, k: int, mask: np.ndarray | None) -> list[Hit]:
        import faiss

        params = faiss.SearchParametersIVF(nprobe=self.nprobe)
        if mask is not None:
            bits = np.packbits(mask, bitorder="little")
            params.sel = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bits))
        scores, rows = self._ann.search(query[None, :], k, params=params)
        return [Hit(int(self._ids[r]), float(s)) for s, r in zip(scores[0], rows[0]) if r >= 0]
