"""The role x endpoint matrix of issue 12: every route of the service (read from ``app.routes``, so a new route
without a rule fails) against every kind of caller, with the exact status each must get.

Used by tests/test_role_matrix.py and benchmarks/security_probe.py. Each cell runs on a fresh session (or
token), so that a logout or an expiry in one cell changes no other.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Mount

from mealwatch.accounts import allows, hash_password, new_secret, secret_hash
from mealwatch.log import from_stored_time, to_stored_time
from mealwatch.serve.auth import PUBLIC, RULES, SIGNED_IN

PASSWORD = "matrix-password-1"
#: caller -> (user, role) of a signed-in caller; the others carry no valid credentials
USERS = {"viewer": ("vera", "viewer", ["Gaya"]), "officer": ("omar", "officer", ["Gaya"]),
         "admin": ("asha", "admin", ["*"]), "wrong district": ("pat", "officer", ["Patna"]),
         "district admin": ("gina", "admin", ["Gaya"])}  # fmt: skip
NOBODY = ("no session", "expired session", "revoked token", "disabled user")
CALLERS = (*NOBODY[:1], *USERS, *NOBODY[1:])
HOSPITAL = "two children were taken to hospital after the meal"


@dataclass
class Spec:
    """One request to a route, and the status it gets when allowed."""

    make: Callable[[], tuple[str, dict[str, Any]]]  # -> (url, keyword arguments of the request)
    ok: int = 200
    needs: str | None = None  # a role beyond the route's rule, checked by the route (saving: officer)
    wrong: int | None = None  # the status for an officer of another district (None: ``ok``)
    anonymous: int | None = None  # the status for a caller who is nobody, on a public route (None: ``ok``)
    district_admin: int | None = None  # the status for an admin of Gaya alone (None: as an admin's)


@dataclass
class Cell:
    method: str
    path: str
    caller: str
    expected: int
    got: int
    answer: str = field(repr=False, default="")


def routes(app) -> set[tuple[str, str]]:
    """(method, path) of every route: API routes, FastAPI's own, and mounts (served as GET)."""
    found = set()
    pending = list(app.routes)
    while pending:
        route = pending.pop()
        if hasattr(route, "original_router"):  # a router included in the app (no prefix): its own routes
            pending.extend(route.original_router.routes)
        elif isinstance(route, Mount):
            found.add(("GET", route.path))
        else:
            assert isinstance(route, APIRoute) or route.path == "/openapi.json", route
            found |= {(m, route.path) for m in route.methods - {"HEAD"}}
    return found


