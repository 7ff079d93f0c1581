"""Property-based fuzzing of the accounts' requests (hypothesis): logins, users, tokens and the audit log, as an
admin with accounts on. Never a 5xx, and a refused request adds, disables or revokes nothing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from role_matrix import session_for
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model
from test_serve_fuzz import FUZZ, JSON_VALUES, ODD_NAMES, TEXTS, maybe

from mealwatch.accounts import LoginLimiter, hash_password
from mealwatch.accounts.limiter import LIMITS, Limit
from mealwatch.serve import create_app
from mealwatch.serve.auth import AccountSettings

NAMES = st.one_of(st.sampled_from(["asha", "ASHA", "ravi", "", " ", "a" * 201]), ODD_NAMES, TEXTS, JSON_VALUES)
PASSWORDS = st.one_of(st.sampled_from(["admin-password-1", "short", "x" * 1025]), ODD_NAMES, TEXTS, JSON_VALUES)
ROLES = st.one_of(st.sampled_from(["viewer", "officer", "admin", "root"]), JSON_VALUES)
DISTRICTS = st.one_of(st.lists(st.one_of(st.sampled_from(["Gaya", "*", ""]), ODD_NAMES, TEXTS), max_size=3),
                      JSON_VALUES)  # fmt: skip


@pytest.fixture(scope="module")
def admin(predictor, tmp_path_factory):  # noqa: F811
    unlimited = {kind: Limit(10**9, 1.0) for kind in LIMITS}
    settings = AccountSettings(limiter=LoginLimiter(limits=unlimited))  # the limits have their own tests
    app = create_app(db_path=tmp_path_factory.mktemp("fuzz") / "log.db", predictor=predictor, accounts=True,
                     account_settings=settings)  # fmt: skip
    app.state.service.store.add_user("asha", hash_password("admin-password-1"), "admin", ["*"])
    client = local_client(app, raise_server_exceptions=False)
    key, csrf = session_for(app, "asha")
    client.cookies.set("mealwatch_session", key)
    client.headers["X-CSRF-Token"] = csrf
    return client


def accounts(client) -> tuple:
    store = client.app.state.service.store
    return [(u["name"], u["disabled"]) for u in store.users()], [(t["name"], t["revoked_at"]) for t in store.tokens()]


REQUESTS = [
    ("POST", "/api/login", maybe(name=NAMES, password=PASSWORDS)),
    ("POST", "/api/users", maybe(name=NAMES, password=PASSWORDS, role=ROLES, districts=DISTRICTS)),
    ("POST", "/api/tokens", maybe(name=NAMES, role=ROLES, districts=DISTRICTS)),
]


@pytest.mark.parametrize("method, path, bodies", REQUESTS, ids=[r[1] for r in REQUESTS])
@FUZZ
@given(data=st.data())
def test_account_bodies(admin, method, path, bodies, data):
    body = data.draw(st.one_of(bodies, bodies, JSON_VALUES))
    before = accounts(admin)
    r = admin.request(method, path, content=json.dumps(body).encode(), headers={"content-type": "application/json"})
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert "error" in r.json() and accounts(admin) == before, r.text
    assert "password_hash" not in r.text and "$argon2" not in r.text


@FUZZ
@given(
    name=st.one_of(st.sampled_from(["asha", "nobody", "%00", "..", "a" * 300]), st.text(max_size=20)),
    body=st.one_of(maybe(disabled=st.one_of(st.booleans(), JSON_VALUES)), JSON_VALUES),
    verb=st.sampled_from(["PATCH /api/users", "DELETE /api/tokens", "GET /api/audit"]),
    action=st.one_of(st.none(), TEXTS.filter(lambda t: not any("\ud800" <= c <= "\udfff" for c in t))),
)  # fmt: skip
def test_account_paths(admin, name, body, verb, action):
    from urllib.parse import quote

    method, base = verb.split()
    before = accounts(admin)
    if method == "GET":
        r = admin.get(base, params={"action": action} if action is not None else {})
    else:
        r = admin.request(method, f"{base}/{quote(name, safe='')}", content=json.dumps(body).encode(),
                          headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert accounts(admin) == before, r.text
