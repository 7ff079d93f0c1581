"""Issue 27's probe under attack and failure, on real servers (uvicorn on 127.0.0.1: in this process, or
`mealwatch serve` as a child process): each defect replayed, counting what must never happen again (every count's
target is 0), with the figures the issue measured printed beside it. Run by security_probe.py.

  4  forged X-Forwarded-For: addresses believed, password checks past the limit
  7  40 racing wrong logins for one name: password checks past the 5 allowed
  8  a login storm (40 threads, new names and forwarded addresses): the server's memory, classify latency
  9  the owner's right password refused while another address guesses
  10 audit lines past one per hold in an unauthenticated storm
  11 a list bomb and a 48 MB one: answers over 64 KB, 5xx; seconds and bytes
  12 bodies read before their 401 or 413 (50 MB JSON with no credentials, a 300 MB CSV); memory
  13 normal requests that failed beside thousands of half-open connections; the server's descriptors
  15 a 2,000-row upload with alerts: answers over 30 s, a retry that checks again, a stop over 10 s
  16/17 PostgreSQL stopped under 16 saving clients: acknowledged saves missing, saves answered 5xx,
     5xx other than a 503 with Retry-After, audit lines missing; a full disk: reads refused, saves not 503
  18 damaged weights served, NaN stored
  19 a damaged log: start-ups with a traceback
  and what held, measured again: a wrong password and an unknown name take the same time (argon2id); a 2,000-row
  upload cut by `kill -9` is saved all or none
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx

HOST = "127.0.0.1"
PASSWORD = "probe-password-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextlib.contextmanager
def served(app, **listen) -> Iterator[str]:
    """``app`` under the service's own uvicorn settings, in a thread of this process; yields its base URL."""
    import uvicorn

    from mealwatch.serve.listening import ListenSettings, server_config

    server = uvicorn.Server(server_config(app, ListenSettings(HOST, free_port(), **listen)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the probe's server did not start"
        time.sleep(0.02)
    try:
        yield f"http://{HOST}:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def accounts_app(model: Path, db: Path):
    from mealwatch.accounts import hash_password
    from mealwatch.serve import create_app

    app = create_app(model, db, accounts=True)
    store = app.state.service.store
    for name, role in (("gopal", "officer"), ("gita", "viewer")):
        store.add_user(name, hash_password(PASSWORD), role, ["Gaya"])
    return app


def login(url: str, name: str, address: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": address} if address else {}
    return httpx.post(f"{url}/api/login", json={"name": name, "password": PASSWORD}, headers=headers, timeout=60)


def signed_in(url: str, name: str) -> httpx.Client:
    r = login(url, name)
    client = httpx.Client(base_url=url, timeout=120, cookies=r.cookies)
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def forged_addresses(model: Path, tmp: Path) -> tuple[int, int]:
    app = accounts_app(model, tmp / "forged.db")
    wrong = {"name": "gopal", "password": "not-the-password"}
    with served(app) as url:  # no --proxy: forwarded headers are not believed
        codes = [httpx.post(f"{url}/api/login", json=wrong, headers={"X-Forwarded-For": f"198.51.100.{i}"},
                            timeout=60).status_code for i in range(12)]  # fmt: skip
        clients = {e["client"] for e in app.state.service.store.audit_entries(limit=None, action="login_failed").items}
    return len(clients - {HOST}), max(0, codes.count(401) - 5)


def racing_logins(model: Path, tmp: Path) -> int:
    app = accounts_app(model, tmp / "racing.db")
    wrong = {"name": "gopal", "password": "racing-guess-1"}
    with served(app) as url, concurrent.futures.ThreadPoolExecutor(40) as pool:
        codes = list(pool.map(lambda _: httpx.post(f"{url}/api/login", json=wrong, timeout=120).status_code, range(40)))
    return max(0, codes.count(401) - 5)


def login_storm(model: Path, tmp: Path, seconds: float = 15.0) -> tuple[int, str]:
    """40 threads of logins with new names from new (believed) forwarded addresses against `mealwatch serve`
    --proxy 127.0.0.1, beside a client classifying every 0.1 s; the server's memory sampled every 0.1 s. A
    storm that passes the cap is seen as classify latency and memory growing with it."""
    from server_process import ServerProcess, rss_mb as server_rss

    from mealwatch.accounts import hash_password
    from mealwatch.log import open_log

    db = tmp / "storm.db"
    log = open_log(db)
    log.add_user("gita", hash_password(PASSWORD), "viewer", ["Gaya"])
    log.add_user("asha", hash_password(PASSWORD), "admin", ["*"])  # a service with accounts needs an admin
    log.close()
    server = ServerProcess(model, str(db), free_port(), "--proxy", HOST)
    server.start()
    latencies: dict[str, list[float]] = {"before": [], "during": []}
    peak, codes = [], Counter()
    try:
        url = server.url
        viewer = login(url, "gita")

        def classify(phase: str, until: float) -> None:
            while time.monotonic() < until:
                t0 = time.perf_counter()
                httpx.post(f"{url}/api/classify", json={"text": "the dal was watery"}, timeout=120,
                           cookies=viewer.cookies)  # fmt: skip
                latencies[phase].append((time.perf_counter() - t0) * 1000)
                time.sleep(0.1)

        before = server_rss(server.pid)
        classify("before", time.monotonic() + 3)
        stop = time.monotonic() + seconds

        def storm(i: int) -> None:
            r = random.Random(i)
            while time.monotonic() < stop:
                body = {"name": f"user{r.randrange(10**6)}", "password": "storm-password"}
                address = f"10.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(256)}"
                codes[httpx.post(f"{url}/api/login", json=body, headers={"X-Forwarded-For": address},
                                 timeout=120).status_code] += 1  # fmt: skip

        def watch() -> None:
            while time.monotonic() < stop:
                peak.append(server_rss(server.pid))
                time.sleep(0.1)

        threads = [threading.Thread(target=storm, args=(i,)) for i in range(40)] + [threading.Thread(target=watch)]
        for t in threads:
            t.start()
        classify("during", stop)
        for t in threads:
            t.join()
        audit = open_log(db)
        failed = audit.audit_entries(limit=0, action="login_failed").total
        audit.close()
    finally:
        server.stop()
    p = {k: (statistics.median(v), sorted(v)[int(0.99 * (len(v) - 1))]) for k, v in latencies.items() if v}
    answers = ", ".join(f"{k}: {v}" for k, v in sorted(codes.items()))
    cap = max(1, (os.cpu_count() or 1) // 4)  # the server's CheckGate, on this machine
    figures = (f"server memory {before:.0f} -> peak {max(peak):.0f} MB; classify p50/p99 {p['before'][0]:.0f}/"
               f"{p['before'][1]:.0f} ms before, {p['during'][0]:.0f}/{p['during'][1]:.0f} ms during; "
               f"{sum(codes.values())} logins in {seconds:.0f} s: {answers}; {failed} audited as failed")  # fmt: skip
    # each argon2id check holds 64 MiB: the server's growth, in checks, past the cap of checks at once
    return max(0, int((max(peak) - before) // 64) - cap), figures


def owner_under_attack(model: Path, tmp: Path) -> int:
    app = accounts_app(model, tmp / "owner.db")
    refused = 0
    with served(app, proxies=(HOST,)) as url:
        stop = time.monotonic() + 8

        def attack() -> None:
            while time.monotonic() < stop:
                httpx.post(f"{url}/api/login", json={"name": "gopal", "password": "guess-password"},
                           headers={"X-Forwarded-For": "203.0.113.66"}, timeout=60)  # fmt: skip

        attacker = threading.Thread(target=attack)
        attacker.start()
        while time.monotonic() < stop:
            refused += login(url, "gopal", "192.0.2.10").status_code != 200
            time.sleep(1)
        attacker.join()
    return refused


def audit_per_hold(model: Path, tmp: Path) -> tuple[int, str]:
    app = accounts_app(model, tmp / "holds.db")
    store = app.state.service.store
    with served(app) as url:
        stop, sent = time.monotonic() + 10, 0
        while time.monotonic() < stop:
            httpx.post(f"{url}/api/login", json={"name": "gopal", "password": "x-password"}, timeout=60)
            sent += 1
        held = store.audit_entries(limit=None, action="login_held").items
        failed = store.audit_entries(limit=None, action="login_failed").total
    holds = {tuple(e["detail"]["held"]) for e in held}
    return len(held) - len(holds), f"{sent} attempts in 10 s wrote {failed} login_failed and {len(held)} login_held"


def list_bombs(model: Path, tmp: Path) -> tuple[int, int, str]:
    """A viewer's list bombs (4 MB and 48 MB of empty lists), with another client asking /api/health meanwhile."""
    import json

    app = accounts_app(model, tmp / "bomb.db")
    big, server_errors, figures = 0, 0, []
    with served(app) as url:
        viewer = signed_in(url, "gita")
        for n in (1_000_000, 12_000_000):  # 4 MB and 48 MB
            body = json.dumps({"texts": [[]] * n}).encode()
            waits: list[float] = []
            done = threading.Event()

            def ping() -> None:
                while not done.is_set():
                    t0 = time.perf_counter()
                    httpx.get(f"{url}/api/health", timeout=120)
                    waits.append((time.perf_counter() - t0) * 1000)
                    time.sleep(0.02)

            pinger = threading.Thread(target=ping)
            before = rss_mb()
            pinger.start()
            t0 = time.perf_counter()
            r = viewer.post("/api/classify/batch", content=body, headers={"content-type": "application/json"})
            seconds = time.perf_counter() - t0
            done.set()
            pinger.join()
            big += len(r.content) > 64 * 1024
            server_errors += r.status_code >= 500
            figures.append(f"{len(body) / 1e6:.0f} MB: {r.status_code} in {seconds:.2f} s, {len(r.content)} bytes, "
                           f"memory +{max(0.0, rss_mb() - before):.0f} MB, /api/health meanwhile at most "
                           f"{max(waits, default=0):.0f} ms")  # fmt: skip
    return big, server_errors, "; ".join(figures)


def in_flight(send) -> None:
    """Run ``send()`` on a thread of its own, its failure (the server killed under it) expected."""

    def quietly() -> None:
        with contextlib.suppress(httpx.HTTPError):
            send()

    threading.Thread(target=quietly, daemon=True).start()


def raw_request(port: int, head: bytes, first: bytes, wait: float = 10.0) -> tuple[bytes, float]:
    """Send the head and the first piece of a body, then wait for an answer without sending more."""
    with socket.create_connection((HOST, port)) as s:
        s.settimeout(wait)
        t0 = time.perf_counter()
        s.sendall(head + first)
        try:
            answer = s.recv(65536)
        except TimeoutError:
            answer = b""
        return answer, time.perf_counter() - t0


def bodies_before_auth(model: Path, tmp: Path) -> tuple[int, str]:
    app = accounts_app(model, tmp / "bodies.db")
    read = 0
    with served(app) as url:
        port = int(url.rsplit(":", 1)[1])
        before = rss_mb()
        cases = (
            ("POST /api/classify HTTP/1.1", "application/json", 50 * 10**6),
            ("POST /api/classify/csv HTTP/1.1", "multipart/form-data; boundary=x", 300 * 10**6),
            ("POST /api/classify/batch HTTP/1.1", "application/json", 3 * 10**6),
        )
        figures = []
        for line, kind, size in cases:
            head = (f"{line}\r\nHost: {HOST}\r\nContent-Type: {kind}\r\nContent-Length: {size}\r\n\r\n").encode()
            answer, seconds = raw_request(port, head, b"x" * 1024)
            status = answer.split(b" ", 2)[1].decode() if answer else "none"
            read += status not in ("401", "413")  # answered without the rest of the body
            figures.append(f"{size / 1e6:.0f} MB {line.split()[1]}: {status} in {seconds * 1000:.0f} ms")
        figures.append(f"memory +{rss_mb() - before:.0f} MB")
    return read, "; ".join(figures)


def half_open(model: Path, tmp: Path, count: int) -> tuple[int, str]:
    """``count`` connections from 127.0.0.2 that send nothing, against `mealwatch serve`; normal requests from
    127.0.0.1 meanwhile."""
    import resource

    from server_process import ServerProcess

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = count + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
        count = min(count, min(want, hard) - 256)
    server = ServerProcess(model, str(tmp / "open.db"), free_port())
    server.start()
    try:
        port = int(server.url.rsplit(":", 1)[1])
        sockets, failed, latencies = [], 0, []
        for _ in range(count):
            s = socket.socket()
            s.setblocking(False)
            with contextlib.suppress(BlockingIOError, OSError):
                s.bind(("127.0.0.2", 0))
                s.connect((HOST, port))
            sockets.append(s)
        time.sleep(1)
        fds = len(os.listdir(f"/proc/{server.pid}/fd"))
        for _ in range(20):
            t0 = time.perf_counter()
            try:
                httpx.get(f"{server.url}/api/health", timeout=10).raise_for_status()
                latencies.append((time.perf_counter() - t0) * 1000)
            except httpx.HTTPError:
                failed += 1
            time.sleep(0.1)
        time.sleep(2)
        settled = len(os.listdir(f"/proc/{server.pid}/fd"))  # the refused ones closed, the admitted ones open
        for s in sockets:
            s.close()
    finally:
        server.stop()
    p50 = statistics.median(latencies) if latencies else float("nan")
    return failed, (
        f"{count} half-open connections from one address: the server held {fds} descriptors after 1 s "
        f"(refused ones still closing), {settled} after 5 s; /api/health from another p50 {p50:.0f} ms"
    )


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


def run(model: Path, tmp: Path, half_open_connections: int = 5000) -> bool:
    """Every case; prints one line each (counts, then figures); True when every count is 0."""
    good = True

    def report(number: str, what: str, counts: int | tuple, figures: str = "") -> None:
        nonlocal good
        counts = counts if isinstance(counts, tuple) else (counts,)
        good &= not any(counts)
        print(f"item {number:>5} {what}: {' / '.join(str(c) for c in counts)}" + (f"  ({figures})" if figures else ""))

    def folder(name: str) -> Path:
        path = tmp / f"load-{name}"
        path.mkdir()
        return path

    report("4", "forged X-Forwarded-For believed / checks past the limit", forged_addresses(model, folder("4")))
    report("7", "racing logins: password checks past the 5 allowed", racing_logins(model, folder("7")))
    report("8", "login storm: 64 MiB password checks at once past the cap (server memory)",
           *login_storm(model, folder("8")))  # fmt: skip
    report("9", "the owner's right password refused during an attack", owner_under_attack(model, folder("9")))
    report("10", "audit lines past one per hold", *audit_per_hold(model, folder("10")))
    big, errors, figures = list_bombs(model, folder("11"))
    report("11", "list bombs: answers over 64 KB / 5xx", (big, errors), figures)
    report("12", "bodies read before their 401 or 413", *bodies_before_auth(model, folder("12")))
    report("13", "normal requests failed beside half-open connections",
           *half_open(model, folder("13"), half_open_connections))  # fmt: skip
    *counts, figures = big_upload(model, folder("15"))
    report("15", "2,000-row upload: answers over 30 s / retries checking again / stops over 10 s", tuple(counts),
           figures)  # fmt: skip
    counts, figures = outage(model, folder("16"))
    report("16/17", "PostgreSQL stopped: acked saves missing / saves answered 5xx / 5xx not a 503 with Retry-After"
           " / rows without their audit line", counts, figures)  # fmt: skip
    report("17", "full disk: saves not a 503 naming it, token reads refused", full_disk(model, folder("17")))
    report("18", "damaged weights started / NaN rows stored", damaged_model(model, folder("18")))
    report("19", "damaged logs (8 KB zeroed) starting with a traceback", damaged_log(model, folder("19")))
    report("held", "login time told apart (wrong password vs unknown name)", *login_timing(model, folder("t")))
    report("held", "2,000-row uploads cut by kill -9 saved in part", *killed_uploads(model, folder("k")))
    return good
