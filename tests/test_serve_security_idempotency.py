"""Idempotency-Key: a retried save never duplicates — in the log (both backends, racing retries too) and
through every saving endpoint; a refused request does not use up its key; a key reused for another request
is a 422."""

from __future__ import annotations

import json
import threading

import pytest
from log_backends import complaint
from test_serve_api import local_client, log_client, model_dir, predictor

from mealwatch.log import SavedAnswer


def render(ids: list[int]) -> tuple[str, str]:
    return json.dumps({"ids": ids}), "application/json"


def test_add_many_once_saves_once(log_backend):
    log = log_backend.open()
    first = log.add_many_once(
        "k-1", "fp", [complaint("a", ["other"], "low"), complaint("b", ["illness"], "high")], render
    )
    assert first == SavedAnswer("fp", json.dumps({"ids": first.complaint_ids}), "application/json", [1, 2], False)
    again = log.add_many_once("k-1", "fp", [complaint("a", ["other"], "low")], render)
    assert again == SavedAnswer("fp", first.answer, "application/json", [1, 2], True)
    assert log.count() == 2 and log.saved_answer("k-1") == again
    assert log.saved_answer("unknown") is None
    other = log.add_many_once("k-2", "fp2", [complaint("c", ["other"], "low")], render)
    assert other.complaint_ids == [3] and not other.replayed and log.count() == 3


def test_a_failing_answer_saves_nothing(log_backend):
    log = log_backend.open()

    def broken(ids):
        raise RuntimeError("rendering failed")

    with pytest.raises(RuntimeError):
        log.add_many_once("k", "fp", [complaint("a", ["other"], "low")], broken)
    assert log.count() == 0 and log.saved_answer("k") is None
    saved = log.add_many_once("k", "fp", [complaint("a", ["other"], "low")], render)
    assert not saved.replayed and log.count() == 1 and log.get(saved.complaint_ids[0])["text"] == "a"


def test_racing_retries_save_once(log_backend):
    logs = [log_backend.open() for _ in range(2)]  # two connections (processes) on one log
    answers: list[SavedAnswer] = []
    barrier = threading.Barrier(8)

    def retry(i: int) -> None:
        barrier.wait()
        answers.append(logs[i % 2].add_many_once("same", "fp", [complaint(f"t{i}", ["other"], "low")], render))

    threads = [threading.Thread(target=retry, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert logs[0].count() == 1
    assert sorted(a.replayed for a in answers) == [False] + [True] * 7
    assert {a.answer for a in answers} == {json.dumps({"ids": [1]})}


def test_a_forgotten_key_is_a_new_request(log_backend):
    log = log_backend.open()
    log.add_many_once("k", "fp", [complaint("a", ["other"], "low")], render)
    log_backend.execute("UPDATE saved_requests SET created_at = '2000-01-01T00:00:00.000000Z'")
    assert log.saved_answer("k") is None
    assert log.add_many_once("k", "fp", [complaint("a", ["other"], "low")], render).complaint_ids == [2]
    assert log_backend.execute("SELECT count(*) FROM saved_requests") == [(1,)]  # the old one was deleted


@pytest.mark.parametrize("endpoint", ["classify", "batch", "csv json", "csv csv"])
def test_a_retried_save_never_duplicates(log_client, endpoint):
    client, _ = log_client
    key = {"Idempotency-Key": f"retry-{endpoint.replace(' ', '-')}"}

    def send(text: str = "no meal today"):
        if endpoint == "classify":
            return client.post("/api/classify", json={"text": text, "save": True}, headers=key)
        if endpoint == "batch":
            return client.post("/api/classify/batch", json={"texts": [text, "dal cold"], "save": True}, headers=key)
        fmt = endpoint.split()[1]
        upload = {"file": ("week.csv", f"text\n{text}\ndal cold\n".encode(), "text/csv")}
        return client.post(f"/api/classify/csv?format={fmt}", files=upload, data={"save": "true"}, headers=key)

    first, second = send(), send()
    assert first.status_code == second.status_code == 200, first.text
    assert first.content == second.content and first.headers["content-type"] == second.headers["content-type"]
    assert "idempotent-replayed" not in first.headers and second.headers["idempotent-replayed"] == "true"
    if endpoint == "csv csv":
        assert second.headers["content-disposition"] == first.headers["content-disposition"]
    expected = 1 if endpoint == "classify" else 2
    assert client.get("/api/health").json()["complaints_stored"] == expected
    other = send("a different complaint")
    assert other.status_code == 422
    assert "was used for a different request: send a new key" in other.json()["error"]
    assert client.get("/api/health").json()["complaints_stored"] == expected


def test_a_refused_request_does_not_use_up_its_key(log_client):
    client, _ = log_client
    key = {"Idempotency-Key": "k-422"}
    assert client.post("/api/classify", json={"text": "", "save": True}, headers=key).status_code == 422
    r = client.post("/api/classify", json={"text": "no meal today", "save": True}, headers=key)
    assert r.status_code == 200 and r.json()["id"] == 1


def test_keys_are_checked_and_ignored_without_a_save(log_client):
    client, _ = log_client
    for bad in ("", "x" * 201, "has space", "ключ".encode()):
        r = client.post("/api/classify", json={"text": "no meal", "save": True}, headers={"Idempotency-Key": bad})
        assert r.status_code == 422 and "header 'Idempotency-Key' must be 1 to 200 visible ASCII" in r.json()["error"]
    key = {"Idempotency-Key": "not-saving"}
    a = client.post("/api/classify", json={"text": "no meal", "explain": "none"}, headers=key).json()
    b = client.post("/api/classify", json={"text": "dal cold", "explain": "none"}, headers=key).json()
    assert a["text"] == "no meal" and b["text"] == "dal cold"  # nothing saved, nothing replayed
    assert client.get("/api/health").json()["complaints_stored"] == 0
