"""The service's CSV files as an officer uses them: ready for a spreadsheet (a byte-order mark, times in the
officers' zone, incident days as days, the officer's own columns as columns, the same columns for the upload's
results and the log export), read back exactly (the formula guard undone, the columns mapped back), and an upload
or a paste with bad lines refused by line — whole, or the others saved when the officer asks for it."""

from __future__ import annotations

import csv
import io

import pytest
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model and its predictor

from mealwatch.serve import create_app
from mealwatch.serve.csv_columns import LOG_COLUMNS, RESULT_COLUMNS

BOM = "\ufeff"
#: texts a spreadsheet would run as formulas, or that look like the guard itself, and other scripts
TEXTS = ["- dal was spoiled, 3 children vomited", "=HYPERLINK(\"http://x\")", "+91 98765 called about rice",
         "'=already quoted by the officer", "''-twice", "@SUM(A1) worms", "-5", "खाने में छिपकली मिली",
         "first line\r\nsecond line"]  # fmt: skip


@pytest.fixture
def kolkata(predictor, tmp_path):  # noqa: F811
    with local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor, timezone="Asia/Kolkata")) as c:
        yield c


def rows_of(text: str) -> list[dict[str, str]]:
    assert text.startswith(BOM), text[:20]
    return list(csv.DictReader(io.StringIO(text.removeprefix(BOM), newline="")))


def upload(client, content: str, name="day.csv", *, save=True, partial=False, fmt="json"):
    return client.post(f"/api/classify/csv?format={fmt}&with_csv=true",
                       files={"file": (name, content.encode("utf-8"), "text/csv")},
                       data={"save": str(save).lower(), "partial": str(partial).lower()})  # fmt: skip


