"""The complaint log at a state's size: fill a log (SQLite or PostgreSQL) with complaints from many schools, time
every query.

Fills through the log's own interface (``ComplaintLog.add_many``, 5,000 complaints a transaction, the log's
clock stepped so that the complaints spread over a year): the rows, labels, counts and school keys are exactly
what the service writes. Every complaint has a school (30,000 of them, 30 districts x 10 blocks), a channel,
an incident time, labels from a realistic mix, and 1 in 10 is flagged for review; 1 in 100 is then corrected
and 1 in 20 moved on (through ``update``, as the page does). Then times, each the median of ``--repeats``
runs, a page of 50 and its total as ``GET /api/complaints`` asks for them: every list filter, a page deep
in the list by cursor (and by offset, for comparison), the daily counts of ``/api/stats``, the alerts
listing, the labels the API checks a ``label=`` against, the log's size and a filtered export. Target: each
<= 100 ms at 1,000,000 complaints on 2 cores.

    python benchmarks/log_scale.py [--complaints 1000000] [--db PATH_OR_URL] [--repeats 5]
    python benchmarks/log_scale.py --pg-temp [--complaints 1000000]

--db is a SQLite file or a ``postgresql://`` URL; --pg-temp starts a throw-away PostgreSQL server as the tests
do (tests/log_backends.py ``PgCluster``: initdb in a temp folder, a free port, fsync off) and deletes it at the
end. A log that already holds complaints is timed as it is (no filling). Before timing, the planner's statistics
are refreshed (SQLite ``ANALYZE``, as ``PRAGMA optimize`` would; PostgreSQL ``VACUUM (ANALYZE)``, as autovacuum
does after a bulk of inserts).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from mealwatch.labels import urgency
from mealwatch.log import ComplaintChange, ComplaintLog, Filters, NewComplaint, open_log, to_stored_time

ROOT = Path(__file__).resolve().parent.parent

START = datetime(2024, 7, 1, tzinfo=timezone.utc)
MIX = {
    "poor_taste_or_cooking": 0.20, "insufficient_quantity": 0.17, "menu_not_followed": 0.15,
    "meal_not_served": 0.12, "poor_hygiene": 0.10, "spoiled_food": 0.08, "staff_misconduct": 0.08,
    "other": 0.06, "foreign_object": 0.03, "illness": 0.01,
}  # fmt: skip
CHANNELS = ("phone", "sms", "whatsapp", "letter", "web", "visit")
BATCH = 5000


def is_url(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


@contextlib.contextmanager
def temp_postgres() -> Iterator[str]:
    """The URL of an empty database on a throw-away PostgreSQL server (the tests' ``PgCluster``), removed after."""
    sys.path.insert(0, str(ROOT / "tests"))
    from log_backends import PgCluster, postgres_bin_dir

    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise SystemExit("--pg-temp: no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install "
                         "postgresql), or pass --db postgresql://...")  # fmt: skip
    cluster = PgCluster(bin_dir)
    try:
        cluster.start()
        yield cluster.url(cluster.create_database())
    finally:
        cluster.stop()


def refresh_statistics(db: str) -> str:
    """Bring the planner's statistics up to date, as the running service's database would have them; what ran."""
    if is_url(db):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE)")
            version = conn.execute("SHOW server_version").fetchone()[0]
        return f"PostgreSQL {version}: VACUUM (ANALYZE)"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("ANALYZE")
    return f"SQLite {sqlite3.sqlite_version}: ANALYZE"


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.machine()


def fill(store: ComplaintLog, n: int, seed: int) -> float:
    rng = random.Random(seed)
    labels, weights = list(MIX), list(MIX.values())
    began = time.perf_counter()
    step = timedelta(days=365) / n
    for first in range(0, n, BATCH):
        moment = START + step * first
        store.clock = lambda m=moment: to_stored_time(m)
        batch = []
        for i in range(first, min(n, first + BATCH)):
            school = rng.randrange(30_000)
            district, block = school % 30, school % 300
            chosen = [rng.choices(labels, weights)[0]]
            if rng.random() < 0.15:
                chosen.append(rng.choices(labels, weights)[0])
            chosen = list(dict.fromkeys(chosen))
            batch.append(NewComplaint(
                f"complaint {i}: the dal was watery again", chosen, {x: 0.9 for x in chosen}, urgency(chosen), "m1",
                school=f"GPS Village{school:05d}", district=f"District {district:02d}",
                block=f"Block {block:03d}", incident_at=moment - timedelta(hours=rng.randrange(48)),
                channel=rng.choice(CHANNELS), review_reasons=["uncertain"] if rng.random() < 0.1 else [],
                certainty=rng.random(),
            ))  # fmt: skip
        ids = store.add_many(batch)
        for k, complaint_id in enumerate(ids):
            if k % 100 == 7:
                store.update(complaint_id, ComplaintChange(labels=["illness"], urgency="high"), "officer")
            elif k % 20 == 3:
                store.update(complaint_id, ComplaintChange(status="in_progress"), "officer")
        if first // BATCH % 20 == 0:
            print(f"  {first + len(batch):,} complaints, {time.perf_counter() - began:.0f} s", flush=True)
    return time.perf_counter() - began


