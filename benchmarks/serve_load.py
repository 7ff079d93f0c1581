"""Load test of `mealwatch serve`: many concurrent POST /api/classify (save=true) on this machine only.

Starts the server as a child process (`python -m mealwatch serve`, uvicorn) on 127.0.0.1 with a
fresh complaint log (a SQLite file; --db postgresql://... measures a PostgreSQL log instead), then
  1. one client, one request at a time (--single requests): the latency of one complaint;
  2. --clients threads with httpx sending --requests requests in all, bounded by --max-seconds;
checks that no request failed and that exactly that many new rows are in the log, and prints
p50/p99 latency and throughput. Target: p50 <= 30 ms for one complaint on 2 cores, with the
default per-word importance (gradient x input).

    python benchmarks/serve_load.py [--model runs/<name>] [--requests 2000] [--clients 16]
    python benchmarks/serve_load.py --random-minilm     # no trained model yet: MiniLM with a random head
    python benchmarks/serve_load.py --db postgresql://user:password@127.0.0.1:5432/mealwatch   # the log in PostgreSQL

Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from mealwatch.log import open_log, redact

HOST = "127.0.0.1"  # loopback only, never another address
ROOT = Path(__file__).resolve().parents[1]
FALLBACK_TEXTS = [
    "Children vomited after eating the khichdi, three were taken to the hospital.",
    "The dal was watery and tasteless again today.",
    "No meal was served for three days because the gas cylinder is empty.",
    "A lizard was found in the sabzi pot this afternoon.",
    "The cook comes drunk and shouts at the children.",
    "Only half the children got rice, the food ran out.",
]


def complaint_texts() -> list[str]:
    test_file = ROOT / "data" / "complaints" / "test.csv"
    if test_file.is_file():
        with open(test_file, newline="", encoding="utf-8") as f:
            texts = [row["text"] for row in csv.DictReader(f) if row.get("text", "").strip()]
        if texts:
            return texts
    return FALLBACK_TEXTS


def random_minilm(folder: Path) -> Path:
    """The bundled all-MiniLM-L6-v2 encoder with a random head, saved as a classifier.

    Latency depends on the model's size, not its training, with one exception: gradient x input
    costs one backward pass per predicted label. A random head puts every probability near 0.5,
    so it would predict about half the labels; its biases are set to -3 so that, like a trained
    model, it predicts one label per text (the most probable, which still varies with the text).
    """
    import torch

    from mealwatch import Encoder, Tokenizer
    from mealwatch.classifier import Classifier, ClassifierConfig
    from mealwatch.labels import LABELS
    from mealwatch.pipeline import Pipeline

    torch.manual_seed(0)
    model = Classifier(Encoder.from_pretrained(), ClassifierConfig(list(LABELS), True))
    with torch.no_grad():
        model.head.bias.fill_(-3.0)
    Pipeline(model, Tokenizer.from_pretrained()).save(folder)
    return folder


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_clients(url: str, texts: list[str], total: int, clients: int, explain: str, max_seconds: float) -> dict:
    """``total`` saving requests from ``clients`` threads; latencies of the successful ones, and the failures."""
    counter = itertools.count()
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + max_seconds

    def client() -> None:
        with httpx.Client(base_url=url, timeout=60.0) as http:
            while time.monotonic() < deadline:
                n = next(counter)
                if n >= total:
                    return
                body = {"text": texts[n % len(texts)], "school": f"school {n % 50}", "save": True, "explain": explain}
                t0 = time.perf_counter()
                try:
                    r = http.post("/api/classify", json=body)
                    ok, why = r.status_code == 200 and r.json().get("id") is not None, f"{r.status_code} {r.text[:200]}"
                except httpx.HTTPError as e:
                    ok, why = False, repr(e)
                elapsed = time.perf_counter() - t0
                with lock:
                    (latencies.append(elapsed) if ok else failures.append(why))

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"latencies": latencies, "failures": failures, "seconds": time.perf_counter() - t0}


def report(name: str, run: dict) -> None:
    lat = [x * 1000 for x in run["latencies"]]
    if not lat:
        print(f"{name}: no successful request")
        return
    print(
        f"{name}: {len(lat)} ok, {len(run['failures'])} failed in {run['seconds']:.1f} s | "
        f"p50 {statistics.median(lat):.1f} ms, p99 {percentile(lat, 0.99):.1f} ms, "
        f"mean {statistics.fmean(lat):.1f} ms | "
        f"{len(lat) / run['seconds']:.1f} requests/s"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a trained model folder (default: the latest run in runs/)")
    ap.add_argument("--random-minilm", action="store_true", help="use all-MiniLM-L6-v2 with a random head")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--single", type=int, default=200, help="sequential one-client requests measured first (0: skip)")
    ap.add_argument("--explain", choices=["grad", "none"], default="grad", help="per-word importance (default: grad)")
    ap.add_argument("--max-seconds", type=float, default=900, help="stop sending after this long")
    ap.add_argument("--db", help="the complaint log: a postgresql:// URL (default: a new SQLite file in a temp folder)")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mealwatch-load-"))
    if args.random_minilm:
        model = random_minilm(work / "random-minilm")
    else:
        from mealwatch.runs import NoModelError, resolve_model

        try:
            model = resolve_model(args.model, root=ROOT / "runs")
        except NoModelError as e:
            print(f"serve_load: {e}; or pass --random-minilm to measure a MiniLM-sized model with a random head")
            return 2
    db, port = args.db or str(work / "complaints.db"), free_port()
    url = f"http://{HOST}:{port}"
    command = [
        sys.executable,
        "-m",
        "mealwatch",
        "serve",
        "--model",
        str(model),
        "--db",
        db,
        "--host",
        HOST,
        "--port",
        str(port),
    ]
    print(f"model: {model}\nserver: {url}, torch threads = cores = {os.cpu_count()}, explain = {args.explain}")
    print(f"complaint log: {redact(db)}")
    print(f"load average (1, 5, 15 min) at the start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                health = httpx.get(url + "/api/health", timeout=2.0).json()
                break
            except httpx.HTTPError:
                if server.poll() is not None or time.monotonic() > deadline:
                    print("the server did not start:\n" + (server.stdout.read() if server.poll() is not None else ""))
                    return 1
                time.sleep(0.2)
        print(f"model version {health['model_version']}; log starts with {health['complaints_stored']} complaints")
        texts = complaint_texts()
        print(f"{len(texts)} distinct complaint texts, mean {statistics.fmean(map(len, texts)):.0f} characters")
        run_clients(url, texts, 20, 1, args.explain, 60)  # warm-up (saved too; counted below)
        if args.single:
            single = run_clients(url, texts, args.single, 1, args.explain, args.max_seconds)
            report(f"1 client, {args.single} requests", single)
        before = httpx.get(url + "/api/health").json()["complaints_stored"]
        load = run_clients(url, texts, args.requests, args.clients, args.explain, args.max_seconds)
        report(f"{args.clients} clients, {args.requests} requests", load)
        after = httpx.get(url + "/api/health").json()["complaints_stored"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    log = open_log(db)  # read back through the log's interface, after the server has gone
    rows = log.count()
    log.close()
    new = after - before
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"new rows in the log: {new} (expected {args.requests}); rows in the file after shutdown: {rows}")
    for why in load["failures"][:5]:
        print("failure:", why)
    ok = not load["failures"] and new == args.requests == len(load["latencies"])
    print("OK: no errors, every request saved" if ok else "FAILED: requests failed or rows are missing")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
