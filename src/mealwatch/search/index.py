"""The vector index: every complaint's sentence vector of one version in memory, top-k by cosine within a scope.

Each complaint's vector is kept as int8 components and a scale (``vectors.Quantized``: 384 bytes a complaint for
e5-small), in the block of its district: a search names the districts it may see (an account's scope; None:
every district) and only their blocks are scored, so an officer never sees another district's complaint.

Two ways to answer, chosen per search by the number of complaints in scope:
- exact: every complaint of the scope's blocks scored (numpy, a contiguous slice at a time), for scopes up to
  ``exact_limit`` complaints;
- approximate, for larger scopes once the index holds ``ann_min_rows`` complaints: faiss's inverted lists over
  8-bit components (``IndexIVFScalarQuantizer``, inner product; trained off the request path, ``train``), reading
  ``nprobe`` lists, the scope given to faiss as a bitmap of the rows it may score.
The sizes and the method are measured by benchmarks/search_scale.py (docs/benchmarks.md).

``seq`` is the number of the last vector write (``ComplaintLog.vectors_since``) the index has read: the search
worker keeps it in step with the log, written by any server, and a fresh index rebuilds itself from the log.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: up to this many complaints in scope, every one is scored (measured: docs/benchmarks.md, "Search and incidents")
EXACT_LIMIT = 10_000
#: the approximate index is trained once the index holds this many complaints (below it, every search is exact)
ANN_MIN_ROWS = 20_000
#: inverted lists read by an approximate search (of about the square root of the rows)
NPROBE = 24
#: candidates the approximate index finds for a boosted search, ranked again with the boost
RERANK = 500
#: rows converted and scored together in exact search
CHUNK = 16_384
NO_DISTRICT = ""
#: scopes whose bitmaps of rows are kept between searches (an account's districts; 125 KB each at 1 M rows)
MAX_BITMAPS = 64


@dataclass(frozen=True)
class Hit:
    complaint_id: int
    score: float  # cosine, -1 to 1, plus the boost when one was asked for


@dataclass(frozen=True)
class Boost:
    """Added to a complaint's cosine: ``weight`` times the share of the query's concepts (``mask``, bits of
    ``search.concepts``) that the complaint's concepts hold."""

    mask: int
    weight: float

    def of(self, masks: np.ndarray) -> np.ndarray:
        wanted = np.uint64(self.mask)
        shared = np.bitwise_count(masks & wanted).astype(np.float32)
        return self.weight * shared / max(1, int(np.bitwise_count(wanted)))


class _Block:
    """The vectors of one district, contiguous: int8 values, scales, complaint ids and global row numbers."""

    def __init__(self, dimension: int) -> None:
        self.values = np.zeros((64, dimension), np.int8)
        self.scales = np.zeros(64, np.float32)
        self.ids = np.zeros(64, np.int64)
        self.rows = np.zeros(64, np.int64)
        self.masks = np.zeros(64, np.uint64)
        self.n = 0

    def append(self, cid: int, values: np.ndarray, scale: float, row: int, mask: int) -> int:
        if self.n == len(self.ids):
            size = 2 * len(self.ids)
            self.values = np.resize(self.values, (size, self.values.shape[1]))
            self.scales, self.ids, self.rows, self.masks = (
                np.resize(a, size) for a in (self.scales, self.ids, self.rows, self.masks)
            )
        self.values[self.n], self.scales[self.n], self.ids[self.n], self.rows[self.n] = values, scale, cid, row
        self.masks[self.n] = mask
        self.n += 1
        return self.n - 1

    def remove(self, pos: int) -> int | None:
        """Drop the row at ``pos`` (the last row moves there); the complaint id that moved, if any."""
        self.n -= 1
        if pos == self.n:
            return None
        for a in (self.values, self.scales, self.ids, self.rows, self.masks):
            a[pos] = a[self.n]
        return int(self.ids[pos])

    def floats(self) -> tuple[np.ndarray, np.ndarray]:
        """(float vectors, global rows) of the whole block."""
        return self.values[: self.n].astype(np.float32) * self.scales[: self.n, None], self.rows[: self.n].copy()

    def scores(self, query: np.ndarray, k: int, boost: Boost | None) -> tuple[np.ndarray, np.ndarray]:
        """The best ``k`` (scores, complaint ids) of this block, unordered."""
        best_s, best_i = [], []
        for start in range(0, self.n, CHUNK):
            end = min(self.n, start + CHUNK)
            s = (self.values[start:end].astype(np.float32) @ query) * self.scales[start:end]
            if boost is not None:
                s += boost.of(self.masks[start:end])
            ids = self.ids[start:end]
            if len(s) > k:
                top = np.argpartition(-s, k)[:k]
                s, ids = s[top], ids[top]
            best_s.append(s)
            best_i.append(ids)
        if not best_s:
            return np.zeros(0, np.float32), np.zeros(0, np.int64)
        return np.concatenate(best_s), np.concatenate(best_i)


