"""Outbreak alerts: the default rules on incident time (arrival time as the fallback, the clock injected),
de-duplication, keywords in three scripts, rule files, the API, and the webhook against a local receiver."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.alerts import DEFAULT_RULES, AlertEngine, AlertRuleError, Webhook, load_rules
from mealwatch.log import NewComplaint, to_stored_time
from mealwatch.serve import create_app

T0 = datetime(2025, 3, 1, 6, 0, tzinfo=timezone.utc)


class Clock:
    """The log's clock, moved by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> str:
        return to_stored_time(self.now)


@pytest.fixture
def engine(log_backend):
    store = log_backend.open()
    store.clock = Clock(T0)
    return AlertEngine(store)


def add(engine, text="children vomited", labels=("illness",), school="GPS Rampur", block="Bodh", hours=None,
        district="Gaya", udise=None):  # fmt: skip
    incident = None if hours is None else T0 + timedelta(hours=hours)
    c = NewComplaint(text, list(labels), {label: 0.9 for label in labels}, "high", "m", school, [], udise, district,
                     block, incident)  # fmt: skip
    i = engine.store.add(c)
    return i, engine.check([i])


def test_three_complaints_at_one_school_within_a_day_raise_one_alert_and_a_fourth_extends_it(engine):
    a, none1 = add(engine, hours=0)
    b, none2 = add(engine, labels=("foreign_object",), school="gps  RAMPUR", hours=20)  # the same school, any case
    assert none1 == none2 == []
    c, [raised] = add(engine, hours=23)
    assert (raised.kind, raised.alert["rule"], raised.alert["complaint_ids"]) == ("raised", "school_cluster", [a, b, c])
    assert raised.alert["first_at"] == to_stored_time(T0) and raised.alert["last_at"] == to_stored_time(
        T0 + timedelta(hours=23)
    )
    assert raised.alert["summary"] == "3 complaints of illness or a foreign object at GPS Rampur within 24 hours"
    d, [extended] = add(engine, hours=30)  # within a day of b and c: the same alert grows
    assert (extended.kind, extended.alert["id"], extended.alert["complaint_ids"]) == (
        "extended", raised.alert["id"], [a, b, c, d])  # fmt: skip
    assert engine.store.list_alerts().total == 1
    assert engine.check([d]) == []  # evaluating again changes nothing


def test_an_acknowledged_alert_is_not_raised_again_by_a_recheck_but_a_new_complaint_raises_one(engine):
    i, [raised] = add(engine, text="a child was admitted to hospital", labels=("illness",), hours=0)
    assert engine.store.acknowledge_alert(raised.alert["id"], by="dpo")["status"] == "acknowledged"
    assert engine.check([i]) == []  # a correction or a replayed save re-checks it: the officer has seen it
    assert engine.store.list_alerts().total == 1
    j, [again] = add(engine, text="another child admitted to hospital", labels=("illness",), hours=1)
    assert (again.kind, again.alert["complaint_ids"]) == ("raised", [i, j])  # a new event: a new alert, in context
    assert engine.store.list_alerts().total == 2


def test_schools_of_two_districts_sharing_a_udise_code_never_make_one_alert(engine):
    """Issue 27, item 6: a UDISE code typed into two districts' complaints (a typing slip, or on purpose) is two
    schools; each district's complaints are grouped within it, and each district's alert holds its own alone."""
    udise = "10010101001"
    ids = {}
    for h, district in enumerate(("Gaya", "Patna", "Gaya", "Patna")):  # four in a day: two of each, no alert
        ids.setdefault(district, []).append(add(engine, school=None, district=district, udise=udise, hours=h)[0])
        assert engine.store.list_alerts().total == 0
    patna, [raised] = add(engine, school=None, district="patna", udise=udise, hours=4)  # "patna": Patna, any case
    assert (raised.alert["district"], raised.alert["complaint_ids"]) == ("patna", [*ids["Patna"], patna])
    gaya, [own] = add(engine, school=None, district="Gaya", udise=udise, hours=5)
    assert (own.kind, own.alert["district"], own.alert["complaint_ids"]) == ("raised", "Gaya", [*ids["Gaya"], gaya])
    assert engine.store.list_alerts().total == 2


def test_incident_time_counts_not_arrival_time(engine):
    # three complaints arrive together, but their incidents are days apart: no outbreak
    for h in (0, 30, 60):
        assert add(engine, hours=h)[1] == []
    # arrivals three days apart whose incidents fall within a day: an outbreak, raised by the last to arrive
    for day, h in ((0, 100), (1, 101)):
        engine.store.clock.now = T0 + timedelta(days=day)
        assert add(engine, school="GPS Kheri", hours=h)[1] == []
    engine.store.clock.now = T0 + timedelta(days=3)
    _, [raised] = add(engine, school="GPS Kheri", hours=102)
    assert raised.alert["rule"] == "school_cluster" and len(raised.alert["complaint_ids"]) == 3


