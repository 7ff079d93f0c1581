"""Recovery after a crash: a saving request retried with its Idempotency-Key after the service restarted on the
same log gets the first answer and writes no second row — whether the service stopped cleanly or was killed
(`kill -9` of a real `mealwatch serve`), and the SQLite file passes `PRAGMA integrity_check` afterwards
(benchmarks/serve_durability.py is the same under a 16-client load)."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - fixtures

from mealwatch.log import open_log
from mealwatch.serve import create_app

TEXT = "दाल में कीड़े थे 🐛 — daal mein keede the, teen bacche beemar"
SCHOOL = "प्राथमिक विद्यालय रामपुर 🏫"


def test_a_retry_after_a_restart_gets_the_first_answer(predictor, tmp_path):  # noqa: F811
    db = tmp_path / "log.db"
    body = {"text": TEXT, "school": SCHOOL, "save": True, "explain": "none"}
    key = {"Idempotency-Key": "phone-7f3a-0001"}
    with local_client(create_app(db_path=db, predictor=predictor)) as before:
        first = before.post("/api/classify", json=body, headers=key)
    assert first.status_code == 200 and first.json()["id"] == 1 and first.json()["text"] == TEXT
    with local_client(create_app(db_path=db, predictor=predictor)) as after:  # the service started again
        again = after.post("/api/classify", json=body, headers=key)
        assert again.status_code == 200 and again.content == first.content
        assert again.headers["idempotent-replayed"] == "true" and "idempotent-replayed" not in first.headers
        changed = after.post("/api/classify", json={**body, "text": TEXT + "!"}, headers=key)
        assert changed.status_code == 422 and "was used for a different request" in changed.json()["error"]
        assert after.get("/api/health").json()["complaints_stored"] == 1
    log = open_log(db)
    try:
        rows = log.list(limit=None).items
    finally:
        log.close()
    assert [(r["id"], r["text"], r["school"]) for r in rows] == [(1, TEXT, SCHOOL)]


def test_an_alert_check_cut_short_by_a_crash_runs_at_the_next_start(predictor, tmp_path):  # noqa: F811
    """The save marks its alert check due in its own transaction; a service that died before the check (here: its
    checker stopped) leaves the mark, and the next start checks it — no retry needed, and a retry checks nothing."""
    db = tmp_path / "log.db"
    body = {"text": "ek bachhe ko hospital le gaye, khana khane ke baad", "school": SCHOOL, "save": True}
    key = {"Idempotency-Key": "ivr-0042"}
    app = create_app(db_path=db, predictor=predictor)
    app.state.service.alerts.close()  # the process dies after the commit, before its check
    with local_client(app) as before:
        first = before.post("/api/classify", json=body, headers=key)
        assert first.status_code == 200 and before.get("/api/alerts").json()["total"] == 0
        assert app.state.service.store.alert_checks_due().complaint_ids == [first.json()["id"]]
    with local_client(create_app(db_path=db, predictor=predictor)) as after:
        alerts = after.get("/api/alerts").json()
        assert alerts["total"] == 1 and alerts["items"][0]["rule"] == "death_or_hospital"
        assert alerts["items"][0]["complaint_ids"] == [first.json()["id"]]
        alert_id = alerts["items"][0]["id"]
        assert after.patch(f"/api/alerts/{alert_id}", json={"status": "acknowledged"}).status_code == 200
        again = after.post("/api/classify", json=body, headers=key)  # a retry: replayed, nothing checked again
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
        assert after.get("/api/alerts").json()["total"] == 1
        assert after.get("/api/health").json()["complaints_stored"] == 1
        assert after.app.state.service.store.alert_checks_due().complaint_ids == []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(model: Path, db: Path, port: int, out: Path) -> subprocess.Popen:
    """`python -m mealwatch serve` on 127.0.0.1:port, answering /api/health (its output in ``out``)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-m", "mealwatch", "serve", "--model", str(model), "--db", str(db), "--port", str(port),
               "--search", "off"]  # fmt: skip
    with open(out, "a") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).raise_for_status()
            return server
        except httpx.HTTPError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise AssertionError(f"the server did not start:\n{out.read_text()}") from None
            time.sleep(0.05)


def test_a_save_survives_kill_9_and_its_retry_saves_nothing(model_dir, tmp_path):  # noqa: F811
    db, port, out = tmp_path / "log.db", free_port(), tmp_path / "server.txt"
    url = f"http://127.0.0.1:{port}/api/classify"
    body = {"text": TEXT, "school": SCHOOL, "save": True, "explain": "none"}
    key = {"Idempotency-Key": "sms-gateway-42"}
    server = start_server(model_dir, db, port, out)
    try:
        first = httpx.post(url, json=body, headers=key, timeout=30)
        assert first.status_code == 200 and first.json()["id"] == 1
        os.kill(server.pid, signal.SIGKILL)  # no shutdown code runs: the WAL is not checkpointed
        server.wait(timeout=10)
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.close()
        server = start_server(model_dir, db, port, out)
        again = httpx.post(url, json=body, headers=key, timeout=30)
        assert again.status_code == 200 and again.content == first.content
        assert again.headers["idempotent-replayed"] == "true"
        other = httpx.post(url, json={**body, "text": "roti kachi thi"}, headers={"Idempotency-Key": "k2"}, timeout=30)
        assert other.status_code == 200 and other.json()["id"] == 2
    finally:
        server.terminate()
        server.wait(timeout=30)
    log = open_log(db)
    try:
        assert [(r["id"], r["text"]) for r in log.list(limit=None, order="queue").items if r["id"] == 1] == [(1, TEXT)]
        assert log.count() == 2
    finally:
        log.close()