def specs() -> dict[tuple[str, str], list[Spec]]:
    """Each route's requests: the first its plain use, the others the cases of issue 27 (a district admin's
    grants, full phone numbers for officers only)."""
    n = itertools.count()
    save = {"text": "no meal today", "district": "Gaya", "save": True}
    batch = {"items": [{"text": "no eggs", "district": "Gaya"}], "save": True}
    csv = b"text,district\nno eggs today,Gaya\n"
    phones = {"params": {"full_phone": "true"}}
    return {
        ("GET", "/"): [Spec(lambda: ("/", {"follow_redirects": False}), anonymous=303)],
        ("GET", "/login"): [Spec(lambda: ("/login", {}))],
        ("GET", "/docs"): [Spec(lambda: ("/docs", {}))],
        ("GET", "/openapi.json"): [Spec(lambda: ("/openapi.json", {}))],
        ("GET", "/static"): [Spec(lambda: ("/static/app.js", {}))],
        ("GET", "/api/health"): [Spec(lambda: ("/api/health", {}))],
        ("GET", "/api/labels"): [Spec(lambda: ("/api/labels", {}))],
        ("GET", "/api/settings"): [Spec(lambda: ("/api/settings", {}))],
        ("GET", "/api/session"): [Spec(lambda: ("/api/session", {}))],
        ("GET", "/api/preferences"): [Spec(lambda: ("/api/preferences", {}))],
        ("PUT", "/api/preferences"): [Spec(lambda: ("/api/preferences", {"json": {"language": "hi"}}))],
        ("POST", "/api/login"): [Spec(lambda: ("/api/login", {"json": {"name": "vera", "password": PASSWORD}}))],
        ("POST", "/api/logout"): [Spec(lambda: ("/api/logout", {}))],
        ("POST", "/api/classify"): [Spec(lambda: ("/api/classify", {"json": save}), needs="officer", wrong=403)],
        ("POST", "/api/classify/batch"): [Spec(
            lambda: ("/api/classify/batch", {"json": batch}),
            needs="officer", wrong=403,
        )],
        ("POST", "/api/classify/csv"): [Spec(
            lambda: ("/api/classify/csv", {"files": {"file": ("a.csv", csv, "text/csv")}, "data": {"save": "true"}}),
            needs="officer", wrong=403,
        )],
        ("POST", "/api/attention"): [Spec(lambda: ("/api/attention", {"json": {"text": "dal cold", "layer": 0}}))],
        ("GET", "/attention"): [Spec(lambda: ("/attention", {"params": {"text": "dal cold"}}))],
        ("GET", "/api/complaints"): [
            Spec(lambda: ("/api/complaints", {})),
            Spec(lambda: ("/api/complaints", phones), needs="officer"),  # item 2: a viewer never sees a phone
        ],
        ("GET", "/api/complaints.csv"): [
            Spec(lambda: ("/api/complaints.csv", {})),
            Spec(lambda: ("/api/complaints.csv", phones), needs="officer"),
        ],
        ("GET", "/api/complaints/{complaint_id}"): [
            Spec(lambda: ("/api/complaints/1", {}), wrong=404),
            Spec(lambda: ("/api/complaints/1", phones), needs="officer", wrong=404),
        ],
        ("GET", "/api/complaints/{complaint_id}/history"): [
            Spec(lambda: ("/api/complaints/1/history", {}), wrong=404)
        ],
        ("PATCH", "/api/complaints/{complaint_id}"): [Spec(
            lambda: ("/api/complaints/1", {"json": {"notes": f"note {next(n)}"}}), wrong=404
        )],
        ("GET", "/api/stats"): [Spec(lambda: ("/api/stats", {}))],
        ("GET", "/api/alerts"): [Spec(lambda: ("/api/alerts", {}))],
        ("PATCH", "/api/alerts/{alert_id}"): [Spec(
            lambda: ("/api/alerts/1", {"json": {"status": "acknowledged"}}), wrong=404
        )],
        ("GET", "/api/users"): [Spec(lambda: ("/api/users", {}))],
        ("POST", "/api/users"): [
            Spec(lambda: ("/api/users", {"json": {"name": f"new-{next(n)}", "password": PASSWORD, "role": "viewer",
                                                   "districts": ["Gaya"]}}), ok=201),
            # item 1: an admin of every district, granted by a district's admin
            Spec(lambda: ("/api/users", {"json": {"name": f"boss-{next(n)}", "password": PASSWORD, "role": "admin",
                                                   "districts": ["*"]}}), ok=201, district_admin=403),
        ],
        ("PATCH", "/api/users/{name}"): [
            Spec(lambda: ("/api/users/dora", {"json": {"disabled": True}})),
            Spec(lambda: ("/api/users/pat", {"json": {"disabled": False}}), district_admin=404),  # Patna's officer
        ],
        ("GET", "/api/tokens"): [Spec(lambda: ("/api/tokens", {}))],
        ("POST", "/api/tokens"): [
            Spec(lambda: ("/api/tokens", {"json": {"name": f"t-{next(n)}", "role": "viewer", "districts": ["*"]}}),
                 ok=201, district_admin=403),
            Spec(lambda: ("/api/tokens", {"json": {"name": f"g-{next(n)}", "role": "admin", "districts": ["Gaya"]}}),
                 ok=201),
        ],
        ("DELETE", "/api/tokens/{name}"): [
            Spec(lambda: ("/api/tokens/standing", {}), district_admin=404),  # a token of every district
            Spec(lambda: ("/api/tokens/gaya-standing", {})),
        ],
        ("GET", "/api/audit"): [Spec(lambda: ("/api/audit", {}))],
        # issue 25: search and incidents (an officer of Patna finds nothing of Gaya's: security_probe counts it)
        ("GET", "/api/search"): [Spec(lambda: ("/api/search", {"params": {"q": "children taken to hospital"}}))],
        ("GET", "/api/complaints/{complaint_id}/similar"): [
            Spec(lambda: ("/api/complaints/1/similar", {}), wrong=404),
            Spec(lambda: ("/api/complaints/1/similar", {"params": {"within": "block"}}), wrong=404),
        ],
        ("GET", "/api/incidents"): [Spec(lambda: ("/api/incidents", {"params": {"min_size": 1}}))],
        ("GET", "/api/incidents/{incident_id}"): [Spec(lambda: ("/api/incidents/1", {}), wrong=404)],
        ("POST", "/api/incidents/merge"): [Spec(
            lambda: ("/api/incidents/merge", {"json": {"incident_ids": [1, 1]}}), ok=422, wrong=404
        )],
        ("POST", "/api/incidents/{incident_id}/split"): [Spec(
            lambda: ("/api/incidents/1/split", {"json": {"complaint_ids": [1]}}), ok=422, wrong=404
        )],
        ("PATCH", "/api/incidents/{incident_id}"): [Spec(
            lambda: ("/api/incidents/1", {"json": {"status": "open"}}), wrong=404
        )],
    }  # fmt: skip


