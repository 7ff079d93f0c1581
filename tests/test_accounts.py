"""Accounts (issue 12, part 1): argon2id passwords never shown, sessions in HttpOnly SameSite=Strict cookies with
idle and absolute expiry on an injected clock, logout, the CSRF token, login rate limits, API tokens, district
scopes on every read and write, the audit log, and the command line."""

from __future__ import annotations

import io
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.accounts import AccountError, LoginLimiter, hash_password, parse_districts, secret_hash
from mealwatch.cli import main
from mealwatch.log import open_log, to_stored_time
from mealwatch.serve import create_app
from mealwatch.serve.auth import AccountSettings

PASSWORDS = {"asha": "asha-admin-pass", "ravi": "ravi-officer-pass", "vik": "vik-viewer-pass", "pat": "pat-patna-pass"}


class Clock:
    """The log's clock (stored times) and the login limiter's (seconds), moved by hand."""

    def __init__(self) -> None:
        self.now = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> str:
        return to_stored_time(self.now)

    def seconds(self) -> float:
        return self.now.timestamp()

    def advance(self, **kw) -> None:
        self.now += timedelta(**kw)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(predictor, tmp_path, clock):  # noqa: F811
    settings = AccountSettings(limiter=LoginLimiter(clock=clock.seconds))
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor, accounts=True, clock=clock,
                     account_settings=settings)  # fmt: skip
    store = app.state.service.store
    store.add_user("asha", hash_password(PASSWORDS["asha"]), "admin", ["*"])
    store.add_user("ravi", hash_password(PASSWORDS["ravi"]), "officer", ["Gaya"])
    store.add_user("vik", hash_password(PASSWORDS["vik"]), "viewer", ["Gaya", "Nalanda"])
    store.add_user("pat", hash_password(PASSWORDS["pat"]), "officer", ["Patna"])
    return app


def login(app, name: str):
    """A client of its own (its own cookies) signed in as ``name``; its CSRF token in ``client.csrf``."""
    client = local_client(app)
    r = client.post("/api/login", json={"name": name, "password": PASSWORDS[name]})
    assert r.status_code == 200, r.text
    client.csrf = r.json()["csrf_token"]
    client.headers["X-CSRF-Token"] = client.csrf
    return client


def test_passwords_are_argon2id_and_never_leave_the_server(app, tmp_path):
    admin = login(app, "asha")
    rows = sqlite3.connect(tmp_path / "log.db").execute("SELECT name, password_hash FROM users").fetchall()
    assert all(h.startswith("$argon2id$v=19$") for _, h in rows) and len(rows) == 4
    assert PASSWORDS["ravi"] not in str(rows)
    for body in (admin.get("/api/users").text, admin.get("/api/audit").text, admin.get("/api/session").text):
        assert "argon2" not in body and "password" not in body
    assert [u["name"] for u in admin.get("/api/users").json()] == ["asha", "pat", "ravi", "vik"]
    r = admin.post("/api/users", json={"name": "new", "password": "short", "role": "viewer", "districts": ["Gaya"]})
    assert r.status_code == 422 and "the password is too short: use at least 10 characters" in r.json()["error"]


def test_login_sets_a_strict_http_only_cookie_and_a_server_side_session(app, tmp_path):
    client = local_client(app)
    r = client.post("/api/login", json={"name": "RAVI", "password": PASSWORDS["ravi"]})  # names in any case
    assert r.status_code == 200 and r.json()["user"] == {"name": "ravi", "role": "officer", "districts": ["Gaya"],
                                                         "kind": "session"}  # fmt: skip
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie and "Secure" not in cookie
    key = client.cookies["mealwatch_session"]
    stored = sqlite3.connect(tmp_path / "log.db").execute("SELECT key_hash, csrf_token FROM sessions").fetchall()
    assert stored == [(secret_hash(key), r.json()["csrf_token"])] and key not in str(stored)
    assert client.get("/api/session").json()["user"]["name"] == "ravi"