def test_without_an_incident_time_the_arrival_time_counts(engine):
    clock, ids = engine.store.clock, []
    for h in (0, 25, 26):
        clock.now = T0 + timedelta(hours=h)
        i, found = add(engine)
        ids.append(i)
        assert found == []  # 0 h is more than a day before 25 h and 26 h: never three within a day
    clock.now = T0 + timedelta(hours=27)
    last, [raised] = add(engine)
    assert raised.alert["complaint_ids"] == [*ids[1:], last]
    assert raised.alert["first_at"] == to_stored_time(T0 + timedelta(hours=25))


def test_illness_at_two_schools_of_one_block_raises_the_block_alert(engine):
    assert add(engine, school="GPS Rampur", hours=0)[1] == []
    assert add(engine, school="GPS Rampur", block="Other block", hours=1)[1] == []  # another block
    assert add(engine, labels=("foreign_object",), school="GPS Kheri", hours=2)[1] == []  # not illness
    same_name_other_district = add(engine, school="GPS Kheri", district="Nalanda", hours=3)[1]
    assert same_name_other_district == []  # Bodh of Nalanda is not Bodh of Gaya
    i, [raised] = add(engine, school="GPS Kheri", hours=4)
    assert (raised.alert["rule"], raised.alert["block"], raised.alert["district"]) == ("block_spread", "Bodh", "Gaya")
    assert raised.alert["summary"] == (
        "illness at 2 schools of block Bodh within 24 hours (a shared kitchen or supplier?)"
    )
    assert raised.alert["complaint_ids"] == [1, i]


@pytest.mark.parametrize(
    "text",
    [
        "Two children were admitted to hospital after the meal",
        "ek bachcha mar gaya khana khane ke baad",
        "bachche aspataal me bhartee hain",
        "खाना खाने के बाद तीन बच्चे अस्पताल में भर्ती",
        "खिचड़ी खाकर एक बच्ची की मौत",
        "A child DIED last night",
    ],
)
def test_a_death_or_hospital_admission_raises_an_alert_at_once_in_any_script(engine, text):
    _, [raised] = add(engine, text=text, labels=("other",), hours=0)
    assert raised.alert["rule"] == "death_or_hospital" and raised.kind == "raised"
    assert raised.alert["summary"] == "a death or a hospital admission reported at GPS Rampur"


@pytest.mark.parametrize("text", ["a dead lizard was in the dal", "the hospitality of the cook", "Bharat Mata ki jai"])
def test_words_that_only_look_alike_raise_nothing(engine, text):
    assert add(engine, text=text, labels=("other",), hours=0)[1] == []


def test_rule_files_replace_the_defaults_and_bad_ones_are_refused_clearly(tmp_path):
    toml = tmp_path / "rules.toml"
    toml.write_text(
        '[[rules]]\nname = "two_sick"\nsummary = "{n} sick at {place}"\nlabels = ["illness"]\nmin_complaints = 2\n'
        "window_hours = 12\n",
        encoding="utf-8",
    )
    [rule] = load_rules(toml)
    assert (rule.name, rule.labels, rule.min_complaints, rule.window_hours) == ("two_sick", ("illness",), 2, 12.0)
    as_json = tmp_path / "rules.json"
    as_json.write_text(json.dumps({"rules": [{"name": "x", "summary": "s", "keywords": ["maut"]}]}), encoding="utf-8")
    assert load_rules(as_json)[0].counts("ek bachche ki MAUT", []) is True
    as_json.write_text(json.dumps({"rules": [{"name": "x", "summary": "s", "levels": ["clinic"]}]}), encoding="utf-8")
    assert load_rules(as_json)[0].counts("seen at the PHC", [], (), "clinic") is True
    cases = {
        '{"rules": [{"name": "x", "summary": "s", "labels": ["typhoid"]}]}': "rule 1: unknown label 'typhoid'",
        '{"rules": [{"name": "x", "summary": "s"}]}': "rule 1: rule 'x': give labels, levels, keywords or signals",
        '{"rules": [{"name": "x", "summary": "s", "levels": ["icu"]}]}': "rule 1: rule 'x': unknown level 'icu'",
        '{"rules": [{"name": "x", "summary": "s", "labels": ["illness"], "min_complaints": "3"}]}':
            "rule 1: min_complaints must be a whole number",
        '{"rules": [{"name": "x", "summary": "s", "labels": ["illness"], "group_by": "village"}]}':
            "group_by must be one of school, block",
        '{"rules": [{"name": "x", "summary": "s", "labels": ["illness"], "window": 3}]}': "unknown field 'window'",
        '{"rules": []}': "expected a list of rules under 'rules'",
        "{not json": "cannot be read",
    }  # fmt: skip
    for text, message in cases.items():
        as_json.write_text(text, encoding="utf-8")
        with pytest.raises(AlertRuleError, match=message.replace("(", "\\(").replace(")", "\\)")):
            load_rules(as_json)
    with pytest.raises(AlertRuleError, match="no such file"):
        load_rules(tmp_path / "missing.toml")
    assert [r.name for r in DEFAULT_RULES] == ["school_cluster", "block_spread", "death_or_hospital"]


