"""`mealwatch serve` as a child process of a benchmark: started on 127.0.0.1, waited for, measured, killed.

Used by serve_memory.py and serve_durability.py. Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HOST = "127.0.0.1"  # loopback only, never another address


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (VmRSS from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class ServerProcess:
    """`python -m mealwatch serve --model MODEL --db DB` on 127.0.0.1:``port``; its output goes to a temp file."""

    def __init__(self, model: Path, db: str, port: int, *extra: str) -> None:
        self.url = f"http://{HOST}:{port}"
        self.command = [sys.executable, "-m", "mealwatch", "serve", "--model", str(model), "--db", db,
                        "--host", HOST, "--port", str(port), *extra]  # fmt: skip
        self.process: subprocess.Popen | None = None
        self.output = tempfile.TemporaryFile(mode="w+", encoding="utf-8")

    @property
    def pid(self) -> int:
        assert self.process is not None, "the server is not started"
        return self.process.pid

    def start(self, timeout: float = 180) -> float:
        """Start the server and wait until /api/health answers; the seconds that took. RuntimeError (with the
        server's output) when it exits or does not answer in ``timeout`` seconds."""
        t0 = time.monotonic()
        self.process = subprocess.Popen(self.command, stdout=self.output, stderr=subprocess.STDOUT, text=True)
        while True:
            try:
                httpx.get(self.url + "/api/health", timeout=2).raise_for_status()
                return time.monotonic() - t0
            except httpx.HTTPError:
                if self.process.poll() is not None or time.monotonic() - t0 > timeout:
                    self.stop()
                    raise RuntimeError(f"the server did not start (exit {self.process.returncode}):\n{self.log()}")
                time.sleep(0.1)

    def kill9(self) -> None:
        """SIGKILL the server (no shutdown code runs) and reap it."""
        os.kill(self.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """Stop the server as Ctrl-C would (SIGTERM; SIGKILL after 30 s)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill9()

    def log(self) -> str:
        """Everything the server (every start of it) printed so far."""
        self.output.flush()
        self.output.seek(0)
        text = self.output.read()
        self.output.seek(0, os.SEEK_END)
        return text
