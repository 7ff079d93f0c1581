"""A district's paperwork with accounts on: an officer's upload or paste with another district's lines is refused
by line (or the others saved, when the officer chooses), and complaints a state account saved with no district are
found under "unassigned" and put into a district — after which that district's officer sees them."""

from __future__ import annotations

from test_accounts import app, clock, login  # noqa: F401 - the accounts app, its clock, a signed-in client
from test_serve_api import model_dir, predictor  # noqa: F401 - the tiny model

DAY = "text,district,school\r\nDal was watery,Gaya,GPS Bodh\r\nRice full of stones,Patna,GPS Danapur\r\nNo eggs,,S\r\n"


def upload(client, content: str, partial: bool):
    return client.post("/api/classify/csv", files={"file": ("day.csv", content.encode(), "text/csv")},
                       data={"save": "true", "partial": str(partial).lower(), "csrf_token": client.csrf})  # fmt: skip


def test_another_districts_lines_are_refused_by_line_or_the_others_saved(app):  # noqa: F811
    ravi = login(app, "ravi")  # an officer of Gaya
    whole = upload(ravi, DAY, partial=False)
    assert whole.status_code == 403
    assert whole.json()["error"] == ("day.csv: line 3: you may save complaints of Gaya only, not of 'Patna': nothing "
                                     "was saved (send partial=true to save the others)")  # fmt: skip
    assert ravi.get("/api/complaints").json()["total"] == 0
    answer = upload(ravi, DAY, partial=True).json()
    assert [(r["line"], r["district"]) for r in answer["results"]] == [(2, "Gaya"), (4, "Gaya")]  # 4: put in Gaya
    assert answer["refused"] == [{"line": 3, "error": "you may save complaints of Gaya only, not of 'Patna'"}]
    items = [{"text": "Dal was watery"}, {"text": "Stones", "district": "Patna"}]
    r = ravi.post("/api/classify/batch", json={"items": items, "save": True})
    assert r.status_code == 403 and r.json()["error"].startswith("items[1]: you may save complaints of Gaya only")
    r = ravi.post("/api/classify/batch", json={"items": items, "save": True, "partial": True}).json()
    assert r["count"] == 1 and r["refused"] == [{"index": 1, "error": "you may save complaints of Gaya only, "
                                                                       "not of 'Patna'"}]  # fmt: skip


def test_a_state_account_routes_unassigned_complaints_to_a_district(app):  # noqa: F811
    asha, ravi, pat = login(app, "asha"), login(app, "ravi"), login(app, "pat")
    saved = asha.post("/api/classify", json={"text": "12 children vomiting, 3 in hospital", "save": True}).json()
    assert saved["district"] is None
    unassigned = asha.get("/api/complaints", params={"unassigned": True}).json()
    assert [c["id"] for c in unassigned["items"]] == [saved["id"]]
    assert ravi.get(f"/api/complaints/{saved['id']}").status_code == 404  # not Gaya's yet
    r = ravi.patch(f"/api/complaints/{saved['id']}", json={"district": "Gaya"})
    assert r.status_code == 404  # an officer of Gaya cannot reach it to take it
    routed = asha.patch(f"/api/complaints/{saved['id']}", json={"district": "Gaya", "block": "Bodh Gaya"})
    assert routed.status_code == 200 and (routed.json()["district"], routed.json()["block"]) == ("Gaya", "Bodh Gaya")
    assert [c["id"] for c in ravi.get("/api/complaints", params={"order": "triage"}).json()["items"]] == [saved["id"]]
    history = ravi.get(f"/api/complaints/{saved['id']}/history").json()
    assert [(h["field"], h["new"], h["by"]) for h in history] == [("district", "Gaya", "asha"),
                                                                  ("block", "Bodh Gaya", "asha")]  # fmt: skip
    r = ravi.patch(f"/api/complaints/{saved['id']}", json={"district": "Patna"})
    assert r.status_code == 403 and "you may put complaints in Gaya only, not in 'Patna'" in r.json()["error"]
    r = ravi.patch(f"/api/complaints/{saved['id']}", json={"district": ""})
    assert r.status_code == 403 and "only an account of every district" in r.json()["error"]
    assert pat.get(f"/api/complaints/{saved['id']}").status_code == 404
    assert asha.get("/api/complaints", params={"unassigned": True}).json()["total"] == 0
