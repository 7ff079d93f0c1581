"""Issue 27's probe under failure, on `mealwatch serve` as a child process (or the app in this process): each defect
replayed, counting what must never happen again (every count's target is 0), with the figures the issue measured
printed beside it; then what held, measured again. Run by security_probe.py.

  15 a 2,000-row upload with alerts: answers over 30 s, a retry that checks again, a stop over 10 s
  16/17 PostgreSQL stopped under 64 saving clients: acknowledged saves missing, saves answered 5xx, 5xx other than
     a 503 with Retry-After, audit lines missing; a full disk: reads refused, saves not a 503 naming it
  18 damaged weights served, NaN stored
  19 a damaged log: start-ups with a traceback
  held: a wrong password and an unknown name take the same time (argon2id); a 2,000-row upload cut by
     `kill -9` is saved all or none
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
from trust_servers import HOST, accounts_app, free_port, in_flight, served


def big_upload(model: Path, tmp: Path) -> tuple[int, int, int, str]:
    from server_process import ServerProcess

    rows = "text,school,district\n" + "".join(
        f'"a child was taken to hospital after the meal, complaint {i}",GPS Rampur,Gaya\n' for i in range(2000)
    )
    server = ServerProcess(model, str(tmp / "upload.db"), free_port())
    server.start()
    try:
        url = server.url
        upload = {"file": ("day.csv", rows.encode(), "text/csv")}
        t0 = time.perf_counter()
        r = httpx.post(f"{url}/api/classify/csv", files=upload, data={"save": "true"},
                       headers={"Idempotency-Key": "upload-1"}, timeout=600)  # fmt: skip
        answered = time.perf_counter() - t0
        assert r.status_code == 200, r.text[:300]
        while httpx.get(f"{url}/api/alerts", timeout=60).json()["total"] == 0:
            time.sleep(0.1)
        checked = time.perf_counter() - t0
        alerts = httpx.get(f"{url}/api/alerts", timeout=60).json()
        retry = httpx.post(f"{url}/api/classify/csv", files=upload, data={"save": "true"},
                           headers={"Idempotency-Key": "upload-1"}, timeout=600)  # fmt: skip
        rechecked = int(retry.headers.get("idempotent-replayed") != "true"
                        or httpx.get(f"{url}/api/alerts", timeout=60).json() != alerts)  # fmt: skip
        # a second upload, then SIGTERM while it is in flight
        threading.Thread(
            target=lambda: contextlib.suppress(Exception)
            or httpx.post(f"{url}/api/classify/csv", files=upload, data={"save": "true"}, timeout=600),
            daemon=True,
        ).start()
        time.sleep(1.0)
        t1 = time.perf_counter()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=300)
        stopped = time.perf_counter() - t1
    finally:
        server.stop()
    figures = (
        f"2,000 rows answered in {answered:.1f} s, alerts checked {checked:.1f} s after sending "
        f"({alerts['total']} alert(s), {len(alerts['items'][0]['complaint_ids'])} complaints); "
        f"SIGTERM during a second upload: stopped in {stopped:.1f} s"
    )
    return int(answered > 30), rechecked, int(stopped > 10), figures


def outage(model: Path, tmp: Path, seconds: float = 12.0, clients: int = 64) -> tuple[tuple[int, ...], str]:
    """``clients`` clients saving (each request with its own key) through `mealwatch serve` on PostgreSQL, stopped
    after 3 s and started again after 6 s."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from log_backends import PgCluster, postgres_bin_dir
    from server_process import ServerProcess

    from mealwatch.accounts import new_secret, secret_hash
    from mealwatch.log import open_log

    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        return (0,), "skipped: no PostgreSQL server binaries"
    cluster = PgCluster(bin_dir).start()
    try:
        db = cluster.url(cluster.create_database())
        log = open_log(db)
        token = new_secret("mw_")
        log.add_user("asha", "$argon2id$not-used", "admin", ["*"])
        log.add_token("intake", secret_hash(token), "officer", ["*"])
        log.close()
        server = ServerProcess(model, db, free_port())
        server.start()
        outcomes: dict[str, str] = {}
        lock = threading.Lock()
        stop = time.monotonic() + seconds

        def client(i: int) -> None:
            n = 0
            with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as c:
                while time.monotonic() < stop:
                    key, n = f"c{i}-{n}", n + 1
                    try:
                        r = c.post(f"{server.url}/api/classify", json={"text": f"no eggs {key}", "save": True},
                                   headers={"Idempotency-Key": key})  # fmt: skip
                        what = str(r.status_code) + ("" if r.status_code != 503 or "retry-after" in r.headers
                                                      else " without Retry-After")  # fmt: skip
                    except httpx.HTTPError as e:
                        what = type(e).__name__
                    with lock:
                        outcomes[key] = what
                    if what != "200":
                        time.sleep(0.2)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        time.sleep(3)
        pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(cluster.data), "-l", str(cluster.logfile)]
        cluster._run(*pg_ctl, "-m", "fast", "-w", "stop")
        time.sleep(3)
        cluster._run(*pg_ctl, "-o", f"-p {cluster.port} -k {cluster.root} -c listen_addresses=127.0.0.1",
                     "-w", "start")  # fmt: skip
        for t in threads:
            t.join()
        server.stop()
        log = open_log(db)
        saved_keys = {k.split("\n", 1)[1] for k in _saved_keys(db)}
        rows = log.count()
        audited = sum(len(e["detail"]["ids"]) for e in log.audit_entries(limit=None, action="save").items)
        log.close()
    finally:
        cluster.stop()
    kinds = Counter(outcomes.values())
    acked = {k for k, v in outcomes.items() if v == "200"}
    missing = len(acked - saved_keys)
    saved_but_failed = len({k for k, v in outcomes.items() if v != "200"} & saved_keys)
    other_5xx = sum(n for v, n in kinds.items() if v.startswith("5") and v != "503")
    no_retry_after = kinds.get("503 without Retry-After", 0)
    answers = ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items()))
    figures = f"{clients} clients, {len(outcomes)} saves sent: {answers}; {rows} rows, {audited} audited"
    return (missing, saved_but_failed, other_5xx + no_retry_after, rows - audited), figures


