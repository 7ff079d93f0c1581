"""Complaint records: the fields (UDISE, district, block, incident time, channel, reporter phone, extra) through the
API, CSV uploads, the log (both backends) and the export; masking; case-insensitive partial school search; and
a version-3 log migrated to version 4 keeping its rows searchable."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest
from log_backends import complaint
from test_serve_api import log_client, model_dir, predictor  # noqa: F401 - the tiny model and its clients

from mealwatch.log import Filters
from mealwatch.records import RecordError, check_incident, check_phone, check_udise, fold, mask_phone

KOLKATA = ZoneInfo("Asia/Kolkata")


def test_record_fields_are_checked_and_normalised():
    assert check_phone("+91 98765-43210") == "+919876543210" and check_phone("(0612) 222 3344") == "06122223344"
    assert mask_phone("+919876543210") == "********3210" and mask_phone("9876543210") == "******3210"
    for bad in ("abc", "12345", "98765 43210 ext 5", "+91 98765 43210 99999"):
        with pytest.raises(RecordError, match="reporter_phone must be a phone number"):
            check_phone(bad)
    assert check_udise("1001 0203 040") == "10010203040"
    with pytest.raises(RecordError, match="11-digit UDISE"):
        check_udise("1234")
    # a day starts at midnight in the officers' zone; an ISO time keeps its offset; a naive one is read in the zone
    assert check_incident("2025-03-01", KOLKATA) == datetime(2025, 2, 28, 18, 30, tzinfo=timezone.utc)
    assert check_incident("2025-03-01T10:00+00:00", KOLKATA) == datetime(2025, 3, 1, 10, tzinfo=timezone.utc)
    assert check_incident("2025-03-01T10:00", KOLKATA) == datetime(2025, 3, 1, 4, 30, tzinfo=timezone.utc)
    # day first, as India writes dates (a bulk paste from a register): slashes, dashes or dots, a time optional
    for written in ("01/03/2025", "1/3/2025", "01-03-2025", "01.03.2025"):
        assert check_incident(written, KOLKATA) == datetime(2025, 2, 28, 18, 30, tzinfo=timezone.utc), written
    assert check_incident("01/03/2025 14:05", KOLKATA) == datetime(2025, 3, 1, 8, 35, tzinfo=timezone.utc)
    assert check_incident("2025-03-01 14:05", KOLKATA) == datetime(2025, 3, 1, 8, 35, tzinfo=timezone.utc)
    for bad in ("31/13/2025", "32/01/2025", "2025/01/31", "01/03/25", "01/03-2025", "yesterday"):
        with pytest.raises(RecordError, match=r"incident_date must be a day \(YYYY-MM-DD, or DD/MM/YYYY\)"):
            check_incident(bad)
    assert fold("  GPS   RAMPUR ") == "gps rampur" and fold("Straße") == "strasse" and fold("राम") == "राम"


def test_a_saved_record_round_trips_with_the_phone_masked(log_client):  # noqa: F811
    client, _ = log_client
    body = {
        "text": "Children vomited after the khichdi",
        "school": "GPS Rampur",
        "udise": "10010203040",
        "district": "Gaya",
        "block": "Bodh Gaya",
        "incident_date": "2025-03-01T13:05+05:30",
        "channel": "WhatsApp",
        "reporter_phone": "+91 98765 43210",
        "extra": {"ward": "7", "वार्ड सदस्य": "सीता देवी"},
        "save": True,
        "explain": "none",
    }
    saved = client.post("/api/classify", json=body).json()
    expected = {
        "school": "GPS Rampur",
        "udise": "10010203040",
        "district": "Gaya",
        "block": "Bodh Gaya",
        "incident_at": "2025-03-01T07:35:00.000000Z",
        "channel": "whatsapp",
        "reporter_phone": "********3210",
        "extra": {"ward": "7", "वार्ड सदस्य": "सीता देवी"},
    }
    assert {k: saved[k] for k in expected} == expected
    got = client.get(f"/api/complaints/{saved['id']}").json()
    assert {k: got[k] for k in expected} == expected
    assert got["corrected_labels"] is None and got["assignee"] is None and 0 <= got["certainty"] <= 1
    full = client.get(f"/api/complaints/{saved['id']}", params={"full_phone": True}).json()
    assert full["reporter_phone"] == "+919876543210"
    listed = client.get("/api/complaints").json()["items"][0]
    assert listed["reporter_phone"] == "********3210"
    export = list(csv.DictReader(io.StringIO(client.get("/api/complaints.csv").text.removeprefix("\ufeff"))))[0]
    assert (export["reporter_phone"], export["district"], export["channel"]) == ("********3210", "Gaya", "whatsapp")
    assert (export["ward"], export["वार्ड सदस्य"]) == ("7", "सीता देवी")  # the officer's fields, each a column
    assert export["incident_date"] == "2025-03-01 07:35"  # the test app's zone is UTC
    full = client.get("/api/complaints.csv?full_phone=true").text.removeprefix("\ufeff")
    export = list(csv.DictReader(io.StringIO(full)))[0]
    assert export["reporter_phone"] == "+919876543210"
    # an old client sending only text and school still works, its record empty
    old = client.post("/api/classify", json={"text": "No meal today", "school": "S1", "save": True}).json()
    assert (old["district"], old["channel"], old["reporter_phone"], old["extra"]) == (None, None, None, {})


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("channel", "fax", "field 'channel': channel must be one of phone, sms, whatsapp, letter, web, visit"),
        ("incident_date", "yesterday", "field 'incident_date': incident_date must be a day (YYYY-MM-DD, or DD/MM"),
        ("reporter_phone", "call me", "field 'reporter_phone': reporter_phone must be a phone number"),
        ("udise", "12", "field 'udise': udise must be the school's 11-digit UDISE code"),
        ("district", "x" * 201, "field 'district': district is 201 characters long; the limit is 200"),
        ("extra", {"note": 5}, "field 'extra.note' must be a string"),
        ("extra", "ward 7", "field 'extra' must be a JSON object"),
    ],
)
def test_a_bad_record_field_is_a_clear_422_and_nothing_is_saved(log_client, field, value, message):  # noqa: F811
    client, _ = log_client
    r = client.post("/api/classify", json={"text": "no meal", "save": True, field: value})
    assert r.status_code == 422 and r.json()["error"].startswith(message), r.json()
    r = client.post("/api/classify/batch", json={"items": [{"text": "ok"}, {"text": "no meal", field: value}]})
    assert r.status_code == 422
    assert client.get("/api/complaints").json()["total"] == 0


def test_csv_upload_maps_known_columns_keeps_the_others_and_refuses_bad_cells(log_client):  # noqa: F811
    client, _ = log_client
    upload = (
        "Text,School Name,UDISE Code,District,Block,Date,Channel,Mobile No,Ward,Remarks\r\n"
        "Lizard in the dal,GPS Rampur,10010203040,Gaya,Bodh,2025-03-01,phone,98765 43210,7,called twice\r\n"
        "No meal today,GPS Kheri,,Gaya,Bodh,,,,,\r\n"
    )
    r = client.post("/api/classify/csv", files={"file": ("day.csv", upload, "text/csv")}, data={"save": "true"})
    assert r.status_code == 200, r.json()
    first, second = r.json()["results"]
    assert (first["school"], first["udise"], first["district"], first["block"]) == ("GPS Rampur", "10010203040",
                                                                                   "Gaya", "Bodh")  # fmt: skip
    assert (first["incident_at"], first["channel"], first["reporter_phone"]) == (
        "2025-03-01T00:00:00.000000Z",  # the test app's zone is UTC
        "phone",
        "******3210",
    )
    assert first["extra"] == {"Ward": "7", "Remarks": "called twice"} and second["extra"] == {}
    stored = client.get(f"/api/complaints/{first['id']}").json()
    assert stored["extra"] == {"Ward": "7", "Remarks": "called twice"}
    bad = "text,channel,phone,date\nno meal,fax,12,2025-13-01\nok,sms,9876543210,2025-01-01\nx,sms,abc,\n"
    r = client.post("/api/classify/csv", files={"file": ("bad.csv", bad, "text/csv")}, data={"save": "true"})
    assert r.status_code == 422
    assert r.json()["error"] == (
        "bad.csv: 2 row(s) cannot be read, nothing was classified: line 2: incident_date must be a day "
        "(YYYY-MM-DD, or DD/MM/YYYY) or a time (2025-01-31T13:05+05:30, 31/01/2025 13:05), not '2025-13-01'; "
        "channel must be one of phone, sms, whatsapp, letter, web, visit, not 'fax'; reporter_phone must be a phone "
        "number (7 to 15 digits, optionally with +, spaces or dashes), not '12'; line 4: reporter_phone must be a "
        "phone number (7 to 15 digits, optionally with +, spaces or dashes), not 'abc' (or send partial=true to "
        "classify the others)"
    )
    twice = "text,phone,mobile\nno meal,9876543210,9876543210\n"
    r = client.post("/api/classify/csv", files={"file": ("twice.csv", twice, "text/csv")})
    assert r.status_code == 422 and "columns 'phone' and 'mobile' both give reporter_phone" in r.json()["error"]
    assert client.get("/api/complaints").json()["total"] == 2


def test_school_search_is_partial_and_ignores_case_on_every_backend(log_backend):
    store = log_backend.open()
    names = ["GPS Rampur", "gps RAMPUR kalan", "Middle School 100%", "School_A", "SchoolBA", "राजकीय विद्यालय",
             "Straße Schule", None]  # fmt: skip
    for i, name in enumerate(names):
        store.add(complaint(f"c{i}", ["other"], "low", school=name))

    def found(text: str) -> list[str]:
        return sorted(c["school"] for c in store.list(Filters(school=text)).items)

    assert found("rampur") == ["GPS Rampur", "gps RAMPUR kalan"]
    assert found("GPS ramp") == ["GPS Rampur", "gps RAMPUR kalan"]
    assert found("100%") == ["Middle School 100%"] and found("%") == ["Middle School 100%"]  # % is no wildcard
    assert found("l_a") == ["School_A"]  # _ is no wildcard either (SchoolBA does not match)
    assert found("विद्यालय") == ["राजकीय विद्यालय"]
    assert found("STRASSE") == ["Straße Schule"]  # Unicode case folding, beyond ASCII
    assert found("nowhere") == []


def test_filters_by_district_block_channel_and_corrected(log_backend):
    from mealwatch.log import ComplaintChange, NewComplaint

    store = log_backend.open()

    def add(text, district, block, channel):
        return store.add(NewComplaint(text, ["other"], {"other": 0.9}, "low", "m", "S", district=district,
                                      block=block, channel=channel))  # fmt: skip

    a, b, c = add("a", "Gaya", "Bodh", "sms"), add("b", "GAYA", "Wazirganj", "phone"), add("c", "Patna", None, None)
    store.update(b, ComplaintChange(labels=["illness"], urgency="high"), by="Ravi")

    def ids(**kw):
        return sorted(x["id"] for x in store.list(Filters(**kw)).items)

    assert ids(district="gaya") == [a, b] and ids(block="bodh") == [a] and ids(channel="phone") == [b]
    assert ids(corrected=True) == [b] and ids(corrected=False) == [a, c]
    assert ids(label="illness") == [b] and ids(label="other") == [a, c]  # a correction replaces the labels filtered


def test_a_version_3_log_is_migrated_with_its_schools_searchable_and_its_history_kept(log_backend):
    log_backend.migrate_to(3)
    log_backend.execute(
        "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version, created_at,"
        " status, status_changed_at) VALUES ('old one', 'GPS Ströme', '[\"illness\"]', '{\"illness\": 0.9}', 'high',"
        " 0, 'm0', '2024-05-01T10:00:00.000000Z', 'in_progress', '2024-05-01T11:00:00.000000Z')"
    )
    log_backend.execute(
        "INSERT INTO status_changes (complaint_id, old_status, new_status, changed_at)"
        " VALUES (1, 'new', 'in_progress', '2024-05-01T11:00:00.000000Z')"
    )
    store = log_backend.open()
    [row] = store.list(Filters(school="strö")).items
    assert (row["text"], row["extra"], row["corrected_labels"], row["incident_at"]) == ("old one", {}, None, None)
    assert store.get(1)["history"] == [
        {"old_status": "new", "new_status": "in_progress", "changed_at": "2024-05-01T11:00:00.000000Z"}
    ]
    assert store.changes(1) == [
        {"field": "status", "old": "new", "new": "in_progress", "by": None, "at": "2024-05-01T11:00:00.000000Z"}
    ]
    assert store.nearby("school", "name:|gps ströme", datetime(2024, 5, 1, tzinfo=timezone.utc),
                        datetime(2024, 5, 2, tzinfo=timezone.utc))[0]["id"] == 1  # fmt: skip