def test_the_cookie_is_secure_over_https_and_behind_a_tls_proxy(predictor, tmp_path):  # noqa: F811
    for settings, base in ((AccountSettings(), "https://127.0.0.1"), (AccountSettings(tls_proxy=True), None)):
        app = create_app(db_path=tmp_path / f"{base is None}.db", predictor=predictor, accounts=True,
                         account_settings=settings)  # fmt: skip
        app.state.service.store.add_user("ravi", hash_password(PASSWORDS["ravi"]), "officer", ["Gaya"])
        client = TestClient(app, base_url=base) if base else local_client(app)
        r = client.post("/api/login", json={"name": "ravi", "password": PASSWORDS["ravi"]})
        assert "Secure" in r.headers["set-cookie"], r.headers["set-cookie"]


def test_logout_ends_the_session_on_the_server(app):
    client = login(app, "ravi")
    key = client.cookies["mealwatch_session"]
    assert client.post("/api/logout").json() == {"logged_out": True}
    assert app.state.service.store.session(secret_hash(key)) is None
    client.cookies.set("mealwatch_session", key)  # a copied cookie is worth nothing after logout
    assert client.get("/api/complaints").status_code == 401
    assert client.get("/", follow_redirects=False).headers["location"] == "/login"


def test_idle_and_absolute_expiry_on_the_injected_clock(app, clock):
    client = login(app, "vik")
    for _ in range(4):  # used every 20 minutes: stays alive past the idle limit
        clock.advance(minutes=20)
        assert client.get("/api/complaints").status_code == 200
    clock.advance(minutes=31)
    r = client.get("/api/complaints")
    assert r.status_code == 401 and "your session has ended" in r.json()["error"]
    assert client.get("/api/complaints").json()["error"].startswith("log in first")  # the row is gone
    client, started = login(app, "vik"), clock.now
    while client.get("/api/complaints").status_code == 200:  # busy all day: ends after 12 hours however busy
        clock.advance(minutes=29)
    assert timedelta(hours=12) < clock.now - started <= timedelta(hours=12, minutes=29)


def test_csrf_token_on_every_change_from_a_session(app):
    officer = login(app, "ravi")
    saved = officer.post("/api/classify", json={"text": "no meal", "save": True}).json()
    assert saved["district"] == "Gaya"  # an officer of one district saves into it
    path = f"/api/complaints/{saved['id']}"
    for headers in ({"X-CSRF-Token": ""}, {"X-CSRF-Token": "wrong"}, {"X-CSRF-Token": officer.csrf + "x"}):
        r = officer.patch(path, json={"notes": "called the school"}, headers=headers)
        assert r.status_code == 403 and "missing or wrong CSRF token" in r.json()["error"]
    del officer.headers["X-CSRF-Token"]
    assert officer.patch(path, json={"notes": "called"}).status_code == 403
    upload = {"file": ("a.csv", b"text\nno eggs\n", "text/csv")}
    assert officer.post("/api/classify/csv", files=upload, data={"save": "true"}).status_code == 403
    r = officer.post("/api/classify/csv", files=upload, data={"save": "true", "csrf_token": officer.csrf})
    assert r.status_code == 200 and r.json()["results"][0]["district"] == "Gaya"  # the hidden form field
    assert officer.patch(path, json={"notes": "called"}, headers={"X-CSRF-Token": officer.csrf}).status_code == 200
    assert app.state.service.store.get(saved["id"])["notes"] == "called"
    assert (
        officer.post(
            "/api/classify",
            json={"text": "x", "save": True},
            headers={"origin": "http://evil.example", "X-CSRF-Token": officer.csrf},
        ).status_code
        == 403
    )  # fmt: skip - the cross-site check stays


def from_address(app, address: str):
    return local_client(app, client=(address, 50000))


