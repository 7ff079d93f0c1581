"""Property-based fuzzing of every request the service takes (hypothesis): whatever arrives — well-formed, odd
or hostile — the answer is never a 5xx, and a request answered with a 4xx has written nothing to the log: no
complaint, no change to one (status, labels, assignee, notes, history), no alert acknowledged."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_serve_api import local_client, model_dir, predictor  # fixtures

from mealwatch.serve import create_app

settings.register_profile(
    "serve-fuzz", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
FUZZ = settings.get_profile("serve-fuzz")

#: any character, lone surrogates, NUL, direction controls and zero-width ones included
ANY_CHAR = st.characters(codec=None, exclude_categories=())
TEXTS = st.one_of(
    st.text(ANY_CHAR, max_size=40),
    st.sampled_from(["", " ", "\u200b", "\u202egpj.exe", "{{data}}", "\x00", "खाने में छिपकली", "=1+1", "a" * 5001]),
    st.text(st.sampled_from("ab \u0301\u200d\ud800\U0001f922\u0915\u093e"), max_size=12),
)
#: texts the model takes, so that what else a request carries decides its answer
GOOD_TEXTS = st.sampled_from(["no meal today", "खाने में छिपकली", "dal mein keede the 🤢", "the cook did not come"])
#: names that look right but cannot be stored as they are
ODD_NAMES = st.sampled_from(["Gaya \ud800", "\udc00", "G\x00", "n" * 201, " ", "\u202eayaG", "=HYPERLINK(1)"])
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), TEXTS)
JSON_VALUES = st.recursive(
    JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3), max_leaves=6
)
SAVE = st.one_of(st.just(True), JSON_VALUES)


def maybe(**fields) -> st.SearchStrategy[dict]:
    """Objects with any of ``fields`` (each its own strategy) and now and then a field no schema has."""
    return st.fixed_dictionaries({}, optional={**fields, "colour": JSON_VALUES})


#: issue 15's record fields, each sometimes well-formed and sometimes anything at all
DATES = st.sampled_from(
    [
        "2025-01-31",
        "2025-01-31T13:05+05:30",
        "0001-01-01",
        "9999-12-31T23:00-05:00",
        "1999-12-31",
        "2025-02-30",
        "31/01/2025",
        "9999-12-31",
        "0001-01-01T00:00+05:30",
    ]
)
RECORD = {
    "school": st.one_of(st.none(), ODD_NAMES, TEXTS),
    "udise": st.one_of(st.sampled_from(["09123456789", "0912 3456 789", "123"]), ODD_NAMES, JSON_VALUES),
    "district": st.one_of(st.sampled_from(["Gaya", "गया"]), ODD_NAMES, TEXTS, JSON_VALUES),
    "block": st.one_of(st.sampled_from(["Bodh Gaya"]), ODD_NAMES, TEXTS),
    "incident_date": st.one_of(DATES, DATES, ODD_NAMES, TEXTS, JSON_VALUES),
    "channel": st.one_of(st.sampled_from(["phone", "SMS", "fax"]), ODD_NAMES, JSON_VALUES),
    "reporter_phone": st.one_of(st.sampled_from(["+91 98765 43210", "12", "=1+1"]), ODD_NAMES, TEXTS, JSON_VALUES),
    "extra": st.one_of(st.dictionaries(st.one_of(TEXTS, ODD_NAMES), st.one_of(TEXTS, ODD_NAMES), max_size=3),
                       JSON_VALUES),
}  # fmt: skip

REQUESTS = {
    "/api/classify": st.fixed_dictionaries(
        {"text": st.one_of(GOOD_TEXTS, TEXTS), "save": st.one_of(st.just(True), st.just(True), SAVE)},
        optional={
            "explain": st.one_of(st.sampled_from(["none", "grad", "ig", "shap"]), JSON_VALUES),
            "steps": st.one_of(st.integers(-5, 4), st.integers(301, 2**64), JSON_VALUES), "colour": JSON_VALUES,
            **RECORD,
        },
    ),
    "/api/classify/batch": st.one_of(
        st.fixed_dictionaries({"texts": st.lists(TEXTS, min_size=1, max_size=4), "save": st.just(True)},
                              optional={"explain": st.sampled_from(["none", "grad", "bogus"]), "items": JSON_VALUES}),
        st.fixed_dictionaries({"items": st.lists(st.fixed_dictionaries({"text": st.one_of(GOOD_TEXTS, TEXTS)},
                                                                        optional=RECORD), max_size=3),
                               "save": st.just(True)}),
        maybe(texts=JSON_VALUES, items=JSON_VALUES, save=SAVE),
    ),
    "/api/attention": st.fixed_dictionaries(
        {"text": TEXTS},
        optional={"layer": st.one_of(st.integers(-3, 4), JSON_VALUES),
                  "head": st.one_of(st.integers(-3, 5), JSON_VALUES),
                  "include_special": JSON_VALUES, "colour": JSON_VALUES},
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def fuzz_client(predictor, tmp_path_factory):
    app = create_app(db_path=tmp_path_factory.mktemp("fuzz") / "log.db", predictor=predictor)
    with local_client(app, raise_server_exceptions=False) as client:
        hospital = {"text": "a child was taken to hospital", "school": "GPS Rampur", "save": True}
        assert client.post("/api/classify", json=hospital).status_code == 200  # raises an alert to acknowledge
        service = client.app.state.service
        for worker in (service.search, service.alerts):  # the save's background work done before any example reads
            if worker is not None:  # the log (the search thread's signals may poke the alert worker again)
                assert worker.wait(timeout=60)
        assert len(service.store.list_alerts(limit=None).items) == 1
        yield client


def stored(client) -> tuple:
    """What the log holds that a request could change: its complaints with every field a change touches, their
    histories' lengths, the alerts and the saved idempotency keys."""
    store = client.app.state.service.store
    complaints = [
        (c["id"], c["status"], c["status_changed_at"], c["corrected_labels"], c["corrected_at"], c["assignee"],
         c["notes"], len(store.changes(c["id"])))
        for c in store.list(limit=None).items
    ]  # fmt: skip
    alerts = [(a["id"], a["status"], a["updated_at"], a["complaint_ids"]) for a in store.list_alerts(limit=None).items]
    return complaints, alerts


