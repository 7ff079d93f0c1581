"""Issue 12's protections on issue 15's requests and routes: the record fields, corrections, assignee and notes,
the history and the alerts. Cross-site writes are refused there too, bad record values are clear 422s that save
nothing, and a retried save keeps its record and raises its alerts once."""

from __future__ import annotations

import json

import pytest
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.serve import create_app

HOSPITAL = {"text": "two children were taken to hospital after the meal", "school": "GPS Rampur", "save": True}


@pytest.fixture
def app(predictor, tmp_path):  # noqa: F811
    return create_app(db_path=tmp_path / "log.db", predictor=predictor, timezone="Asia/Kolkata")


@pytest.fixture
def client(app):
    with local_client(app) as c:
        yield c


def send_json(client, method: str, path: str, body, headers=None):
    """``body`` as ASCII JSON: a lone surrogate travels as its ``\\udxxx`` escape, as a broken client sends it."""
    headers = {"content-type": "application/json", **(headers or {})}
    return client.request(method, path, content=json.dumps(body).encode(), headers=headers)


def stored(client) -> int:
    return client.get("/api/health").json()["complaints_stored"]


@pytest.mark.parametrize(
    "headers",
    [{"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"}],
)
def test_cross_site_corrections_notes_and_acknowledgements_are_refused(client, headers):
    saved = client.post("/api/classify", json=HOSPITAL).json()
    [alert] = client.get("/api/alerts").json()["items"]
    cid = saved["id"]
    refused = [
        client.patch(f"/api/complaints/{cid}", json={"labels": ["other"]}, headers=headers),
        client.patch(f"/api/complaints/{cid}", json={"assignee": "Mallory", "notes": "closed"}, headers=headers),
        client.patch(f"/api/alerts/{alert['id']}", json={"status": "acknowledged"}, headers=headers),
        client.post("/api/classify/batch", json={"items": [{"text": "no meal", "district": "Gaya"}], "save": True},
                    headers=headers),
    ]  # fmt: skip
    for r in refused:
        assert r.status_code == 403 and "may not change anything here" in r.json()["error"], r.text
    assert client.get(f"/api/complaints/{cid}/history").json() == []
    after = client.get(f"/api/complaints/{cid}").json()
    assert (after["corrected_labels"], after["assignee"], after["notes"]) == (None, None, None)
    assert client.get(f"/api/alerts/{alert['id']}").status_code in (404, 405)  # no such route: only the list
    assert client.get("/api/alerts").json()["items"][0]["status"] == "open" and stored(client) == 1


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("district", "Gaya \udc00", "district holds a lone surrogate, which is not a character"),
        ("block", "\ud83d", "block holds a lone surrogate, which is not a character"),
        ("extra", {"ward": "7 \ud800"}, "extra field 'ward' holds a lone surrogate"),
        ("incident_date", "0001-01-01T00:00+05:30", "incident_date '0001-01-01T00:00+05:30' is before the year 2000"),
        (
            "incident_date",
            "9999-12-31T23:00-05:00",
            "incident_date '9999-12-31T23:00-05:00' is before the year 2000 or after 9999",
        ),
        ("incident_date", "0001-01-01", "incident_date '0001-01-01' is before the year 2000"),
    ],
)
def test_record_fields_that_cannot_be_stored_are_422_and_save_nothing(client, field, value, message):
    for path, body in (
        ("/api/classify", {"text": "no meal", "save": True, field: value}),
        ("/api/classify/batch", {"items": [{"text": "dal cold"}, {"text": "no meal", field: value}], "save": True}),
    ):
        r = send_json(client, "POST", path, body, headers={"Idempotency-Key": f"k-{path}"})
        assert r.status_code == 422 and message in r.json()["error"], r.text
    assert stored(client) == 0
    fine = client.post("/api/classify", json={"text": "no meal", "save": True}, headers={"Idempotency-Key": "k-x"})
    assert fine.status_code == 200  # the refused requests used up no key of theirs


def test_a_csv_incident_date_at_the_calendar_end_is_422_naming_its_line(client):
    upload = "text,district,incident_date\nno meal,Gaya,2025-01-31\ndal cold,Gaya,0001-01-01\n".encode()
    r = client.post("/api/classify/csv", files={"file": ("day.csv", upload, "text/csv")}, data={"save": "true"})
    assert r.status_code == 422 and "line 3: incident_date '0001-01-01' is before the year 2000" in r.json()["error"]
    assert stored(client) == 0


