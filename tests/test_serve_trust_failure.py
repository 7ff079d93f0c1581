"""Issue 27, answers that are fast and honest when something fails: a save's audit line in its transaction and
never a 5xx for a committed save (item 16); a full disk or a database outage is a 503 naming the cause with
Retry-After, and reads do not fail for a bookkeeping write (17); a damaged log stops the start in one line (19);
sessions in use stay alive under a short idle limit (21); a password command, a private log file, and the same
401 for a disabled account (22)."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from datetime import timedelta

import pytest
from test_accounts import PASSWORDS, Clock, app, clock, login  # noqa: F401 - the accounts fixtures
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.accounts import LoginLimiter, hash_password, new_secret, secret_hash
from mealwatch.cli import main
from mealwatch.log import LogUnavailable, open_log
from mealwatch.serve import create_app
from mealwatch.serve.auth import AccountSettings


def test_a_full_disk_is_a_503_naming_it_and_reads_go_on(app):  # noqa: F811
    ravi = login(app, "ravi")
    assert ravi.post("/api/classify", json={"text": "no eggs", "save": True}).status_code == 200
    store = app.state.service.store
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full: no page more
    long = "the dal was watery again and the children went hungry " * 80
    r = ravi.post("/api/classify", json={"text": long, "school": "GPS " + "x" * 150, "save": True})
    assert r.status_code == 503 and r.headers["retry-after"] == "30", r.text
    assert "the disk holding the complaint log is full" in r.json()["error"] and "nothing was changed" in r.text
    assert ravi.get("/api/complaints").json()["total"] == 1  # reads go on
    assert store.count() == 1 and len(store.audit_entries(action="save").items) == 1


def test_reads_with_a_token_go_on_when_its_last_use_cannot_be_written(app, clock):  # noqa: F811
    store, token = app.state.service.store, new_secret("mw_")
    store.add_token("sms", secret_hash(token), "viewer", ["Gaya"])

    def full(*args):
        raise LogUnavailable("the disk holding the complaint log is full")

    store.touch_token = store.touch_session = full
    sms = local_client(app, headers={"Authorization": f"Bearer {token}"})
    assert sms.get("/api/complaints").status_code == 200  # the bookkeeping write failed: the read did not
    vik = login(app, "vik")
    clock.advance(minutes=5)
    assert vik.get("/api/complaints").status_code == 200  # a session's last use, the same


def test_a_commit_whose_answer_was_lost_is_found_again_or_answered_honestly(predictor, tmp_path, monkeypatch):  # noqa: F811
    import mealwatch.serve.saving as saving

    monkeypatch.setattr(saving, "RECOVERY_S", 0.5)
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor)  # noqa: F811
    store, client = app.state.service.store, local_client(app)
    add = store.add_many_once

    def committed_then_lost(*args, **kwargs):
        add(*args, **kwargs)  # the commit went through ...
        raise LogUnavailable("server closed the connection unexpectedly", unknown_outcome=True)  # ... its ack did not

    store.add_many_once = committed_then_lost
    r = client.post("/api/classify", json={"text": "no eggs", "save": True})
    assert r.status_code == 200 and r.json()["id"] == 1 and "idempotent-replayed" not in r.headers  # found again

    def lost_before_commit(*args, **kwargs):
        raise LogUnavailable("server closed the connection unexpectedly", unknown_outcome=True)

    store.add_many_once = lost_before_commit
    r = client.post("/api/classify", json={"text": "no dal", "save": True})
    assert r.status_code == 503 and "it did not go through" in r.json()["error"] and store.count() == 1

    def never_answers(key):
        raise LogUnavailable("connection refused")

    store.add_many_once, saved_answer = committed_then_lost, store.saved_answer
    store.saved_answer = never_answers
    r = client.post("/api/classify", json={"text": "no rice", "save": True})
    error = r.json()["error"]
    assert r.status_code == 503 and "may or may not have gone through" in error and "Idempotency-Key: mw-" in error
    store.saved_answer, store.add_many_once = saved_answer, add
    key = error.split("Idempotency-Key: ")[1].split("'")[0]
    again = client.post("/api/classify", json={"text": "no rice", "save": True}, headers={"Idempotency-Key": key})
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true" and again.json()["id"] == 2
    assert store.count() == 2  # saved once, however the answers were lost


def test_a_database_outage_is_a_503_and_every_acknowledged_save_is_in_the_log_with_its_audit_line(
    predictor,  # noqa: F811
    pg_cluster,
):
    db_name = pg_cluster.create_database()
    app = create_app(db_path=pg_cluster.url(db_name), predictor=predictor, accounts=True)  # noqa: F811
    with local_client(app):  # its end closes the workers and the log: none outlives the test
        store = app.state.service.store
        store.add_user("ravi", hash_password(PASSWORDS["ravi"]), "officer", ["Gaya"])
        ravi = login(app, "ravi")
        acked = [ravi.post("/api/classify", json={"text": f"no eggs {i}", "save": True}).json()["id"] for i in range(3)]
        with pg_cluster.admin() as admin:  # the database goes away: no connection, the open ones cut
            admin.execute(f"ALTER DATABASE {db_name} ALLOW_CONNECTIONS false")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (db_name,))
        try:
            for r in (ravi.post("/api/classify", json={"text": "no dal", "save": True}), ravi.get("/api/complaints")):
                assert r.status_code == 503 and r.headers["retry-after"] == "30", r.text
                assert f"the database server postgresql://mealwatch:***@127.0.0.1:{pg_cluster.port}/{db_name}" in r.text
        finally:
            with pg_cluster.admin() as admin:
                admin.execute(f"ALTER DATABASE {db_name} ALLOW_CONNECTIONS true")
        acked.append(ravi.post("/api/classify", json={"text": "no rice", "save": True}).json()["id"])  # back at once
        saved = [c["id"] for c in store.list(limit=None).items]
        audited = [i for e in store.audit_entries(limit=None, action="save").items for i in e["detail"]["ids"]]
        assert sorted(saved) == sorted(acked) == sorted(audited)


def test_a_damaged_log_stops_the_start_in_one_line(model_dir, tmp_path):  # noqa: F811
    db = tmp_path / "log.db"
    log = open_log(db)
    from mealwatch.log import NewComplaint

    log.add_many([NewComplaint(f"complaint {i} " * 30, ["illness"], {"illness": 0.9}, "high", "m", school=f"S{i}")
                  for i in range(300)])  # fmt: skip
    log.close()
    with open(db, "r+b") as f:  # 8 KB of zeroed pages inside the complaints' table
        f.seek(os.path.getsize(db) // 2)
        f.write(bytes(8192))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "mealwatch", "serve", "--model", str(model_dir), "--db", str(db),
                           "--port", "1"], capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"mealwatch serve: error: the complaint log {db} is damaged") and ".recover" in line


def test_a_session_in_use_outlives_a_short_idle_limit(predictor, tmp_path, clock):  # noqa: F811
    settings = AccountSettings(idle=timedelta(minutes=1), limiter=LoginLimiter(clock=clock.seconds))
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor, accounts=True, clock=clock,  # noqa: F811
                     account_settings=settings)  # fmt: skip
    app.state.service.store.add_user("vik", hash_password(PASSWORDS["vik"]), "viewer", ["Gaya"])
    vik = login(app, "vik")
    for _ in range(9):  # a request every 20 s for three minutes, under a one-minute idle limit
        clock.advance(seconds=20)
        assert vik.get("/api/complaints").status_code == 200
    clock.advance(seconds=61)
    assert vik.get("/api/complaints").status_code == 401


def test_the_log_file_is_private_to_its_user(tmp_path):
    log = open_log(tmp_path / "log.db")
    from mealwatch.log import NewComplaint

    log.add(NewComplaint("no eggs", ["other"], {"other": 0.9}, "low", "m"))
    for name in os.listdir(tmp_path):  # the log and its journal files
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600, name
    log.close()


def test_users_password_sets_a_new_one_and_ends_the_sessions(app, tmp_path, capsys, monkeypatch):  # noqa: F811
    ravi = login(app, "ravi")
    db = str(tmp_path / "log.db")
    monkeypatch.setattr("sys.stdin", io.StringIO("ravi-new-password\n"))
    assert main(["users", "password", "ravi", "--password-stdin", "--db", db]) == 0
    assert capsys.readouterr().out == "new password for 'ravi' (their sessions have ended)\n"
    assert ravi.get("/api/complaints").status_code == 401  # the old session ended at once
    client = local_client(app)
    assert client.post("/api/login", json={"name": "ravi", "password": PASSWORDS["ravi"]}).status_code == 401
    assert client.post("/api/login", json={"name": "ravi", "password": "ravi-new-password"}).status_code == 200
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["users", "password", "ravi", "--password-stdin", "--db", db]) == 2
    assert "the password is too short" in capsys.readouterr().err
    assert main(["users", "password", "nobody", "--password-stdin", "--db", db]) == 2
    assert "no user named 'nobody'" in capsys.readouterr().err
    entries = app.state.service.store.audit_entries(action="user_password").items
    assert [(e["actor"], e["target"]) for e in entries] == [("(command line)", "user ravi")]


@pytest.mark.parametrize("verb", ["disable", "password"])
def test_user_changes_on_the_command_line_reach_a_running_service(app, tmp_path, verb, monkeypatch):  # noqa: F811
    vik = login(app, "vik")
    monkeypatch.setattr("sys.stdin", io.StringIO("vik-new-password\n"))
    args = ["--password-stdin"] if verb == "password" else []
    assert main(["users", verb, "vik", *args, "--db", str(tmp_path / "log.db")]) == 0
    assert vik.get("/api/complaints").status_code == 401


def test_weights_that_do_not_match_their_recorded_hash_are_refused(model_dir, tmp_path):  # noqa: F811
    import random
    import shutil

    from mealwatch.checksums import DIGEST_FILE
    from mealwatch.pipeline import Pipeline
    from mealwatch.transformer import CheckpointError

    folder = tmp_path / "damaged"
    shutil.copytree(model_dir, folder)
    assert (folder / DIGEST_FILE).read_text().endswith("  model.safetensors\n")
    assert subprocess.run(["sha256sum", "-c", DIGEST_FILE], cwd=folder, capture_output=True).returncode == 0
    size = (folder / "model.safetensors").stat().st_size
    with open(folder / "model.safetensors", "r+b") as f:  # 4 KB of random bytes among the tensors
        f.seek(size - 8192)
        f.write(random.Random(0).randbytes(4096))
    with pytest.raises(CheckpointError, match="does not match the SHA-256 recorded when the model was saved"):
        Pipeline.from_folder(folder)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "mealwatch", "serve", "--model", str(folder), "--db",
                           str(tmp_path / "log.db"), "--port", "1"], capture_output=True, text=True, env=env,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert "does not match the SHA-256 recorded" in line and "copy the model folder again" in line


def test_a_model_giving_nan_is_never_answered_nor_stored(model_dir, tmp_path):  # noqa: F811
    import torch

    from mealwatch.serve import Predictor

    damaged = Predictor.load(model_dir)  # its own copy: the damage stays here
    try:
        with torch.no_grad():
            next(damaged.pipeline.model.parameters()).fill_(float("nan"))  # weights damaged after the check
        client = local_client(create_app(db_path=tmp_path / "log.db", predictor=damaged))
        r = client.post("/api/classify", json={"text": "no eggs today", "save": True})
        assert r.status_code == 500 and "the model gave no valid probabilities (NaN)" in r.json()["error"]
        assert client.get("/api/complaints").json()["total"] == 0
        assert client.get("/api/health").json()["status"].startswith("degraded: the model gave no valid")
    finally:
        damaged.close()
    from mealwatch.log import NewComplaint

    log = open_log(tmp_path / "other.db")
    with pytest.raises(ValueError, match="not all finite numbers"):
        log.add(NewComplaint("x", ["other"], {"other": float("nan")}, "low", "m"))
    assert log.count() == 0
    log.close()


@pytest.mark.parametrize("proxy", [[], ["--proxy", "127.0.0.1"]])
def test_serve_says_how_it_listens_and_passes_it_to_uvicorn(model_dir, tmp_path, capsys, monkeypatch, proxy):  # noqa: F811
    import socket

    heard = {}
    monkeypatch.setattr("uvicorn.run", lambda served, **kwargs: heard.update(kwargs))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["serve", "--model", str(model_dir), "--db", str(tmp_path / "log.db"), "--port", str(port),
            "--search", "off", *proxy]  # fmt: skip
    assert main([*args, "--max-connections", "200", "--header-timeout", "5"]) == 0
    out = capsys.readouterr().out
    assert "its weights match their recorded SHA-256" in out
    assert "connections: at most 200 at once, 20 from one address; headers within 5 s" in out
    assert heard["proxy_headers"] is bool(proxy) and heard["timeout_graceful_shutdown"] == 10
    assert heard["forwarded_allow_ips"] == (["127.0.0.1"] if proxy else None)
    assert ("believed from 127.0.0.1" if proxy else "X-Forwarded-For ignored (no --proxy)") in out
    assert main(["serve", "--model", str(model_dir), "--proxy", "my-proxy", "--port", str(port)]) == 2
    assert "--proxy 'my-proxy': give the proxy's IP address" in capsys.readouterr().err