def check(client, response, before: tuple) -> None:
    assert response.status_code < 500, response.text
    assert response.headers["content-type"].startswith(("application/json", "text/"))
    if response.status_code >= 400:
        assert "error" in response.json()
        assert stored(client) == before, f"a {response.status_code} wrote to the log: {response.text}"


@pytest.mark.parametrize("path", sorted(REQUESTS))
@FUZZ
@given(data=st.data(), raw=st.integers(0, 9), junk=st.binary(max_size=30))
def test_json_bodies(fuzz_client, path, data, raw, junk):
    body = data.draw(st.one_of(REQUESTS[path], REQUESTS[path], REQUESTS[path], JSON_VALUES))
    before = stored(fuzz_client)
    content = junk if raw == 0 else json.dumps(body).encode()  # a tenth of the bodies are not JSON at all
    r = fuzz_client.post(path, content=content, headers={"content-type": "application/json"})
    check(fuzz_client, r, before)


CSV_HEADERS = st.sampled_from(
    [["text", "school"], ["text", "district", "incident_date", "channel", "reporter_phone", "ward"],
     ["Complaint", "School Name", "UDISE", "Block", "Date"], ["school"]]
)  # fmt: skip


def csv_bytes(header: list[str], rows: list[list[str]]) -> bytes:
    """Rows joined as CSV by hand (no quoting: the odd ones are the point), a lone surrogate kept as its bytes."""
    return "\n".join(",".join(cells) for cells in [header, *rows]).encode("utf-8", "surrogatepass")


CSV_CELLS = st.one_of(
    GOOD_TEXTS, TEXTS, DATES, ODD_NAMES, st.sampled_from(["phone", "+91 98765 43210", "09123456789", '"open', 'a"b'])
)


@FUZZ
@given(
    content=st.one_of(
        st.binary(max_size=200),
        st.builds(csv_bytes, CSV_HEADERS, st.lists(st.lists(CSV_CELLS, max_size=6), max_size=4)),
    ),
    save=st.one_of(st.sampled_from(["true", "false"]), st.text(max_size=5)),
    name=st.text(ANY_CHAR, max_size=20),
    fmt=st.sampled_from(["json", "csv", "xml"]),
)  # fmt: skip
def test_csv_uploads(fuzz_client, content, save, name, fmt):
    before = stored(fuzz_client)
    files = {"file": (name.encode("utf-8", "surrogatepass").decode("utf-8", "replace"), content, "text/csv")}
    r = fuzz_client.post(f"/api/classify/csv?format={fmt}", files=files, data={"save": save})
    check(fuzz_client, r, before)


QUERY_VALUES = st.one_of(
    st.text(ANY_CHAR.filter(lambda c: not "\ud800" <= c <= "\udfff"), max_size=25),
    st.sampled_from(
        [
            "9999-12-31",
            "0001-01-01T00:00+05:30",
            "2024-02-30",
            "2024-05-01",
            "true",
            "-1",
            str(2**63),
            "\u200b",
            "9999-12-31T23:59:59-05:00",
            "0001-01-01",
        ]
    ),
    st.integers(-(2**70), 2**70).map(str),
)