def test_failed_logins_are_throttled_without_locking_the_owner_out(app, clock):
    """Issue 27, items 9 and 10: a guesser at one address gets five tries, then one a minute (never a lock that
    doubles); the owner at their own address logs in all the while; one audit line per hold, not per attempt."""
    attacker, wrong = from_address(app, "10.9.9.9"), {"name": "ravi", "password": "not-the-password"}
    assert [attacker.post("/api/login", json=wrong).status_code for _ in range(5)] == [401] * 5
    for _ in range(20):
        r = attacker.post("/api/login", json=wrong)
        assert r.status_code == 429 and r.headers["retry-after"] == "60" and "try again in 60 seconds" in r.text
    r = attacker.post("/api/login", json={"name": "ravi", "password": PASSWORDS["ravi"]})
    assert r.status_code == 429  # from the guessing address, even the right password waits its turn
    owner = from_address(app, "10.1.1.1")
    assert owner.post("/api/login", json={"name": "ravi", "password": PASSWORDS["ravi"]}).status_code == 200
    clock.advance(seconds=61)
    assert [attacker.post("/api/login", json=wrong).status_code for _ in range(2)] == [401, 429]  # one a minute
    store = app.state.service.store
    assert store.audit_entries(limit=None, action="login_failed").total == 6
    held = store.audit_entries(limit=None, action="login_held").items
    assert len(held) == 2 and held[0]["detail"]["held"] == ["pair ravi\n10.9.9.9"]  # one per hold


def test_one_address_guessing_many_names_is_held_back_and_a_known_device_passes_a_storm(app, clock):
    from mealwatch.accounts.limiter import Limit, LoginLimiter

    small = {"pair": Limit(2, 1 / 60), "address": Limit(4, 1 / 15), "name": Limit(4, 1 / 30)}  # fewer hashes
    app.state.accounts.limiter = LoginLimiter(clock=clock.seconds, limits=small)
    guesser = from_address(app, "10.9.9.8")
    answers = [guesser.post("/api/login", json={"name": f"user{i}", "password": "whatever-password"})
               for i in range(6)]  # fmt: skip
    assert [a.status_code for a in answers] == [401] * 4 + [429] * 2  # four names, then one every 15 s
    assert answers[-1].headers["retry-after"] == "15"
    vik_home = from_address(app, "10.2.2.2")
    assert vik_home.post("/api/login", json={"name": "vik", "password": PASSWORDS["vik"]}).status_code == 200
    for i in range(5):  # many addresses guess vik's password: the name's bucket runs dry
        from_address(app, f"10.7.0.{i}").post("/api/login", json={"name": "vik", "password": "guess-password"})
    r = from_address(app, "10.3.3.3").post("/api/login", json={"name": "vik", "password": PASSWORDS["vik"]})
    assert r.status_code == 429 and int(r.headers["retry-after"]) <= 30  # a new device waits its turn ...
    r = vik_home.post("/api/login", json={"name": "vik", "password": PASSWORDS["vik"]})
    assert r.status_code == 200  # ... the device vik logged in from is not held back by strangers


def test_racing_logins_run_at_most_five_password_checks(app):
    """Issue 27, item 7: the attempt is taken before the password is checked, so 40 wrong logins sent at once for
    one name from one address run five checks, however they interleave."""
    import concurrent.futures

    client = from_address(app, "10.4.4.4")
    wrong = {"name": "ravi", "password": "racing-guess-1"}
    with concurrent.futures.ThreadPoolExecutor(40) as pool:
        codes = list(pool.map(lambda _: client.post("/api/login", json=wrong).status_code, range(40)))
    assert sorted(codes) == [401] * 5 + [429] * 35


