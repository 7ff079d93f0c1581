"""Issue 27, scope on every path: a district's admin grants and acts within its districts and reads only their
audit entries (item 1); full phone numbers for officers and above, every such read audited (item 2); accounts
that take effect at once under a running server (item 3); idempotency keys within their account (item 5)."""

from __future__ import annotations

import pytest
from test_accounts import PASSWORDS, app, clock, login  # noqa: F401 - the accounts fixtures
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.accounts import hash_password
from mealwatch.cli import main
from mealwatch.serve import create_app

PASSWORDS["gina"] = "gina-gaya-admin"
PASSWORDS["gopal"] = "gopal-gaya-officer"


@pytest.fixture
def scoped(app):  # noqa: F811
    """The accounts of test_accounts, with a Gaya admin (gina) and a second Gaya officer (gopal)."""
    store = app.state.service.store
    store.add_user("gina", hash_password(PASSWORDS["gina"]), "admin", ["Gaya"])
    store.add_user("gopal", hash_password(PASSWORDS["gopal"]), "officer", ["Gaya"])
    return app


def test_a_district_admin_grants_only_its_own_districts(scoped):
    gina = login(scoped, "gina")
    for districts in (["*"], ["Patna"], ["Gaya", "Patna"]):
        r = gina.post("/api/tokens", json={"name": f"t-{len(districts)}", "role": "admin", "districts": districts})
        assert r.status_code == 403 and "of your own districts only (Gaya)" in r.json()["error"], r.text
        r = gina.post("/api/users", json={"name": "boss", "password": "boss-password", "role": "admin",
                                          "districts": districts})  # fmt: skip
        assert r.status_code == 403, r.text
    made = gina.post("/api/tokens", json={"name": "gaya-sms", "role": "officer", "districts": ["gaya"]})
    assert made.status_code == 201 and made.json()["districts"] == ["gaya"]
    r = gina.post("/api/users", json={"name": "gita", "password": "gita-password", "role": "admin",
                                      "districts": ["Gaya"]})  # fmt: skip
    assert r.status_code == 201  # an admin of Gaya may add another
    store = scoped.state.service.store
    assert {u["name"] for u in store.users()} >= {"gita"} and "boss" not in {u["name"] for u in store.users()}


def test_a_district_admin_sees_and_changes_only_accounts_of_its_districts(scoped):
    gina, asha = login(scoped, "gina"), login(scoped, "asha")
    asha.post("/api/tokens", json={"name": "state-ivr", "role": "officer", "districts": ["*"]})
    asha.post("/api/tokens", json={"name": "gaya-ivr", "role": "officer", "districts": ["Gaya"]})
    assert [u["name"] for u in gina.get("/api/users").json()] == ["gina", "gopal", "ravi"]  # vik: Gaya and Nalanda
    assert [t["name"] for t in gina.get("/api/tokens").json()] == ["gaya-ivr"]
    for name in ("asha", "pat", "vik"):  # the state admin, Patna's officer, a viewer of Gaya and Nalanda
        r = gina.patch(f"/api/users/{name}", json={"disabled": True})
        assert r.status_code == 404 and r.json()["error"] == f"no user named {name!r}"
    assert not any(u["disabled"] for u in scoped.state.service.store.users())
    assert gina.delete("/api/tokens/state-ivr").status_code == 404
    assert gina.delete("/api/tokens/gaya-ivr").json()["revoked_at"] is not None
    assert gina.patch("/api/users/gopal", json={"disabled": True}).json()["disabled"] is True
    assert len(asha.get("/api/users").json()) == 6  # the state admin sees everyone


def test_a_district_admin_reads_only_its_districts_audit_entries(scoped):
    ravi, pat, asha = login(scoped, "ravi"), login(scoped, "pat"), login(scoped, "asha")
    gaya = ravi.post("/api/classify", json={"text": "no eggs", "save": True}).json()["id"]
    patna = pat.post("/api/classify", json={"text": "no dal", "save": True}).json()["id"]
    pat.patch(f"/api/complaints/{patna}", json={"notes": "the Patna cook was away"})
    ravi.patch(f"/api/complaints/{gaya}", json={"notes": "called the school"})
    asha.post("/api/classify", json={"text": "no meal anywhere", "save": True})  # no district: the state's
    local_client(scoped).post("/api/login", json={"name": "nobody", "password": "whatever-password"})
    gina = login(scoped, "gina")
    seen = gina.get("/api/audit", params={"limit": 500}).json()
    state = asha.get("/api/audit", params={"limit": 500}).json()
    text = str(seen)
    assert "Patna cook" not in text and f"complaints {patna}" not in text and "nobody" not in text
    assert "called the school" in text and f"complaints {gaya}" in text
    mine = {(e["actor"], e["action"]) for e in seen["items"]}
    assert {("ravi", "login"), ("ravi", "save"), ("ravi", "change"), ("gina", "login")} <= mine
    assert not {("pat", "save"), ("pat", "login"), ("asha", "save"), ("asha", "login")} & mine
    assert seen["total"] == len(seen["items"]) < state["total"]
    assert "Patna cook" in str(state) and "nobody" in str(state)  # the state admin reads every entry


