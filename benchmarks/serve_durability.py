"""Durability of `mealwatch serve` under `kill -9`: is every acknowledged complaint in the log exactly once?

Starts `python -m mealwatch serve` as a child process on 127.0.0.1 (MiniLM with a random head, as
serve_load.py --random-minilm, or --model DIR) with a fresh SQLite log in a temp folder (or --db
postgresql://..., whose database should be empty). --clients threads each send POST /api/classify with
save=true, one complaint after another, each a unique text (English, romanised Hindi, Devanagari, emoji,
combining marks; a marker inside it) with its own Idempotency-Key. A client that loses its connection (or gets a
5xx) sends the SAME request with the SAME key again until the server answers. During the load the script
SIGKILLs the server --kills times at spread-out moments, checks the SQLite file with `PRAGMA integrity_check`
while the server is down, and restarts it on the same log and port. When the load is over, every acknowledged
request is sent once more with its key: it must get the acknowledged answer back byte for byte
(``Idempotent-Replayed: true``) and save nothing.

At the end, read back through the log's own interface (mealwatch.log.open_log): every acknowledged complaint
(a 2xx answer received) must be there exactly once, its text byte-identical and its id the one the answer gave;
an unacknowledged one at most once; no 5xx answer; `PRAGMA integrity_check` ok. Prints a table and PASS/FAIL
(exit code 0/1).

    nice -n 5 python benchmarks/serve_durability.py [--clients 16] [--kills 3] [--seconds 120] [--model runs/<name>]

Only 127.0.0.1 is ever contacted (and the --db server, when given).
"""

from __future__ import annotations

import argparse
import random
import re
import secrets
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import complaint_texts, free_port, random_minilm  # noqa: E402
from server_process import ServerProcess  # noqa: E402

from mealwatch.log import open_log, redact  # noqa: E402

#: texts besides the bundled test split's: Devanagari (with its combining marks), emoji (a ZWJ sequence too)
UNICODE_TEXTS = [
    "बच्चों को आज खाना नहीं मिला, रसोइया नहीं आया",
    "दाल में कीड़े थे 🐛 और तीन बच्चे बीमार हो गए",
    "khana bahut kharab tha 🤢 bacche ulti kar rahe the",
    "The rice had small stones in it again 😡😡",
    "मध्याह्न भोजन में छिपकली मिली, प्रधानाध्यापक ने कुछ नहीं किया 👨‍👩‍👧",
    "roti kachi thi, sabzi mein namak nahi 🙁 — क्षमा करें",
]
MARKER = re.compile(r"\[ref (dura-[0-9a-f]{6}-c\d{2}-n\d{6})\]")


@dataclass
class Sent:
    """One saving request and what became of it."""

    client: int
    marker: str
    text: str
    key: str
    attempts: int = 0
    lost: int = 0  # connections lost (server killed or not yet back)
    statuses: list[int] = field(default_factory=list)  # every answer's status, in order
    acknowledged: bool = False
    answer_id: int | None = None
    answer: bytes = b""  # the acknowledged answer's body
    replayed: bool = False
    gave_up: bool = False


def complaint_text(base: str, marker: str, rng: random.Random) -> str:
    """A unique complaint: a base text with the marker inside it (not at an end, which a client might trim)."""
    cut = rng.randrange(1, len(base)) if len(base) > 1 else 1
    while cut < len(base) and base[cut] != " ":  # between words, not inside a grapheme cluster
        cut += 1
    return f"{base[:cut]} [ref {marker}]{base[cut:]}" if cut < len(base) else f"{base} [ref {marker}] !"


def integrity(db: str) -> str:
    """``PRAGMA integrity_check`` of a SQLite log ("ok" when sound); "n/a" for PostgreSQL."""
    if db.startswith(("postgresql://", "postgres://")):
        return "n/a"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)  # read only: the check must not repair anything
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    return "; ".join(str(r[0]) for r in rows)


def request_body(s: Sent, explain: str) -> dict:
    """The body every attempt of ``s`` sends (the same each time, so that its key replays it)."""
    return {"text": s.text, "school": f"विद्यालय {s.client % 7} 🏫", "save": True, "explain": explain}