def test_password_checks_at_once_are_capped_and_the_rest_refused_quickly(app):
    """Issue 27, item 8: each argon2id check holds 64 MiB; a storm never runs more than the gate's slots."""
    from mealwatch.accounts import CheckGate

    gate = app.state.accounts.gate = CheckGate(running=1, waiting=2)
    import concurrent.futures

    def attempt(i: int) -> int:
        body = {"name": "ravi", "password": f"storm-{i}-password"}
        return from_address(app, f"10.5.{i}.1").post("/api/login", json=body).status_code

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        codes = list(pool.map(attempt, range(12)))
    assert gate.most_at_once == 1 and set(codes) <= {401, 503, 429} and 401 in codes
    busy = [c for c in codes if c == 503]
    assert busy, codes  # twelve at once with one running and two waiting: some are told to come back
    assert app.state.service.store.audit_entries(limit=None, action="login_failed").total == codes.count(401)


def test_api_tokens_act_with_their_role_and_districts_until_revoked(app, tmp_path, capsys):
    db = str(tmp_path / "log.db")
    assert (
        main(["tokens", "create", "--name", "sms-gateway", "--role", "officer", "--districts", "Gaya", "--db", db]) == 0
    )
    token = capsys.readouterr().out.strip().splitlines()[-1]
    assert token.startswith("mw_") and len(token) == 46
    sms = local_client(app, headers={"Authorization": f"Bearer {token}"})
    r = sms.post("/api/classify", json={"text": "no eggs today", "save": True})  # no CSRF token: not a browser
    assert r.status_code == 200 and r.json()["district"] == "Gaya"
    assert sms.get(f"/api/complaints/{r.json()['id']}/history").status_code == 200
    assert sms.get("/api/users").status_code == 403
    [row] = app.state.service.store.tokens()
    assert row["last_used_at"] is not None and "token_hash" not in row
    stored = sqlite3.connect(db).execute("SELECT token_hash FROM api_tokens").fetchall()
    assert stored == [(secret_hash(token),)]
    assert main(["tokens", "revoke", "sms-gateway", "--db", db]) == 0
    r = sms.post("/api/classify", json={"text": "no eggs today", "save": True})
    assert r.status_code == 401 and "the API token 'sms-gateway' was revoked" in r.json()["error"]
    r = local_client(app, headers={"Authorization": "Bearer mw_guessed"}).get("/api/complaints")
    assert r.status_code == 401 and "this API token is not known" in r.json()["error"]


def test_an_officer_never_sees_another_districts_complaints(app):
    admin, ravi, pat, vik = (login(app, n) for n in ("asha", "ravi", "pat", "vik"))
    gaya = ravi.post("/api/classify", json=HOSPITAL | {"school": "GPS Bodh"}).json()
    patna = pat.post("/api/classify", json=HOSPITAL | {"school": "GPS Danapur"}).json()
    none = admin.post("/api/classify", json={"text": "no meal", "save": True}).json()  # a state admin: no district
    assert (gaya["district"], patna["district"], none["district"]) == ("Gaya", "Patna", None)
    assert pat.post("/api/classify", json={"text": "x y", "district": "Gaya", "save": True}).status_code == 403
    r = vik.post("/api/classify", json={"text": "no meal", "save": True})
    assert r.status_code == 403 and "your role (viewer) may not save complaints: it needs officer" in r.json()["error"]
    assert vik.post("/api/classify", json={"text": "no meal"}).status_code == 200  # classifying alone reads
    ids = {name: {c["id"] for c in client.get("/api/complaints").json()["items"]}
           for name, client in (("asha", admin), ("ravi", ravi), ("pat", pat), ("vik", vik))}  # fmt: skip
    assert ids == {"asha": {gaya["id"], patna["id"], none["id"]}, "ravi": {gaya["id"]}, "pat": {patna["id"]},
                   "vik": {gaya["id"]}}  # fmt: skip
    for path in (f"/api/complaints/{patna['id']}", f"/api/complaints/{patna['id']}/history",
                 f"/api/complaints/{none['id']}"):  # fmt: skip
        r = ravi.get(path)
        assert r.status_code == 404 and r.json()["error"] == f"no complaint with id {path.split('/')[3]}"
    assert ravi.patch(f"/api/complaints/{patna['id']}", json={"status": "in_progress"}).status_code == 404
    assert app.state.service.store.get(patna["id"])["status"] == "new"
    export = ravi.get("/api/complaints.csv").text
    assert "GPS Bodh" in export and "GPS Danapur" not in export
    assert sum(ravi.get("/api/stats").json()["totals"].values()) >= 1
    assert (
        ravi.get("/api/health").json()["complaints_stored"] == 1
        and admin.get("/api/health").json()["complaints_stored"] == 3
    )
    alerts = {name: [a["district"] for a in c.get("/api/alerts").json()["items"]] for name, c in
              (("asha", admin), ("ravi", ravi), ("pat", pat))}  # fmt: skip
    assert alerts == {"asha": ["Patna", "Gaya"], "ravi": ["Gaya"], "pat": ["Patna"]}
    patna_alert = pat.get("/api/alerts").json()["items"][0]["id"]
    assert ravi.patch(f"/api/alerts/{patna_alert}", json={"status": "acknowledged"}).status_code == 404
    assert pat.patch(f"/api/alerts/{patna_alert}", json={"status": "acknowledged"}).json()["acknowledged_by"] == "pat"


