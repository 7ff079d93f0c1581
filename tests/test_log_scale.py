"""The log's query paths for millions of complaints (schema step 7): keyset paging, the counts kept as complaints
arrive and change, school search through ``school_keys``; each checked against the plain query it replaces."""

from __future__ import annotations

import base64
import itertools
import json
from datetime import datetime, timezone
from urllib.parse import quote

import pytest
from log_backends import complaint
from test_serve_api import log_client, model_dir, predictor  # noqa: F401 - the tiny model and its clients

from mealwatch.log import SCHEMA_VERSION, ComplaintChange, CursorError, Filters, NewComplaint, SavedAnswer
from mealwatch.log.complaint_rows import COLUMNS, DAILY_COUNTS, ORDERS, decode_row, where_clause
from mealwatch.log.shapes import utc_now
from mealwatch.log.counts import RECOUNT

LABEL_SETS = [["illness"], ["spoiled_food", "illness"], ["other"], ["foreign_object"], ["poor_hygiene"]]
URGENCY = {"illness": "high", "foreign_object": "high", "spoiled_food": "medium", "poor_hygiene": "medium"}


def fill(store, n: int = 23) -> list[int]:
    """``n`` complaints in a few transactions (shared timestamps), with schools, review flags and certainties."""
    made = []
    for i in range(n):
        labels = LABEL_SETS[i % len(LABEL_SETS)]
        level = next((URGENCY[x] for x in labels if x in URGENCY), "low")
        c = NewComplaint(
            f"complaint {i}", labels, {x: 0.9 for x in labels}, level, "m1",
            school=["GPS Rampur", "UPS Sultan_pur", "Kanya MS रामपुर", None][i % 4], district="Gaya",
            block=["Bikram", "Sadar"][i % 2], review_reasons=["uncertain"] if i % 5 == 0 else [],
            certainty=None if i % 6 == 0 else (i * 7 % 10) / 10,
        )  # fmt: skip
        made.append(c)
    ids = []
    for chunk in (made[:5], made[5:6], made[6:15], made[15:]):
        ids += store.add_many(chunk)
    return ids


def change_some(store, ids: list[int]) -> None:
    store.set_status(ids[1], "in_progress")
    store.set_status(ids[2], "in_progress")
    store.set_status(ids[2], "resolved")
    store.update(ids[3], ComplaintChange(labels=["illness", "other"], urgency="high"), "asha")
    store.update(ids[10], ComplaintChange(labels=["other"], urgency="low"), "asha")
    store.update(ids[10], ComplaintChange(labels=["poor_hygiene"], urgency="medium", status="in_progress"))


def plain(store, filters: Filters, order: str = "queue") -> list[dict]:
    """What the list held before step 7: one query, no counts, no cursor."""
    where, params = where_clause(filters)
    with store._read() as tx:
        return [decode_row(r) for r in tx.all(f"SELECT {COLUMNS} FROM complaints{where}{ORDERS[order]}", params)]


FILTERS = [
    Filters(),
    Filters(status="new"),
    Filters(status="in_progress", urgency="medium"),
    Filters(label="illness"),
    Filters(label="other", corrected=True),
    Filters(needs_review=True),
    Filters(corrected=False, urgency="high"),
    Filters(school="rampur"),
    Filters(school="SULTAN_"),
    Filters(school="रामपुर", label="illness"),
    Filters(school="%"),
    Filters(block="sadar", needs_review=False),
    Filters(since=datetime(2000, 1, 1, tzinfo=timezone.utc), until=datetime(2100, 1, 1, tzinfo=timezone.utc)),
    Filters(until=datetime(2000, 1, 1, tzinfo=timezone.utc)),
]


@pytest.mark.parametrize("order", ["queue", "review"])
def test_cursor_pages_and_totals_match_the_plain_query(log_backend, order):
    store = log_backend.open()
    change_some(store, fill(store))
    for filters in FILTERS:
        expected = [c["id"] for c in plain(store, filters, order)]
        assert store.list(filters, limit=None, order=order).total == len(expected), filters
        seen, cursor = [], None
        for _ in range(20):
            page = store.list(filters, limit=4, order=order, after=cursor)
            assert page.total == len(expected)
            seen += [c["id"] for c in page.items]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert seen == expected, filters
        by_offset = list(itertools.chain.from_iterable(
            [c["id"] for c in store.list(filters, limit=4, offset=k, order=order).items]
            for k in range(0, len(expected), 4)
        ))  # fmt: skip
        assert by_offset == expected


