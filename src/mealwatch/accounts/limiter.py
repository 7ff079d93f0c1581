"""Login attempts, limited per user name and per client address.

``MAX_FAILURES`` failed logins in a row for one name (or from one address) lock it for ``FIRST_LOCK`` seconds;
each further lock after more failures lasts twice as long, up to ``MAX_LOCK``. A successful login clears the
name's failures (not the address's: one address guessing many names stays limited). Kept in memory, per
server process: a restart forgets it (the audit log keeps every failed login).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_FAILURES = 5
FIRST_LOCK = 60.0
MAX_LOCK = 3600.0


@dataclass
class _Record:
    failures: int = 0
    locks: int = 0
    locked_until: float = 0.0


class LoginLimiter:
    def __init__(
        self,
        max_failures: int = MAX_FAILURES,
        first_lock: float = FIRST_LOCK,
        max_lock: float = MAX_LOCK,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_failures, self.first_lock, self.max_lock, self.clock = max_failures, first_lock, max_lock, clock
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def retry_after(self, *keys: str) -> int:
        """Seconds until every key may try again (0: now)."""
        now = self.clock()
        with self._lock:
            wait = max((self._records[k].locked_until - now for k in keys if k in self._records), default=0.0)
        return max(0, int(wait + 0.999))

    def failed(self, *keys: str) -> None:
        now = self.clock()
        with self._lock:
            for key in keys:
                record = self._records.setdefault(key, _Record())
                record.failures += 1
                if record.failures >= self.max_failures:
                    record.locked_until = now + min(self.max_lock, self.first_lock * 2**record.locks)
                    record.locks += 1
                    record.failures = 0

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._records.pop(key, None)
