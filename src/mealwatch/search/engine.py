"""Search by meaning over the complaint log, similar complaints, and the work that keeps it in step.

``Search(store, vectors)`` ties the log (``ComplaintLog``: stored vectors, incidents), one ``SentenceVectors`` and
a ``VectorIndex`` together:

- ``embed_due`` computes the vectors of complaints that have none of this version — the newest first: those
  saved since the last call, then, in batches, the back-fill of older ones (and all of them again after a change
  of vectors) — stores them with their concepts and signals (``concepts.py``, ``signals.py``), and places each
  into an incident
  (``grouping.py``, ``ComplaintLog.place_complaints``);
- ``catch_up`` reads into the index every vector written since it last looked, by this server or another
  sharing its PostgreSQL log (a fresh index reads them all: the index is rebuilt from the log when lost);
- ``query`` and ``similar`` answer from the index within an account's districts, then read the complaints from
  the log (which checks the scope again), each with its score and why (``why.py``).

None of it runs on the save path: the service's worker (``worker.py``) calls ``embed_due`` and ``catch_up``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..log import ComplaintLog, from_stored_time, in_scope
from ..log.incident_store import OpenIncident, Placing
from .concepts import LEXICON_VERSION, concepts_of, mask_of, names_of
from .grouping import DEFAULT_RULE, Candidate, GroupingRule, best_incident
from .index import Boost, VectorIndex
from .signals import SIGNALS, Signal, signals_of
from .vectors import Quantized, SentenceVectors, dequantize, quantize
from .why import shared_labels, shared_words

#: complaints embedded together
BATCH = 32
#: complaints saved up to this many ids before the newest one seen are looked at again (PostgreSQL hands out ids
#: before the saves commit, so a save may commit after a later one)
LOOKBACK_IDS = 1000
#: the most results a search returns
MAX_RESULTS = 50
#: added to a result's cosine for the share of the query's concepts it has (chosen on data/search's validation
#: queries by benchmarks/search.py)
CONCEPT_WEIGHT = 0.2


@dataclass
class Result:
    """A complaint found, how close it reads (cosine) and why: the words it shares with the query or complaint
    asked about, and (similar complaints) the labels it shares."""

    complaint: dict[str, Any]
    score: float
    shared_words: list[str] = field(default_factory=list)
    shared_labels: list[str] = field(default_factory=list)
    shared_concepts: list[str] = field(default_factory=list)  # what both are about (search.concepts), any script


@dataclass
class Progress:
    """What the search worker has done: vectors computed, complaints placed, the back-fill's state."""

    embedded: int = 0
    placed: int = 0
    backfill_done: bool = False
    last_was_fresh: bool = False  # the last batch held new saves (more may be waiting)
    caught_up: bool = False  # the index holds every vector written when it last looked

    @property
    def complete(self) -> bool:
        """Every complaint embedded and in the index (searches see the whole log)."""
        return self.backfill_done and self.caught_up