@pytest.mark.parametrize("order", ["queue", "review"])
def test_offset_pages_are_slices_of_the_plain_query(log_backend, order):
    """A page that skips complaints (their ids read first, then the page's rows by id) is exactly that slice of the
    plain query, rows and all: ties on the arrival time, a label filter's subquery, every offset, past the end."""
    store = log_backend.open()
    change_some(store, fill(store))
    for filters in (Filters(), Filters(label="illness"), Filters(block="sadar", needs_review=False)):
        expected = plain(store, filters, order)
        assert len(expected) > 4, filters
        for limit in (1, 4):
            for offset in range(1, len(expected) + 2):
                page = store.list(filters, limit=limit, offset=offset, order=order)
                assert page.items == expected[offset : offset + limit], (filters, limit, offset)
                assert page.total == len(expected)
                assert (page.next_cursor is not None) == (offset + limit < len(expected))


def test_school_search_is_partial_any_case_and_literal(log_backend):
    store = log_backend.open()
    fill(store)
    names = {c["school"] for c in store.list(Filters(school="rAmPuR"), limit=None).items}
    assert names == {"GPS Rampur"}
    assert {c["school"] for c in store.list(Filters(school="sultan_"), limit=None).items} == {"UPS Sultan_pur"}
    assert store.list(Filters(school="sultanp")).total == 0  # "_" is a character, not a wildcard
    assert store.list(Filters(school="%")).total == 0
    assert {c["school"] for c in store.list(Filters(school="रामपुर"), limit=None).items} == {"Kanya MS रामपुर"}


def test_counts_follow_saves_corrections_and_moves(log_backend):
    store = log_backend.open()
    ids = fill(store)
    change_some(store, ids)
    where, params = where_clause(Filters())
    with store._read() as tx:
        rows = tx.all(DAILY_COUNTS.format(where=where), params)
    day = store.get(ids[0])["created_at"][:10]
    expected = {day: {r["label"]: int(r["n"]) for r in rows}}
    assert store.daily_label_counts() == expected
    assert expected[day]["illness"] == len([c for c in plain(store, Filters(label="illness"))]) == 10
    # illness: i % 5 in (0, 1), plus 3 (corrected to it), less 10 (corrected away); 1 moved on
    assert store.list(Filters(label="illness", status="new")).total == 9
    assert store.list(Filters(corrected=True)).total == 2
    assert store.list(Filters(label="poor_hygiene", status="in_progress", corrected=True)).total == 1
    since = datetime.fromisoformat(day).replace(tzinfo=timezone.utc)
    assert store.list(Filters(since=since)).total == 23 and store.daily_label_counts(Filters(since=since)) == expected


def test_labels_and_size_come_from_the_counts_as_corrections_change_them(log_backend):
    store = log_backend.open()
    a, b = store.add_many([complaint("lizard", ["foreign_object"], "high"), complaint("cold", ["other"], "low")])
    assert store.labels() == {"foreign_object", "other"} and store.count() == 2
    store.update(a, ComplaintChange(labels=["illness"], urgency="high"), "asha")  # its only label corrected away
    store.set_status(b, "in_progress")
    assert store.labels() == {"illness", "other"} and store.count() == 2
    store.update(a, ComplaintChange(labels=["foreign_object", "illness"], urgency="high"), "asha")
    assert store.labels() == {"foreign_object", "illness", "other"}
    change_some(store, fill(store))
    assert store.labels() == {r[0] for r in log_backend.execute("SELECT DISTINCT label FROM complaint_labels")}
    assert store.count() == 25 == log_backend.execute("SELECT count(*) FROM complaints")[0][0]


def forge(*key) -> str:
    """A cursor built by hand (JSON escapes such as \\ud800 or \\u0000 kept as the JSON text carries them)."""
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode().rstrip("=")


