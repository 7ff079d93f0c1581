"""Search by meaning and incidents through the service (tiny model: its fine-tuned encoder's vectors, read without
prefixes, so that a complaint's own text finds it first): answers, scopes, bad input, back-fill, re-embed,
incidents grouped online and changed by officers, the queue by incident, and the signal an alert rule counts."""

from __future__ import annotations

import pytest
from role_matrix import caller_client, prepare
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.alerts import AlertEngine, Rule
from mealwatch.log import open_log
from mealwatch.search.engine import CONCEPT_WEIGHT, Search
from mealwatch.search.grouping import GroupingRule
from mealwatch.search.vectors import SentenceVectors
from mealwatch.serve import create_app

LIZARD = "a dead lizard was found in the khichdi and children vomited"
EGGS = "no eggs were served on friday as the menu says"


def save(client, text, school="GPS Rampur", district="Gaya", block="Sadar", when="2025-07-14T10:00:00+05:30"):
    r = client.post("/api/classify", json={"text": text, "school": school, "district": district, "block": block,
                                           "incident_date": when, "save": True})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()["id"]


@pytest.fixture
def app(predictor, tmp_path):  # noqa: F811
    return create_app(db_path=tmp_path / "log.db", predictor=predictor, search="model",
                      grouping=GroupingRule(threshold=0.99))  # fmt: skip


def test_search_finds_by_meaning_with_score_and_why(app):
    with local_client(app) as client:
        ids = [
            save(client, LIZARD),
            save(client, EGGS, school="GPS Bela"),
            save(client, "dal was cold", district="Patna"),
        ]
        assert app.state.service.search.wait(timeout=30)
        body = client.get("/api/search", params={"q": EGGS, "k": 2}).json()
        assert [r["complaint"]["id"] for r in body["results"]][0] == ids[1]
        first = body["results"][0]
        # the cosine (1: its own text) plus the whole concept weight: it is about every concept of the query
        assert first["shared_concepts"] == ["eggs", "menu", "not_given"]
        assert first["score"] == pytest.approx(1.0 + CONCEPT_WEIGHT, abs=0.02)
        assert first["score"] >= body["results"][1]["score"]
        assert first["shared_words"] == ["eggs", "served", "friday", "menu", "says"]
        assert body["indexed"] == 3 and body["complete"] and body["vectors"].startswith("finetuned-")
        similar = client.get(f"/api/complaints/{ids[0]}/similar").json()["results"]
        assert ids[0] not in [r["complaint"]["id"] for r in similar] and len(similar) == 2
        in_block = client.get(f"/api/complaints/{ids[0]}/similar", params={"within": "block"}).json()["results"]
        assert [r["complaint"]["id"] for r in in_block] == [ids[1]]  # Patna's Sadar is another block
        assert client.get(f"/api/complaints/{ids[0]}", params={}).json()["incident_id"] is not None


@pytest.mark.parametrize("params, status", [
    ({"q": ""}, 422), ({"q": "   "}, 422), ({"q": "x" * 501}, 422), ({"q": "dal", "k": 0}, 422),
    ({"q": "dal", "k": 51}, 422), ({}, 422), ({"q": "\x00bad"}, 422),
])  # fmt: skip
def test_bad_searches_are_clear_422s(app, params, status):
    with local_client(app) as client:
        r = client.get("/api/search", params=params)
        assert r.status_code == status and r.json()["error"], r.text


def test_unknown_ids_and_search_off(app, predictor, tmp_path):  # noqa: F811
    with local_client(app) as client:
        assert client.get("/api/complaints/99/similar").status_code == 404
        assert client.get("/api/incidents/99").status_code == 404
        assert client.get("/api/incidents/99999999999999999999").status_code in (404, 422)
        assert client.patch("/api/incidents/99", json={"status": "closed"}).status_code == 404
        assert client.patch("/api/incidents/1", json={"status": "gone"}).status_code == 422
        assert client.post("/api/incidents/merge", json={"incident_ids": [1]}).status_code == 422
        assert client.post("/api/incidents/merge", json={"incident_ids": "1,2"}).status_code == 422
        assert client.post("/api/incidents/1/split", json={"complaint_ids": []}).status_code == 422
    with local_client(create_app(db_path=tmp_path / "off.db", predictor=predictor)) as client:
        r = client.get("/api/search", params={"q": "dal"})
        assert r.status_code == 503 and "--search" in r.json()["error"]


def test_no_search_crosses_a_district(predictor, tmp_path):  # noqa: F811
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor, accounts=True, search="model")
    prepare(app)  # users; complaint 1 of Gaya
    admin = caller_client(app, "admin")
    patna = admin.post("/api/classify", json={"text": LIZARD, "district": "Patna", "school": "GPS Bela",
                                              "save": True}).json()["id"]  # fmt: skip
    assert app.state.service.search.wait(timeout=30)
    for caller, own in (("wrong district", {"Patna"}), ("officer", {"Gaya"}), ("viewer", {"Gaya"})):
        client = caller_client(app, caller)
        found = client.get("/api/search", params={"q": LIZARD, "k": 50}).json()["results"]
        assert found and {r["complaint"]["district"] for r in found} == own
        incidents = client.get("/api/incidents", params={"min_size": 1}).json()["items"]
        assert incidents and {i["district"] for i in incidents} == own
    assert caller_client(app, "officer").get(f"/api/complaints/{patna}/similar").status_code == 404
    assert caller_client(app, "officer").get("/api/incidents/2").status_code == 404


