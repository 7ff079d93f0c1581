"""Progress of long work on standard error: one line updated in place on a terminal; in a log file (not a
terminal) a plain line at most every ``every_s`` seconds and at the end, never a carriage-return update."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``advance(done)`` as work goes; ``finish()`` at its end."""

    def __init__(self, what: str, total: int, stream: TextIO | None = None, every_s: float = 30.0) -> None:
        self.what, self.total, self.every_s = what, max(total, 1), every_s
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = self.last = time.monotonic()
        self.done = 0

    def line(self) -> str:
        seconds = time.monotonic() - self.started
        rate = self.done / seconds if seconds > 0 else 0.0
        left = f", about {(self.total - self.done) / rate:.0f} s left" if 0 < self.done < self.total and rate else ""
        share = 100 * self.done / self.total
        return f"{self.what}: {self.done:,}/{self.total:,} ({share:.0f} %, {seconds:.0f} s{left})"

    def advance(self, done: int) -> None:
        self.done = min(done, self.total)
        now = time.monotonic()
        if self.live:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()
        elif now - self.last >= self.every_s:
            print(self.line(), file=self.stream, flush=True)
            self.last = now

    def finish(self) -> None:
        self.done = self.total
        if self.live:
            self.stream.write("\r" + self.line() + "\x1b[K\n")
        else:
            print(self.line(), file=self.stream)
        self.stream.flush()