WHEN = "2025-01-31T10:00:00.000000Z"
#: cursors of the right shape whose values the database could not store or compare, for either order
FORGED = [
    *(forge(order, 0, second, WHEN, 5) for order in ("queue", "review")
      for second in (float("nan"), float("inf"), 10**30, 10**400, "1", None, True)),
    *(forge(order, 0, 1, when, 5) for order in ("queue", "review")
      for when in ("2025-01-31T10:00:00.000000Z\x00", "\ud800", "\x00", "٢٠٢٥-01-31T10:00:00.000000Z", 5, "")),
    *(forge(order, 0, 1, WHEN, last) for order in ("queue", "review") for last in (2**63, 2**70, -(2**63) - 1, 1.5,
                                                                                   True, "5")),
    *(forge(order, review, 1, WHEN, 5) for order in ("queue", "review") for review in (2, -1, 1.0, "1", None, [])),
    forge(["queue"], 0, 1, WHEN, 5), forge({"q": 1}, 0, 1, WHEN, 5), forge("queue", 0, 1, WHEN), forge(),
    base64.urlsafe_b64encode(json.dumps({c: 1 for c in "abcde"}).encode()).decode(),
    base64.urlsafe_b64encode(b"[" * 300 + b"]" * 300).decode(), "\x00", "\ud800", "%%%", "queue", "٣",
]  # fmt: skip


def test_a_broken_or_foreign_cursor_is_refused(log_backend):
    store = log_backend.open()
    fill(store)
    cursor = store.list(limit=3).next_cursor
    assert cursor is not None and store.list(limit=3, after=cursor).items[0]["id"] != store.list(limit=3).items[0]["id"]
    with pytest.raises(CursorError, match="order=queue, not order=review"):
        store.list(limit=3, order="review", after=cursor)
    with pytest.raises(CursorError, match="either a cursor or an offset"):
        store.list(limit=3, offset=3, after=cursor)
    for broken in ("", "abc", cursor[:-3], "W10", "WyJxdWV1ZSIsMCw5LCJ4IiwxXQ", *FORGED):  # 5th: urgency rank 9
        for order in ("queue", "review"):  # refused as broken, or (a well-formed queue cursor) as the other order's
            with pytest.raises(CursorError, match="start again"):
                store.list(limit=3, order=order, after=broken)


def test_the_api_pages_by_cursor(log_client):  # noqa: F811
    client, _ = log_client
    for i in range(7):
        client.post("/api/classify", json={"text": f"the dal was watery, day {i}", "save": True})
    first = client.get("/api/complaints", params={"limit": 3}).json()
    assert first["total"] == 7 and len(first["items"]) == 3 and first["next_cursor"]
    pages, cursor = [first["items"]], first["next_cursor"]
    while cursor:
        page = client.get("/api/complaints", params={"limit": 3, "cursor": cursor}).json()
        pages.append(page["items"])
        cursor = page["next_cursor"]
    everything = client.get("/api/complaints", params={"limit": 10}).json()
    assert [c["id"] for p in pages for c in p] == [c["id"] for c in everything["items"]]
    assert everything["next_cursor"] is None and [len(p) for p in pages] == [3, 3, 1]
    answer = client.get("/api/complaints", params={"cursor": "not-a-cursor"})
    assert answer.status_code == 422 and "cursor" in json.dumps(answer.json())
    answer = client.get("/api/complaints", params={"cursor": first["next_cursor"], "order": "review"})
    assert answer.status_code == 422 and "order=queue" in answer.text
    sendable = [f for f in FORGED if not any("\ud800" <= c <= "\udfff" for c in f)]  # a URL cannot carry those
    for forged in sendable + ["%ED%A0%80", "%00", "%FF%FE"]:
        for order in ("queue", "review"):
            query = f"cursor={forged if '%' in forged else quote(forged)}&order={order}&label=illness"
            answer = client.get(f"/api/complaints?{query}")
            assert answer.status_code == 422 and "query parameter 'cursor'" in answer.json()["error"], forged
    answer = client.get("/api/complaints", params={"cursor": first["next_cursor"], "offset": 3})
    assert answer.status_code == 422 and "either a cursor or an offset" in answer.text
    answer = client.get("/api/complaints", params={"cursor": "x" * 501})
    assert answer.status_code == 422 and "cursor" in answer.text


