"""Memory of `mealwatch serve` under a classify load: does its resident size level off?

Starts the server as a child process on 127.0.0.1 (MiniLM with a random head, as serve_load.py
--random-minilm, or --model DIR) with a fresh SQLite log, then --clients threads send POST /api/classify
(default importance, every --save-every'th request saved) for --seconds. Every --every seconds it prints the
requests done, the failed ones (a non-200 answer or a lost connection) and the server's RSS (from
/proc/<pid>/status). A leak grows with the requests; an allocator warming up grows early and then stays flat.

Verdict "flat after warm-up": the mean RSS over the last minute (sampled every second) is at most --flat-percent
above its mean over the last minute of warm-up (the minute up to --warmup seconds: with the defaults, minute 5
against minute 2); and no request failed.

    python benchmarks/serve_memory.py [--seconds 300] [--clients 32] [--every 60] [--warmup 120] [--model runs/<name>]

Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import complaint_texts, free_port, random_minilm  # noqa: E402
from server_process import ServerProcess, rss_mb  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="a model folder (default: MiniLM with a random head)")
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--every", type=float, default=60, help="print a line this often (seconds)")
    parser.add_argument("--warmup", type=float, default=120, help="seconds of warm-up before memory must stay flat")
    parser.add_argument("--flat-percent", type=float, default=10, help="the most RSS may grow after warm-up (%%)")
    parser.add_argument("--save-every", type=int, default=4)
    args = parser.parse_args()
    if not 0 < args.warmup < args.seconds:
        parser.error("--warmup must be above 0 and below --seconds")

    texts = complaint_texts()
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(args.model) if args.model else random_minilm(Path(tmp) / "minilm-random")
        server = ServerProcess(model, str(Path(tmp) / "log.db"), free_port())
        try:
            server.start()
        except RuntimeError as e:
            print(e)
            return 1
        done, failures = [0], Counter()
        lock = threading.Lock()
        counter = itertools.count()
        stop = threading.Event()

        def client() -> None:
            with httpx.Client(base_url=server.url, timeout=120) as http:
                while not stop.is_set():
                    n = next(counter)
                    body = {"text": texts[n % len(texts)], "save": n % args.save_every == 0}
                    try:
                        status = http.post("/api/classify", json=body).status_code
                    except httpx.HTTPError as e:
                        status = type(e).__name__
                    with lock:
                        done[0] += 1
                        if status != 200:
                            failures[status] += 1

        print(f"server pid {server.pid}, {args.clients} clients, {args.seconds:.0f} s, warm-up {args.warmup:.0f} s")
        print(f"{'seconds':>8} {'requests':>9} {'failed':>7} {'RSS MB':>8}")
        print(f"{0:8.0f} {0:9d} {0:7d} {rss_mb(server.pid):8.1f}", flush=True)
        threads = [threading.Thread(target=client, daemon=True) for _ in range(args.clients)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        samples: list[tuple[float, float]] = []  # (seconds, RSS MB), once a second
        next_line = min(args.every, args.seconds)
        while (elapsed := time.monotonic() - t0) < args.seconds:
            time.sleep(min(1.0, args.seconds - elapsed))
            now, rss = time.monotonic() - t0, rss_mb(server.pid)
            samples.append((now, rss))
            if now >= next_line - 0.5:  # a line every --every seconds, and one at the end
                print(f"{now:8.0f} {done[0]:9d} {sum(failures.values()):7d} {rss:8.1f}", flush=True)
                next_line = (
                    args.seconds + args.every
                    if next_line >= args.seconds
                    else min(next_line + args.every, args.seconds)
                )
        stop.set()
        for t in threads:
            t.join(timeout=130)
        requests = done[0]
        server.stop()

    window = min(60.0, args.warmup, args.seconds - args.warmup)  # seconds averaged at each end
    before = statistics.fmean(rss for t, rss in samples if args.warmup - window < t <= args.warmup)
    after = statistics.fmean(rss for t, rss in samples if t > args.seconds - window)
    peak = max(rss for t, rss in samples if t > args.warmup)
    growth = (after / before - 1) * 100
    failed = sum(failures.values())
    print(f"requests {requests} ({requests / args.seconds:.1f}/s), failed {failed}"
          + (f" ({', '.join(f'{k}: {v}' for k, v in failures.items())})" if failed else ""))  # fmt: skip
    print(
        f"mean RSS over the {window:.0f} s up to {args.warmup:.0f} s (end of warm-up) {before:.0f} MB, over the last "
        f"{window:.0f} s {after:.0f} MB: {growth:+.1f} % (bound +{args.flat_percent:g} %); "
        f"peak after warm-up {peak:.0f} MB"
    )
    flat = growth <= args.flat_percent
    print(("flat after warm-up" if flat else "NOT flat after warm-up") + (", 0 errors" if not failed else ", ERRORS"))
    return 0 if flat and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
