"""Bad inputs against every endpoint of the service, counting the answers that must never happen.

Builds a tiny random classifier (no training, no download), serves it in-process (FastAPI's TestClient,
addressed to 127.0.0.1) with a fresh SQLite log, then sends --inputs generated bad requests — wrong types,
broken JSON and multipart bodies, invisible and surrogate texts, unclosed CSV quotes, extreme dates and ids,
foreign Host headers, cross-site writes, reused idempotency keys, record fields that cannot be stored (issue 15:
district, block, incident dates, channel, phone, extra fields), corrections, assignee and notes, alert
acknowledgements and complaint histories, forged or broken page cursors, searches, similar complaints and
incidents with broken queries, ids and bodies (issue 25) — each one that could save asking to
save. Prints the answers by status, the number of 5xx answers and the number of rows written by requests that
were refused (the log's complaints, and the complaints and alerts a request could change, before and after each
refused request). It does so twice: without accounts, and with accounts on, signed in as a state admin (a session
cookie and its CSRF token). Then it runs the role matrix (tests/role_matrix.py: every route x no session, viewer,
officer, admin, another district's officer, a district's admin, an expired session, a revoked token, a disabled
user; full-phone reads and a district admin's grants among the requests) and prints the statuses that differ from
the expected ones, and counts the results of search, similar complaints and incidents that belong to another
district than the officer's (issue 25). Last, issue 27's cases, one line per defect with its count (trust_scope.py:
scope and privilege, in-process; trust_attack.py and trust_failure.py: attacks and failures on real servers — login
storms, list bombs, half-open connections, a 2,000-row upload with alerts and a stop, PostgreSQL stopped under load,
damaged weights and logs), and issue 36's (trust_moves.py: scope through district moves and merges, a disabled
admin's tokens, 8 threads classifying and searching, the encoder folder's digest, damage and repair, the search
index after moves and its counts, logins at once and odd CSV files). Targets: 0 5xx, 0 rows written, 0 unexpected
statuses, 0 for every case.

With --postgres, every log of the in-process parts (the bad inputs, the role matrix, the cross-district results and
issue 36's cases) is a database of a throw-away PostgreSQL cluster (tests/log_backends.py: Debian's server binaries
under /usr/lib/postgresql, and psycopg); issue 27's cases keep their SQLite files.

    python benchmarks/security_probe.py [--inputs 1200] [--seed 0] [--half-open 5000] [--no-load] [--postgres]
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import logging
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WEIRD_TEXTS = [
    "", " ", "\t\n", "\u200b\u200c", "\u2060\ufeff", "\u202e\u202c", "\u0301", "\x00", "dal\x00", "\ud800",
    "ok \udfff", "a" * 5001, "\U0001f922" * 2600, "{{data}}" * 700,
]  # fmt: skip
WEIRD_VALUES = [None, 5, -1, 2**63, 1.5, True, [], {}, ["x"], {"text": "x"}, "yes", "on", "1"]
BAD_DATES = ["9999-12-31", "0001-01-01T00:00+05:30", "9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+00:00",
             "2024-02-30", "2024-13-01", "yesterday", "1e9", "2024-05-01T25:00", "\x00"]  # fmt: skip
BAD_IDS = [str(2**63), str(2**64), str(-(2**63) - 1), "1e3", "abc", "0x10", "%00", "1.0", "-0"]
#: record field values that cannot be stored as given (issue 15's fields)
BAD_RECORD = {
    "school": ["\ud800", "x" * 201, "\x00", 7],
    "udise": ["123", "0912345678x", "\udc00", 9123456789],
    "district": ["Gaya \ud800", "d" * 201, "\x00", ["Gaya"]],
    "block": ["\udfff", "b" * 201, {"name": "x"}],
    "incident_date": ["0001-01-01", "9999-12-31T23:00-05:00", "0001-01-01T00:00+05:30", "1999-12-31", "31/01/2025",
                      "2025-02-30", "\x00", 20250131],
    "channel": ["fax", "", "\ud800", 1],
    "reporter_phone": ["12", "call me", "+" + "9" * 30, "=1+1", "\udc00"],
    "extra": [{"ward": "\ud800"}, {"k" * 201: "v"}, {str(i): "v" for i in range(51)}, {"ward": 7}, ["x"], "x"],
}  # fmt: skip


def tiny_model(folder: Path) -> Path:
    import torch

    from mealwatch import Encoder, EncoderConfig, Tokenizer
    from mealwatch.classifier import Classifier, ClassifierConfig
    from mealwatch.labels import LABELS
    from mealwatch.pipeline import Pipeline

    torch.manual_seed(0)
    tokenizer = Tokenizer.from_pretrained()
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=64)  # fmt: skip
    Pipeline(Classifier(Encoder(config), ClassifierConfig(list(LABELS), True)), tokenizer).save(folder)
    return folder


Request = tuple[str, str, dict]  # method, path, keyword arguments of the client's request


def json_body(path: str, body: object) -> Request:
    raw = json.dumps(body).encode()  # lone surrogates go as \\ud800 escapes, as a client would send them
    return "POST", path, {"content": raw, "headers": {"content-type": "application/json"}}


def bad_classify(r: random.Random) -> Request:
    body: dict = {"text": r.choice(WEIRD_TEXTS), "save": True}
    twist = r.randrange(6)
    if twist == 0:
        body = {"text": "no meal today", "save": r.choice(WEIRD_VALUES[1:])}
    elif twist == 1:
        body = {"text": "no meal today", "save": True, "explain": r.choice(["shap", "", None, 1, "IG"])}
    elif twist == 2:
        body = {"text": "no meal today", "save": True, "explain": "ig", "steps": r.choice([0, -1, 301, 2**63, "5"])}
    elif twist == 3:
        body = {"text": "no meal today", "school": r.choice(["\ud800", "x" * 201, "\x00", 7]), "save": True}
    elif twist == 4:
        body = {r.choice(["txt", "Text", "colour"]): "no meal", "save": True}
    return json_body("/api/classify", body)


def bad_batch(r: random.Random) -> Request:
    choice = r.randrange(5)
    if choice == 0:
        body: object = {"texts": ["fine", r.choice(WEIRD_TEXTS)], "save": True}
    elif choice == 1:
        body = {"texts": ["a"] * r.choice([0, 257, 1000]), "save": True}
    elif choice == 2:
        body = {"texts": ["a"], "items": [{"text": "b"}], "save": True}
    elif choice == 3:
        body = {
            "items": [{"text": "ok", "school": r.choice(WEIRD_VALUES)}, {"text": r.choice(WEIRD_TEXTS)}],
            "save": True,
        }
    else:
        body = r.choice(WEIRD_VALUES)
    return json_body("/api/classify/batch", body)


def bad_csv(r: random.Random) -> Request:
    files = [
        b'text,school\nfine,S1\n"the dal was cold,S2\nno eggs,S3\n',
        b'text\n"stray "quote" here"\n',
        "text\ncaf\u00e9\n".encode("latin-1"),
        b"text\nrice, dal and worms\n",
        b"txt\nhello\n",
        b"text\n\n",
        b"",
        b"text\n" + "\u200b".encode() + b"\n",
        b"text\n" + b"x" * 5001 + b"\n",
        b"text\n" + b"a\n" * 2001,
        b"\xff\xfe\x00t\x00e\x00x\x00t",
        b"text\nnul\x00here\n",
    ]
    choice = r.randrange(4)
    if choice == 0:
        return (
            "POST",
            "/api/classify/csv",
            {"files": {"file": ("x.csv", r.choice(files), "text/csv")}, "data": {"save": "true"}},
        )
    if choice == 1:
        good = b"text\nno meal today\n"
        return (
            "POST",
            "/api/classify/csv",
            {
                "files": {"file": ("x.csv", good, "text/csv")},
                "data": {"save": r.choice(["yes", "on", "1", "TRUE", "no"])},
            },
        )
    if choice == 2:
        body = r.choice([b"--x\r\nbroken", b"abc", b"--x--\r\n", b"\x00" * 10])
        kind = r.choice(["multipart/form-data", "multipart/form-data; boundary=x", "text/csv"])
        return "POST", "/api/classify/csv", {"content": body, "headers": {"content-type": kind}}
    fmt = r.choice(["xml", "CSV", ""])
    upload = {"files": {"file": ("x.csv", b"text\nok\n", "text/csv")}, "data": {"save": "true"}}
    return "POST", f"/api/classify/csv?format={fmt}", upload


def bad_json(r: random.Random) -> Request:
    path = r.choice(["/api/classify", "/api/classify/batch", "/api/attention"])
    raw = r.choice(
        [
            b"{text: oops",
            b'{"text": "\xff"}',
            b"",
            b"[",
            b"null",
            b'"text"',
            b"{}" * 3,
            bytes(r.randrange(256) for _ in range(20)),
        ]
    )
    kind = r.choice(["application/json", "text/plain", "application/x-www-form-urlencoded"])
    return "POST", path, {"content": raw, "headers": {"content-type": kind}}  # fmt: skip


def bad_attention(r: random.Random) -> Request:
    body = r.choice([
        {"text": r.choice(WEIRD_TEXTS)},
        {"text": "dal cold", "layer": r.choice([-1, 2, 2**63, "0", None])},
        {"text": "dal cold", "head": 1},
        {"text": "dal cold", "layer": 0, "head": r.choice([-1, 4, 99])},
        {"text": "dal cold", "include_special": "yes"},
    ])  # fmt: skip
    return json_body("/api/attention", body)


def bad_query(r: random.Random) -> Request:
    path = r.choice(["/api/complaints", "/api/stats", "/api/complaints.csv"])
    name, value = r.choice([
        ("from", r.choice(BAD_DATES)), ("to", r.choice(BAD_DATES)),
        ("limit", r.choice(["0", "501", "-1", "x", str(2**64)])), ("offset", r.choice(["-1", str(2**63), "1e3"])),
        ("label", r.choice(["rats", "", "\x00"])), ("urgency", "urgent"), ("status", "done"),
        ("needs_review", r.choice(["maybe", "2"])), ("channel", "fax"), ("corrected", "perhaps"),
        ("order", "newest"), ("full_phone", "please"), ("district", "\x00"),
    ])  # fmt: skip
    if path != "/api/complaints" and name in ("limit", "offset", "order"):
        name, value = "from", r.choice(BAD_DATES)
    return "GET", path, {"params": {name: value}}


def forged_cursor(value: object) -> str:
    """A page cursor as the service writes one (base64url of JSON) holding ``value``."""
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def bad_cursor(r: random.Random) -> Request:
    """A page cursor for /api/complaints: forged with values the log cannot store or compare, cut short, for the
    other order, with an offset, or no cursor at all."""
    order = r.choice(["queue", "review"])
    key: list = [order, 1, 1 if order == "queue" else 0.25, "2025-01-31T10:00:00.000000Z", 5]
    odd = {0: [["queue"], {"o": 1}, None, "newest", 7], 1: [2, -1, 1.0, "1", None, []],
           2: [2**70, -(2**64), 10**400, float("nan"), float("inf"), 7, "1", None, True],
           3: ["\ud800", "\x00", "2025-01-31T10:00:00.000000Z\x00", "٢٠٢٥-01-31T10:00:00.000000Z", "2025-01-31", 5, ""],
           4: [2**63, 2**70, -(2**63) - 1, 1.5, True, "5", None]}  # fmt: skip
    field = r.randrange(5)
    key[field] = r.choice(odd[field])  # one odd value in a cursor of the right shape
    if r.random() < 0.4:
        cursor = r.choice([
            forged_cursor(key[:4]), forged_cursor({"a": key}), "%%%", "x" * 501, "\x00", "WyJxdWV1ZSIsMCw5LCJ4IiwxXQ",
            forged_cursor([order, 1, 1, "2025-01-31T10:00:00.000000Z", 5])[: r.randrange(1, 40)],
            base64.urlsafe_b64encode(b"[" * 300).decode(),
        ])  # fmt: skip
    else:
        cursor = forged_cursor(key)
    params: dict = {"cursor": cursor, "order": order, "limit": "3"}
    if r.random() < 0.2:
        params["offset"] = "25"
    elif r.random() < 0.2:
        params["cursor"] = forged_cursor(["review" if order == "queue" else "queue", 0, 1, key[3], 5])
    return "GET", "/api/complaints", {"params": params}


def bad_record(r: random.Random) -> Request:
    name = r.choice(list(BAD_RECORD))
    field = {name: r.choice(BAD_RECORD[name])}
    if r.random() < 0.5:
        return json_body("/api/classify", {"text": "no meal today", "save": True, "district": "Gaya", **field})
    return json_body("/api/classify/batch", {"items": [{"text": "fine"}, {"text": "no meal", **field}], "save": True})


def bad_record_csv(r: random.Random) -> Request:
    cell = r.choice(["0001-01-01", "9999-12-31T23:00-05:00", "fax", "12", "\x00", '"open', "1999-12-31"])
    column = r.choice(["incident_date", "channel", "reporter_phone", "district", "udise"])
    upload = f"text,{column},ward\nno meal today,{cell},7\ndal cold,,8\n".encode("utf-8", "surrogatepass")
    return "POST", "/api/classify/csv", {"files": {"file": ("day.csv", upload, "text/csv")}, "data": {"save": "true"}}


def bad_change(r: random.Random) -> Request:
    body = r.choice([
        {"labels": r.choice([[], ["rats"], "illness", [1], ["illness\ud800"], None])},
        {"assignee": r.choice(["a" * 201, "\ud800", "\x00", 5, ["x"]])},
        {"notes": r.choice(["n" * 5001, "\udfff", "\x00", True])},
        {"by": r.choice(["\ud800", "b" * 201, 3]), "notes": "ok"},
        {"status": "in_progress", "labels": ["illness"], "colour": "red"},
        {},
        {"notes": None, "assignee": None},
    ])  # fmt: skip
    cid = r.choice(["1", "2"] + BAD_IDS)
    method, _, kwargs = json_body("/api/complaints", body)
    return "PATCH", f"/api/complaints/{cid}", kwargs


def bad_alerts(r: random.Random) -> Request:
    choice = r.randrange(4)
    if choice == 0:
        body = r.choice([{"status": "open"}, {"status": "ACKNOWLEDGED"}, {}, {"status": "acknowledged", "by": "\ud800"},
                         {"status": "acknowledged", "x": 1}, {"status": 1}, ["acknowledged"]])  # fmt: skip
        method, _, kwargs = json_body("/api/alerts", body)
        return "PATCH", f"/api/alerts/{r.choice(['1'] + BAD_IDS)}", kwargs
    if choice == 1:
        good = {"status": "acknowledged"}
        return "PATCH", f"/api/alerts/{r.choice(BAD_IDS + ['999'])}", {"json": good}
    if choice == 2:
        return "GET", f"/api/complaints/{r.choice(BAD_IDS + ['999'])}/history", {}
    name, value = r.choice([("status", "closed"), ("limit", "0"), ("limit", "501"), ("offset", str(2**63)),
                            ("offset", "-1")])  # fmt: skip
    return "GET", "/api/alerts", {"params": {name: value}}


def bad_page(r: random.Random) -> Request:
    if r.random() < 0.3:  # bytes no text can hold: a surrogate's UTF-8 form, a lone continuation byte, a NUL
        return "GET", "/attention?text=" + r.choice(["%ED%A0%80", "%80", "%00", "%E2%80%8B", "%FF%FE"]), {}
    texts = [t for t in WEIRD_TEXTS if not any("\ud800" <= c <= "\udfff" for c in t)]
    return "GET", "/attention", {"params": {"text": r.choice(texts), "explain": r.choice(["true", "maybe"])}}


def bad_ids(r: random.Random) -> Request:
    cid = r.choice(BAD_IDS)
    if r.random() < 0.5:
        return "GET", f"/api/complaints/{cid}", {}
    status = r.choice(["in_progress", "done", "", None, 5])
    return "PATCH", f"/api/complaints/{cid}", {"json": {"status": status}}


def bad_moves(r: random.Random) -> Request:
    return (
        "PATCH",
        "/api/complaints/1",
        {"json": r.choice([{"status": "resolved"}, {"status": "new"}, {"status": "x"}, {}])},
    )


def cross_site_change(r: random.Random) -> Request:
    """A well-formed change, refused only because another site sends it."""
    return r.choice([
        ("PATCH", "/api/complaints/2", {"json": {"labels": ["other"], "assignee": "Mallory", "notes": "closed"}}),
        ("PATCH", "/api/complaints/2", {"json": {"status": "in_progress"}}),
        ("PATCH", "/api/alerts/1", {"json": {"status": "acknowledged"}}),
    ])  # fmt: skip


def foreign(r: random.Random) -> Request:
    method, path, kwargs = r.choice([bad_classify, bad_csv, cross_site_change])(r)
    if method == "POST" and "files" in kwargs:
        kwargs["data"] = {"save": "true"}
    if r.random() < 0.5:
        kwargs["headers"] = {**kwargs.get("headers", {}), "host": r.choice(["evil.example", "127.0.0.1.nip.io", ""])}
    else:
        kwargs["headers"] = {**kwargs.get("headers", {}), "origin": r.choice(["http://evil.example", "null"]),
                             "sec-fetch-site": r.choice(["cross-site", "same-site"])}  # fmt: skip
    good = r.choice([json_body("/api/classify", {"text": "no meal today", "save": True}), cross_site_change(r)])
    if r.random() < 0.5:
        return method, path, kwargs
    return good[0], good[1], {**good[2], "headers": {**good[2].get("headers", {}), **kwargs["headers"]}}


def reused_key(r: random.Random) -> Request:
    key = r.choice(["probe-key", "x" * 201, "has space", ""])
    method, path, kwargs = json_body("/api/classify", {"text": f"another complaint {r.randrange(10**6)}", "save": True})
    kwargs["headers"]["idempotency-key"] = key
    return method, path, kwargs


def bad_search(r: random.Random) -> Request:
    """Search, similar complaints and incidents (issue 25) with broken queries, ids and bodies."""
    choice = r.randrange(6)
    if choice == 0:
        q = r.choice(WEIRD_TEXTS + ["x" * 501, "dal " * 200, "%", "' OR 1=1 --", "\ud800"])
        return "GET", "/api/search", {"params": {"q": q, "k": r.choice(["10", "0", "51", "-1", "x", "1e9"])}}
    if choice == 1:
        cid = r.choice(["1"] + BAD_IDS + ["999"])
        return "GET", f"/api/complaints/{cid}/similar", {"params": {"within": r.choice(["block", "all", "state", ""])}}
    if choice == 2:
        name, value = r.choice([("status", "merged"), ("min_size", "0"), ("limit", "201"), ("offset", str(2**63)),
                                ("min_size", "x")])  # fmt: skip
        return "GET", "/api/incidents", {"params": {name: value}}
    if choice == 3:
        body = r.choice([{"incident_ids": [1]}, {"incident_ids": []}, {"incident_ids": "1,2"},
                         {"incident_ids": [1, -1]}, {"incident_ids": [1, 2**70]}, {"incident_ids": [1, 999]},
                         {"ids": [1, 2]}, {"incident_ids": list(range(300))}, ["x"]])  # fmt: skip
        return json_body("/api/incidents/merge", body)
    if choice == 4:
        body = r.choice([{"complaint_ids": []}, {"complaint_ids": [999]}, {"complaint_ids": "2"}, {"x": 1},
                         {"complaint_ids": [2**70]}])  # fmt: skip
        method, _, kwargs = json_body("/api/incidents", body)
        return "POST", f"/api/incidents/{r.choice(['1'] + BAD_IDS)}/split", kwargs
    body = r.choice([{"status": "merged"}, {"status": None}, {}, {"status": "closed", "x": 1}, {"status": 1}])
    method, _, kwargs = json_body("/api/incidents", body)
    return "PATCH", f"/api/incidents/{r.choice(['1'] + BAD_IDS)}", kwargs


GENERATORS: dict[str, Callable[[random.Random], Request]] = {
    "classify": bad_classify, "batch": bad_batch, "csv": bad_csv, "unparseable body": bad_json,
    "attention": bad_attention, "log queries": bad_query, "attention page": bad_page, "ids": bad_ids,
    "status moves": bad_moves, "foreign host / cross-site": foreign, "idempotency key": reused_key,
    "record fields": bad_record, "record columns (CSV)": bad_record_csv, "corrections, notes": bad_change,
    "alerts, history": bad_alerts, "page cursors": bad_cursor, "search, incidents": bad_search,
}  # fmt: skip


def log_state(store, watched: list[int]) -> tuple:
    """What a refused request must not change: the number of complaints, the watched complaints' status, labels,
    assignee, notes and history, and every alert."""
    complaints = []
    for cid in watched:
        c = store.get(cid)
        complaints.append((c["status"], c["corrected_labels"], c["assignee"], c["notes"], len(store.changes(cid))))
    alerts = [(a["id"], a["status"], a["complaint_ids"]) for a in store.list_alerts(limit=None).items]
    incidents = [(i["id"], i["status"], i["complaint_ids"]) for i in store.list_incidents(limit=None).items]
    return store.count(), complaints, alerts, incidents


def probe(app, client, inputs: int, seed: int) -> bool:
    """Send ``inputs`` generated bad requests through ``client``; print the summary; True when all went right."""
    r = random.Random(seed)
    # one saved complaint, moved to resolved, for the status moves; one keyed save for the reused keys
    first = client.post("/api/classify", json={"text": "the dal was cold", "save": True}).json()["id"]
    for status in ("in_progress", "resolved"):
        client.patch(f"/api/complaints/{first}", json={"status": status})
    # one about a hospital admission, which raises an alert (id 1), for the corrections and acknowledgements
    hospital = {"text": "a child was taken to hospital", "school": "GPS Rampur", "district": "Gaya", "save": True}
    second = client.post("/api/classify", json=hospital).json()["id"]
    assert [a["id"] for a in client.get("/api/alerts").json()["items"]] == [1]
    client.post("/api/classify", json={"text": "keyed", "save": True}, headers={"idempotency-key": "probe-key"})
    app.state.service.search.wait(timeout=30)  # their vectors and incidents, for the search requests
    store, watched = app.state.service.store, [first, second]
    statuses: collections.Counter = collections.Counter()
    per_kind: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    server_errors, written, accepted = [], [], 0
    t0 = time.perf_counter()
    for i in range(inputs):
        kind = list(GENERATORS)[i % len(GENERATORS)]
        method, path, kwargs = GENERATORS[kind](r)
        app.state.service.search.wait(timeout=30)  # incidents of earlier saves placed: not this request's doing
        before = log_state(store, watched)
        answer = client.request(method, path, **kwargs)
        after = log_state(store, watched)
        statuses[answer.status_code] += 1
        per_kind[kind][answer.status_code] += 1
        if answer.status_code >= 500:
            server_errors.append((kind, method, path, answer.text[:200]))
        elif answer.status_code >= 400 and after != before:
            changed = max(1, after[0] - before[0])  # new complaints, else one changed row
            written.append((kind, method, path, answer.status_code, changed))
        elif answer.status_code < 400:
            accepted += 1
    seconds = time.perf_counter() - t0
    print(f"{inputs} generated bad inputs across {len(GENERATORS)} kinds, seed {seed}, {seconds:.1f} s")
    print("answers by status: " + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items())))
    for kind, counts in per_kind.items():
        print(f"  {kind:28s} " + ", ".join(f"{s}: {n}" for s, n in sorted(counts.items())))
    print(f"accepted (2xx, e.g. a replayed key or an odd but valid text): {accepted}")
    print(f"5xx answers: {len(server_errors)}")
    print(f"rows written by refused requests: {sum(w[-1] for w in written)}")
    for e in server_errors[:10]:
        print("  5xx:", *e)
    for w in written[:10]:
        print("  written:", *w)
    return not server_errors and not written


def role_matrix(model: Path, db: str | Path) -> bool:
    """tests/role_matrix.py: every route x every kind of caller; prints the cells and the unexpected statuses."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fastapi.testclient import TestClient

    from mealwatch.serve import create_app

    app = create_app(model, db, accounts=True, search="model")
    with TestClient(app, base_url="http://127.0.0.1"):  # its workers stop at the end
        return matrix_and_districts(app)