def forged_cursor(value: object) -> str:
    """A page cursor as the service writes one (base64url of JSON), holding any value at all."""
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def cursors(order: str) -> st.SearchStrategy[str]:
    """Page cursors for ``order``: mostly the right shape with one value or more odd (NaN, 2^70, a surrogate or NUL
    escape, a time in another format, another order), now and then any JSON at all, or text that is no cursor."""

    def good_or(good: object, odd: st.SearchStrategy) -> st.SearchStrategy:
        return st.one_of(st.just(good), st.just(good), odd)

    key = st.tuples(
        good_or(order, st.one_of(st.sampled_from(["queue", "review", ["queue"], {"o": order}]), JSON_SCALARS)),
        good_or(1, JSON_SCALARS),
        good_or(1 if order == "queue" else 0.25,
                st.one_of(st.sampled_from([2**70, -(2**64), 10**400, float("nan"), float("inf"), 1.5, "1", None]),
                          st.integers(-(2**70), 2**70), st.floats(), JSON_SCALARS)),
        good_or("2025-01-31T10:00:00.000000Z",
                st.one_of(st.sampled_from(["9999-12-31T23:59:59.999999Z", "\ud800", "\x00", "2025-01-31T10:00Z",
                                           "٢٠٢٥-01-31T10:00:00.000000Z"]), TEXTS, JSON_SCALARS)),
        good_or(5, st.one_of(st.integers(-(2**70), 2**70), JSON_SCALARS)),
    ).map(lambda k: forged_cursor(list(k)))  # fmt: skip
    return st.one_of(key, key, key, JSON_VALUES.map(forged_cursor), QUERY_VALUES)


@FUZZ
@given(
    order=st.sampled_from(["queue", "review"]),
    data=st.data(),
    query=st.fixed_dictionaries(
        {},
        optional={"limit": st.sampled_from(["1", "3"]), "offset": st.just("0"), "label": st.just("illness"),
                  "status": st.just("new"), "school": st.sampled_from(["rampur", "%", "\u200b"])},
    ),
    cut=st.one_of(st.none(), st.none(), st.integers(0, 80)),
)  # fmt: skip
def test_page_cursors(fuzz_client, order, data, query, cut):
    if cut is None:
        cursor = data.draw(cursors(order))
    else:  # a cursor the service gave out, whole or cut short
        real = fuzz_client.get("/api/complaints", params={"limit": 1, "order": order})
        cursor = (real.json()["next_cursor"] or "")[:cut]
    before = stored(fuzz_client)
    check(fuzz_client, fuzz_client.get("/api/complaints", params={**query, "order": order, "cursor": cursor}), before)


@FUZZ
@given(
    path=st.sampled_from(["/api/complaints", "/api/stats", "/api/complaints.csv", "/attention", "/api/alerts"]),
    query=st.dictionaries(
        st.sampled_from(["label", "urgency", "school", "status", "needs_review", "from", "to", "limit", "offset",
                         "text", "explain", "district", "block", "channel", "udise", "corrected", "assignee",
                         "order", "full_phone", "cursor"]),
        QUERY_VALUES, max_size=4,
    ),
)  # fmt: skip
def test_queries(fuzz_client, path, query):
    before = stored(fuzz_client)
    check(fuzz_client, fuzz_client.get(path, params=query), before)


NAMES = st.one_of(st.sampled_from(["Ravi", "रवि", "", "   "]), ODD_NAMES, TEXTS, JSON_VALUES)
PATCHES = st.one_of(
    maybe(
        status=st.one_of(st.sampled_from(["new", "in_progress", "resolved"]), JSON_VALUES),
        labels=st.one_of(st.lists(st.sampled_from(["illness", "other", "hygiene", "bogus", " illness "]), max_size=3),
                         JSON_VALUES),
        assignee=NAMES,
        notes=st.one_of(NAMES, st.just("n" * 5001)),
        by=NAMES,
    ),
    JSON_VALUES,
)  # fmt: skip
OFFICER = st.one_of(st.none(), st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30))


@FUZZ
@given(
    cid=st.one_of(st.integers(-(2**70), 2**70).map(str), QUERY_VALUES.map(lambda v: v.replace("/", "_") or "x")),
    body=PATCHES,
    officer=OFFICER,
)  # fmt: skip
def test_complaint_paths(fuzz_client, cid, body, officer):
    from urllib.parse import quote

    saved = fuzz_client.post("/api/classify", json={"text": "the dal was cold", "save": True, "explain": "none"})
    assert saved.status_code == 200
    headers = {"content-type": "application/json", **({"X-Officer": officer} if officer is not None else {})}
    for path in (f"/api/complaints/{quote(cid, safe='')}", f"/api/complaints/{saved.json()['id']}"):
        before = stored(fuzz_client)
        check(fuzz_client, fuzz_client.get(path), before)
        check(fuzz_client, fuzz_client.get(path + "/history"), before)
        before = stored(fuzz_client)
        check(fuzz_client, fuzz_client.patch(path, content=json.dumps(body).encode(), headers=headers), before)


@FUZZ
@given(
    aid=st.one_of(st.sampled_from(["1", "2", "0", str(2**63)]), st.integers(-(2**70), 2**70).map(str)),
    body=st.one_of(maybe(status=st.one_of(st.just("acknowledged"), JSON_VALUES), by=NAMES), JSON_VALUES),
    officer=OFFICER,
)  # fmt: skip
def test_alert_paths(fuzz_client, aid, body, officer):
    headers = {"content-type": "application/json", **({"X-Officer": officer} if officer is not None else {})}
    before = stored(fuzz_client)
    check(fuzz_client, fuzz_client.patch(f"/api/alerts/{aid}", content=json.dumps(body).encode(), headers=headers),
          before)  # fmt: skip
