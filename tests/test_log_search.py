"""Sentence vectors and incidents in the complaint log, on every backend: stored and read back exactly, numbered
in the order written, placed into incidents by a chooser, merged, split, closed; alerts name their incidents."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from mealwatch.log import Filters, NewComplaint
from mealwatch.log.incident_store import IncidentError, Placing


def new(text: str, school: str | None = "GPS Rampur", district: str = "Gaya", hours: float = 0.0,
        labels=("illness",), urgency="high") -> NewComplaint:  # fmt: skip
    at = datetime(2025, 7, 14, 10, tzinfo=timezone.utc) + timedelta(hours=hours)
    return NewComplaint(text, list(labels), {"illness": 0.9}, urgency, "m1", school, district=district,
                        block="Sadar", incident_at=at)  # fmt: skip


def test_vectors_round_trip_and_are_numbered_in_write_order(log_backend):
    log = log_backend.open()
    a, b, c = log.add_many([new("one"), new("two", district="Patna"), new("three")])
    assert log.last_complaint_id() == c
    assert [t.complaint_id for t in log.complaints_to_embed("v1", above=0)] == [a, b, c]
    assert [t.text for t in log.complaints_to_embed("v1", at_or_below=b)] == ["two", "one"]
    va, vb = bytes(np.arange(-3, 3, dtype=np.int8)), bytes(np.full(6, 127, dtype=np.int8))
    assert log.store_vectors("v1", [(a, va, 0.5, 3), (b, vb, 0.25, 2**43), (10**9, va, 1.0, 0)]) == 2  # unknown skipped
    assert [t.complaint_id for t in log.complaints_to_embed("v1", above=0)] == [c]
    got = log.vectors_since("v1", 0)
    assert [(v.complaint_id, v.values, v.scale, v.concepts, v.seq, v.district_key) for v in got] == [
        (a, va, 0.5, 3, 1, "gaya"), (b, vb, 0.25, 2**43, 2, "patna")]  # fmt: skip
    assert log.store_vectors("v1", [(a, vb, 1.0, 0)]) == 3  # a re-embed takes a new number
    assert [(v.complaint_id, v.values) for v in log.vectors_since("v1", 2)] == [(a, vb)]
    assert log.vectors_of("v1", [a, c]) == {a: (vb, 1.0)}
    # another model's vectors are missing for that model
    assert [t.complaint_id for t in log.complaints_to_embed("v2", above=0)] == [a, b, c]
    assert log.vector_count("v1") == 2 and log.vector_count("v2") == 0
    with pytest.raises(ValueError):
        log.complaints_to_embed("v1")


def join_first(mine, at, candidates):
    """A chooser that joins the first open incident offered (the rule is tested in test_search_grouping)."""
    return candidates[0].incident_id if candidates else None


def test_incidents_place_merge_split_close(log_backend):
    log = log_backend.open()
    ids = log.add_many([
        new("lizard", hours=0), new("lizard again", hours=2, labels=("foreign_object",), urgency="high"),
        new("late", hours=100), new("other school", school="GPS Bela"), new("no school", school=None),
        new("other district", district="Patna"),
    ])  # fmt: skip
    places = ["s1", "s1", "s1", "s2", None, "s3"]
    placed = log.place_complaints([Placing(i, p) for i, p in zip(ids, places)], "v1", timedelta(hours=48), join_first)
    assert placed[ids[0]] == placed[ids[1]]  # within the window
    assert len({placed[i] for i in ids}) == 5  # 'late' beyond the window, other places, no place: each alone
    # placed once: placing again changes nothing
    assert log.place_complaints([Placing(ids[2], "s1")], "v1", timedelta(hours=500), join_first) == {}
    assert log.unplaced(ids) == []
    first = log.get_incident(placed[ids[0]])
    assert first["complaint_ids"] == ids[:2] and first["size"] == 2 and first["status"] == "open"
    assert first["labels"] == {"illness": 1, "foreign_object": 1} and first["worst_urgency"] == "high"
    assert first["first_at"] < first["last_at"] and first["school"] == "GPS Rampur"
    assert log.get(ids[0])["incident_id"] == placed[ids[0]]
    # scope: another district's incident does not exist for a Gaya officer
    assert log.get_incident(placed[ids[5]], scope=("gaya",)) is None
    assert log.list_incidents(scope=("gaya",)).total == 4
    assert [i["id"] for i in log.list_incidents(min_size=2).items] == [placed[ids[0]]]
    # the queue with one complaint per incident
    assert log.list(Filters(one_per_incident=True)).total == 5
    merged = log.merge_incidents([placed[ids[0]], placed[ids[2]]], "asha")
    assert merged["complaint_ids"] == ids[:3] and merged["size"] == 3
    assert log.get_incident(placed[ids[2]]) is None
    with pytest.raises(IncidentError, match="no incident"):
        log.merge_incidents([placed[ids[0]], placed[ids[5]]], "asha", scope=("gaya",))
    split = log.split_incident(merged["id"], [ids[2]], "asha")
    assert split["complaint_ids"] == [ids[2]] and log.get_incident(merged["id"])["complaint_ids"] == ids[:2]
    with pytest.raises(IncidentError, match="not in incident"):
        log.split_incident(merged["id"], [ids[4]], "asha")
    with pytest.raises(IncidentError, match="not none or all"):
        log.split_incident(merged["id"], ids[:2], "asha")
    closed = log.set_incident_status(merged["id"], "closed", "asha")
    assert closed["status"] == "closed" and closed["closed_by"] == "asha"
    # a closed incident takes no new complaint
    later = log.add(new("lizard third", hours=3))
    again = log.place_complaints([Placing(later, "s1")], "v1", timedelta(hours=48), join_first)
    assert again[later] not in (merged["id"], split["id"])  # the closed one, and one 97 hours away


def test_alerts_name_their_incidents(log_backend):
    from mealwatch.log import AlertDraft

    log = log_backend.open()
    ids = log.add_many([new("a"), new("b", hours=1)])
    placed = log.place_complaints([Placing(i, "s1") for i in ids], "v1", timedelta(hours=48), join_first)
    outcome = log.record_alert(AlertDraft("school_cluster", "2 complaints", "s1", ids, "2025-07-14T10:00:00.000000Z",
                                          "2025-07-14T11:00:00.000000Z"), timedelta(hours=24))  # fmt: skip
    alert = log.get_alert(outcome.alert["id"])
    assert alert["incident_ids"] == [placed[ids[0]]]
    assert log.list_alerts().items[0]["incident_ids"] == [placed[ids[0]]]