def test_incidents_grouped_online_and_changed_by_officers(app):
    with local_client(app) as client:
        a = save(client, LIZARD)
        b = save(client, LIZARD, when="2025-07-14T13:00:00+05:30")  # the same event, reported again
        c = save(client, LIZARD, school="GPS Bela")  # another school: another incident
        d = save(client, LIZARD, when="2025-07-20T10:00:00+05:30")  # six days later: another event
        assert app.state.service.search.wait(timeout=30)
        listed = client.get("/api/incidents").json()
        assert listed["total"] == 1
        one = listed["items"][0]
        assert one["complaint_ids"] == [a, b] and one["size"] == 2 and one["status"] == "open"
        assert one["first_at"] < one["last_at"] and one["school"] == "GPS Rampur"
        assert sum(one["labels"].values()) >= 2 and one["worst_urgency"] in ("high", "medium", "low")
        detail = client.get(f"/api/incidents/{one['id']}").json()
        assert [x["id"] for x in detail["complaints"]] == [a, b]
        queue = client.get("/api/complaints", params={"one_per_incident": "true"}).json()
        assert queue["total"] == 3 and {x["id"] for x in queue["items"]} == {one["lead_id"], c, d}
        others = [client.get(f"/api/complaints/{i}").json()["incident_id"] for i in (c, d)]
        merged = client.post("/api/incidents/merge", json={"incident_ids": [one["id"], others[1]]}).json()
        assert merged["complaint_ids"] == [a, b, d]
        split = client.post(f"/api/incidents/{one['id']}/split", json={"complaint_ids": [d]}).json()
        assert split["complaint_ids"] == [d] and split["id"] != one["id"]
        closed = client.patch(f"/api/incidents/{one['id']}", json={"status": "closed"}).json()
        assert closed["status"] == "closed" and closed["closed_at"]
        e = save(client, LIZARD, when="2025-07-14T15:00:00+05:30")  # a closed incident takes no new complaint
        assert app.state.service.search.wait(timeout=30)
        assert client.get(f"/api/complaints/{e}").json()["incident_id"] not in (one["id"], None)


def test_back_fill_and_re_embed(predictor, tmp_path):  # noqa: F811
    db = tmp_path / "log.db"
    with local_client(create_app(db_path=db, predictor=predictor)) as client:  # search off: no vectors
        ids = [save(client, f"{EGGS} {i}") for i in range(5)]
    store = open_log(db)
    try:
        assert store.vector_count("anything") == 0
        vectors = SentenceVectors.from_pipeline(predictor.pipeline, "v1")
        search = Search(store, vectors)
        while search.embed_due(batch=2):
            pass
        assert store.vector_count(search.version) == 5 and search.progress.backfill_done
        assert store.unplaced(ids) == []
        assert search.catch_up() == 5 and len(search.index) == 5
        # another version of the vectors: every complaint is embedded again, and a fresh index reads them
        other = SentenceVectors.from_pipeline(predictor.pipeline, "v2")
        again = Search(store, other)
        while again.embed_due(batch=3):
            pass
        assert store.vector_count(again.version) == 5 and store.vector_count(search.version) == 0
        assert again.catch_up() == 5
        assert [r.complaint["id"] for r in again.query(f"{EGGS} 3", k=1)] == [ids[3]]
    finally:
        store.close()


def test_a_signal_raises_the_alert_the_keywords_miss(predictor, tmp_path):  # noqa: F811
    """A Tamil hospital admission counts for a rule naming the signal, which its English keywords (the floor)
    miss; the search worker marks its alert check due when it reads the signal."""
    tamil = "மதிய உணவு சாப்பிட்ட குழந்தைகள் மருத்துவமனையில் சேர்க்கப்பட்டனர்"
    store = open_log(tmp_path / "log.db")
    try:
        from mealwatch.log import NewComplaint

        ids = store.add_many([NewComplaint(t, ["illness"], {"illness": 0.9}, "high", "m1", "GPS Bodh", district="Gaya")
                              for t in (tamil, EGGS)])  # fmt: skip
        vectors = SentenceVectors.from_pipeline(predictor.pipeline, "v1")
        search = Search(store, vectors)
        rule = Rule("death_or_hospital", "at {place}", keywords=("hospital",), signals=("death_or_hospital",))
        engine = AlertEngine(store, [rule])
        assert engine.check(ids) == []  # the keywords alone miss it
        while search.embed_due():
            pass
        assert store.get(ids[0])["signals"] == ["death_or_hospital"] and store.get(ids[1])["signals"] == []
        due = store.alert_checks_due()
        assert ids[0] in due.complaint_ids
        raised = engine.check(due.complaint_ids)
        assert [o.alert["complaint_ids"] for o in raised] == [[ids[0]]]
    finally:
        store.close()
