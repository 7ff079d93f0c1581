"""Explanations run on their own worker and copy of the model: classification keeps flowing while one runs,
their cost is bounded (a work budget, a time limit, a short queue), and a job stops when cancelled — by its
client going away, too."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from test_serve_api import live_server, local_client, model_dir, post_classify_raw, predictor, tiny_classifier

from mealwatch.serve import create_app
from mealwatch.serve.explainer import MAX_IG_WORK, Busy, Explainer, Stopped, check_ig_budget, ig_work


def looping(passes: list[int], started: threading.Event, limit: int = 2000):
    """A slow explanation: passes through the model, one every 10 ms, until stopped (or ``limit`` passes)."""

    def run(pipeline):
        started.set()
        for i in range(limit):
            pipeline.predict(["the dal was cold"])
            passes.append(i)
            time.sleep(0.01)
        return "finished"

    return run


def test_classification_completes_while_an_explanation_runs(predictor, tmp_path):
    client = local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor))
    passes: list[int] = []
    started = threading.Event()
    job = predictor.explainer.submit(looping(passes, started), "slow explanation")
    assert started.wait(10)
    try:
        for text in ("worms in the rice", "no meal today", "the cook shouted"):
            r = client.post("/api/classify", json={"text": text, "save": True})
            assert r.status_code == 200 and r.json()["id"] is not None
        assert not job.future.done()  # the explanation is still running: classification did not wait for it
    finally:
        job.cancel()
    with pytest.raises(Stopped, match="the slow explanation was cancelled: its client went away"):
        job.future.result(timeout=10)
    assert len(passes) < 2000


def test_a_cancelled_job_stops_at_its_next_pass_and_the_worker_lives_on(predictor):
    passes: list[int] = []
    started = threading.Event()
    job = predictor.explainer.submit(looping(passes, started), "explanation")
    assert started.wait(10)
    time.sleep(0.1)
    job.cancel()
    with pytest.raises(Stopped):
        job.future.result(timeout=10)
    stopped_at = len(passes)
    time.sleep(0.1)
    assert len(passes) == stopped_at < 2000  # nothing ran after the cancel
    assert predictor.attention("the dal was cold").words  # the next job runs


def test_a_job_cancelled_before_it_starts_never_runs(predictor):
    passes: list[int] = []
    started = threading.Event()
    first = predictor.explainer.submit(looping(passes, started), "first")
    assert started.wait(10)
    ran = []
    second = predictor.explainer.submit(lambda pipeline: ran.append(1), "second")
    second.cancel()
    first.cancel()
    with pytest.raises(Stopped, match="the second was cancelled before it started"):
        second.future.result(timeout=10)
    assert ran == []


def test_a_job_over_its_time_limit_is_stopped():
    explainer = Explainer(tiny_classifier(0), time_limit_s=0.3)
    try:
        passes: list[int] = []
        job = explainer.submit(looping(passes, threading.Event()), "explanation")
        with pytest.raises(Stopped, match="the explanation took longer than 0 s and was stopped"):
            job.future.result(timeout=10)
        assert 0 < len(passes) < 2000  # it ran, and was stopped long before its 2,000 passes
    finally:
        explainer.close()


def test_a_full_queue_refuses_at_once():
    explainer = Explainer(tiny_classifier(0), max_waiting=1)
    try:
        started = threading.Event()
        running = explainer.submit(looping([], started), "explanation")
        assert started.wait(10)
        waiting = explainer.submit(lambda pipeline: "done", "explanation")
        with pytest.raises(Busy, match="1 explanations are waiting already"):
            explainer.submit(lambda pipeline: "never", "explanation")
        running.cancel()
        assert waiting.future.result(timeout=10) == "done"
    finally:
        explainer.close()


def test_the_work_budget():
    assert ig_work(50, [128], [10]) == 51 * 128 * 10 <= MAX_IG_WORK  # the default on the longest text fits
    assert ig_work(4, [10, 20], [1, 2]) == 5 * 10 + 5 * 40
    check_ig_budget(300, [100], [2])  # 60,200: fits
    with pytest.raises(ValueError) as e:
        check_ig_budget(300, [128], [3])
    assert str(e.value) == (
        "integrated gradients with 300 steps on this text (128 word pieces, 3 labels) would cost 115,584 units of "
        "work; the limit is 65,536 ((steps + 1) × word pieces × labels): ask for at most 169 steps, or use "
        "explain='grad'"
    )
    assert ig_work(169, [128], [3]) <= MAX_IG_WORK < ig_work(170, [128], [3])


def test_an_explanation_over_budget_is_a_422(predictor, tmp_path, monkeypatch):
    import mealwatch.serve.explainer as explainer

    monkeypatch.setattr(explainer, "MAX_IG_WORK", 100)
    client = local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor))
    r = client.post("/api/classify", json={"text": "worms were found in the rice today", "explain": "ig", "steps": 300})
    assert r.status_code == 422 and "the limit is 100 ((steps + 1) × word pieces × labels)" in r.json()["error"]
    r = client.get("/attention", params={"text": "worms were found in the rice today", "explain": "true"})
    assert r.status_code == 422 and "the limit is 100" in r.json()["error"]
    assert client.get("/api/health").json()["complaints_stored"] == 0


def test_an_explanation_is_cancelled_when_its_client_goes_away(predictor, tmp_path, monkeypatch):
    """A live server: the client sends an integrated-gradients request and hangs up; the job stops."""
    jobs = []
    passes: list[int] = []
    started = threading.Event()

    def slow_ig(texts, steps=50, method="ig"):
        jobs.append(predictor.explainer.submit(looping(passes, started), "integrated-gradients explanation"))
        return jobs[-1]

    monkeypatch.setattr(predictor, "start_ig", slow_ig)
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor)
    with live_server(app) as port:
        body = b'{"text": "the dal was cold", "explain": "ig", "steps": 300, "save": true}'
        with socket.create_connection(("127.0.0.1", port)) as conn:
            post_classify_raw(conn, body)
            assert started.wait(10)
        # the client has hung up
        with pytest.raises(Stopped, match="cancelled: its client went away"):
            jobs[0].future.result(timeout=10)
        assert len(passes) < 2000
        assert app.state.service.store.count() == 0  # nothing saved for a client that left