@pytest.mark.parametrize(
    "body, message",
    [
        ({"assignee": "Ravi \ud800"}, "field 'assignee': assignee holds a lone surrogate"),
        ({"notes": "called \udfff"}, "field 'notes': notes holds a lone surrogate"),
        ({"notes": "x\x00"}, "field 'notes': notes contains a NUL character"),
        ({"status": "resolved", "by": "\ud800"}, "field 'by': by holds a lone surrogate"),
        ({"labels": ["illness\ud800"]}, "field 'labels': unknown label 'illness\\ud800'"),
    ],
)
def test_changes_that_cannot_be_stored_are_422_and_change_nothing(client, body, message):
    cid = client.post("/api/classify", json={"text": "no meal", "save": True}).json()["id"]
    r = send_json(client, "PATCH", f"/api/complaints/{cid}", body)
    assert r.status_code == 422 and message in r.json()["error"], r.text
    assert client.get(f"/api/complaints/{cid}/history").json() == []


def test_huge_ids_and_offsets_on_the_new_routes_are_never_500(client):
    for i in (2**63, 2**63 - 1, -(2**64), 10**30):
        assert client.get(f"/api/complaints/{i}/history").json() == {"error": f"no complaint with id {i}"}
        r = client.patch(f"/api/alerts/{i}", json={"status": "acknowledged"})
        assert r.status_code == 404 and r.json() == {"error": f"no alert with id {i}"}
    r = client.get("/api/alerts", params={"offset": 2**63})
    assert r.status_code == 422 and r.json()["error"] == "query parameter 'offset' must be at most 9223372036854775807"
    assert client.get("/api/alerts", params={"offset": 2**63 - 1}).json()["items"] == []


@pytest.mark.parametrize("endpoint", ["classify", "batch", "csv"])
def test_a_retried_save_keeps_its_record_and_raises_its_alert_once(app, client, endpoint):
    heard = []
    app.state.service.alerts.engine.notify = heard.append
    key = {"Idempotency-Key": f"retry-{endpoint}"}
    record = {"school": "GPS Rampur", "district": "Gaya", "block": "Bodh Gaya", "incident_date": "2025-01-31",
              "channel": "phone", "reporter_phone": "+91 98765 43210", "extra": {"ward": "7"}}  # fmt: skip
    text = HOSPITAL["text"]

    def send():
        if endpoint == "classify":
            return client.post("/api/classify", json={"text": text, **record, "save": True}, headers=key)
        if endpoint == "batch":
            return client.post("/api/classify/batch", json={"items": [{"text": text, **record}], "save": True},
                               headers=key)  # fmt: skip
        upload = (
            "text,school,district,block,incident_date,channel,reporter_phone,ward\n"
            f'"{text}",GPS Rampur,Gaya,Bodh Gaya,2025-01-31,phone,+91 98765 43210,7\n'
        ).encode()
        return client.post("/api/classify/csv", files={"file": ("d.csv", upload, "text/csv")}, data={"save": "true"},
                           headers=key)  # fmt: skip

    first, second = send(), send()
    assert first.status_code == second.status_code == 200, first.text
    assert first.content == second.content and second.headers["idempotent-replayed"] == "true"
    assert stored(client) == 1
    [row] = client.get("/api/complaints", params={"full_phone": True}).json()["items"]
    assert (row["school"], row["district"], row["block"], row["channel"], row["reporter_phone"], row["extra"]) == (
        "GPS Rampur", "Gaya", "Bodh Gaya", "phone", "+919876543210", {"ward": "7"},
    )  # fmt: skip
    assert row["incident_at"] == "2025-01-30T18:30:00.000000Z"  # the day's start in Asia/Kolkata, in UTC
    [alert] = client.get("/api/alerts").json()["items"]
    assert alert["rule"] == "death_or_hospital" and alert["complaint_ids"] == [row["id"]]
    assert [(o.kind, o.alert["id"]) for o in heard] == [("raised", alert["id"])]  # the retry raised nothing