def timed(call, repeats: int) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(repeats):
        began = time.perf_counter()
        size = call()
        times.append(time.perf_counter() - began)
    return statistics.median(times), size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--complaints", type=int, default=1_000_000)
    parser.add_argument("--db", default="runs/log_scale.sqlite", help="a SQLite file or a postgresql:// URL")
    parser.add_argument("--pg-temp", action="store_true", help="fill and time a throw-away PostgreSQL server instead")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.pg_temp:
        with temp_postgres() as url:
            return run(url, args)
    return run(args.db, args)


def run(db: str, args: argparse.Namespace) -> int:
    store = open_log(db if is_url(db) else Path(db))
    shown = store.url if is_url(db) else db
    print(f"{cpu_model()}, {len(os.sched_getaffinity(0))} cores available to this process")
    if store.count() == 0:
        print(f"filling {shown} with {args.complaints:,} complaints")
        print(f"filled in {fill(store, args.complaints, args.seed):.0f} s")
    n = store.count()
    print(f"planner statistics: {refresh_statistics(db)}")
    month = (datetime(2025, 1, 1, tzinfo=timezone.utc), datetime(2025, 2, 1, tzinfo=timezone.utc))
    depth = min(400_000, n // 2)
    cursor = store.list(limit=1000).next_cursor
    for _ in range(depth // 1000 - 1):
        cursor = store.list(limit=1000, after=cursor).next_cursor
    cases = {
        "default list (queue)": lambda: store.list(limit=50),
        "order=review": lambda: store.list(limit=50, order="review"),
        "status=in_progress": lambda: store.list(Filters(status="in_progress"), limit=50),
        "urgency=high": lambda: store.list(Filters(urgency="high"), limit=50),
        "label=illness": lambda: store.list(Filters(label="illness"), limit=50),
        "label=poor_hygiene": lambda: store.list(Filters(label="poor_hygiene"), limit=50),
        "needs_review=true": lambda: store.list(Filters(needs_review=True), limit=50),
        "corrected=true": lambda: store.list(Filters(corrected=True), limit=50),
        "school=village01234 (one school, partial, any case)": lambda: store.list(Filters(school="village01234")),
        "school=Village0123 (10 schools)": lambda: store.list(Filters(school="Village0123"), limit=50),
        "school=village01 (1,000 schools)": lambda: store.list(Filters(school="village01"), limit=50),
        "district=district 07": lambda: store.list(Filters(district="district 07"), limit=50),
        "block=BLOCK 123": lambda: store.list(Filters(block="BLOCK 123"), limit=50),
        "from/to one month (whole days)": lambda: store.list(Filters(since=month[0], until=month[1]), limit=50),
        "from/to one month + label=illness": lambda: store.list(
            Filters(label="illness", since=month[0], until=month[1]), limit=50
        ),
        f"a page {depth:,} in, by cursor": lambda: store.list(limit=50, after=cursor),
        f"a page {depth:,} in, by offset": lambda: store.list(limit=50, offset=depth),
        "stats (daily counts, all)": lambda: store.daily_label_counts(),
        "stats, one month": lambda: store.daily_label_counts(Filters(since=month[0], until=month[1])),
        "stats, block=block 123": lambda: store.daily_label_counts(Filters(block="block 123")),
        "alerts listing": lambda: store.list_alerts(limit=100),
        "known labels (checked for each label= request)": store.labels,
        "complaints stored (/api/health)": store.count,
        "export: block 123, one month (all rows)": lambda: store.list(
            Filters(block="block 123", since=month[0], until=month[1]), limit=None
        ),
    }
    load = os.getloadavg()[0]
    print(f"\n{n:,} complaints in {shown}; median of {args.repeats} runs; load average {load:.1f}\n")
    print("| query | ms | total | met |")
    print("|---|---:|---:|---|")
    slow = 0
    for name, call in cases.items():
        took, _ = timed(call, args.repeats)
        result = call()
        total = result if isinstance(result, int) else getattr(result, "total", None)
        if total is None:
            total = len(result)
        met = took <= 0.1
        slow += not met
        print(f"| {name} | {took * 1000:.1f} | {total:,} | {'yes' if met else '**no**'} |", flush=True)
    store.close()
    print(f"\n{slow} of {len(cases)} over 100 ms (load average {os.getloadavg()[0]:.1f} at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
