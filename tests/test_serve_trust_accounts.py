"""Issue 36, items 2 and 9: a disabled admin is disabled everywhere (its API tokens too, and no account enables
itself); simultaneous right logins are no failures; a taken name says nothing of another district's accounts;
a UTF-16 upload without its mark and a second header line are refused, each in words."""

from __future__ import annotations

import threading
import time

import pytest
from role_matrix import PASSWORD, session_for
from test_serve_api import local_client, model_dir, post_csv, predictor  # noqa: F401 - the tiny model

from mealwatch.accounts import LoginLimiter, hash_password
from mealwatch.serve import create_app

#: user -> (role, districts)
USERS = {"root": ("admin", ["*"]), "adm2": ("admin", ["Gaya"]), "pat": ("admin", ["Patna"]),
         "gus": ("officer", ["Gaya"])}  # fmt: skip


@pytest.fixture
def app(predictor, log_backend):  # noqa: F811
    app = create_app(db_path=log_backend.db, predictor=predictor, accounts=True)
    password = hash_password(PASSWORD)
    for name, (role, districts) in USERS.items():
        app.state.service.store.add_user(name, password, role, districts)
    with local_client(app):
        yield app


def client_of(app, name: str | None = None, token: str | None = None):
    client = local_client(app)
    if token is not None:
        client.headers["Authorization"] = f"Bearer {token}"
    elif name is not None:
        key, csrf = session_for(app, name)
        client.cookies.set("mealwatch_session", key)
        client.headers["X-CSRF-Token"] = csrf
    return client


def test_a_disabled_admins_tokens_die_with_it_and_no_account_enables_itself(app):
    root, adm2 = client_of(app, "root"), client_of(app, "adm2")
    made = adm2.post("/api/tokens", json={"name": "adm2-tool", "role": "admin", "districts": ["Gaya"]})
    assert made.status_code == 201, made.text
    tool = client_of(app, token=made.json()["token"])
    assert tool.get("/api/users").status_code == 200
    # through its own token, an account neither disables nor enables itself
    for disabled in (True, False):
        r = tool.patch("/api/users/adm2", json={"disabled": disabled})
        assert r.status_code == 422 and "your own account" in r.json()["error"], r.text

    assert root.patch("/api/users/adm2", json={"disabled": True}).status_code == 200
    assert adm2.get("/api/users").status_code == 401
    new_admin = {"name": "adm3", "password": "a-long-password-3", "role": "admin", "districts": ["Gaya"]}
    assert tool.post("/api/users", json=new_admin).status_code == 401
    assert tool.post("/api/tokens", json={"name": "t2", "role": "admin", "districts": ["Gaya"]}).status_code == 401
    assert tool.patch("/api/users/adm2", json={"disabled": False}).status_code == 401
    assert app.state.service.store.user("adm2")["disabled"] and app.state.service.store.user("adm3") is None
    assert [t["revoked_at"] is not None for t in root.get("/api/tokens").json()] == [True]

    # enabled again by another admin: its sessions start afresh, its old token stays dead
    assert root.patch("/api/users/adm2", json={"disabled": False}).status_code == 200
    assert tool.get("/api/users").status_code == 401
    again = client_of(app, "adm2")
    r = again.patch("/api/users/ADM2", json={"disabled": True})
    assert r.status_code == 422 and "your own account" in r.json()["error"]


def test_simultaneous_right_logins_are_no_failures(app):
    store = app.state.service.store
    answers: list[int] = []
    start = threading.Barrier(8)

    def log_in() -> None:
        start.wait()
        r = local_client(app).post("/api/login", json={"name": "gus", "password": PASSWORD})
        answers.append(r.status_code)

    threads = [threading.Thread(target=log_in) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == [200] * 8
    assert store.audit_entries(action="login_held").total == 0


def test_racing_wrong_guesses_still_get_five_checks():
    limiter = LoginLimiter()
    allowed: list[bool] = []
    start = threading.Barrier(8)

    def guess(right: bool) -> None:
        start.wait()
        attempt = limiter.begin("ravi", "10.0.0.9")
        allowed.append(attempt.allowed)
        if attempt.allowed:
            time.sleep(0.05)  # the password check
            (limiter.succeeded if right else limiter.failed)(attempt)

    for right, expected in ((False, 5), (True, 8)):
        allowed.clear()
        limiter = LoginLimiter()
        threads = [threading.Thread(target=guess, args=(right,)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sum(allowed) == expected


def test_a_taken_name_says_nothing_of_another_districts_accounts(app):
    pat = client_of(app, "pat")
    body = {"name": "GUS", "password": "a-long-password-3", "role": "officer", "districts": ["Patna"]}
    r = pat.post("/api/users", json=body)
    assert r.status_code == 409 and "gus" not in r.json()["error"].casefold(), r.text
    assert "choose another name" in r.json()["error"]
    root_made = client_of(app, "root").post("/api/tokens", json={"name": "gaya-sms", "role": "viewer",
                                                                  "districts": ["Gaya"]})  # fmt: skip
    assert root_made.status_code == 201
    r = pat.post("/api/tokens", json={"name": "gaya-sms", "role": "viewer", "districts": ["Patna"]})
    assert r.status_code == 409 and "gaya-sms" not in r.json()["error"], r.text
    own = client_of(app, "adm2").post("/api/users", json={**body, "districts": ["Gaya"]})
    assert own.status_code == 409 and "there is a user named 'GUS' already" in own.json()["error"]


def test_utf16_without_its_mark_and_a_second_header_are_refused_in_words(predictor, tmp_path):  # noqa: F811
    with local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor)) as client:
        r = post_csv(client, "text,district\nno eggs today,Gaya\n".encode("utf-16-be"), save=True)
        assert r.status_code == 422 and "UTF-16" in r.json()["error"] and "\x00" not in r.json()["error"], r.text
        joined = "text,district\nno eggs today,Gaya\n\ufefftext,district\ndal was cold,Gaya\n".encode()
        r = post_csv(client, joined, save=True)
        assert r.status_code == 422 and "line 3: it repeats the header line" in r.json()["error"], r.text
        assert client.get("/api/complaints").json()["total"] == 0


def test_tokens_made_before_version_15_get_their_owner_from_the_audit_log(log_backend):
    log_backend.migrate_to(14)
    now = "2025-01-01T00:00:00.000000Z"
    log_backend.execute("INSERT INTO users (name, name_key, password_hash, role, districts, disabled, created_at)"
                        " VALUES ('Adm2', 'adm2', 'x', 'admin', '[\"Gaya\"]', ?, ?)", (False, now))  # fmt: skip
    for name in ("adm2-tool", "cli-tool"):
        log_backend.execute("INSERT INTO api_tokens (name, token_hash, role, districts, created_at)"
                            " VALUES (?, ?, 'admin', '[\"Gaya\"]', ?)", (name, f"hash-{name}", now))  # fmt: skip
    for actor, name in (("Adm2", "adm2-tool"), ("(command line)", "cli-tool")):
        log_backend.execute("INSERT INTO audit_log (at, actor, action, target, detail, client)"
                            " VALUES (?, ?, 'token_create', ?, '{}', NULL)", (now, actor, f"token {name}"))  # fmt: skip
    store = log_backend.open()
    assert store.token("hash-adm2-tool")["owner"] == "Adm2" and store.token("hash-cli-tool")["owner"] is None
    store.set_user_disabled("adm2", True)
    assert store.token("hash-adm2-tool")["revoked_at"] is not None
    assert store.token("hash-cli-tool")["revoked_at"] is None