HOSPITAL = {"text": "two children were taken to hospital after the meal", "save": True}


def test_changes_are_recorded_as_the_signed_in_account_and_audited(app):
    ravi = login(app, "ravi")
    saved = ravi.post("/api/classify", json=HOSPITAL | {"school": "GPS Bodh"}).json()
    r = ravi.patch(f"/api/complaints/{saved['id']}", json={"labels": ["illness"], "by": "someone else"},
                   headers={"X-Officer": "also not me"})  # fmt: skip
    assert r.status_code == 200 and r.json()["corrected_by"] == "ravi"
    ravi.get("/api/complaints.csv", params={"district": "Gaya"})
    ravi.patch("/api/alerts/1", json={"status": "acknowledged"})
    ravi.post("/api/logout")
    local_client(app).post("/api/login", json={"name": "ravi", "password": "wrong password"})
    admin = login(app, "asha")
    admin.post("/api/users", json={"name": "meena", "password": "meena-password", "role": "viewer",
                                   "districts": ["Gaya"]})  # fmt: skip
    admin.patch("/api/users/meena", json={"disabled": True})
    made = admin.post("/api/tokens", json={"name": "ivr", "role": "officer", "districts": ["Gaya"]}).json()
    assert made["token"].startswith("mw_") and "token_hash" not in made
    admin.delete("/api/tokens/ivr")
    entries = admin.get("/api/audit", params={"limit": 500}).json()["items"]
    seen = [(e["actor"], e["action"], e["target"]) for e in reversed(entries) if e["action"] != "login"]
    assert seen == [
        ("ravi", "save", f"complaints {saved['id']}"),
        ("ravi", "change", f"complaint {saved['id']}"),
        ("ravi", "export", "complaints.csv"),
        ("ravi", "acknowledge", "alert 1"),
        ("ravi", "logout", None),
        ("ravi", "login_failed", None),
        ("asha", "user_add", "user meena"),
        ("asha", "user_disable", "user meena"),
        ("asha", "token_create", "token ivr"),
        ("asha", "token_revoke", "token ivr"),
    ]
    change = next(e for e in entries if e["action"] == "change")
    assert change["detail"] == {"labels": ["illness"]} and change["client"] == "testclient"
    assert login(app, "vik").get("/api/audit").status_code == 403


def test_a_disabled_user_is_signed_out_at_once_and_cannot_log_in(app):
    ravi, admin = login(app, "ravi"), login(app, "asha")
    assert admin.patch("/api/users/ravi", json={"disabled": True}).json()["disabled"] is True
    assert ravi.get("/api/complaints").status_code == 401
    r = local_client(app).post("/api/login", json={"name": "ravi", "password": PASSWORDS["ravi"]})
    wrong = local_client(app).post("/api/login", json={"name": "ravi", "password": "not-ravis-password"})
    assert r.status_code == wrong.status_code == 401 and r.json() == wrong.json()  # confirms no password (item 22)
    reasons = [e["detail"]["reason"] for e in app.state.service.store.audit_entries(action="login_failed").items]
    assert reasons == ["wrong name or password", "disabled"]  # the audit log tells them apart
    assert admin.patch("/api/users/asha", json={"disabled": True}).status_code == 422  # not oneself
    assert admin.patch("/api/users/nobody", json={"disabled": True}).status_code == 404


