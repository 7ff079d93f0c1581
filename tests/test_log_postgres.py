"""What only the PostgreSQL log has: connection errors in one line, the ``postgres://`` alias and its version
table, servers starting together on an empty database, two writers on one database, and rows identical to SQLite's."""

from __future__ import annotations

import threading

import pytest
from log_backends import PostgresBackend, SqliteBackend, complaint, free_port

from mealwatch.log import SCHEMA_VERSION, Filters, NewComplaint, StoreError, TransitionError, open_log, redact


def test_postgres_errors_are_one_clear_line_without_the_password(pg_cluster):
    cases = [
        (f"postgresql://mealwatch:pw@127.0.0.1:{free_port()}/log", "Connection refused"),
        (pg_cluster.url(pg_cluster.create_database(), password="wrong-secret"), "password authentication failed"),
        (pg_cluster.url("no_such_database"), 'database "no_such_database" does not exist'),
        ("postgresql://127.0.0.1:1/x?nonsense=1", 'invalid URI query parameter: "nonsense"'),
    ]
    for url, reason in cases:
        with pytest.raises(StoreError) as caught:
            open_log(url)
        message = str(caught.value)
        assert message.startswith(f"cannot open the complaint log {redact(url)} (") and reason in message, message
        assert "\n" not in message and "wrong-secret" not in message and ":pw@" not in message


def test_postgres_url_alias_and_schema_version_table(pg_cluster):
    backend = PostgresBackend(pg_cluster)
    log = open_log(backend.db.replace("postgresql://", "postgres://"))
    assert log.schema_version == SCHEMA_VERSION and "***" in repr(log) and "test-password" not in repr(log)
    assert [r[0] for r in backend.execute("SELECT version FROM schema_version ORDER BY version")] == list(
        range(1, SCHEMA_VERSION + 1)
    )
    log.close()
    with pytest.raises(StoreError, match="is closed"):
        log.count()


def test_postgres_concurrent_first_start_on_an_empty_database(pg_cluster):
    """Servers starting together on an empty database take turns migrating (advisory lock): all end at version 3."""
    backend = PostgresBackend(pg_cluster)
    barrier, logs, errors = threading.Barrier(6), [], []

    def start() -> None:
        barrier.wait()
        try:
            logs.append(open_log(backend.db))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and [log.schema_version for log in logs] == [SCHEMA_VERSION] * 6
    assert [r[0] for r in backend.execute("SELECT version FROM schema_version ORDER BY version")] == list(
        range(1, SCHEMA_VERSION + 1)
    )
    for log in logs:
        log.close()


def test_postgres_two_writers_lose_nothing_and_take_turns_on_a_status(pg_cluster):
    """Two logs on one database (two serve processes), four threads each, saving one at a time and in batches."""
    backend = PostgresBackend(pg_cluster)
    logs = [backend.open(), backend.open()]
    acknowledged: list[tuple[int, str]] = []
    lock, errors = threading.Lock(), []

    def save(log, writer: int, worker: int) -> None:
        try:
            for n in range(20):
                texts = [f"w{writer}.{worker} #{n}"] if n % 2 else [f"w{writer}.{worker} #{n}.{k}" for k in range(3)]
                ids = log.add_many([complaint(t, ["illness", "spoiled_food"], "high", f"S{writer}") for t in texts])
                with lock:
                    acknowledged.extend(zip(ids, texts))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=save, args=(log, w, k)) for w, log in enumerate(logs) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    expected = 2 * 4 * (10 * 1 + 10 * 3)
    ids = [i for i, _ in acknowledged]
    assert len(ids) == len(set(ids)) == expected
    stored = {c["id"]: c["text"] for c in logs[1].list(limit=None).items}
    assert stored == dict(acknowledged)  # every acknowledged id present exactly once, with its own text
    assert logs[0].count() == expected and logs[0].list(Filters(school="S1")).total == expected // 2
    assert sum(n["illness"] for n in logs[0].daily_label_counts().values()) == expected

    # both processes try the same moves at once: for each complaint exactly one wins, the other is refused
    targets = ids[:30]
    outcomes: list[str] = []

    def move(log) -> None:
        for i in targets:
            try:
                log.set_status(i, "in_progress")
                outcomes.append("moved")
            except TransitionError:
                outcomes.append("refused")

    movers = [threading.Thread(target=move, args=(log,)) for log in logs]
    for t in movers:
        t.start()
    for t in movers:
        t.join()
    assert sorted(outcomes) == ["moved"] * 30 + ["refused"] * 30
    for i in targets:
        assert [(h["old_status"], h["new_status"]) for h in logs[0].get(i)["history"]] == [("new", "in_progress")]


def test_same_rows_from_sqlite_and_postgres(pg_cluster, tmp_path):
    """The same saves and moves give the same dicts on both backends (times aside, which are stamped when saved)."""
    backends = [SqliteBackend(tmp_path), PostgresBackend(pg_cluster)]
    results = []
    for backend in backends:
        log = backend.open()
        ids = log.add_many([
            complaint("a", ["illness", "spoiled_food"], "high", school="S1"),
            NewComplaint("b", ["other"], {"other": 0.3333333333333333}, "low", "m2", None, ["unsure"]),
            complaint("c", ["poor_hygiene"], "medium"),
        ])  # fmt: skip
        for i, day in zip(ids, ["2024-05-01T08", "2024-05-02T08", "2024-05-02T09"]):
            backend.backdate(i, f"{day}:00:00.000000Z")
        log.set_status(ids[2], "in_progress")
        page = log.list(limit=None).items
        for row in page:
            row["status_changed_at"] = "*"
        results.append((page, log.labels(), log.daily_label_counts(), log.list(Filters(label="illness")).total))
        backend.close_all()
    assert results[0] == results[1]