class Search:
    """Search and incidents over ``store`` with ``vectors``; safe to share between threads."""

    def __init__(
        self,
        store: ComplaintLog,
        vectors: SentenceVectors,
        *,
        rule: GroupingRule = DEFAULT_RULE,
        signals: tuple[Signal, ...] = SIGNALS,
        index: VectorIndex | None = None,
        concept_weight: float = CONCEPT_WEIGHT,
    ) -> None:
        self.store, self.vectors, self.rule, self.concept_weight = store, vectors, rule, concept_weight
        self.signals = signals
        #: what the log tags stored rows with: the vectors' version and the concept lexicon's
        self.version = f"{vectors.version}+concepts{LEXICON_VERSION}"
        self.index = index or VectorIndex(vectors.dimension, self.version)
        self.progress = Progress()
        self._work = threading.Lock()  # one embedding pass at a time
        self._newest: int | None = None  # the highest id looked at for new saves
        self._below: int | None = None  # the back-fill goes on at ids at or below this

    # --- keeping in step ---------------------------------------------------------------------------

    def catch_up(self, limit: int = 50_000) -> int:
        """Read the vectors written since the index last looked (at most ``limit``); how many were read."""
        rows = self.store.vectors_since(self.version, self.index.seq, limit)
        self.progress.caught_up = len(rows) < limit
        if rows:
            values = np.frombuffer(b"".join(r.values for r in rows), np.int8).reshape(len(rows), -1)
            self.index.add([r.complaint_id for r in rows], values, np.array([r.scale for r in rows], np.float32),
                           [r.district_key for r in rows], [r.concepts for r in rows])  # fmt: skip
            self.index.seq = rows[-1].seq
        return len(rows)

    def embed_due(self, batch: int = BATCH) -> int:
        """Embed, store and place one batch of complaints without a vector of this version (new saves first,
        then the back-fill); how many."""
        with self._work:
            if self._newest is None:
                self._newest = self._below = self.store.last_complaint_id()
            due = self.store.complaints_to_embed(self.version, above=max(0, self._newest - LOOKBACK_IDS), limit=batch)
            fresh = bool(due)
            if not due and self._below is not None and self._below > 0:
                due = self.store.complaints_to_embed(self.version, at_or_below=self._below, limit=batch)
                self._below = min(t.complaint_id for t in due) - 1 if due else 0
            self.progress.backfill_done = not self._below
            self.progress.last_was_fresh = fresh
            if not due:
                return 0
            if fresh:
                self._newest = max(self._newest, max(t.complaint_id for t in due))
            vectors = self.vectors.passages([t.text for t in due])
            q = quantize(vectors)
            ids = [t.complaint_id for t in due]
            masks = [mask_of(concepts_of(t.text)) for t in due]
            found = [signals_of(m, self.signals) for m in masks]
            self.store.store_vectors(self.version, [(i, q.values[n].tobytes(), float(q.scales[n]), masks[n])
                                                    for n, i in enumerate(ids)],
                                     {i: found[n] for n, i in enumerate(ids)})  # fmt: skip
            self.progress.embedded += len(ids)
            self.progress.placed += len(self.place(ids))
            return len(ids)

    def place(self, complaint_ids: Sequence[int]) -> dict[int, int]:
        """Put those of the complaints not yet in an incident into one (``grouping``); complaint -> incident."""
        todo = set(self.store.unplaced(complaint_ids))
        if not todo:
            return {}
        rows = [c for c in self.store.get_many(sorted(todo))]
        rows.sort(key=lambda c: (c["incident_at"] or c["created_at"], c["id"]))  # in the order they happened
        placings = [Placing(c["id"], self.rule.place(c["school"], c["udise"], c["district"], c["block"])) for c in rows]
        return self.store.place_complaints(placings, self.version, self.rule.window, self._choose)

    def _choose(self, mine: tuple[bytes, float] | None, at: str, candidates: list[OpenIncident]) -> int | None:
        if mine is None:
            return None
        vector = unpack([mine])[0]
        options = [Candidate(c.incident_id, from_stored_time(c.last_at), unpack(c.vectors)) for c in candidates]
        return best_incident(self.rule, vector, from_stored_time(at), options)

    # --- answering ---------------------------------------------------------------------------------

    def query(self, text: str, k: int = 10, scope: tuple[str, ...] | None = None) -> list[Result]:
        """The ``k`` complaints (of ``scope``'s districts) closest in meaning to ``text``, in any language."""
        vector = self.vectors.queries([text])[0]
        mask = mask_of(concepts_of(text))
        boost = Boost(mask, self.concept_weight) if mask and self.concept_weight else None
        return [Result(c, s, shared_words(text, c["text"]), [], names_of(mask & mask_of(concepts_of(c["text"]))))
                for c, s in self._found(vector, k, scope, None, boost)]  # fmt: skip

    def similar(self, complaint: dict[str, Any], k: int = 10, scope: tuple[str, ...] | None = None) -> list[Result]:
        """The ``k`` complaints (of ``scope``'s districts) closest in meaning to a saved ``complaint``."""
        stored = self.store.vectors_of(self.version, [complaint["id"]]).get(complaint["id"])
        vector = unpack([stored])[0] if stored else self.vectors.passages([complaint["text"]])[0]
        labels = complaint["corrected_labels"] or complaint["labels"]
        mask = mask_of(concepts_of(complaint["text"]))
        return [
            Result(c, s, shared_words(complaint["text"], c["text"]),
                   shared_labels(labels, c["corrected_labels"] or c["labels"]),
                   names_of(mask & mask_of(concepts_of(c["text"]))))
            for c, s in self._found(vector, k, scope, complaint["id"], None)
        ]  # fmt: skip

    def _found(self, vector: np.ndarray, k: int, scope, exclude: int | None,
               boost: Boost | None) -> list[tuple[dict[str, Any], float]]:  # fmt: skip
        hits = self.index.search(vector, min(k, MAX_RESULTS), scope, exclude=exclude, boost=boost)
        rows = {c["id"]: c for c in self.store.get_many([h.complaint_id for h in hits])}
        # the log's district, not the index's, decides: a complaint moved to another district since is left out
        return [(rows[h.complaint_id], h.score) for h in hits
                if h.complaint_id in rows and in_scope(rows[h.complaint_id]["district"], scope)]  # fmt: skip


def unpack(stored: Sequence[tuple[bytes, float]]) -> np.ndarray:
    """Unit float vectors (N, H) from stored (int8 components, scale) pairs."""
    if not stored:
        return np.zeros((0, 0), np.float32)
    values = np.stack([np.frombuffer(v, np.int8) for v, _ in stored])
    return dequantize(Quantized(values, np.array([s for _, s in stored], np.float32)))