def matrix_and_districts(app) -> bool:
    """The role matrix and the cross-district results on ``app``."""
    from role_matrix import CALLERS, prepare, run_matrix, specs

    from mealwatch.serve.auth import RULES

    prepare(app)
    t0 = time.perf_counter()
    cells = run_matrix(app)
    wrong = [c for c in cells if c.got != c.expected]
    statuses = collections.Counter(c.got for c in cells)
    requests = sum(len(r) for r in specs().values())
    print(f"role matrix: {len(RULES)} routes ({requests} requests) x {len(CALLERS)} callers = {len(cells)} cells, "
          f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    print("answers by status: " + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items())))
    print(f"unexpected statuses: {len(wrong)}")
    for c in wrong[:10]:
        print(f"  {c.method} {c.path} as {c.caller}: {c.got}, expected {c.expected}")
    crossed = cross_district(app)
    return not wrong and not crossed


def cross_district(app) -> int:
    """Search, similar complaints and incidents asked by an officer of Patna and one of Gaya over complaints of
    both districts: every result of the other district is counted (target 0)."""
    from role_matrix import caller_client

    admin = caller_client(app, "admin")
    texts = ["a dead lizard in the khichdi, children vomiting", "no eggs again this week", "dal was watery",
             "बच्चे बेहोश हो गए", "பல்லி விழுந்த சாம்பார்"]  # fmt: skip
    for n, text in enumerate(texts * 2):
        district = ("Gaya", "Patna")[n % 2]
        admin.post("/api/classify", json={"text": text, "school": f"GPS {district}", "district": district,
                                          "save": True})  # fmt: skip
    app.state.service.search.wait(timeout=60)
    crossed = answers = 0
    for caller, own in (("officer", "gaya"), ("wrong district", "patna")):
        client = caller_client(app, caller)
        found = []
        for text in texts + ["hospital", "school meal"]:
            found += [r["complaint"] for r in client.get("/api/search", params={"q": text, "k": 50}).json()["results"]]
        for c in admin.get("/api/complaints", params={"limit": 200}).json()["items"]:
            answer = client.get(f"/api/complaints/{c['id']}/similar", params={"k": 50})
            if answer.status_code == 200:
                found += [r["complaint"] for r in answer.json()["results"]]
        incidents = client.get("/api/incidents", params={"min_size": 1, "limit": 200}).json()["items"]
        answers += len(found) + len(incidents)
        crossed += sum((c["district"] or "").casefold() != own for c in found)
        crossed += sum((i["district"] or "").casefold() != own for i in incidents)
    print(f"search, similar complaints and incidents for officers of Gaya and of Patna: {answers} results, "
          f"{crossed} of another district")  # fmt: skip
    return crossed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--half-open", type=int, default=5000, help="half-open connections for item 13")
    parser.add_argument(
        "--no-load", action="store_true", help="skip the cases on real servers (trust_attack.py, trust_failure.py)"
    )
    parser.add_argument("--postgres", action="store_true", help="the in-process logs on a throw-away PostgreSQL")
    parser.add_argument("--parallel-seconds", type=float, default=10.0, help="issue 36 item 3: 8 threads this long")
    args = parser.parse_args()
    logging.getLogger("mealwatch.alerts").setLevel(logging.ERROR)  # the alerts the cases raise are expected
    if args.postgres:
        sys.path.insert(0, str(ROOT / "tests"))
        from log_backends import PgCluster, postgres_bin_dir

        bin_dir = postgres_bin_dir()
        if bin_dir is None:
            print("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin: apt-get install postgresql")
            return 2
        cluster = PgCluster(bin_dir).start()
        try:
            return probe_all(args, lambda tmp, name: cluster.url(cluster.create_database()))
        finally:
            cluster.stop()
    return probe_all(args, lambda tmp, name: str(Path(tmp) / f"{name}.db"))


