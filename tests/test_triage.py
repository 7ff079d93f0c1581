"""The triage queue and a district's paperwork in the log, on every backend: severity read from the words (a
death or a hospital admission, the urgency, the children named), the triage order and its cursor, the
incident-date filter, district and block found by any part of their names, unassigned complaints, and a
complaint put into a district (its history, its keys, its alerts)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from log_backends import complaint

from mealwatch.log import ComplaintChange, Filters, NewComplaint
from mealwatch.children import ALL_CHILDREN, children_named
from mealwatch.severity import TriageKey, death_or_hospital, keyword_level, triage_key, with_urgency


@pytest.mark.parametrize(
    "text, children, grave",
    [
        ("12 children vomiting, 3 in hospital", 12, True),
        ("2 children vomited after lunch", 2, False),
        ("Teen bachche ulti kar rahe the", 3, False),
        ("बारह बच्चे बीमार, दो अस्पताल में भर्ती", 12, True),
        ("१२ छात्रों को उल्टी हुई", 12, False),
        ("20 से अधिक बच्चे बीमार", 20, False),
        ("over 30 kids sick", 30, False),
        ("Do bachche aspatal me bhartee hain", 2, True),
        ("No meal today, gas over", 0, False),
        ("The hospitality of the cook was poor", 0, False),  # "hospital" as a whole word only
        ("One child died after the meal", 1, True),
    ],
)
def test_severity_reads_deaths_hospitals_and_children_in_three_scripts(text, children, grave):
    assert (children_named(text), death_or_hospital(text)) == (children, grave)
    level = keyword_level(text, ["illness"])
    rank = {"death": 4, "hospital": 3, "unwell": 1}[level]
    assert (rank >= 3) == grave and (level == "death") == ("died" in text)
    assert triage_key(level, "high", text) == 1_000_000 * rank + 20_000 + children
    assert triage_key(level, "low", text) == 1_000_000 * rank + children


@pytest.mark.parametrize(
    "text, children",
    [
        ("சாம்பார்ல பல்லி, 12 குழந்தைகள் வாந்தி எடுத்தாங்க", 12),
        ("பன்னிரண்டு குழந்தைகளுக்கு வயிற்றுவலி", 12),
        ("GH la admit, 10 pasanga", 10),
        ("১২ জন ছাত্র অসুস্থ হয়ে পড়ে", 12),
        ("పది మంది పిల్లలు వాంతులు చేసుకున్నారు", 10),
        ("ಐದು ಮಕ್ಕಳು ಆಸ್ಪತ್ರೆಗೆ ದಾಖಲು", 5),
        ("تین بچوں کو قے ہوئی", 3),
        ("5ஆம் வகுப்பு குழந்தைகள் வாந்தி", 0),  # a class, not a count
        ("class 5 la padikira pasanga ku vomit", 0),
        ("sabhi bachche bimar pad gaye", ALL_CHILDREN),
        ("The cook asked for 200 rupees", 0),
    ],
)
def test_children_are_counted_in_every_language(text, children):
    assert children_named(text) == children


def test_the_key_keeps_its_parts_and_a_correction_changes_only_the_urgency():
    key = triage_key("clinic", "high", "12 children vomited")
    assert TriageKey.of(key) == TriageKey("clinic", 2, 12)
    assert TriageKey.of(with_urgency(key, "low")) == TriageKey("clinic", 0, 12)
    assert (
        triage_key("death", "low", "x")
        > triage_key("hospital", "high", "99 children")
        > triage_key("clinic", "high", "x")
        > triage_key("unwell", "high", "x")
        > triage_key("none", "high", "400 children")
    )


def add(store, text, labels, urgency, **record):
    probs = {label: 0.9 for label in labels} | {"other": 0.1}
    return store.add(NewComplaint(text, labels, probs, urgency, "m1", review_reasons=record.pop("review", []),
                                  **record))  # fmt: skip


def test_the_triage_order_puts_the_worst_first_and_pages_by_cursor(log_backend):
    store = log_backend.open()
    flagged_low = add(store, "When will the new menu come?", ["other"], "low", review=["close call"])
    worm = add(store, "A worm in the rice", ["foreign_object"], "high")
    hospital = add(store, "12 children vomiting, 3 in hospital", ["illness"], "high")
    two = add(store, "2 children vomited after lunch", ["illness"], "high")
    dirty = add(store, "Kitchen dirty, 40 children eat there", ["poor_hygiene"], "medium")
    twelve = add(store, "बारह बच्चे बीमार", ["illness"], "high")
    expected = [hospital, twelve, two, worm, dirty, flagged_low]
    assert [c["id"] for c in store.list(order="triage", limit=None).items] == expected
    assert store.list(order="queue", limit=None).items[0]["id"] == flagged_low  # the old queue: review first
    seen, cursor = [], None
    while True:  # two at a time, by cursor: the same order
        page = store.list(order="triage", limit=2, after=cursor)
        seen += [c["id"] for c in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == expected
    # a correction to a more urgent label moves a complaint up (its severity follows the urgency)
    store.update(flagged_low, ComplaintChange(labels=["illness"], urgency="high"), by="Ravi")
    assert store.get(flagged_low)["severity"] == 20_000
    assert [c["id"] for c in store.list(order="triage", limit=None).items][-2:] == [flagged_low, dirty]


def test_a_log_from_before_severity_gets_the_severity_of_its_complaints(log_backend):
    log_backend.migrate_to(8)
    log_backend.execute(
        "INSERT INTO complaints (text, labels, probabilities, urgency, urgency_rank, model_version, created_at,"
        " status, status_changed_at, review, needs_review, district, district_key, block, block_key) VALUES"
        " ('3 bachche aspatal me', '[\"illness\"]', '{\"illness\": 0.9}', 'high', 0, 'm0',"
        " '2024-05-01T10:00:00.000000Z', 'new', '2024-05-01T10:00:00.000000Z', '[]', ?, 'Gaya', 'gaya', 'Bodh Gaya',"
        " 'bodh gaya')",
        (False,),
    )
    store = log_backend.open()
    assert store.get(1)["severity"] == 3_020_003  # hospital (the rule: no model read it), high, 3 children
    assert store.get(1)["severity_level"] == "hospital" and store.get(1)["children"] == "3"
    assert [c["id"] for c in store.list(Filters(block="bodh")).items] == [1]  # its places are searchable too


def test_incident_dates_partial_places_and_unassigned_complaints(log_backend):
    store = log_backend.open()
    utc = timezone.utc
    a = add(store, "a", ["other"], "low", district="Gaya", block="Bodh Gaya",
            incident_at=datetime(2025, 5, 20, 9, tzinfo=utc))  # fmt: skip
    b = add(store, "b", ["other"], "low", district="East Champaran", block="Motihari Sadar")
    c = add(store, "c", ["other"], "low")
    arrival = store.get(b)["created_at"]

    def ids(**kw):
        return sorted(x["id"] for x in store.list(Filters(**kw), limit=None).items)

    assert ids(block="bodh") == [a] and ids(block="SADAR") == [b] and ids(district="champ") == [b]
    assert ids(district="a") == [a, b] and ids(district="patna") == [] and ids(block="%") == []
    assert ids(unassigned=True) == [c] and ids(unassigned=False) == [a, b]
    may = {"since": datetime(2025, 5, 20, tzinfo=utc), "until": datetime(2025, 5, 21, tzinfo=utc)}
    assert ids(dates="incident", **may) == [a] and ids(**may) == []  # arrival: today, not 20 May
    today = datetime.fromisoformat(arrival.replace("Z", "+00:00")).replace(hour=0, minute=0, second=0, microsecond=0)
    assert ids(dates="incident", since=today) == [b, c]  # no incident time: the arrival counts
    assert store.list(Filters(dates="incident", **may)).total == 1 == store.list(Filters(unassigned=True)).total


def test_a_complaint_put_into_a_district_moves_with_its_keys_and_history(log_backend):
    store = log_backend.open()
    i = store.add(complaint("Lizard in the dal", ["foreign_object"], "high", school="GPS Rampur"))
    assert store.list(Filters(unassigned=True)).total == 1
    moved = store.update(i, ComplaintChange(district="Gaya", block="Bodh Gaya"), by="State cell")
    assert (moved["district"], moved["block"]) == ("Gaya", "Bodh Gaya")
    assert store.list(Filters(unassigned=True)).total == 0 and store.get(i, ("gaya",)) is not None
    assert [c["id"] for c in store.list(Filters(district="gay")).items] == [i]
    assert [c["id"] for c in store.list(Filters(block="bodh")).items] == [i]
    assert [(c["field"], c["old"], c["new"], c["by"]) for c in store.changes(i)] == [
        ("district", None, "Gaya", "State cell"), ("block", None, "Bodh Gaya", "State cell")]  # fmt: skip
    when = datetime.now(timezone.utc)
    near = store.nearby("school", "name:gaya|gps rampur", when.replace(year=when.year - 1), when)
    assert [c["id"] for c in near] == [i]  # its school is now a school of Gaya for the alert rules
    store.update(i, ComplaintChange(block=""), by="State cell")
    assert store.get(i)["block"] is None and store.get(i)["district"] == "Gaya"
