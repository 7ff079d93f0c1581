"""Issue 27, item 15: the alert check is incremental (one read per place and one write per alert, however many
complaints a request saved), runs once, off the response path, from a mark written in the save's transaction, and
stops within its current place."""

from __future__ import annotations

import random
import threading
from datetime import datetime, timedelta, timezone

from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.alerts import DEFAULT_RULES, AlertEngine, AlertWorker, Rule
from mealwatch.alerts.engine import busiest_windows, event_time, school_of
from mealwatch.log import NewComplaint, from_stored_time, to_stored_time
from mealwatch.serve import create_app

T0 = datetime(2025, 3, 1, 6, 0, tzinfo=timezone.utc)


def illness(i: int, school: str = "GPS Rampur", hours: float = 0.0, block: str = "Bodh") -> NewComplaint:
    return NewComplaint(f"children vomited {i}", ["illness"], {"illness": 0.9}, "high", "m", school, [], None, "Gaya",
                        block, T0 + timedelta(hours=hours))  # fmt: skip


def reference_window(rule: Rule, complaint: dict, counted: list[dict]) -> set[int] | None:
    """The busiest window holding ``complaint`` by the definition, start by start (the earliest of equals)."""
    t = from_stored_time(event_time(complaint))
    best = None
    for start in sorted(counted, key=lambda c: (event_time(c), c["id"])):
        s = from_stored_time(event_time(start))
        if not s <= t <= s + rule.window:
            continue
        inside = [c for c in counted if s <= from_stored_time(event_time(c)) <= s + rule.window]
        if len(inside) >= rule.min_complaints and len({school_of(c) for c in inside}) >= rule.min_schools:
            if best is None or len(inside) > len(best):
                best = inside
    return None if best is None else {c["id"] for c in best}


def test_the_sweep_finds_each_complaints_busiest_window_as_the_definition_does():
    r = random.Random(3)
    rule = Rule("spread", "{n}", labels=("illness",), group_by="block", window_hours=6, min_complaints=3,
                min_schools=2)  # fmt: skip
    for trial in range(60):
        counted = [
            {
                "id": i,
                "school": f"S{r.randrange(4)}",
                "udise": None,
                "district": "Gaya",
                "created_at": "",
                "incident_at": to_stored_time(T0 + timedelta(minutes=r.choice([0, 30, 60]) * r.randrange(40))),
            }
            for i in range(r.randrange(1, 25))
        ]  # fmt: skip - ties in time on purpose
        new = r.sample(counted, r.randrange(1, len(counted) + 1))
        found = [{c["id"] for c in w.complaints} for w in busiest_windows(rule, counted, new)]
        expected = {frozenset(w) for c in new if (w := reference_window(rule, c, counted)) is not None}
        assert {frozenset(w) for w in found} == expected, trial


def test_two_thousand_complaints_of_one_school_cost_one_read_and_one_alert(log_backend):
    store = log_backend.open()
    reads, writes = [], []
    nearby, record = store.nearby, store.record_alert
    store.nearby = lambda *a: reads.append(a) or nearby(*a)
    store.record_alert = lambda *a: writes.append(a) or record(*a)
    ids = store.add_many([illness(i, hours=i / 200) for i in range(2000)])  # ten hours: one window
    outcomes = AlertEngine(store).check(ids)
    school = [o.alert for o in outcomes if o.alert["rule"] == "school_cluster"]
    assert len(school) == 1 and school[0]["complaint_ids"] == ids
    assert school[0]["summary"].startswith("2000 complaints of illness")
    assert len([a for a in reads if a[0] == "school"]) == 1 and len(writes) == 1  # the block rule: one school only
    assert AlertEngine(store).check(ids[:10]) == []  # checked again: nothing changes


def test_windows_a_day_apart_make_two_alerts_and_a_late_complaint_extends_the_first(log_backend):
    store = log_backend.open()
    engine = AlertEngine(store, [r for r in DEFAULT_RULES if r.name == "school_cluster"])
    early = store.add_many([illness(i, hours=i) for i in range(3)])
    late = store.add_many([illness(i, hours=60 + i) for i in range(3)])
    outcomes = engine.check(early + late)
    assert [(o.kind, o.alert["complaint_ids"]) for o in outcomes] == [("raised", early), ("raised", late)]
    [extended] = engine.check(store.add_many([illness(9, hours=20)]))
    assert extended.kind == "extended" and extended.alert["complaint_ids"] == [*early, early[-1] + 4]


def test_a_save_is_answered_before_its_alert_check_which_runs_once(predictor, tmp_path):  # noqa: F811
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor)
    engine, release, checked = app.state.service.alerts.engine, threading.Event(), []
    check = engine.check

    def slow_check(ids, stop=None):
        release.wait(30)  # the check is held up: the answer must not wait for it
        checked.append(list(ids))
        return check(ids, stop)

    engine.check = slow_check
    body = {"text": "a child was taken to hospital after the meal", "school": "GPS Rampur", "save": True}
    with local_client(app) as client:
        first = client.post("/api/classify", json=body, headers={"Idempotency-Key": "k1"})
        assert first.status_code == 200 and not release.is_set()  # answered while the check waits
        assert client.get("/api/alerts").json()["total"] == 0  # waited its 2 s, then answered without it
        release.set()
        assert app.state.service.alerts.wait(timeout=30)
        assert client.get("/api/alerts").json()["total"] == 1
        again = client.post("/api/classify", json=body, headers={"Idempotency-Key": "k1"})
        assert again.headers["idempotent-replayed"] == "true"
        app.state.service.alerts.poke()
        assert app.state.service.alerts.wait(timeout=30)
    assert checked == [[first.json()["id"]]]  # once: the retry checked nothing


def test_a_correction_marks_its_check_due_even_while_a_check_runs(log_backend):
    store = log_backend.open()
    [i] = store.add_many([illness(0)])
    due = store.alert_checks_due()
    assert due.complaint_ids == [i]
    from mealwatch.log import ComplaintChange

    store.update(i, ComplaintChange(labels=["foreign_object"], urgency="high"), "ravi")  # during the check
    store.alert_checks_done(due)
    assert store.alert_checks_due().complaint_ids == [i]  # the correction's mark stays


def test_a_stopped_worker_leaves_the_rest_due_for_the_next_start(log_backend):
    store = log_backend.open()
    ids = store.add_many([illness(i, school=f"School {i}") for i in range(50)])
    worker = AlertWorker(AlertEngine(store))
    entered, go = threading.Event(), threading.Event()
    nearby = store.nearby

    def blocking(*a):
        entered.set()
        go.wait(30)
        return nearby(*a)

    store.nearby = blocking
    worker.start()
    assert entered.wait(30)
    closing = threading.Thread(target=worker.close)
    closing.start()
    go.set()  # the place being read finishes; no further place is read
    closing.join(10)
    assert not closing.is_alive() and not worker._thread.is_alive()
    assert store.alert_checks_due().complaint_ids == ids