def probe_all(args: argparse.Namespace, new_db: Callable[[str, str], str]) -> int:
    """Every part of the probe, each in-process log made by ``new_db(temporary folder, name)``; 0 when all held."""

    from fastapi.testclient import TestClient

    import trust_attack  # issue 27's cases, beside this script
    import trust_failure
    import trust_moves  # issue 36's
    import trust_scope

    from mealwatch.accounts import hash_password, new_secret, secret_hash
    from mealwatch.serve import create_app

    good = True
    with tempfile.TemporaryDirectory() as tmp:
        model = tiny_model(Path(tmp) / "model")
        print("== without accounts (the single-user tool on loopback)")
        print(f"logs: {'PostgreSQL' if new_db(tmp, 'which').startswith('postgresql') else 'SQLite'}")
        app = create_app(model, new_db(tmp, "log"), search="model")
        with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
            good &= probe(app, client, args.inputs, args.seed)
        print("\n== with accounts, as a state admin (a session cookie and its CSRF token)")
        app = create_app(model, new_db(tmp, "accounts"), accounts=True, search="model")
        store = app.state.service.store
        admin = store.add_user("asha", hash_password("probe-admin-password"), "admin", ["*"])
        key, csrf = new_secret(), new_secret()
        store.start_session(secret_hash(key), admin["id"], csrf, "127.0.0.1")
        with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
            client.cookies.set("mealwatch_session", key)
            client.headers["X-CSRF-Token"] = csrf
            good &= probe(app, client, args.inputs, args.seed)
        print("\n== the role matrix")
        good &= role_matrix(model, new_db(tmp, "matrix"))
        print("\n== issue 27: scope and privilege (counts: target 0)")
        good &= trust_scope.run(model, Path(tmp))
        print("\n== issue 36: scope through moves, tokens, threads, the encoder folder (counts: target 0)")
        trust_moves.PARALLEL_SECONDS = args.parallel_seconds
        good &= trust_moves.run(model, lambda name: new_db(tmp, f"moves-{name}"))
        if not args.no_load:
            print("\n== issue 27: under attack and failure (counts: target 0; figures in brackets)")
            good &= trust_attack.run(model, Path(tmp), args.half_open)
            good &= trust_failure.run(model, Path(tmp))
    return 0 if good else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(main())