def _saved_keys(db: str) -> list[str]:
    import psycopg

    with psycopg.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT key FROM saved_requests").fetchall()]


def full_disk(model: Path, tmp: Path) -> int:
    from fastapi.testclient import TestClient

    from mealwatch.accounts import new_secret, secret_hash
    from mealwatch.serve import create_app

    app = create_app(model, tmp / "full.db", accounts=True)
    store, token = app.state.service.store, new_secret("mw_")
    store.add_token("intake", secret_hash(token), "officer", ["*"])
    client = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})
    client.post("/api/classify", json={"text": "no eggs", "save": True})
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
    wrong = 0
    for i in range(5):
        r = client.post("/api/classify", json={"text": "x" * 3000 + str(i), "save": True})
        wrong += r.status_code != 503 or "full" not in r.text or "retry-after" not in r.headers
    wrong += client.get("/api/complaints").status_code != 200  # a token read during it
    return wrong


def damaged_model(model: Path, tmp: Path) -> tuple[int, int]:
    import torch

    from mealwatch.serve import Predictor, create_app

    folder = tmp / "damaged-model"
    shutil.copytree(model, folder)
    size = (folder / "model.safetensors").stat().st_size
    with open(folder / "model.safetensors", "r+b") as f:
        f.seek(size // 2)
        f.write(random.Random(0).randbytes(4096))
    done = subprocess.run([sys.executable, "-m", "mealwatch", "serve", "--model", str(folder), "--db",
                           str(tmp / "m.db"), "--port", str(free_port())], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    started = int(done.returncode != 2 or len(done.stderr.splitlines()) != 1)
    predictor = Predictor.load(model)
    try:
        with torch.no_grad():
            next(predictor.pipeline.model.parameters()).fill_(float("nan"))
        from fastapi.testclient import TestClient

        app = create_app(db_path=tmp / "nan.db", predictor=predictor)
        client = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
        for _ in range(3):
            client.post("/api/classify", json={"text": "no eggs", "save": True})
        stored = app.state.service.store.count()
    finally:
        predictor.close()
    return started, stored


def damaged_log(model: Path, tmp: Path) -> int:
    from mealwatch.log import NewComplaint, open_log

    tracebacks = 0
    for offset in (0.0, 0.25, 0.5, 0.9):
        db = tmp / f"damaged-{offset}.db"
        log = open_log(db)
        log.add_many([NewComplaint(f"complaint {i} " * 30, ["illness"], {"illness": 0.9}, "high", "m",
                                   school=f"S{i}") for i in range(300)])  # fmt: skip
        log.close()
        with open(db, "r+b") as f:
            f.seek(int(os.path.getsize(db) * offset) // 4096 * 4096)
            f.write(bytes(8192))
        done = subprocess.run([sys.executable, "-m", "mealwatch", "serve", "--model", str(model), "--db", str(db),
                               "--port", str(free_port())], capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        tracebacks += "Traceback" in done.stderr or done.returncode != 2
    return tracebacks


def login_timing(model: Path, tmp: Path, tries: int = 15) -> tuple[int, str]:
    """A wrong password and an unknown name, timed (median of ``tries`` each, one address per try)."""
    app = accounts_app(model, tmp / "timing.db")
    times: dict[str, list[float]] = {"wrong password": [], "unknown name": []}
    with served(app, proxies=(HOST,)) as url:
        for i in range(tries):
            for kind, name in (("wrong password", "gopal"), ("unknown name", f"nobody{i}")):
                t0 = time.perf_counter()
                httpx.post(f"{url}/api/login", json={"name": name, "password": "not-the-password"},
                           headers={"X-Forwarded-For": f"10.9.{i}.{len(kind)}"}, timeout=60)  # fmt: skip
                times[kind].append((time.perf_counter() - t0) * 1000)
    wrong, unknown = (statistics.median(times[k]) for k in times)
    return int(abs(wrong - unknown) > 0.25 * max(wrong, unknown)), f"median {wrong:.0f} ms vs {unknown:.0f} ms"


def killed_uploads(model: Path, tmp: Path) -> tuple[int, str]:
    """A 2,000-row upload, `kill -9` of the server while it runs — at fractions of the time one upload takes to be
    answered, so that kills fall before, around and after its commit: all rows or none, each time."""
    from server_process import ServerProcess

    from mealwatch.log import open_log

    rows = "text\n" + "".join(f"no eggs today - complaint {i}\n" for i in range(2000))
    upload = {"file": ("d.csv", rows.encode(), "text/csv")}
    partial, seen = 0, []
    answer_s = None
    for trial, fraction in enumerate((None, 0.5, 0.8, 0.95, 1.0, 1.05, 1.2)):
        db = tmp / f"killed-{trial}.db"
        server = ServerProcess(model, str(db), free_port())
        server.start()
        try:
            if fraction is None:  # how long one upload takes, on this machine now
                t0 = time.perf_counter()
                r = httpx.post(f"{server.url}/api/classify/csv", files=upload, data={"save": "true"}, timeout=600)
                answer_s = time.perf_counter() - t0
                assert r.status_code == 200 and r.json()["count"] == 2000, r.text[:300]
                continue
            in_flight(lambda: httpx.post(f"{server.url}/api/classify/csv", files=upload, data={"save": "true"},
                                         timeout=600))  # fmt: skip
            time.sleep(answer_s * fraction)
            server.kill9()
        finally:
            server.stop()
        log = open_log(db)
        count = log.count()
        log.close()
        seen.append(count)
        partial += count not in (0, 2000)
    return partial, f"an upload answered in {answer_s:.1f} s; rows after each kill: {', '.join(map(str, seen))}"


def run(model: Path, tmp: Path) -> bool:
    """Every case of the module docstring, one line each; True when every count is 0."""
    from trust_attack import folder, report

    *counts, figures = big_upload(model, folder(tmp, "15"))
    good = report("15", "2,000-row upload: answers over 30 s / retries checking again / stops over 10 s",
                  tuple(counts), figures)  # fmt: skip
    counts, figures = outage(model, folder(tmp, "16"))
    good &= report("16/17", "PostgreSQL stopped: acked saves missing / saves answered 5xx / 5xx not a 503 with "
                   "Retry-After / rows without their audit line", counts, figures)  # fmt: skip
    good &= report(
        "17", "full disk: saves not a 503 naming it, token reads refused", full_disk(model, folder(tmp, "17"))
    )
    good &= report("18", "damaged weights started / NaN rows stored", damaged_model(model, folder(tmp, "18")))
    good &= report("19", "damaged logs (8 KB zeroed) starting with a traceback", damaged_log(model, folder(tmp, "19")))
    good &= report("held", "login time told apart (wrong password vs unknown name)",
                   *login_timing(model, folder(tmp, "t")))  # fmt: skip
    good &= report("held", "2,000-row uploads cut by kill -9 saved in part", *killed_uploads(model, folder(tmp, "k")))
    return good
