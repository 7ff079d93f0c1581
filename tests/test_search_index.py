"""The vector index: exact top-k by hand, district scopes never crossed, replacement by id, and the approximate
index (faiss) agreeing with exact search on a small random set."""

from __future__ import annotations

import numpy as np
import pytest

from mealwatch.search.index import VectorIndex
from mealwatch.search.vectors import dequantize, quantize


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_quantize_round_trip_keeps_cosines():
    v = unit(np.random.default_rng(0).normal(size=(50, 16)).astype(np.float32))
    q = quantize(v)
    assert q.values.dtype == np.int8 and np.abs(q.values).max() == 127
    assert np.allclose(dequantize(q), v, atol=0.02)
    assert np.allclose(quantize(np.zeros((1, 4))).values, 0)


def test_exact_search_by_hand_and_scope():
    index = VectorIndex(2, "v")
    vectors = unit(np.array([[1, 0], [0.8, 0.6], [0, 1], [-1, 0]], np.float32))
    q = quantize(vectors)
    index.add([10, 11, 12, 13], q.values, q.scales, ["gaya", "patna", "gaya", None])
    hits = index.search(np.array([1.0, 0.0]), k=3)
    assert [h.complaint_id for h in hits] == [10, 11, 12]
    assert hits[0].score == pytest.approx(1.0, abs=0.01) and hits[1].score == pytest.approx(0.8, abs=0.01)
    assert [h.complaint_id for h in index.search(np.array([1.0, 0.0]), k=3, scope=("gaya",))] == [10, 12]
    assert index.search(np.array([1.0, 0.0]), k=3, scope=()) == []
    assert index.search(np.array([1.0, 0.0]), k=3, scope=("nowhere",)) == []
    assert [h.complaint_id for h in index.search(np.array([1.0, 0.0]), k=2, exclude=10)] == [11, 12]
    # a replaced vector (a re-embed, or the complaint moved to another district) replaces the old one
    index.add([10], quantize(unit(np.array([[0, 1.0]], np.float32))).values, np.array([1 / 127], np.float32),
              ["patna"])  # fmt: skip
    assert len(index) == 4
    assert [h.complaint_id for h in index.search(np.array([0.0, 1.0]), k=1, scope=("patna",))] == [10]
    assert 10 not in [h.complaint_id for h in index.search(np.array([1.0, 0.0]), k=4, scope=("gaya",))]


def test_approximate_index_agrees_with_exact_and_keeps_scope():
    rng = np.random.default_rng(1)
    n, dim = 3000, 32
    centres = unit(rng.normal(size=(40, dim)).astype(np.float32))
    vectors = unit(centres[rng.integers(0, 40, n)] + 0.3 * rng.normal(size=(n, dim)).astype(np.float32))
    districts = [f"d{i % 5}" for i in range(n)]
    index = VectorIndex(dim, "v", exact_limit=100, ann_min_rows=1000, nprobe=64)
    q = quantize(vectors)
    index.add(list(range(n)), q.values, q.scales, districts)
    assert index.needs_training()
    index.train()
    assert not index.needs_training()
    more = quantize(unit(rng.normal(size=(10, dim)).astype(np.float32)))
    index.add(list(range(n, n + 10)), more.values, more.scales, ["d0"] * 10)  # added after training
    exact = VectorIndex(dim, "v")
    exact.add(list(range(n)), q.values, q.scales, districts)
    exact.add(list(range(n, n + 10)), more.values, more.scales, ["d0"] * 10)
    recalls = []
    for query in vectors[:20]:
        want = {h.complaint_id for h in exact.search(query, 10, scope=("d1", "d2"))}
        got = index.search(query, 10, scope=("d1", "d2"))
        assert all(districts[h.complaint_id] in ("d1", "d2") for h in got)
        recalls.append(len(want & {h.complaint_id for h in got}) / 10)
    assert np.mean(recalls) >= 0.9
    assert {h.complaint_id for h in index.search(more.values[0] * more.scales[0], 1)} == {n}
    # with a concept boost, faiss's candidates are ranked again: the boosted complaint comes first in both
    from mealwatch.search.index import Boost

    index.add([7], q.values[7:8], q.scales[7:8], [districts[7]], [0b1])
    exact.add([7], q.values[7:8], q.scales[7:8], [districts[7]], [0b1])
    query = vectors[7] + 0.2 * vectors[8]
    boosted = [x.search(query, 3, scope=(districts[7],), boost=Boost(0b1, 0.5)) for x in (index, exact)]
    assert boosted[0][0].complaint_id == boosted[1][0].complaint_id == 7
    assert boosted[0][0].score == pytest.approx(boosted[1][0].score, abs=0.03)
    assert boosted[0][0].score > 1.0  # its cosine plus 0.5
    # a complaint moved into the scope after a scoped search is found there (the scope's rows are not kept stale)
    mine = next(i for i in range(n) if districts[i] == "d0")
    assert mine not in {h.complaint_id for h in index.search(vectors[mine], 10, scope=("d1", "d2"))}
    index.add([mine], q.values[mine : mine + 1], q.scales[mine : mine + 1], ["d1"])
    assert index.search(vectors[mine], 1, scope=("d1", "d2"))[0].complaint_id == mine
    assert mine not in {h.complaint_id for h in index.search(vectors[mine], 10, scope=("d0",))}


def test_concepts_in_any_script_and_the_boost():
    from mealwatch.search.concepts import concepts_of, mask_of, names_of
    from mealwatch.search.index import Boost

    assert concepts_of("lizard in food") == {"lizard"}
    assert concepts_of("சாம்பார்ல பல்லி விழுந்து கிடந்துச்சு") == {"lizard"}  # agglutinated: பல்லியை too
    assert concepts_of("खाने में छिपकली, बच्चों को उल्टी") == {"lizard", "vomiting"}
    assert "hair" not in concepts_of("बालक बीमार")  # बाल$ is hair only as a whole word, not a boy (बालक)
    assert names_of(mask_of({"vomiting", "lizard"})) == ["lizard", "vomiting"]
    index = VectorIndex(2, "v")
    q = quantize(unit(np.array([[1, 0], [0.95, 0.312]], np.float32)))
    index.add([1, 2], q.values, q.scales, ["gaya", "gaya"], [0, mask_of({"lizard"})])
    plain = index.search(np.array([1.0, 0.0]), 2)
    assert [h.complaint_id for h in plain] == [1, 2]
    boosted = index.search(np.array([1.0, 0.0]), 2, boost=Boost(mask_of({"lizard", "vomiting"}), 0.2))
    assert [h.complaint_id for h in boosted] == [2, 1]  # half the query's concepts: +0.1 lifts it over
    assert boosted[0].score == pytest.approx(0.95 + 0.1, abs=0.01)