def test_without_accounts_no_account_is_added_through_the_api(predictor, tmp_path):  # noqa: F811
    client = local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor))
    body = {"name": "eve", "password": "eve-password-1", "role": "admin", "districts": ["*"]}
    r = client.post("/api/users", json=body)
    assert r.status_code == 409 and "`mealwatch users add NAME --role admin" in r.json()["error"]
    r = client.post("/api/tokens", json={"name": "t", "role": "admin", "districts": ["*"]})
    assert r.status_code == 409
    assert client.get("/api/users").json() == []


def test_idempotency_keys_belong_to_their_account(scoped):
    ravi, pat, gopal = login(scoped, "ravi"), login(scoped, "pat"), login(scoped, "gopal")
    key = {"Idempotency-Key": "phone-42"}
    first = ravi.post("/api/classify", json={"text": "worms in the rice", "save": True}, headers=key)
    other = pat.post("/api/classify", json={"text": "no eggs in Danapur", "save": True}, headers=key)
    same_district = gopal.post("/api/classify", json={"text": "worms in the rice", "save": True}, headers=key)
    for r in (first, other, same_district):
        assert r.status_code == 200 and "idempotent-replayed" not in r.headers, r.text
    ids = {first.json()["id"], other.json()["id"], same_district.json()["id"]}
    assert len(ids) == 3 and scoped.state.service.store.get(other.json()["id"])["district"] == "Patna"
    again = login(scoped, "ravi").post(
        "/api/classify", json={"text": "worms in the rice", "save": True}, headers=key
    )  # fmt: skip - a new session of the same user: a retry
    assert again.headers["idempotent-replayed"] == "true" and again.json()["id"] == first.json()["id"]
    assert scoped.state.service.store.count() == 3


def test_users_added_under_a_running_server_turn_accounts_on_at_once(predictor, tmp_path, monkeypatch):  # noqa: F811
    import io

    db = tmp_path / "log.db"
    client = local_client(create_app(db_path=db, predictor=predictor))
    assert client.get("/api/complaints").status_code == 200  # no users yet: the single-user tool
    monkeypatch.setattr("sys.stdin", io.StringIO("asha-admin-pass\n"))
    assert main(["users", "add", "asha", "--role", "admin", "--districts", "*", "--password-stdin",
                 "--db", str(db)]) == 0  # fmt: skip
    assert client.get("/api/complaints").status_code == 401  # the same running app: on at once
    r = client.post("/api/users", json={"name": "eve", "password": "eve-password-1", "role": "admin",
                                        "districts": ["*"]})  # fmt: skip
    assert r.status_code == 401 and client.get("/api/session").json()["accounts"] is True
    r = client.post("/api/login", json={"name": "asha", "password": "asha-admin-pass"})
    assert r.status_code == 200


def test_full_phone_numbers_need_an_officer_and_every_read_is_audited(scoped):
    ravi, vik, asha = login(scoped, "ravi"), login(scoped, "vik"), login(scoped, "asha")
    saved = ravi.post("/api/classify", json={"text": "no eggs", "reporter_phone": "+91 98765 43210",
                                             "save": True}).json()  # fmt: skip
    assert saved["reporter_phone"] == "********3210"
    one = f"/api/complaints/{saved['id']}"
    for path in (one, "/api/complaints", "/api/complaints.csv"):
        r = vik.get(path, params={"full_phone": "true"})
        assert r.status_code == 403 and "your role (viewer) may not see full phone numbers" in r.json()["error"]
        assert "+919876543210" not in vik.get(path).text  # masked for a viewer, as always
    assert ravi.get(one, params={"full_phone": "true"}).json()["reporter_phone"] == "+919876543210"
    page = ravi.get("/api/complaints", params={"full_phone": "true"}).json()
    assert page["items"][0]["reporter_phone"] == "+919876543210"
    assert "+919876543210" in ravi.get("/api/complaints.csv", params={"full_phone": "true"}).text
    reads = [(e["actor"], e["action"], e["detail"]) for e in asha.get("/api/audit").json()["items"]
             if e["action"] in ("phone_read", "export") and e["actor"] == "ravi"]  # fmt: skip
    assert reads == [
        ("ravi", "export", {"rows": 1, "query": "full_phone=true", "full_phone": True}),
        ("ravi", "phone_read", {"ids": [saved["id"]]}),
        ("ravi", "phone_read", {"ids": [saved["id"]]}),
    ]