def test_a_keyed_save_and_its_retry_through_the_api_count_once(log_client):  # noqa: F811
    client, _ = log_client
    body = {"text": "a child was taken to hospital after the meal", "school": "GPS Rampur", "save": True}
    answers = [client.post("/api/classify", json=body, headers={"Idempotency-Key": "visit-1"}) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200] and answers[0].json() == answers[1].json()
    labels = answers[0].json()["labels"]
    page = client.get("/api/complaints").json()
    assert page["total"] == 1 and [c["id"] for c in page["items"]] == [answers[0].json()["id"]]
    for label in labels:
        assert client.get("/api/complaints", params={"label": label}).json()["total"] == 1
    day = page["items"][0]["created_at"][:10]
    stats = client.get("/api/stats", params={"from": day, "to": day}).json()
    assert stats["totals"] == {label: 1 if label in labels else 0 for label in stats["labels"]}
    assert client.get("/api/complaints", params={"school": "rampur"}).json()["total"] == 1


def test_step_7_counts_a_log_written_before_it(log_backend):
    assert log_backend.migrate_to(4) == 4  # a log of version 4, written through raw SQL
    log_backend.execute(
        "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version, created_at,"
        " status, status_changed_at, school_key, event_at) VALUES ('lizard', 'GPS Rampur', ?, '{}', 'high', 0, 'm',"
        " '2024-05-01T10:00:00.000000Z', 'new', '2024-05-01T10:00:00.000000Z', 'gps rampur',"
        " '2024-05-01T10:00:00.000000Z')",
        ('["foreign_object"]',),
    )
    log_backend.execute("INSERT INTO complaint_labels (complaint_id, label) VALUES (1, 'foreign_object')")
    store = log_backend.open()
    assert store.list(Filters(label="foreign_object")).total == 1
    assert store.daily_label_counts() == {"2024-05-01": {"foreign_object": 1}}
    assert [c["text"] for c in store.list(Filters(school="rampur")).items] == ["lizard"]
    assert store.add(complaint("more", ["foreign_object"], "high", school="GPS Rampur")) == 2
    assert store.list(Filters(label="foreign_object")).total == 2


def kept_counts(log_backend) -> list[tuple]:
    """The counts the log keeps, rows of zero left out (a complaint that moved on leaves its old row at 0)."""
    rows = log_backend.execute(
        "SELECT day, label, status, urgency, needs_review, corrected, n FROM complaint_counts WHERE n <> 0"
    )
    return sorted(same_types(r) for r in rows)


def recounted(log_backend) -> list[tuple]:
    """The counts as step 7 computes them from the rows (``RECOUNT``'s two SELECTs)."""
    selects = [statement[statement.index(" SELECT") :] for statement in RECOUNT[1:]]
    return sorted(same_types(r) for select in selects for r in log_backend.execute(select))


def same_types(row) -> tuple:
    """A counts row with its flags as booleans (SQLite stores 0/1, PostgreSQL booleans)."""
    day, label, status, urgency, review, corrected, n = row
    return day, label, status, urgency, bool(review), bool(corrected), int(n)


def render(ids: list[int]) -> tuple[str, str]:
    return json.dumps({"ids": ids}), "application/json"


