"""Issue 27's probe of scope and privilege, in-process (FastAPI's TestClient on 127.0.0.1): each defect of the
issue replayed, counting what must never happen again (every count's target is 0). Run by security_probe.py.

  1  a Gaya admin: out-of-scope grants, changes and audit entries it could read
  2  a viewer's full-phone reads served; an officer's full-phone reads left out of the audit log
  3  requests served without an account after `mealwatch users add` under the running service
  5  saves lost when a Patna officer sends a Gaya officer's Idempotency-Key
  6  alerts holding complaints of two districts (schools sharing a UDISE code)
  14 costly reads (attention page, CSV export) served to a cross-site request
  21 sessions in use logged out under --session-idle-minutes 1 (a request every 20 s)
  22 `users password` not taking effect, a log file readable by others, a disabled account told apart
  and what held, measured again: changes a session sends without its CSRF token, refused
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable
from contextlib import redirect_stdout
from datetime import datetime, timedelta, timezone
from pathlib import Path

from fastapi.testclient import TestClient

PASSWORD = "probe-password-1"
USERS = [("state", "admin", ["*"]), ("gina", "admin", ["Gaya"]), ("gopal", "officer", ["Gaya"]),
         ("gita", "viewer", ["Gaya"]), ("pat", "officer", ["Patna"]), ("pia", "viewer", ["Patna"])]  # fmt: skip
HOSPITAL = "a child was taken to hospital after the meal"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> str:
        from mealwatch.log import to_stored_time

        return to_stored_time(self.now)

    def seconds(self) -> float:
        return self.now.timestamp()


def accounts_app(model: Path, db: Path, **kwargs):
    from mealwatch.accounts import hash_password
    from mealwatch.serve import create_app

    app = create_app(model, db, accounts=True, **kwargs)
    password = hash_password(PASSWORD)
    for name, role, districts in USERS:
        app.state.service.store.add_user(name, password, role, districts)
    return app


def login(app, name: str, address: str = "127.0.0.1") -> TestClient:
    client = TestClient(app, base_url="http://127.0.0.1", client=(address, 50000))
    r = client.post("/api/login", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def district_admin(model: Path, tmp: Path) -> int:
    app = accounts_app(model, tmp / "scope.db")
    state, gina, gopal, pat = (login(app, n) for n in ("state", "gina", "gopal", "pat"))
    gopal.post("/api/classify", json={"text": "no eggs", "save": True})
    patna = pat.post("/api/classify", json={"text": "no dal", "save": True, "reporter_phone": "9876543210"}).json()
    pat.patch(f"/api/complaints/{patna['id']}", json={"notes": "the Patna cook was away"})
    state.post("/api/tokens", json={"name": "state-ivr", "role": "officer", "districts": ["*"]})
    wrong = 0
    wrong += gina.post("/api/tokens", json={"name": "t1", "role": "admin", "districts": ["*"]}).status_code < 400
    wrong += gina.post("/api/tokens", json={"name": "t2", "role": "officer", "districts": ["Patna"]}).status_code < 400
    wrong += gina.post("/api/users", json={"name": "boss", "password": PASSWORD, "role": "admin",
                                           "districts": ["*"]}).status_code < 400  # fmt: skip
    wrong += gina.patch("/api/users/state", json={"disabled": True}).status_code < 400
    wrong += gina.patch("/api/users/pat", json={"disabled": True}).status_code < 400
    wrong += gina.delete("/api/tokens/state-ivr").status_code < 400
    seen = gina.get("/api/audit", params={"limit": 500}).json()["items"]
    wrong += sum(1 for e in seen if "Patna" in str(e) or e["actor"] in ("pat", "state"))
    wrong += sum(1 for u in gina.get("/api/users").json() if "Gaya" not in u["districts"])
    return wrong


def full_phone(model: Path, tmp: Path) -> tuple[int, int]:
    app = accounts_app(model, tmp / "phones.db")
    gopal, gita, state = login(app, "gopal"), login(app, "gita"), login(app, "state")
    saved = gopal.post("/api/classify", json={"text": "no eggs", "reporter_phone": "+91 98765 43210",
                                              "save": True}).json()  # fmt: skip
    paths = (f"/api/complaints/{saved['id']}", "/api/complaints", "/api/complaints.csv")
    served = sum("919876543210" in gita.get(p, params={"full_phone": "true"}).text for p in paths)
    for p in paths:
        gopal.get(p, params={"full_phone": "true"})
    audited = [e for e in state.get("/api/audit", params={"limit": 500}).json()["items"]
               if e["actor"] == "gopal" and (e["action"] == "phone_read" or e["detail"].get("full_phone"))]  # fmt: skip
    return served, len(paths) - len(audited)


def user_under_running_server(model: Path, tmp: Path) -> int:
    from mealwatch.cli import main
    from mealwatch.serve import create_app

    db = tmp / "running.db"
    client = TestClient(create_app(model, db), base_url="http://127.0.0.1")
    client.get("/api/complaints")  # the single-user tool, running
    stdin, os_stdin = io.StringIO(PASSWORD + "\n"), None
    import sys

    os_stdin, sys.stdin = sys.stdin, stdin
    try:
        with redirect_stdout(io.StringIO()):
            main(["users", "add", "asha", "--role", "admin", "--districts", "*", "--password-stdin", "--db", str(db)])
    finally:
        sys.stdin = os_stdin
    served = client.get("/api/complaints").status_code < 400
    served += client.post("/api/users", json={"name": "eve", "password": PASSWORD, "role": "admin",
                                              "districts": ["*"]}).status_code < 400  # fmt: skip
    fresh = TestClient(create_app(model, tmp / "fresh.db"), base_url="http://127.0.0.1")  # accounts never on
    served += fresh.post("/api/users", json={"name": "eve", "password": PASSWORD, "role": "admin",
                                             "districts": ["*"]}).status_code < 400  # fmt: skip
    return int(served)


def shared_keys(model: Path, tmp: Path) -> int:
    app = accounts_app(model, tmp / "keys.db")
    gopal, pat = login(app, "gopal"), login(app, "pat")
    key = {"Idempotency-Key": "shared-key-1"}
    gopal.post("/api/classify", json={"text": "worms in the rice", "save": True}, headers=key)
    r = pat.post("/api/classify", json={"text": "no eggs in Danapur", "save": True}, headers=key)
    store = app.state.service.store
    patna_saved = [c for c in store.list(limit=None).items if c["district"] == "Patna"]
    return int(r.status_code != 200 or "idempotent-replayed" in r.headers or len(patna_saved) != 1)


def shared_udise(model: Path, tmp: Path) -> int:
    app = accounts_app(model, tmp / "udise.db")
    gopal, pat, gita = login(app, "gopal"), login(app, "pat"), login(app, "gita")
    for i, (client, district) in enumerate(((gopal, "Gaya"), (pat, "Patna"), (gopal, "Gaya"), (pat, "Patna"))):
        client.post("/api/classify", json={"text": f"{HOSPITAL} ({i})", "udise": "10010101001",
                                           "district": district, "save": True})  # fmt: skip
    store = app.state.service.store
    mixed = 0
    for alert in login(app, "state").get("/api/alerts").json()["items"]:
        districts = {store.get(i)["district"] for i in alert["complaint_ids"]}
        mixed += len(districts) > 1
    gaya_alerts = gita.get("/api/alerts").json()["total"]
    return mixed + (gaya_alerts == 0)


def cross_site_costly_reads(model: Path, tmp: Path) -> int:
    from mealwatch.serve import create_app

    client = TestClient(create_app(model, tmp / "site.db"), base_url="http://127.0.0.1")
    served = 0
    for path in ("/attention?text=dal%20cold&explain=true", "/api/complaints.csv"):
        for headers in ({"sec-fetch-site": "cross-site"}, {"origin": "http://evil.example"}):
            served += client.get(path, headers=headers).status_code < 400
    return served


def idle_sessions(model: Path, tmp: Path) -> int:
    from mealwatch.accounts import LoginLimiter
    from mealwatch.serve.auth import AccountSettings

    clock = Clock()
    settings = AccountSettings(idle=timedelta(minutes=1), limiter=LoginLimiter(clock=clock.seconds))
    app = accounts_app(model, tmp / "idle.db", clock=clock, account_settings=settings)
    client = login(app, "gita")
    logged_out = 0
    for _ in range(9):  # three minutes, a request every 20 s
        clock.now += timedelta(seconds=20)
        logged_out += client.get("/api/complaints").status_code == 401
    return logged_out


def passwords_and_files(model: Path, tmp: Path) -> int:
    import sys

    from mealwatch.cli import main

    app = accounts_app(model, tmp / "password.db")
    gopal = login(app, "gopal")
    wrong = 0
    os_stdin, sys.stdin = sys.stdin, io.StringIO("a-brand-new-password\n")
    try:
        with redirect_stdout(io.StringIO()):
            wrong += main(["users", "password", "gopal", "--password-stdin", "--db", str(tmp / "password.db")]) != 0
    finally:
        sys.stdin = os_stdin
    wrong += gopal.get("/api/complaints").status_code != 401  # the old session ended
    anyone = TestClient(app, base_url="http://127.0.0.1")
    wrong += anyone.post("/api/login", json={"name": "gopal", "password": "a-brand-new-password"}).status_code != 200
    wrong += sum(stat.S_IMODE(os.stat(tmp / f).st_mode) & 0o077 != 0 for f in os.listdir(tmp)
                 if f.startswith("password.db"))  # fmt: skip
    app.state.service.store.set_user_disabled("pat", True)
    right = anyone.post("/api/login", json={"name": "pat", "password": PASSWORD})
    guess = anyone.post("/api/login", json={"name": "pat", "password": "not-the-password"})
    wrong += (right.status_code, right.json()) != (guess.status_code, guess.json())
    return wrong


def csrf_refused(model: Path, tmp: Path) -> tuple[int, int]:
    """What held, measured again: every change a session sends without its CSRF token (or with a wrong one) is
    refused; (changes served, changes sent)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from role_matrix import prepare, specs

    from mealwatch.serve import create_app

    app = create_app(model, tmp / "csrf.db", accounts=True)
    prepare(app)
    served = sent = 0
    for (method, path), requests in specs().items():
        if method not in ("POST", "PATCH", "PUT", "DELETE") or path in ("/api/login",):
            continue
        for spec in requests:
            for token in (None, "not-the-token"):
                client = login_as_matrix_admin(app)
                if token is None:
                    del client.headers["X-CSRF-Token"]
                else:
                    client.headers["X-CSRF-Token"] = token
                url, kwargs = spec.make()
                served += client.request(method, url, **kwargs).status_code < 400
                sent += 1
    return served, sent


