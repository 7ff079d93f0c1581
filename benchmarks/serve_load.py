"""Load test of `mealwatch serve`: throughput and latency at 1, 16 and 64 clients beside offline batch prediction.

Starts the server as a child process (`python -m mealwatch serve`, uvicorn) on 127.0.0.1 with a
fresh complaint log (a SQLite file; --db postgresql://... measures a PostgreSQL log instead), then
  1. for each --clients count, sends saving POST /api/classify requests (save=true; per-word importance as
     --explain, default none: the API's default) from that many client threads, one request at a time each;
  2. before each client count and after the last, while the server is idle, measures the OFFLINE batch
     throughput of the same model, in the same precision, on the same texts (`Pipeline.predict`, batch size
     64) in this process: each service figure is compared with the mean of the offline figures just before
     and after it, so that a change in the machine's load hits both alike;
checks that no request failed and that exactly that many new rows are in the log, and prints a table of
requests/s, p50 and p99 per client count, the ratio service/offline, and PASS/FAIL against issue 13's
targets: with 16 clients >= 70 % of the offline throughput and p99 <= 250 ms.

    python benchmarks/serve_load.py --random-minilm            # MiniLM with a random head: a trained model's compute
    python benchmarks/serve_load.py --model runs/<name> [--precision auto] [--batch-wait-ms 5] [--batch-tokens 2048]
    python benchmarks/serve_load.py --db postgresql://user:password@127.0.0.1:5432/mealwatch   # the log in PostgreSQL

The clients run on the same machine (and cores) as the server. Only 127.0.0.1 is ever contacted.
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
from mealwatch.transformer.precision import cpu_name

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


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc); None where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    except (OSError, IndexError, ValueError):
        return None


def offline_rate(pipeline, texts: list[str], count: int, repeats: int) -> float:
    """Complaints/s of ``Pipeline.predict`` (batch size 64) on ``count`` of the texts, median of ``repeats``."""
    batch = (texts * (count // len(texts) + 1))[:count]
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        pipeline.predict(batch, batch_size=64)
        rates.append(count / (time.perf_counter() - started))
    print(f"offline: {count} texts, batch size 64, {pipeline.mode}: {', '.join(f'{r:.1f}' for r in rates)} texts/s")
    return statistics.median(rates)


def server_mode(server_log: Path) -> str:
    """The mode the server's model runs in, from its start line (``running in ...``)."""
    text = server_log.read_text(encoding="utf-8", errors="replace")
    found = text.partition("running in ")[2].partition(")")[0]
    return found or "unknown"