class VectorIndex:
    """Sentence vectors of one version by complaint id, in blocks by district; thread-safe."""

    def __init__(self, dimension: int, version: str, *, exact_limit: int = EXACT_LIMIT,
                 ann_min_rows: int = ANN_MIN_ROWS, nprobe: int = NPROBE) -> None:  # fmt: skip
        self.dimension, self.version = dimension, version
        self.exact_limit, self.ann_min_rows, self.nprobe = exact_limit, ann_min_rows, nprobe
        self.seq = 0
        self._lock = threading.RLock()
        self._blocks: dict[str, _Block] = {}
        self._where: dict[int, tuple[str, int, int]] = {}  # complaint id -> (district, position, global row)
        self._row_ids = np.zeros(1024, np.int64)  # global row -> complaint id (faiss's ids are global rows)
        self._row_district = np.zeros(1024, np.int32)  # global row -> district code
        self._row_masks = np.zeros(1024, np.uint64)  # global row -> concept bits (a boosted approximate search)
        self._codes: dict[str, int] = {}
        self._rows = 0
        self._ann = None  # faiss index over global rows, once trained
        self._ann_rows = 0  # global rows added to it
        self._pending: list[int] = []  # rows in it whose vector changed since
        self._trained_on = 0
        self._training = False
        self._bitmaps: dict[tuple[int, ...], np.ndarray] = {}  # district codes -> faiss's bitmap of their rows

    def __len__(self) -> int:
        return self._rows

    def add(self, ids: Sequence[int], values: np.ndarray, scales: np.ndarray, districts: Sequence[str | None],
            masks: Sequence[int] | None = None) -> None:  # fmt: skip
        """Add or replace the vectors of ``ids`` (int8 ``values`` (N, H), ``scales`` (N,), folded districts, and
        concept bits ``masks``)."""
        values = np.asarray(values, np.int8).reshape(len(ids), self.dimension)
        masks = masks if masks is not None else [0] * len(ids)
        with self._lock:
            for i, cid in enumerate(map(int, ids)):
                district = districts[i] or NO_DISTRICT
                found = self._where.get(cid)
                if found is None:
                    row = self._new_row(cid)
                else:
                    old, pos, row = found
                    moved = self._blocks[old].remove(pos)
                    if moved is not None:
                        self._where[moved] = (old, pos, self._where[moved][2])
                    if self._ann is not None or self._training:
                        self._pending.append(row)
                block = self._blocks.setdefault(district, _Block(self.dimension))
                self._where[cid] = (district, block.append(cid, values[i], float(scales[i]), row, int(masks[i])), row)
                self._row_district[row] = self._codes.setdefault(district, len(self._codes))
                self._row_masks[row] = int(masks[i])
            self._bitmaps.clear()  # rows added or moved between districts
            if self._ann is not None:
                self._update_ann()

    def _new_row(self, cid: int) -> int:
        if self._rows == len(self._row_ids):
            self._row_ids = np.resize(self._row_ids, 2 * self._rows)
            self._row_district = np.resize(self._row_district, 2 * self._rows)
            self._row_masks = np.resize(self._row_masks, 2 * self._rows)
        self._row_ids[self._rows] = cid
        self._rows += 1
        return self._rows - 1

    def in_scope(self, scope: Sequence[str] | None) -> int:
        """How many complaints an account of ``scope`` may see."""
        with self._lock:
            blocks = self._blocks.values() if scope is None else [self._blocks[d] for d in scope if d in self._blocks]
            return sum(b.n for b in blocks)

    def search(self, query: np.ndarray, k: int = 10, scope: Sequence[str] | None = None,
               exclude: int | None = None, boost: Boost | None = None) -> list[Hit]:  # fmt: skip
        """The ``k`` complaints (of ``scope``'s districts) closest to the unit ``query`` (H,), best first;
        ``exclude`` leaves one complaint out (the one whose neighbours are asked for); ``boost`` adds to each
        complaint's cosine for the query's concepts it shares (the approximate index finds candidates by cosine
        alone, ``RERANK`` of them, and ranks those with it)."""
        query = np.asarray(query, np.float32).reshape(self.dimension)
        want = k + (exclude is not None)
        with self._lock:
            rows = self.in_scope(scope)
            if rows == 0:
                return []
            if rows > self.exact_limit and self._ann is not None:
                scores, found = self._approximate(query, want if boost is None else max(want, RERANK), scope)
                if boost is not None:
                    scores = scores + boost.of(self._row_masks[found])
                    order = np.lexsort((self._row_ids[found], -scores))[:want]
                    scores, found = scores[order], found[order]
                hits = [Hit(int(self._row_ids[r]), float(v)) for v, r in zip(scores, found)]
            else:
                hits = self.search_exact(query, want, scope, boost)
        return [h for h in hits if h.complaint_id != exclude][:k]

    def search_exact(self, query: np.ndarray, k: int, scope: Sequence[str] | None,
                     boost: Boost | None = None) -> list[Hit]:  # fmt: skip
        """Every complaint of the scope's blocks scored; the best ``k``."""
        with self._lock:
            names = self._blocks if scope is None else [d for d in scope if d in self._blocks]
            parts = [self._blocks[d].scores(query, k, boost) for d in names]
        scores = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.float32)
        ids = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
        order = np.lexsort((ids, -scores))[:k]
        return [Hit(int(ids[i]), float(scores[i])) for i in order]

    # --- the approximate index (faiss) ------------------------------------------------------------

    def needs_training(self) -> bool:
        """Whether the approximate index should be (re)built: none yet and enough rows, or the rows have doubled."""
        with self._lock:
            if self._training or self._rows < self.ann_min_rows:
                return False
            return self._ann is None or self._rows >= 2 * self._trained_on

    def train(self) -> None:
        """Build the approximate index over the rows held now (slow: call it off the request path); rows added or
        changed meanwhile are brought in before it is used."""
        import faiss

        with self._lock:
            if self._training:
                return
            self._training, self._pending = True, []
            n = self._rows
            lists = max(16, min(int(np.sqrt(n)), n // 40))
            sample = self._floats(np.sort(np.random.default_rng(0).choice(n, min(n, 40 * lists), replace=False)))
            names = list(self._blocks)
        try:
            ann = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(self.dimension), self.dimension, lists,
                                                faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)  # fmt: skip
            ann.train(sample)
            for name in names:
                with self._lock:
                    vectors, rows = self._blocks[name].floats()
                ann.add_with_ids(vectors, rows)  # rows added or changed meanwhile are in _pending or past n
            with self._lock:
                ann.remove_ids(faiss.IDSelectorRange(n, 2**62))  # rows past n that moved into a block copied
                self._ann, self._ann_rows, self._trained_on = ann, n, n
                self._update_ann()
        finally:
            with self._lock:
                self._training = False

    def _floats(self, rows: np.ndarray) -> np.ndarray:
        """Float vectors of global ``rows``."""
        out = np.zeros((len(rows), self.dimension), np.float32)
        for k, row in enumerate(rows):
            district, pos, _ = self._where[int(self._row_ids[row])]
            block = self._blocks[district]
            out[k] = block.values[pos].astype(np.float32) * block.scales[pos]
        return out

    def _update_ann(self) -> None:
        import faiss

        if self._pending:
            changed = np.asarray(sorted({r for r in self._pending if r < self._ann_rows}), np.int64)
        if self._pending and len(changed):
            self._ann.remove_ids(faiss.IDSelectorBatch(changed))
            self._ann.add_with_ids(self._floats(changed), changed)
        self._pending = []
        if self._ann_rows < self._rows:
            rows = np.arange(self._ann_rows, self._rows)
            self._ann.add_with_ids(self._floats(rows), rows.astype(np.int64))
            self._ann_rows = self._rows

    def _bitmap(self, codes: tuple[int, ...]) -> np.ndarray:
        """One bit per global row, set for rows of the districts ``codes``; kept until rows are added or moved."""
        bits = self._bitmaps.get(codes)
        if bits is None or 8 * len(bits) < self._rows:
            if len(self._bitmaps) >= MAX_BITMAPS:
                self._bitmaps.clear()
            wanted = np.zeros(len(self._codes), bool)
            wanted[list(codes)] = True
            bits = self._bitmaps[codes] = np.packbits(wanted[self._row_district[: self._rows]], bitorder="little")
        return bits

    def search_approximate(self, query: np.ndarray, k: int, scope: Sequence[str] | None) -> list[Hit]:
        """faiss's inverted lists, scoring only rows of ``scope``; the best ``k`` found."""
        query = np.asarray(query, np.float32).reshape(self.dimension)
        with self._lock:
            return [Hit(int(self._row_ids[r]), float(v)) for v, r in zip(*self._approximate(query, k, scope))]

    def _approximate(self, query: np.ndarray, k: int, scope: Sequence[str] | None) -> tuple[np.ndarray, np.ndarray]:
        """(cosines, global rows) of the best ``k`` faiss finds in ``scope``, best first."""
        import faiss

        with self._lock:
            params = faiss.SearchParametersIVF(nprobe=self.nprobe)
            if scope is not None:
                bits = self._bitmap(tuple(sorted({self._codes[d] for d in scope if d in self._codes})))
                params.sel = faiss.IDSelectorBitmap(self._rows, faiss.swig_ptr(bits))
            scores, rows = self._ann.search(query[None, :], k, params=params)
        kept = rows[0] >= 0
        return scores[0][kept], rows[0][kept]
