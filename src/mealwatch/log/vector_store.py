"""Sentence vectors as the log keeps them (schema version 10): one per complaint, int8 with its scale, tagged with
the vectors' version, and numbered in the order they were written.

The log knows no model: what a vector means, how it was computed and quantised is ``mealwatch.search``'s. Every
write takes the next numbers from ``vector_writes`` (its one row locked until the write commits), so writes
commit in the order of their numbers, and a reader that has seen number ``n`` has seen every write before it:
``vectors_since(model, n)`` is how each server's index catches up with the vectors any server wrote.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from .shapes import Store, Tx


@dataclass(frozen=True)
class StoredVector:
    """A complaint's stored vector, the number of its write, and the complaint's district (folded)."""

    complaint_id: int
    values: bytes  # int8 components
    scale: float
    concepts: int  # what the text is about (``search.concepts`` bits)
    seq: int
    district_key: str | None


@dataclass(frozen=True)
class ToEmbed:
    """A complaint whose vector of the wanted version is missing."""

    complaint_id: int
    text: str


class VectorStore(Store):
    """Vectors of complaints, each call one transaction (mixed into ``ComplaintLog``)."""

    def last_complaint_id(self) -> int:
        """The highest complaint id saved so far (0 for an empty log)."""
        with self._read() as tx:
            row = tx.one("SELECT max(id) AS n FROM complaints")
        return int(row["n"] or 0)

    def complaints_to_embed(
        self, model: str, *, above: int | None = None, at_or_below: int | None = None, limit: int = 256
    ) -> list[ToEmbed]:
        """Complaints without a vector of version ``model`` (none, or of another version): those with ids over
        ``above``, oldest first, or those with ids at or below ``at_or_below``, newest first."""
        if (above is None) == (at_or_below is None):
            raise ValueError("give either above or at_or_below")
        where, order, bound = ("c.id > ?", "c.id", above) if above is not None else ("c.id <= ?", "c.id DESC",
                                                                                     at_or_below)  # fmt: skip
        with self._read() as tx:
            rows = tx.all(
                "SELECT c.id, c.text FROM complaints c LEFT JOIN complaint_vectors v ON v.complaint_id = c.id"
                f" WHERE {where} AND (v.complaint_id IS NULL OR v.model <> ?) ORDER BY {order} LIMIT {int(limit)}",
                (bound, model),
            )
        return [ToEmbed(int(r["id"]), r["text"]) for r in rows]

    def store_vectors(
        self, model: str, rows: Sequence[tuple[int, bytes, float, int]], signals: dict[int, list[str]] | None = None
    ) -> int:
        """Store (complaint id, int8 components, scale, concept bits) of version ``model``, replacing what each
        complaint had, in one transaction; the number of the last write (0 when ``rows`` is empty). Ids of no
        complaint are skipped. ``signals``: complaint id -> the signals its text carries (``search.signals``), stored
        on the complaint; one whose signals change has its alert check marked due (a rule may count them)."""
        if not rows:
            return 0
        with self._write() as tx:
            last = store_vectors(tx, model, rows)
            now = self.clock()
            for complaint_id, names in (signals or {}).items():
                row = tx.one("SELECT signals FROM complaints WHERE id = ?", (complaint_id,))
                text = json.dumps(sorted(names))
                if row is None or row["signals"] == text:
                    continue
                tx.run("UPDATE complaints SET signals = ? WHERE id = ?", (text, complaint_id))
                if names:
                    tx.run("INSERT INTO alert_checks (complaint_id, queued_at) VALUES (?, ?)", (complaint_id, now))
            return last

    def vectors_since(self, model: str, after_seq: int, limit: int = 10_000) -> list[StoredVector]:
        """Vectors of version ``model`` written after write number ``after_seq``, in the order written."""
        with self._read() as tx:
            rows = tx.all(
                "SELECT v.complaint_id, v.vector, v.scale, v.concepts, v.seq, c.district_key FROM complaint_vectors v"
                " JOIN complaints c ON c.id = v.complaint_id WHERE v.seq > ? AND v.model = ? ORDER BY v.seq"
                f" LIMIT {int(limit)}",
                (after_seq, model),
            )
        return [
            StoredVector(int(r["complaint_id"]), bytes(r["vector"]), float(r["scale"]), int(r["concepts"]),
                         int(r["seq"]), r["district_key"])
            for r in rows
        ]  # fmt: skip

    def vectors_of(self, model: str, complaint_ids: Sequence[int]) -> dict[int, tuple[bytes, float]]:
        """complaint id -> (int8 components, scale) of version ``model``; complaints without one are left out."""
        with self._read() as tx:
            return read_vectors(tx, model, complaint_ids)

    def vector_count(self, model: str) -> int:
        """How many complaints have a vector of version ``model``."""
        with self._read() as tx:
            return int(tx.one("SELECT count(*) AS n FROM complaint_vectors WHERE model = ?", (model,))["n"])


def store_vectors(tx: Tx, model: str, rows: Sequence[tuple[int, bytes, float, int]]) -> int:
    """``VectorStore.store_vectors`` within ``tx``."""
    wanted = sorted({int(row[0]) for row in rows})
    found = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        found |= {int(r["id"]) for r in tx.all(f"SELECT id FROM complaints WHERE id IN ({', '.join('?' * len(chunk))})",
                                               chunk)}  # fmt: skip
    kept = [(int(i), bytes(v), float(s), int(c)) for i, v, s, c in rows if int(i) in found]
    if not kept:
        return 0
    # the counter's row stays locked until this transaction commits: writes commit in the order of their numbers
    last = int(tx.one("UPDATE vector_writes SET n = n + ? RETURNING n", (len(kept),))["n"])
    first = last - len(kept) + 1
    tx.many(
        "INSERT INTO complaint_vectors (complaint_id, model, vector, scale, concepts, seq) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (complaint_id) DO UPDATE SET model = excluded.model, vector = excluded.vector,"
        " scale = excluded.scale, concepts = excluded.concepts, seq = excluded.seq",
        [(i, model, v, s, c, first + n) for n, (i, v, s, c) in enumerate(kept)],
    )
    return last


def read_vectors(tx: Tx, model: str, complaint_ids: Sequence[int]) -> dict[int, tuple[bytes, float]]:
    wanted = sorted({int(i) for i in complaint_ids})
    out: dict[int, tuple[bytes, float]] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        for r in tx.all(
            "SELECT complaint_id, vector, scale FROM complaint_vectors WHERE model = ?"
            f" AND complaint_id IN ({', '.join('?' * len(chunk))})",
            (model, *chunk),
        ):
            out[int(r["complaint_id"])] = (bytes(r["vector"]), float(r["scale"]))
    return out


def touch_vector(tx: Tx, complaint_id: int) -> None:
    """Renumber a complaint's vector (its district changed: every index must read it again)."""
    if tx.one("SELECT 1 AS x FROM complaint_vectors WHERE complaint_id = ?", (complaint_id,)) is not None:
        last = int(tx.one("UPDATE vector_writes SET n = n + 1 RETURNING n")["n"])
        tx.run("UPDATE complaint_vectors SET seq = ? WHERE complaint_id = ?", (last, complaint_id))