def summary(run: dict) -> dict:
    lat = [x * 1000 for x in run["latencies"]]
    return {
        "ok": len(lat),
        "failed": len(run["failures"]),
        "rate": len(lat) / run["seconds"] if lat else 0.0,
        "p50": statistics.median(lat) if lat else float("nan"),
        "p99": percentile(lat, 0.99) if lat else float("nan"),
        "mean": statistics.fmean(lat) if lat else float("nan"),
        "seconds": run["seconds"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a trained model folder (default: the latest run in runs/)")
    ap.add_argument("--random-minilm", action="store_true", help="use all-MiniLM-L6-v2 with a random head")
    ap.add_argument("--clients", default="1,16,64", help="client counts, comma-separated (default: 1,16,64)")
    ap.add_argument("--requests", type=int, default=2000, help="requests per client count above 1 (default: 2000)")
    ap.add_argument("--single", type=int, default=300, help="requests with one client (default: 300)")
    ap.add_argument("--explain", choices=["grad", "none"], default="none", help="per-word importance (default: none)")
    ap.add_argument("--precision", default="fp32", help="the server's and the offline run's --precision (fp32)")
    ap.add_argument("--batch-wait-ms", type=float, default=5.0, help="the server's --batch-wait-ms (default: 5)")
    ap.add_argument("--batch-tokens", type=int, default=2048, help="the server's --batch-tokens (default: 2048)")
    ap.add_argument("--max-batch", type=int, default=64, help="the server's --max-batch (default: 64)")
    ap.add_argument("--offline-count", type=int, default=500, help="texts per offline run (default: 500)")
    ap.add_argument("--offline-repeats", type=int, default=2, help="offline runs per measurement (default: 2)")
    ap.add_argument("--max-seconds", type=float, default=300, help="stop sending after this long, per client count")
    ap.add_argument("--server-threads", type=int, help="the server's --threads (default: every core)")
    ap.add_argument("--search", default="e5", help="the server's --search (default e5, as serve's; off: none)")
    ap.add_argument("--db", help="the complaint log: a postgresql:// URL (default: a new SQLite file in a temp folder)")
    args = ap.parse_args()
    counts = [int(c) for c in args.clients.split(",") if c.strip()]

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
    command = [sys.executable, "-m", "mealwatch", "serve", "--model", str(model), "--db", db, "--host", HOST,
               "--port", str(port), "--precision", args.precision, "--batch-wait-ms", str(args.batch_wait_ms),
               "--batch-tokens", str(args.batch_tokens), "--max-batch", str(args.max_batch),
               "--search", args.search]  # fmt: skip
    if args.server_threads:
        command += ["--threads", str(args.server_threads)]
    texts = complaint_texts()
    print(f"CPU: {cpu_name()}; {os.cpu_count()} cores (torch threads = cores in the server and the offline run)")
    print(f"model: {model}")
    print(f"server: {url}, explain = {args.explain}, every request saves (save=true), --search {args.search}")
    print(f"batching: --batch-wait-ms {args.batch_wait_ms:g} --batch-tokens {args.batch_tokens} "
          f"--max-batch {args.max_batch}; precision {args.precision}; server threads "
          f"{args.server_threads or 'every core'}")  # fmt: skip
    print(f"complaint log: {redact(db)}")
    print(f"{len(texts)} distinct complaint texts, mean {statistics.fmean(map(len, texts)):.0f} characters")
    print(f"load average (1, 5, 15 min) at the start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    from mealwatch.pipeline import Pipeline

    pipeline = Pipeline.from_folder(model, precision=args.precision, log=lambda line: print("  " + line))
    pipeline.predict(texts[:64])  # warm-up
    offline: list[float] = []
    server_log = work / "server.log"  # a file, not a pipe: a pipe nobody reads fills up and stops the server
    out = open(server_log, "w", encoding="utf-8")
    server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, text=True)
    results: dict[int, dict] = {}
    failures: list[str] = []
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                health = httpx.get(url + "/api/health", timeout=2.0).json()
                break
            except httpx.HTTPError:
                if server.poll() is not None or time.monotonic() > deadline:
                    print("the server did not start:\n" + server_log.read_text(encoding="utf-8")[-4000:])
                    return 1
                time.sleep(0.2)
        print(f"model version {health['model_version']}; log starts with {health['complaints_stored']} complaints")
        run_clients(url, texts, 40, 4, args.explain, 60)  # warm-up (saved too; not counted below)
        before = httpx.get(url + "/api/health").json()["complaints_stored"]
        sent = 0
        for clients in counts:
            offline.append(offline_rate(pipeline, texts, args.offline_count, args.offline_repeats))
            total = args.single if clients == 1 else args.requests
            passes_before, server_cpu = (
                httpx.get(url + "/api/health").json()["model_passes"],
                process_cpu_seconds(server.pid),
            )
            client_cpu = time.process_time()
            run = run_clients(url, texts, total, clients, args.explain, args.max_seconds)
            client_cpu = time.process_time() - client_cpu
            server_after, passes = (
                process_cpu_seconds(server.pid),
                httpx.get(url + "/api/health").json()["model_passes"],
            )
            results[clients] = summary(run)
            done = max(1, len(run["latencies"]) + len(run["failures"]))
            texts_run, n_passes = passes["texts"] - passes_before["texts"], passes["passes"] - passes_before["passes"]
            padded = passes["padded_tokens"] - passes_before["padded_tokens"]
            padding = 1 - (passes["tokens"] - passes_before["tokens"]) / max(1, padded)
            model_busy = (passes["model_seconds"] - passes_before["model_seconds"]) / run["seconds"]
            cpu = (
                ""
                if server_cpu is None or server_after is None
                else (f"server CPU {1000 * (server_after - server_cpu) / done:.1f} ms/request, ")
            )
            results[clients]["where"] = (
                f"  {n_passes} passes, {texts_run / max(1, n_passes):.1f} texts per pass, {padding:.0%} of their word "
                f"pieces padding; the model busy {model_busy:.0%} of the time; {cpu}clients' CPU "
                f"{1000 * client_cpu / done:.1f} ms/request"
            )
            failures += run["failures"]
            sent += total
            r = results[clients]
            print(f"{clients} clients: {r['ok']} ok, {r['failed']} failed in {r['seconds']:.1f} s | p50 {r['p50']:.1f} "
                  f"ms, p99 {r['p99']:.1f} ms, mean {r['mean']:.1f} ms | {r['rate']:.1f} requests/s")  # fmt: skip
            print(r["where"])
        after = httpx.get(url + "/api/health").json()["complaints_stored"]
        offline.append(offline_rate(pipeline, texts, args.offline_count, args.offline_repeats))
    finally:
        server.terminate()
        server.wait(timeout=30)
        out.close()
    log = open_log(db)  # read back through the log's interface, after the server has gone
    rows = log.count()
    log.close()
    new = after - before
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    mode = server_mode(server_log)
    print(f"\nthe server ran in {mode}, the offline runs in {pipeline.mode}"
          + ("" if mode == pipeline.mode else " (each process's own kernel probe: not the same kernel)"))  # fmt: skip
    print(f"offline batch prediction, complaints/s, before each client count and at the end: "
          f"{', '.join(f'{x:.1f}' for x in offline)}\n")  # fmt: skip
    print("| clients | requests | requests/s | p50 ms | p99 ms | offline complaints/s (around it) | service/offline |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    around = {}
    for k, (clients, r) in enumerate(results.items()):
        around[clients] = (offline[k] + offline[k + 1]) / 2
        print(f"| {clients} | {r['ok']} | {r['rate']:.1f} | {r['p50']:.1f} | {r['p99']:.1f} | {around[clients]:.1f} | "
              f"{r['rate'] / around[clients]:.0%} |")  # fmt: skip
    print(f"\nnew rows in the log: {new} (expected {sent}); rows in the file after shutdown: {rows}")
    for why in failures[:5]:
        print("failure:", why)
    if failures:
        print(f"the server's output: {server_log}")
    ok = not failures and new == sent == sum(r["ok"] for r in results.values())
    print("OK: no errors, every request saved" if ok else "FAILED: requests failed or rows are missing")
    if 16 in results:
        r = results[16]
        share, p99 = r["rate"] / around[16], r["p99"]
        verdict = "PASS" if share >= 0.70 and p99 <= 250 else "FAIL"
        print(f"{verdict}: 16 clients reach {share:.0%} of offline throughput (target >= 70 %), "
              f"p99 {p99:.1f} ms (target <= 250 ms)")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