def replay_all(acked: list[Sent], url: str, clients: int, explain: str) -> Counter:
    """Every acknowledged request sent once more with its key, after the last restart: how many were answered
    with the acknowledged answer, byte for byte, and ``Idempotent-Replayed: true`` ("same"), how many otherwise."""
    outcomes: Counter = Counter()
    lock = threading.Lock()

    def resend(part: list[Sent]) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            for s in part:
                r = http.post("/api/classify", json=request_body(s, explain), headers={"Idempotency-Key": s.key})
                same = (r.status_code == 200 and r.headers.get("idempotent-replayed") == "true"
                        and r.content == s.answer)  # fmt: skip
                with lock:
                    outcomes["same" if same else f"{r.status_code} {r.headers.get('idempotent-replayed')}"] += 1

    threads = [threading.Thread(target=resend, args=(acked[i::clients],)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a model folder (default: MiniLM with a random head)")
    ap.add_argument("--db", help="a postgresql:// URL of an empty database (default: a new SQLite file)")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=120, help="how long the clients send new complaints")
    ap.add_argument("--explain", choices=["none", "grad"], default="none", help="per-word importance asked for")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--give-up", type=float, default=300, help="a request unanswered this long is given up")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    run_id = secrets.token_hex(3)
    texts = complaint_texts() + UNICODE_TEXTS * 20

    with tempfile.TemporaryDirectory(prefix="mealwatch-durability-") as tmp:
        model = Path(args.model) if args.model else random_minilm(Path(tmp) / "minilm-random")
        db = args.db or str(Path(tmp) / "complaints.db")
        server = ServerProcess(model, db, free_port())
        print(f"model: {model}\ncomplaint log: {redact(db)}")
        print(f"server: {server.url}, {args.clients} clients, {args.kills} kill -9 restarts in {args.seconds:.0f} s, "
              f"explain={args.explain}, run {run_id}")  # fmt: skip
        started = server.start()
        print(f"server up in {started:.1f} s (pid {server.pid})")

        sent: list[Sent] = []
        lock = threading.Lock()
        stop = threading.Event()

        crashed: list[str] = []  # a client thread's own failure (a bug of this script): the run FAILs

        def client(c: int) -> None:
            try:
                send_until_stopped(c)
            except Exception as e:  # noqa: BLE001 - reported below, never lost in a thread
                crashed.append(f"client {c}: {e!r}")

        def send_until_stopped(c: int) -> None:
            crng = random.Random(f"{args.seed}-{c}")
            with httpx.Client(base_url=server.url, timeout=httpx.Timeout(60, connect=5)) as http:
                for n in range(10**6):
                    if stop.is_set():
                        return
                    marker = f"dura-{run_id}-c{c:02d}-n{n:06d}"
                    s = Sent(c, marker, complaint_text(crng.choice(texts), marker, crng), secrets.token_urlsafe(16))
                    with lock:
                        sent.append(s)
                    body = request_body(s, args.explain)
                    give_up = time.monotonic() + args.give_up
                    while True:
                        s.attempts += 1
                        try:
                            r = http.post("/api/classify", json=body, headers={"Idempotency-Key": s.key})
                        except httpx.TransportError:  # refused, reset, closed mid-answer: the server is down
                            s.lost += 1
                        else:
                            s.statuses.append(r.status_code)
                            if 200 <= r.status_code < 300:
                                s.acknowledged, s.answer_id, s.answer = True, r.json()["id"], r.content
                                s.replayed = r.headers.get("idempotent-replayed") == "true"
                                break
                            if r.status_code < 500:  # refused: a defect of the request or the service
                                break
                        if time.monotonic() > give_up:
                            s.gave_up = True
                            break
                        time.sleep(0.1)

        threads = [threading.Thread(target=client, args=(c,), daemon=True) for c in range(args.clients)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        spacing = args.seconds / (args.kills + 1)
        moments = [spacing * (k + 1) + rng.uniform(-0.25, 0.25) * spacing for k in range(args.kills)]
        checks = []
        print(f"{'kill':>4} {'at s':>6} {'sent':>6} {'acked':>6} {'integrity (server down)':>24} {'restart s':>9}")
        for k, moment in enumerate(moments, 1):
            time.sleep(max(0.0, moment - (time.monotonic() - t0)))
            at = time.monotonic() - t0
            server.kill9()
            with lock:
                n_sent, n_acked = len(sent), sum(s.acknowledged for s in sent)
            checks.append(integrity(db))
            restart = server.start()
            print(f"{k:4d} {at:6.1f} {n_sent:6d} {n_acked:6d} {checks[-1]:>24} {restart:9.1f}", flush=True)
        time.sleep(max(0.0, args.seconds - (time.monotonic() - t0)))
        stop.set()
        for t in threads:
            t.join(timeout=args.give_up + 70)
        elapsed = time.monotonic() - t0
        replays = replay_all([s for s in sent if s.acknowledged], server.url, args.clients, args.explain)
        server.stop()
        checks.append(integrity(db))

        log = open_log(db)  # the log's public interface, after the server has gone
        try:
            rows = log.list(limit=None).items
        finally:
            log.close()

    found: dict[str, list[dict]] = {}
    foreign = 0
    for row in rows:
        m = MARKER.search(row["text"])
        if m is None or not m.group(1).startswith(f"dura-{run_id}-"):
            foreign += 1
            continue
        found.setdefault(m.group(1), []).append(row)
    acked = [s for s in sent if s.acknowledged]
    unacked = [s for s in sent if not s.acknowledged]
    once = [s for s in acked if len(found.get(s.marker, [])) == 1]
    duplicates = [s for s in sent if len(found.get(s.marker, [])) > 1]
    missing = [s for s in acked if not found.get(s.marker)]
    text_differs = [s for s in once if found[s.marker][0]["text"] != s.text]
    id_differs = [s for s in once if found[s.marker][0]["id"] != s.answer_id]
    unacked_saved = [s for s in unacked if len(found.get(s.marker, [])) == 1]
    statuses = Counter(code for s in sent for code in s.statuses)
    server_errors = sum(n for code, n in statuses.items() if code >= 500)
    refused = [s for s in sent if not s.acknowledged and s.statuses and s.statuses[-1] < 500]
    gave_up = [s for s in sent if s.gave_up]
    retried = [s for s in sent if s.attempts > 1]
    final_integrity = checks[-1]
    all_integrity_ok = all(c in ("ok", "n/a") for c in checks)

    table = [
        ("requests (unique complaints sent)", len(sent)),
        ("acknowledged (2xx received)", len(acked)),
        ("  of them replayed (Idempotent-Replayed: true)", sum(s.replayed for s in acked)),
        ("retried (sent more than once)", len(retried)),
        ("  attempts in all / connections lost", f"{sum(s.attempts for s in sent)} / {sum(s.lost for s in sent)}"),
        ("answers by status", ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items()))),
        ("acknowledged found once", len(once)),
        ("  text not byte-identical", len(text_differs)),
        ("  id not the answer's id", len(id_differs)),
        ("duplicates (any request, > 1 row)", len(duplicates)),
        ("missing (acknowledged, no row)", len(missing)),
        ("unacknowledged: saved once / not saved", f"{len(unacked_saved)} / {len(unacked) - len(unacked_saved)}"),
        ("5xx answers", server_errors),
        ("acknowledged sent again after the last restart: same bytes, replayed", replays["same"]),
        ("  otherwise", sum(n for k, n in replays.items() if k != "same")),
        ("refused (4xx) / given up", f"{len(refused)} / {len(gave_up)}"),
        ("rows without this run's marker", foreign),
        ("client threads that crashed", len(crashed)),
        ("integrity_check after each kill / at the end", f"{', '.join(checks[:-1])} / {final_integrity}"),
        ("kill -9 restarts", f"{len(checks) - 1} of {args.kills}"),
        ("seconds", f"{elapsed:.0f}"),
    ]
    print()
    for name, value in table:
        print(f"{name:<72} {value}")
    for why in crashed[:3]:
        print("crashed:", why)
    for s in (missing + duplicates + text_differs + id_differs + refused + gave_up)[:5]:
        print("defect:", s.marker, s.statuses, [r["id"] for r in found.get(s.marker, [])])
    ok = (
        len(once) == len(acked)
        and not (duplicates or missing or text_differs or id_differs or refused or gave_up or foreign)
        and server_errors == 0
        and replays["same"] == len(acked)
        and all_integrity_ok
        and len(checks) - 1 == args.kills
        and len(acked) > 0
        and not crashed
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