def test_an_idempotent_save_and_its_replay_keep_the_counts(log_backend):
    store = log_backend.open()
    batch = [
        complaint("lizard in the dal", ["foreign_object", "illness"], "high", school="GPS Rampur"),
        complaint("no eggs", ["other"], "low", school="UPS Sultanpur"),
    ]
    first = store.add_many_once("key-1", "fp", batch, render)
    replay = store.add_many_once("key-1", "fp", batch, render)
    assert (first.complaint_ids, first.replayed, replay.complaint_ids, replay.replayed) == ([1, 2], False, [1, 2], True)
    day = store.get(1)["created_at"][:10]
    assert kept_counts(log_backend) == recounted(log_backend) == sorted(
        [(day, label, "new", urgency, False, False, 1)
         for label, urgency in (("", "high"), ("foreign_object", "high"), ("illness", "high"), ("", "low"),
                                ("other", "low"))]
    )  # fmt: skip
    assert store.list().total == 2 and store.list(Filters(label="illness")).total == 1
    assert store.list(Filters(status="new", urgency="low")).total == 1
    assert store.daily_label_counts() == {day: {"foreign_object": 1, "illness": 1, "other": 1}}
    assert sorted(log_backend.execute("SELECT school_key FROM school_keys")) == [("gps rampur",), ("ups sultanpur",)]
    assert [c["text"] for c in store.list(Filters(school="sultan")).items] == ["no eggs"]

    # a keyed save whose answer fails saves nothing: no complaint, no count, no school key
    def broken(ids):
        raise RuntimeError("rendering failed")

    with pytest.raises(RuntimeError):
        store.add_many_once("key-2", "fp", [complaint("worms", ["illness"], "high", school="KGBV Gaya")], broken)
    assert kept_counts(log_backend) == recounted(log_backend) and store.list(Filters(label="illness")).total == 1
    assert len(log_backend.execute("SELECT school_key FROM school_keys")) == 2
    # a second key counts on, and a correction of a keyed save moves its counts
    third = store.add_many_once("key-3", "fp", [complaint("worms", ["illness"], "high")], render)
    assert not third.replayed and store.count() == 3  # (PostgreSQL's ids skip the one the failed save drew)
    store.update(1, ComplaintChange(labels=["other"], urgency="low", status="in_progress"), "asha")
    assert kept_counts(log_backend) == recounted(log_backend)
    assert store.list(Filters(label="illness")).total == 1 and store.list(Filters(label="other")).total == 2
    assert store.list(Filters(status="in_progress", corrected=True)).total == 1


def test_a_version_5_log_keeps_its_saved_answers_through_step_7(log_backend):
    assert log_backend.migrate_to(5) == 5  # a log of main's version 5 (idempotency), written through raw SQL
    now = utc_now()
    log_backend.execute(
        "INSERT INTO complaints (text, school, labels, probabilities, urgency, urgency_rank, model_version, created_at,"
        " status, status_changed_at, school_key, event_at) VALUES ('lizard', 'GPS Rampur', ?, '{}', 'high', 0, 'm',"
        " ?, 'new', ?, 'gps rampur', ?)",
        ('["foreign_object"]', now, now, now),
    )
    log_backend.execute("INSERT INTO complaint_labels (complaint_id, label) VALUES (1, 'foreign_object')")
    log_backend.execute(
        "INSERT INTO saved_requests (key, fingerprint, answer, media_type, complaint_ids, created_at)"
        " VALUES ('key-1', 'fp', '{\"id\": 1}', 'application/json', '[1]', ?)",
        (now,),
    )
    store = log_backend.open()
    assert store.schema_version == SCHEMA_VERSION
    assert store.saved_answer("key-1") == SavedAnswer("fp", '{"id": 1}', "application/json", [1], True)
    replay = store.add_many_once("key-1", "fp", [complaint("lizard", ["foreign_object"], "high")], render)
    assert replay.replayed and store.count() == 1
    assert store.list(Filters(label="foreign_object")).total == 1 and kept_counts(log_backend) == recounted(log_backend)
    assert [c["text"] for c in store.list(Filters(school="rampur")).items] == ["lizard"]


def test_a_district_scope_pages_by_cursor_and_counts_its_own_rows(log_backend):
    """The kept counts cover every district: a scoped list's total and daily counts come from the scope's rows."""
    from mealwatch.log import scope

    store = log_backend.open()
    ids = fill(store)  # every complaint of fill() is in Gaya
    patna = store.add_many([NewComplaint(f"patna {i}", ["illness"], {"illness": 0.9}, "high", "m1", district="Patna")
                            for i in range(4)])  # fmt: skip
    for filters in (Filters(districts=scope(["Patna"])), Filters(label="illness", districts=scope(["patna"]))):
        seen, cursor, totals = [], None, set()
        while True:
            page = store.list(filters, limit=3, after=cursor)
            seen += [c["id"] for c in page.items]
            totals.add(page.total)
            if (cursor := page.next_cursor) is None:
                break
        assert seen == list(reversed(patna)) and totals == {4}
    gaya = store.list(Filters(districts=scope(["Gaya"])), limit=None)
    assert gaya.total == len(ids) and {c["id"] for c in gaya.items} == set(ids)
    day = store.list(limit=1).items[0]["created_at"][:10]
    assert store.daily_label_counts(Filters(districts=scope(["Patna"]))) == {day: {"illness": 4}}
    assert store.list(Filters(districts=())).total == 0 and store.list().total == len(ids) + 4


