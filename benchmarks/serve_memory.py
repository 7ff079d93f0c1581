"""Memory of `mealwatch serve` under a classify load: does its resident size level off?

Starts the server as a child process on 127.0.0.1 (MiniLM with a random head, as serve_load.py
--random-minilm, or --model DIR) with a fresh SQLite log, then --clients threads send POST /api/classify
(default importance, every --save-every'th request saved) for --seconds, and the server's RSS (from
/proc/<pid>/status) is printed every --every seconds with the requests done so far. A leak grows with the
requests; an allocator warming up grows early and then stays flat.

    python benchmarks/serve_memory.py [--seconds 180] [--clients 32] [--every 15] [--model runs/<name>]

Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import HOST, complaint_texts, free_port, random_minilm  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="a model folder (default: MiniLM with a random head)")
    parser.add_argument("--seconds", type=float, default=180)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--every", type=float, default=15)
    parser.add_argument("--save-every", type=int, default=4)
    args = parser.parse_args()

    texts = complaint_texts()
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(args.model) if args.model else random_minilm(Path(tmp) / "minilm-random")
        port = free_port()
        url = f"http://{HOST}:{port}"
        command = [sys.executable, "-m", "mealwatch", "serve", "--model", str(model), "--db", str(Path(tmp) / "log.db"),
                   "--host", HOST, "--port", str(port)]  # fmt: skip
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    httpx.get(url + "/api/health", timeout=2).raise_for_status()
                    break
                except httpx.HTTPError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        print(server.communicate()[0])
                        return 1
                    time.sleep(0.2)
            done, failed = [0], [0]
            counter = itertools.count()
            stop = threading.Event()

            def client() -> None:
                with httpx.Client(base_url=url, timeout=120) as http:
                    while not stop.is_set():
                        n = next(counter)
                        body = {"text": texts[n % len(texts)], "save": n % args.save_every == 0}
                        r = http.post("/api/classify", json=body)
                        done[0] += 1
                        failed[0] += r.status_code != 200

            print(f"server pid {server.pid}, {args.clients} clients, {args.seconds:.0f} s")
            print(f"{'seconds':>8} {'requests':>9} {'failed':>7} {'RSS MB':>8}")
            print(f"{0:8.0f} {0:9d} {0:7d} {rss_mb(server.pid):8.1f}")
            threads = [threading.Thread(target=client, daemon=True) for _ in range(args.clients)]
            t0 = time.monotonic()
            for t in threads:
                t.start()
            while (elapsed := time.monotonic() - t0) < args.seconds:
                time.sleep(min(args.every, args.seconds - elapsed))
                print(f"{time.monotonic() - t0:8.0f} {done[0]:9d} {failed[0]:7d} {rss_mb(server.pid):8.1f}", flush=True)
            stop.set()
            for t in threads:
                t.join(timeout=130)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return 1 if failed[0] else 0


if __name__ == "__main__":
    sys.exit(main())