def login_as_matrix_admin(app) -> TestClient:
    from role_matrix import caller_client

    return caller_client(app, "admin")


CASES: list[tuple[str, str, Callable[[Path, Path], int | tuple[int, ...]]]] = [
    ("1", "a district admin's out-of-scope grants, changes and audit entries", district_admin),
    ("2", "a viewer's full-phone reads served; officer's full-phone reads unaudited", full_phone),
    ("3", "requests served without an account after `users add` under a running service", user_under_running_server),
    ("5", "saves lost to another account's Idempotency-Key", shared_keys),
    ("6", "alerts mixing two districts (a shared UDISE code), or none for Gaya", shared_udise),
    ("14", "costly reads served to a cross-site request", cross_site_costly_reads),
    ("21", "sessions in use logged out under a 1-minute idle limit", idle_sessions),
    ("22", "password command, private log file, disabled account told apart: failures", passwords_and_files),
    ("held", "changes served without their CSRF token / changes sent", csrf_refused),
]


def run(model: Path, tmp: Path) -> bool:
    """Every case of ``CASES``; prints one line each; True when every count is 0."""
    good = True
    for number, what, case in CASES:
        folder = tmp / f"scope-{number}"
        folder.mkdir()
        counts = case(model, folder)
        counts = counts if isinstance(counts, tuple) else (counts,)
        print(f"item {number:>4} {what}: {' / '.join(str(c) for c in counts)}")
        good &= not counts[0] if number == "held" else not any(counts)
    return good