def expected(rule: str, spec: Spec, caller: str) -> int:
    if rule == PUBLIC:
        return spec.anonymous if caller in NOBODY and spec.anonymous else spec.ok
    if caller in NOBODY:
        return 401
    if rule == SIGNED_IN:
        return spec.ok
    role = USERS[caller][1]
    if not allows(role, rule) or (spec.needs and not allows(role, spec.needs)):
        return 403
    if caller == "wrong district" and spec.wrong is not None:
        return spec.wrong
    if caller == "district admin" and spec.district_admin is not None:
        return spec.district_admin
    return spec.ok


def prepare(app) -> None:
    """The users, a Gaya complaint (id 1) with its alert (id 1), a user to disable and a token to revoke."""
    store = app.state.service.store
    password = hash_password(PASSWORD)
    for name, role, districts in USERS.values():
        store.add_user(name, password, role, districts)
    for name in ("dora", "dan"):  # dora: disabled by admins in the matrix; dan: a disabled officer
        store.add_user(name, password, "officer", ["Gaya"])
    store.set_user_disabled("dan", True)
    store.add_token("standing", secret_hash(new_secret()), "viewer", ["*"])
    store.add_token("gaya-standing", secret_hash(new_secret()), "viewer", ["Gaya"])
    asha = caller_client(app, "admin")
    saved = asha.post("/api/classify", json={"text": HOSPITAL, "school": "GPS Bodh", "district": "Gaya", "save": True})
    assert saved.json()["id"] == 1 and [a["id"] for a in asha.get("/api/alerts").json()["items"]] == [1], saved.text
    if app.state.service.search is not None:  # its vector and its incident (1)
        assert app.state.service.search.wait(timeout=30)
        assert store.get(1)["incident_id"] == 1


def session_for(app, name: str, last_seen_ago: timedelta = timedelta(0)) -> tuple[str, str]:
    """A new session of ``name`` (created as if ``last_seen_ago``), bypassing the password; (cookie, CSRF token)."""
    store = app.state.service.store
    key, csrf = new_secret(), new_secret()
    user = store.user(name)
    clock = store.clock
    past = to_stored_time(from_stored_time(clock()) - last_seen_ago)
    store.clock = lambda: past
    try:
        store.start_session(secret_hash(key), user["id"], csrf, "127.0.0.1")
    finally:
        store.clock = clock
    return key, csrf


def caller_client(app, caller: str) -> TestClient:
    client = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    if caller in USERS:
        key, csrf = session_for(app, USERS[caller][0])
    elif caller == "expired session":
        key, csrf = session_for(app, "omar", last_seen_ago=timedelta(minutes=31))
    elif caller == "disabled user":
        key, csrf = "a-cookie-of-dans-ended-session", "x"
    elif caller == "revoked token":
        store, token, name = app.state.service.store, new_secret("mw_"), f"revoked-{new_secret()[:8]}"
        store.add_token(name, secret_hash(token), "officer", ["Gaya"])
        store.revoke_token(name)
        client.headers["Authorization"] = f"Bearer {token}"
        return client
    else:
        return client
    client.cookies.set("mealwatch_session", key)
    client.headers["X-CSRF-Token"] = csrf
    return client


def run_matrix(app) -> list[Cell]:
    """Every request of every route x every caller; the routes without a spec or a rule come back as cells with
    ``got`` -1."""
    table = specs()
    cells = []
    for method, path in sorted(routes(app)):
        if (method, path) not in table or (method, path) not in RULES:
            cells.append(Cell(method, path, "(any)", 0, -1, "no spec or no rule for this route"))
            continue
        for spec in table[(method, path)]:
            for caller in CALLERS:
                url, kwargs = spec.make()
                answer = caller_client(app, caller).request(method, url, **kwargs)
                cells.append(Cell(method, path, caller, expected(RULES[(method, path)], spec, caller),
                                  answer.status_code, answer.text[:200]))  # fmt: skip
    return cells
