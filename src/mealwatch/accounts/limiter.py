"""Login attempts, limited before any password is checked, without locking the real user out.

Each attempt takes one from three buckets, each refilled at a steady rate (``LIMITS``):

- a name **from one address**: 5 attempts, one more a minute — someone guessing at one address gets a guess a
  minute, and the account's owner, at their own address, is untouched;
- an **address**, whatever the names: 20 attempts, one more every 15 s — one address guessing many names;
- a **name**, from every address: 20 attempts, one more every 30 s — many addresses guessing one name; an address
  where that name has logged in before (remembered ``KNOWN_DAYS``) is not held back by it, so a storm from
  elsewhere does not keep the owner out of the devices they use.

The attempt is taken *before* the password is checked, under one lock, so that racing attempts cannot get past a
bucket together; it is given back when the login succeeds (only failures count). An attempt that finds a bucket
dry while attempts taken from it are still being checked waits for them (up to ``WAIT_S``) before it is refused:
simultaneous right logins are not failures, and are never refused as such. There is no lock that grows: a
refused attempt waits for one attempt's refill (``retry_after``). The first refusal after a bucket ran dry says so
(``Attempt.newly_held``: one audit line per hold, not one per attempt). Kept in memory, per server process (a
restart forgets it). Behind a reverse proxy the address is the one it forwards (``mealwatch serve --proxy``);
without that, every client would share the proxy's address and its bucket.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limit:
    """A bucket's size and how fast it refills (attempts a second)."""

    attempts: int
    per_second: float


#: bucket kind -> its limit
LIMITS = {"pair": Limit(5, 1 / 60), "address": Limit(20, 1 / 15), "name": Limit(20, 1 / 30)}
#: days an address stays known for a name after a login from it
KNOWN_DAYS = 30
#: the most buckets (and known addresses) kept; beyond, the full ones are forgotten first
MAX_KEPT = 100_000
#: the longest an attempt waits for the attempts being checked before it is refused (seconds)
WAIT_S = 10.0


@dataclass
class _Bucket:
    level: float
    at: float
    held: bool = False  # a refusal was reported since it ran dry
    checking: int = 0  # attempts taken from it whose passwords are being checked


@dataclass
class Attempt:
    """One login attempt as the limiter saw it: allowed (its share taken), or refused for ``retry_after`` seconds."""

    keys: tuple[tuple[str, str], ...]
    allowed: bool
    retry_after: int = 0
    newly_held: list[str] = field(default_factory=list)  # buckets whose first refusal this is ("name ravi", ...)
    done: bool = False  # its outcome was told (``succeeded``, ``failed`` or ``given_back``)


class LoginLimiter:
    def __init__(self, clock: Callable[[], float] = time.monotonic, limits: dict[str, Limit] | None = None) -> None:
        self.clock = clock
        self.limits = limits or LIMITS
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self._known: dict[tuple[str, str], float] = {}  # (name, address) -> until
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)  # an attempt's outcome was told
        self.wait_s = WAIT_S

    def begin(self, name: str, address: str) -> Attempt:
        """Take one attempt for ``name`` from ``address`` from every bucket, or none when one is dry (refused) —
        after waiting for the attempts being checked that it is dry for. Tell its outcome: ``succeeded``,
        ``failed`` or ``given_back``."""
        name = name.strip().casefold()
        deadline = time.monotonic() + self.wait_s
        with self._lock:
            while True:
                now = self.clock()
                keys = [("pair", f"{name}\n{address}"), ("address", address)]
                if self._known.get((name, address), 0.0) < now:
                    keys.append(("name", name))
                buckets = [self._bucket(k, now) for k in keys]
                dry = [(k, b) for k, b in zip(keys, buckets) if b.level < 1]
                left = deadline - time.monotonic()
                if not dry or left <= 0 or not any(b.checking for _, b in dry):
                    break
                self._settled.wait(left)  # those being checked may be right: their attempts come back
            if dry:
                wait = max((1 - b.level) / self.limits[k[0]].per_second for k, b in dry)
                newly = [f"{k[0]} {k[1]}" for k, b in dry if not b.held]
                for _, b in dry:
                    b.held = True
                return Attempt(tuple(keys), False, max(1, int(wait + 0.999)), newly)
            for b in buckets:
                b.level -= 1
                b.held = False
                b.checking += 1
            self._forget(now)
        return Attempt(tuple(keys), True)

    def succeeded(self, attempt: Attempt) -> None:
        """The login went through: its attempt is given back, and its address is known for the name from now on."""
        now = self.clock()
        with self._lock:
            if not self._settle(attempt):
                return
            for kind, key in attempt.keys:
                bucket = self._buckets.get((kind, key))
                if bucket is not None:
                    bucket.level = min(self.limits[kind].attempts, bucket.level + 1)
            name, address = attempt.keys[0][1].split("\n", 1)
            self._known[(name, address)] = now + KNOWN_DAYS * 86400

    def failed(self, attempt: Attempt) -> None:
        """The login failed (or could not be checked to the end): its attempt counts."""
        with self._lock:
            self._settle(attempt)

    def given_back(self, attempt: Attempt) -> None:
        """The password was never checked (the service was too busy): the attempt does not count."""
        now = self.clock()
        with self._lock:
            if not self._settle(attempt):
                return
            for kind, key in attempt.keys:
                bucket = self._buckets.get((kind, key))
                if bucket is not None:
                    bucket.level = min(self.limits[kind].attempts, bucket.level + 1)
                    bucket.at = max(bucket.at, now)

    def _settle(self, attempt: Attempt) -> bool:
        """Mark an allowed attempt's outcome told (under the lock): its buckets no longer wait for it; whether it
        was still open."""
        if attempt.done or not attempt.allowed:
            return False
        attempt.done = True
        for kind, key in attempt.keys:
            bucket = self._buckets.get((kind, key))
            if bucket is not None and bucket.checking:
                bucket.checking -= 1
        self._settled.notify_all()
        return True

    def _bucket(self, key: tuple[str, str], now: float) -> _Bucket:
        limit = self.limits[key[0]]
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(limit.attempts), now)
        else:
            bucket.level = min(float(limit.attempts), bucket.level + (now - bucket.at) * limit.per_second)
            bucket.at = now
        return bucket

    def _forget(self, now: float) -> None:
        """Keep memory bounded under a storm of addresses: forget full buckets and expired known addresses."""
        if len(self._buckets) > MAX_KEPT:
            for key, b in list(self._buckets.items()):
                limit = self.limits[key[0]]
                if b.level + (now - b.at) * limit.per_second >= limit.attempts and not b.checking:
                    del self._buckets[key]
        if len(self._known) > MAX_KEPT:
            self._known = {k: until for k, until in self._known.items() if until >= now}
