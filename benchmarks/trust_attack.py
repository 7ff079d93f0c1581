"""Issue 27's probe under attack, on real servers (uvicorn on 127.0.0.1 in this process, or `mealwatch serve` as a
child process where its memory or descriptors are measured): each defect replayed, counting what must never
happen again (every count's target is 0), with the figures the issue measured printed beside it. Run by
security_probe.py.

  4  forged X-Forwarded-For: addresses believed, password checks past the limit
  7  40 racing wrong logins for one name: password checks past the 5 allowed
  8  a login storm (40 threads, new names and forwarded addresses): the server's memory, classify latency
  9  the owner's right password refused while another address guesses
  10 audit lines past one per hold in an unauthenticated storm
  11 a list bomb and a 48 MB one: answers over 64 KB, 5xx; seconds and bytes, other requests meanwhile
  12 bodies read before their 401 or 413 (50 MB JSON with no credentials, a 300 MB CSV); memory
  13 normal requests that failed beside thousands of half-open connections; the server's descriptors
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import random
import socket
import statistics
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
from trust_servers import HOST, PASSWORD, accounts_app, free_port, login, rss_mb, served, signed_in


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


def report(number: str, what: str, counts: int | tuple, figures: str = "") -> bool:
    """Print one case's line; whether every count is 0."""
    counts = counts if isinstance(counts, tuple) else (counts,)
    print(f"item {number:>5} {what}: {' / '.join(str(c) for c in counts)}" + (f"  ({figures})" if figures else ""))
    return not any(counts)


def folder(tmp: Path, name: str) -> Path:
    path = tmp / f"case-{name}"
    path.mkdir()
    return path


def run(model: Path, tmp: Path, half_open_connections: int = 5000) -> bool:
    """Every case of the module docstring, one line each; True when every count is 0."""
    good = report(
        "4", "forged X-Forwarded-For believed / checks past the limit", forged_addresses(model, folder(tmp, "4"))
    )
    good &= report("7", "racing logins: password checks past the 5 allowed", racing_logins(model, folder(tmp, "7")))
    good &= report("8", "login storm: 64 MiB password checks at once past the cap (server memory)",
                   *login_storm(model, folder(tmp, "8")))  # fmt: skip
    good &= report(
        "9", "the owner's right password refused during an attack", owner_under_attack(model, folder(tmp, "9"))
    )
    good &= report("10", "audit lines past one per hold", *audit_per_hold(model, folder(tmp, "10")))
    big, errors, figures = list_bombs(model, folder(tmp, "11"))
    good &= report("11", "list bombs: answers over 64 KB / 5xx", (big, errors), figures)
    good &= report("12", "bodies read before their 401 or 413", *bodies_before_auth(model, folder(tmp, "12")))
    good &= report("13", "normal requests failed beside half-open connections",
                   *half_open(model, folder(tmp, "13"), half_open_connections))  # fmt: skip
    return good