def write(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows([header, *rows])
    return out.getvalue()


def test_exports_open_in_a_spreadsheet_with_every_column_and_local_times(kolkata):
    day = write(["Text", "School", "District", "Block", "Date", "Channel", "Mobile", "Ward", "status"],
                [["Bachche ulti kar rahe the", "GPS Rampur", "Gaya", "Bodh Gaya", "27/05/2025", "phone",
                  "98765 43210", "7", "pending with BEO"],
                 ["No meal today", "GPS Kheri", "Gaya", "", "2025-05-27 14:05", "sms", "", "", ""]])  # fmt: skip
    answer = upload(kolkata, day).json()
    results = rows_of(answer["csv"])
    assert list(results[0]) == [*RESULT_COLUMNS, "Ward", "extra: status",
                                *(f"p_{label}" for label in answer["results"][0]["probabilities"])]  # fmt: skip
    first, second = results
    assert (first["line"], first["district"], first["block"], first["channel"]) == ("2", "Gaya", "Bodh Gaya", "phone")
    assert first["incident_date"] == "2025-05-27"  # a day stays a day (not 2025-05-26T18:30Z)
    assert second["incident_date"] == "2025-05-27 14:05"  # a time, in Kolkata's zone
    assert (first["reporter_phone"], first["Ward"], first["extra: status"]) == ("******3210", "7", "pending with BEO")
    assert second["Ward"] == "" and first["id"] == str(answer["results"][0]["id"])

    export = kolkata.get("/api/complaints.csv")
    assert export.headers["content-type"] == "text/csv; charset=utf-8"
    logged = {row["text"]: row for row in rows_of(export.text)}
    assert list(next(iter(logged.values()))) == [
        *LOG_COLUMNS,
        "Ward",
        "extra: status",
        *(f"p_{label}" for label in answer["results"][0]["probabilities"]),
    ]
    shared = ["text", "school", "district", "block", "incident_date", "channel", "reporter_phone", "Ward",
              "extra: status", "labels", "urgency", "language"]  # fmt: skip
    assert [r["language"] for r in results] == ["hi", "en"]  # each complaint's language, in both files
    for result in results:
        assert {c: logged[result["text"]][c] for c in shared} == {c: result[c] for c in shared}
    stored = kolkata.get(f"/api/complaints/{answer['results'][0]['id']}").json()
    created = stored["created_at"]  # UTC, to the microsecond; the export: Kolkata's time, to the second
    hour = (int(created[11:13]) * 60 + int(created[14:16]) + 330) // 60 % 24
    shown = logged[stored["text"]]["created_at"]
    assert shown[11:13] == f"{hour:02d}" and len(shown) == 19


def test_an_export_reads_back_as_it_was(kolkata):
    """Upload, export, upload the export again: every text exactly as written, the record and the officer's columns
    back as fields (mealwatch's own columns left out and named), nothing nested, no apostrophe added."""
    items = [{"text": text, "school": f"S{i}", "district": "Gaya", "incident_date": "2025-05-27",
              "extra": {"Ward": str(i), **({"वार्ड सदस्य": "उप-प्रधान"} if i % 2 else {})}}
             for i, text in enumerate(TEXTS)]  # fmt: skip
    first = kolkata.post("/api/classify/batch", json={"items": items, "save": True}).json()
    assert [r["text"] for r in first["results"]] == TEXTS
    export = kolkata.get("/api/complaints.csv").text
    assert "'- dal was spoiled" in export and "'''-twice" in export  # guarded in the file ...
    again = upload(kolkata, export, "complaints.csv").json()
    assert sorted(r["text"] for r in again["results"]) == sorted(TEXTS)  # ... and read back exactly
    before = {r["text"]: r for r in first["results"]}
    for r in again["results"]:
        old = before[r["text"]]
        assert (r["school"], r["district"], r["incident_at"], r["extra"]) == (
            old["school"], old["district"], old["incident_at"], old["extra"])  # fmt: skip
    assert {"id", "created_at", "status", "labels", "urgency", "model_version"} <= set(again["left_out_columns"])
    assert all(not name.startswith("p_") or name in again["left_out_columns"] for name in again["results"][0]["extra"])
    assert not any(k in ("extra", "id", "labels") or k.startswith("p_") for r in again["results"] for k in r["extra"])


def test_an_older_export_with_one_json_column_and_masked_phones_reads_back(kolkata):
    old = write(["id", "created_at", "status", "urgency", "labels", "text", "reporter_phone", "model_version",
                 "extra", "p_illness"],
                [["4", "2025-05-27T08:00:00.000000Z", "new", "high", "illness", "'- bachche bimar", "******3210",
                  "m", '{"ward": "7", "वार्ड": "सीता"}', "0.9"]])  # fmt: skip
    [r] = upload(kolkata, old, "old.csv").json()["results"]
    assert r["text"] == "- bachche bimar" and r["reporter_phone"] is None
    assert r["extra"] == {"ward": "7", "वार्ड": "सीता", "reporter_phone (masked)": "******3210"}


def test_a_file_with_bad_lines_is_refused_by_line_or_the_others_saved(kolkata):
    day = write(["text", "date", "channel"],
                [["Dal was watery", "27/05/2025", "phone"], ["", "", ""], ["Keede in khichdi", "2025-13-01", "fax"],
                 ["Rice half cooked", "", ""], ["No eggs", "31/02/2025", ""]])  # fmt: skip
    whole = upload(kolkata, day)
    assert whole.status_code == 422
    error = whole.json()["error"]
    assert error.startswith("day.csv: 2 row(s) cannot be read, nothing was classified: line 4: incident_date must be")
    assert "line 6: incident_date must be" in error and "partial=true" in error
    assert kolkata.get("/api/complaints").json()["total"] == 0
    part = upload(kolkata, day, partial=True).json()
    assert [r["line"] for r in part["results"]] == [2, 5] and all(r["id"] for r in part["results"])
    assert [(r["line"], r["error"].split(",")[0]) for r in part["refused"]] == [
        (4, "incident_date must be a day (YYYY-MM-DD"),
        (6, "incident_date must be a day (YYYY-MM-DD"),
    ]
    assert kolkata.get("/api/complaints").json()["total"] == 2


def test_a_paste_with_a_bad_line_names_it_or_saves_the_others(kolkata):
    items = [{"text": "Dal was watery", "incident_date": "27/05/2025"}, {"text": "Keede", "channel": "fax"},
             {"text": "  "}, {"text": "No eggs"}]  # fmt: skip
    r = kolkata.post("/api/classify/batch", json={"items": items, "save": True})
    assert r.status_code == 422 and "field 'items[1].channel'" in r.json()["error"]  # the page says "line 2"
    assert "field 'items[2].text'" in r.json()["error"] and kolkata.get("/api/complaints").json()["total"] == 0
    answer = kolkata.post("/api/classify/batch", json={"items": items, "save": True, "partial": True}).json()
    assert answer["count"] == 2 and [x["text"] for x in answer["results"]] == ["Dal was watery", "No eggs"]
    assert [x["index"] for x in answer["refused"]] == [1, 2]
    assert answer["refused"][0]["error"].startswith("field 'channel': channel must be one of phone")
    assert "empty" in answer["refused"][1]["error"] or "whitespace" in answer["refused"][1]["error"]
    assert answer["results"][0]["incident_at"] == "2025-05-26T18:30:00.000000Z"  # 27 May in Kolkata
    everything_bad = kolkata.post("/api/classify/batch", json={"items": items[1:3], "save": True, "partial": True})
    assert everything_bad.status_code == 422 and "no item of the batch can be read" in everything_bad.json()["error"]


def test_an_upload_reads_a_guarded_cell_as_the_guard_meant_it(kolkata):
    """A spreadsheet-safe export (mealwatch's, or another tool's) puts an apostrophe before a formula character;
    an upload takes exactly one such apostrophe off, and leaves every other apostrophe alone."""
    day = write(["text", "Remarks"], [["'- dal was spoiled", "'=2+2"], ["''=x was written", "it's fine"],
                                      ["'quoted' rice", "'"]])  # fmt: skip
    got = [(r["text"], r["extra"]) for r in upload(kolkata, day, save=False).json()["results"]]
    assert got == [("- dal was spoiled", {"Remarks": "=2+2"}), ("'=x was written", {"Remarks": "it's fine"}),
                   ("'quoted' rice", {"Remarks": "'"})]  # fmt: skip