def test_step_8_keeps_a_version_7_logs_review_order(log_backend):
    assert log_backend.migrate_to(7) == 7  # a log of version 7, written through raw SQL
    for i, certainty in enumerate([0.4, None, 0.1, 0.4, 0.9]):
        when = f"2024-05-0{i + 1}T10:00:00.000000Z"
        log_backend.execute(
            "INSERT INTO complaints (text, labels, probabilities, urgency, urgency_rank, model_version, created_at,"
            " status, status_changed_at, event_at, certainty, needs_review) VALUES (?, '[\"other\"]', '{}', 'low', 2,"
            " 'm', ?, 'new', ?, ?, ?, ?)",
            (f"complaint {i}", when, when, when, certainty, i == 4),
        )
    store = log_backend.open()
    assert store.schema_version == SCHEMA_VERSION
    assert [c["text"] for c in store.list(order="review", limit=None).items] == [
        "complaint 4", "complaint 2", "complaint 3", "complaint 0", "complaint 1"
    ]  # fmt: skip
    assert [c["text"] for c in store.list(order="review", limit=2, offset=2).items] == ["complaint 3", "complaint 0"]


@pytest.mark.parametrize("order", ["queue", "review"])
def test_postgres_reads_the_complaints_an_offset_skips_from_the_orders_index_alone(pg_cluster, order):
    """The inner query of a page by offset is an index-only scan of the order's index (no skipped row is fetched)."""
    import psycopg
    from log_backends import PostgresBackend

    from mealwatch.log.complaint_rows import offset_page_sql

    backend = PostgresBackend(pg_cluster)
    store = backend.open()
    change_some(store, fill(store))
    with psycopg.connect(backend.db, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) complaints")  # as autovacuum leaves a table that mostly grows
        conn.execute("SET enable_seqscan = off")  # 23 rows: the planner would rather read the table
        conn.execute("SET enable_bitmapscan = off")
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + offset_page_sql(order, "", 5, 10)))
    assert f"Index Only Scan using complaints_{order}_page on complaints" in plan, plan


def test_a_blocks_complaints_of_some_days_are_one_range_of_its_index(log_backend):
    """Step 8: a filtered export (a block, some days) seeks its rows in ``complaints_block_key``, not all the days'."""
    store = log_backend.open()
    fill(store)
    filters = Filters(block="Sadar", since=datetime(2000, 1, 1, tzinfo=timezone.utc),
                      until=datetime(2100, 1, 1, tzinfo=timezone.utc))  # fmt: skip
    where, params = where_clause(filters, places={"block": ["sadar"]})  # "Sadar" is one block (step 9: place_keys)
    sql = f"SELECT {COLUMNS} FROM complaints{where}{ORDERS['queue']}"
    if log_backend.name == "sqlite":
        plan = "\n".join(r[-1] for r in log_backend.execute("EXPLAIN QUERY PLAN " + sql, tuple(params)))
        assert "complaints_block_key (block_key=? AND created_at>? AND created_at<?)" in plan, plan
    else:
        import psycopg

        with psycopg.connect(log_backend.db, autocommit=True) as conn:
            conn.execute("SET enable_seqscan = off")  # 23 rows: the planner would rather read the table
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql.replace("?", "%s"), params))
        cond = "Index Cond: ((block_key = 'sadar'::text) AND (created_at >= '2000-01-01T00:00:00.000000Z'::text)"
        assert "Index Scan using complaints_block_key" in plan and cond in plan, plan
    assert len(store.list(filters, limit=None).items) == 11 == len(plain(store, filters))