def test_accounts_turn_on_with_the_first_user(predictor, tmp_path):  # noqa: F811
    db = tmp_path / "log.db"
    assert local_client(create_app(db_path=db, predictor=predictor)).get("/api/complaints").status_code == 200
    store = create_app(db_path=db, predictor=predictor).state.service.store
    store.add_user("asha", hash_password(PASSWORDS["asha"]), "admin", ["*"])
    app = create_app(db_path=db, predictor=predictor)
    assert app.state.accounts.enabled and local_client(app).get("/api/complaints").status_code == 401
    assert local_client(app).get("/api/session").json() == {"accounts": True, "user": None, "csrf_token": None,
                                                             "csrf_header": "X-CSRF-Token"}  # fmt: skip
    assert (
        local_client(create_app(db_path=db, predictor=predictor, accounts=False)).get("/api/complaints").status_code
        == 200
    )  # create_app(accounts=False): the single-user tool, as a test or an embedding asks


def test_users_on_the_command_line(tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "log.db")
    monkeypatch.setattr("sys.stdin", io.StringIO("ravi-officer-pass\n"))
    assert main(["users", "add", "ravi", "--role", "officer", "--districts", "Gaya, Nalanda", "--password-stdin",
                 "--db", db]) == 0  # fmt: skip
    assert capsys.readouterr().out == "added officer 'ravi' for Gaya, Nalanda\n"
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["users", "add", "meena", "--role", "viewer", "--districts", "*", "--password-stdin", "--db", db]) == 2
    assert "the password is too short: use at least 10 characters" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("ravi-officer-pass\n"))
    assert main(["users", "add", "RAVI", "--role", "viewer", "--districts", "*", "--password-stdin", "--db", db]) == 2
    assert "there is a user named 'RAVI' already" in capsys.readouterr().err
    assert main(["users", "disable", "ravi", "--db", db]) == 0 and main(["users", "list", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "disabled 'ravi' (their sessions have ended)" in out and "ravi\tofficer\tGaya,Nalanda\tdisabled\t" in out
    assert main(["users", "disable", "nobody", "--db", db]) == 2


def test_serve_with_accounts_and_no_admin_says_how_to_create_one(tmp_path, capsys, model_dir):  # noqa: F811
    db = str(tmp_path / "log.db")
    assert main(["serve", "--model", str(model_dir), "--db", db, "--accounts", "--port", "8765"]) == 2
    err = capsys.readouterr().err
    assert "accounts are on but the log has no enabled admin: create one with `mealwatch users add NAME --role " \
           f"admin --districts '*' --db {db}`" in err  # fmt: skip


class Terminal(io.StringIO):
    """stdin as a person at a terminal types it."""

    def isatty(self) -> bool:
        return True


def serve_without_listening(monkeypatch, *args: str) -> int:
    """`mealwatch serve ARGS` up to the point where it would listen (uvicorn.run does nothing)."""
    import socket

    monkeypatch.setattr("uvicorn.run", lambda *a, **k: None)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return main(["serve", *args, "--port", str(port), "--search", "off"])


def test_serve_without_accounts_prints_how_to_turn_them_on(tmp_path, capsys, monkeypatch, model_dir):  # noqa: F811
    db = str(tmp_path / "my log.db")
    assert serve_without_listening(monkeypatch, "--model", str(model_dir), "--db", db) == 0
    out = capsys.readouterr().out
    assert "no accounts: a single-user tool on this machine; to require logins, create an admin with " \
           f"`mealwatch users add NAME --role admin --districts '*' --db '{db}'` and start again\n" in out  # fmt: skip


def test_serve_on_a_terminal_asks_for_the_first_admin(tmp_path, capsys, monkeypatch, model_dir):  # noqa: F811
    db = str(tmp_path / "log.db")
    typed = iter(["asha-admin-pass", "asha-admin-pass"])
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(typed))
    monkeypatch.setattr("sys.stdin", Terminal("asha\n"))
    assert serve_without_listening(monkeypatch, "--model", str(model_dir), "--db", db, "--accounts") == 0
    out = capsys.readouterr().out
    assert "accounts are on but the log has no enabled admin: create the first one now" in out
    assert "added admin 'asha' for every district\n" in out and "accounts on: log in at /login" in out
    log = open_log(db)
    try:
        assert [(u["name"], u["role"], u["districts"], u["disabled"]) for u in log.users()] == [
            ("asha", "admin", ["*"], False)
        ]
        assert [(e["actor"], e["action"], e["target"]) for e in log.audit_entries().items] == [
            ("(command line)", "user_add", "user asha")
        ]
    finally:
        log.close()
    with local_client(create_app(model_dir, db)) as client:  # the password typed is the admin's
        assert client.post("/api/login", json={"name": "asha", "password": "asha-admin-pass"}).status_code == 200


def test_serve_on_a_terminal_refuses_a_bad_first_admin(tmp_path, capsys, monkeypatch, model_dir):  # noqa: F811
    db = str(tmp_path / "log.db")
    for stdin, passwords, message in (
        ("asha\n", ["asha-admin-pass", "something-else"], "the two passwords differ"),
        ("", [], "no admin was created: create one with `mealwatch users add NAME --role admin"),
        ("asha\n", ["short", "short"], "the password is too short"),
    ):
        typed = iter(passwords)
        monkeypatch.setattr("getpass.getpass", lambda prompt: next(typed))
        monkeypatch.setattr("sys.stdin", Terminal(stdin))
        assert serve_without_listening(monkeypatch, "--model", str(model_dir), "--db", db, "--accounts") == 2
        assert message in capsys.readouterr().err
    log = open_log(db)
    assert log.users() == [] and log.audit_entries().total == 0
    log.close()


def test_with_accounts_another_host_needs_no_allow_remote():
    from mealwatch.cli import UserError
    from mealwatch.cli.serve import check_remote

    assert check_remote("10.0.0.5", None, [], accounts=True) == ["10.0.0.5"]
    with pytest.raises(UserError, match="turn accounts on"):
        check_remote("10.0.0.5", None, [], accounts=False)


def test_district_lists_are_checked():
    assert parse_districts("Gaya, Patna ,Gaya") == ["Gaya", "Patna"] and parse_districts("*") == ["*"]
    for bad, message in (("", "no districts given"), ("*,Gaya", "cannot be combined"), ("G\x00", "NUL")):
        with pytest.raises(AccountError, match=message):
            parse_districts(bad)


def test_the_account_store_on_both_backends(log_backend):
    from dataclasses import replace

    from log_backends import complaint

    from mealwatch.log import ComplaintChange, Filters, StoreError, scope

    log = log_backend.open()
    user = log.add_user("Ravi", "$argon2id$hash", "officer", ["Gaya"])
    assert (user["name"], user["districts"], user["disabled"], log.user("ravi")["password_hash"]) == (
        "Ravi", ["Gaya"], False, "$argon2id$hash",
    )  # fmt: skip
    with pytest.raises(StoreError, match="there is a user named 'RAVI' already"):
        log.add_user("RAVI", "h", "viewer", ["*"])
    log.start_session("k1", user["id"], "csrf", "10.0.0.1")
    assert log.session("k1")["user"]["name"] == "Ravi" and log.session("k1")["csrf_token"] == "csrf"
    assert log.set_user_disabled("ravi", True)["disabled"] and log.session("k1") is None  # sessions end
    assert log.count_users() == 0 and log.has_users()
    token = log.add_token("sms", "h1", "officer", ["*"])
    assert token["revoked_at"] is None and log.token("h1")["name"] == "sms" and not log.tokens()[0]["last_used_at"]
    log.touch_token(token["id"])  # reading a token writes nothing; its use is recorded apart
    assert log.tokens()[0]["last_used_at"]
    assert log.revoke_token("sms")["revoked_at"] is not None and log.revoke_token("nope") is None
    log.audit("Ravi", "change", "complaint 1", {"notes": "दाल"}, "10.0.0.1")
    assert log.audit_entries().items[0]["detail"] == {"notes": "दाल"}
    a = log.add(replace(complaint("a", ["other"], "low"), district="Gaya"))
    b = log.add(replace(complaint("b", ["other"], "low"), district="patna"))
    c = log.add(complaint("c", ["other"], "low"))
    assert [x["id"] for x in log.list(Filters(districts=scope(["GAYA", "Patna"]))).items] == [b, a]
    assert log.list(Filters(districts=scope(["*"]))).total == 3 and log.list(Filters(districts=())).total == 0
    assert log.get(c, scope(["Gaya"])) is None and log.get(a, scope(["gaya"]))["id"] == a
    assert (
        log.changes(b, scope(["Gaya"])) is None
        and log.update(b, ComplaintChange(notes="x"), "r", scope(["Gaya"])) is None
    )


def test_a_login_name_no_account_could_have_is_a_422(app):
    client = local_client(app)
    for name, message in (
        ("a\x00b", "contains a NUL character"),
        ("", "a user name is empty"),
        ("\u200b", "invisible character"),
    ):
        r = client.post("/api/login", json={"name": name, "password": "whatever-password"})
        assert r.status_code == 422 and message in r.json()["error"], r.text


def test_an_officer_paging_by_cursor_sees_only_their_district_with_its_own_total(app):
    """The kept counts (complaint_counts) are not per district: a scoped caller's total and stats are counted from
    that scope's rows, and every cursor page holds only the scope's complaints."""
    from mealwatch.log import NewComplaint

    store = app.state.service.store
    districts = ["Gaya", "Patna", "Gaya", None, "Patna", "Gaya", "gaya", "Patna", "Gaya", "Gaya", "Patna", "Gaya"]
    saved = store.add_many([
        NewComplaint(f"complaint {i}", ["illness"] if i % 3 else ["other"], {"illness": 0.9},
                     "high" if i % 3 else "low", "m1", school=f"School {i}", district=d,
                     review_reasons=["uncertain"] if i % 4 == 0 else [])
        for i, d in enumerate(districts)
    ])  # fmt: skip
    gaya = {cid for cid, d in zip(saved, districts) if d in ("Gaya", "gaya")}
    ravi, admin = login(app, "ravi"), login(app, "asha")
    for params in ({}, {"label": "illness"}, {"urgency": "low"}, {"needs_review": "true"}):
        expected = [c["id"] for c in admin.get("/api/complaints", params=params | {"limit": 50}).json()["items"]
                    if c["id"] in gaya]  # fmt: skip
        shown, totals, cursor = [], set(), None
        while True:
            page = ravi.get("/api/complaints", params=params | {"limit": 2} | ({"cursor": cursor} if cursor else {}))
            assert page.status_code == 200, page.text
            body = page.json()
            shown += [c["id"] for c in body["items"]]
            totals.add(body["total"])
            cursor = body["next_cursor"]
            if cursor is None:
                break
        assert shown == expected and totals == {len(expected)}, params  # queue order, Gaya's only, its own total
    assert admin.get("/api/complaints").json()["total"] == 12
    stats = ravi.get("/api/stats").json()
    assert sum(stats["totals"].values()) == 7 and stats["totals"].get("illness") == 4  # Gaya: i = 2, 5, 8, 11 + 0, 6, 9