class Receiver:
    """A local HTTP server that answers 500 to the first ``failures`` POSTs, then 204, recording each body."""

    def __init__(self, failures: int = 0, delay: float = 0.0) -> None:
        self.bodies: list[dict] = []
        self.answers: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                time.sleep(delay)
                status = 500 if len(receiver.answers) < failures else 204
                receiver.answers.append(status)
                if status == 204:
                    receiver.bodies.append(body)
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_webhook_retries_with_back_off_until_the_receiver_takes_it(log_backend):
    receiver = Receiver(failures=2)
    waits: list[float] = []
    hook = Webhook(receiver.url, attempts=4, first_delay=0.5, sleep=waits.append)
    store = log_backend.open()
    engine = AlertEngine(store, notify=hook)
    i, [raised] = add(engine, text="एक बच्चे की मौत", labels=("other",), hours=0)
    hook.close()
    receiver.close()
    assert receiver.answers == [500, 500, 204] and waits == [0.5, 1.0]  # doubled after each failure
    assert receiver.bodies == [{"event": "raised", "alert": raised.alert, "added": [i]}]
    assert (hook.delivered, hook.failed) == (1, 0)


def test_a_receiver_that_never_takes_it_is_given_up_on_and_a_slow_one_never_delays_a_save(log_backend):
    receiver = Receiver(failures=99)
    hook = Webhook(receiver.url, attempts=3, first_delay=0.01)
    engine = AlertEngine(log_backend.open(), notify=hook)
    add(engine, text="child admitted to hospital", labels=("other",), hours=0)
    hook.close()
    assert receiver.answers == [500, 500, 500] and (hook.delivered, hook.failed) == (0, 1)
    receiver.close()
    slow = Receiver(delay=2.0)
    hook = Webhook(slow.url)
    engine = AlertEngine(log_backend.open(), notify=hook)
    started = time.monotonic()
    _, [raised] = add(engine, text="child admitted to hospital", labels=("other",), school="S2", hours=0)
    assert time.monotonic() - started < 1.0 and raised.kind == "raised"  # the save did not wait for the receiver
    hook.close(timeout=10)
    slow.close()
    assert len(slow.bodies) == 1


def test_alerts_through_the_api_raised_on_save_listed_and_acknowledged(predictor, tmp_path):  # noqa: F811
    receiver = Receiver()
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor, alert_url=receiver.url)
    with local_client(app) as client:
        items = [{"text": f"bachcha {n} aspatal me bhartee", "school": "GPS Rampur", "block": "Bodh",
                  "district": "Gaya", "incident_date": "2025-03-01"} for n in range(2)]  # fmt: skip
        saved = client.post("/api/classify/batch", json={"items": items, "save": True}).json()["results"]
        alerts = client.get("/api/alerts").json()
        [alert] = [a for a in alerts["items"] if a["rule"] == "death_or_hospital"]
        assert alert["complaint_ids"] == [s["id"] for s in saved] and alert["status"] == "open"
        assert (alert["school"], alert["block"], alert["district"]) == ("GPS Rampur", "Bodh", "Gaya")
        assert alert["first_at"] == alert["last_at"] == "2025-03-01T00:00:00.000000Z"
        r = client.patch(f"/api/alerts/{alert['id']}", json={"status": "acknowledged"}, headers={"X-Officer": "DPO"})
        assert r.status_code == 200 and r.json()["status"] == "acknowledged" and r.json()["acknowledged_by"] == "DPO"
        assert client.get("/api/alerts", params={"status": "open"}).json()["items"] == [
            a for a in client.get("/api/alerts").json()["items"] if a["status"] == "open"
        ]
        assert client.patch(f"/api/alerts/{alert['id']}", json={"status": "open"}).status_code == 422
        assert client.patch("/api/alerts/999", json={"status": "acknowledged"}).json() == {
            "error": "no alert with id 999"
        }
        assert client.get("/api/alerts", params={"status": "closed"}).status_code == 422
        settings = client.get("/api/settings").json()
        assert settings["timezone"] == "UTC" and [r["name"] for r in settings["alert_rules"]] == [
            r.name for r in DEFAULT_RULES
        ]
    receiver.close()
    assert [b["alert"]["id"] for b in receiver.bodies if b["alert"]["rule"] == "death_or_hospital"] == [alert["id"]]
