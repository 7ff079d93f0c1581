"""Passwords, hashed with argon2id (``argon2-cffi``): a memory-hard function, so a stolen user table is slow to
guess through. Only the hash (its PHC string, parameters and salt included) is stored."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .roles import AccountError

T = TypeVar("T")

#: the shortest password accepted
MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 1024

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters (RFC 9106's second choice)
#: verified against when the user does not exist, so that a missing user takes as long as a wrong password
_DUMMY = _hasher.hash("not anybody's password")


def check_password(password: str) -> str:
    if not isinstance(password, str) or len(password) < MIN_PASSWORD_CHARS:
        raise AccountError(f"the password is too short: use at least {MIN_PASSWORD_CHARS} characters")
    if len(password) > MAX_PASSWORD_CHARS:
        raise AccountError(f"the password is longer than {MAX_PASSWORD_CHARS} characters")
    if "\x00" in password or any("\ud800" <= c <= "\udfff" for c in password):
        raise AccountError("the password holds a NUL or a lone surrogate: use ordinary characters")
    return password


def hash_password(password: str) -> str:
    """The argon2id hash of a checked password (``$argon2id$v=19$m=...``)."""
    return _hasher.hash(check_password(password))


def verify_password(stored_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches ``stored_hash`` (None: no such user — still takes a hash's time)."""
    if not isinstance(password, str) or len(password) > MAX_PASSWORD_CHARS:
        return False
    try:
        return _hasher.verify(stored_hash or _DUMMY, password.encode("utf-8", "surrogatepass")) and bool(stored_hash)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash: str) -> bool:
    """Whether the hash was made with older parameters (it is replaced at the next successful login)."""
    return _hasher.check_needs_rehash(stored_hash)


class ChecksBusy(RuntimeError):
    """Every password-check slot and waiting place is taken: the login is refused before its check (try again)."""


class CheckGate:
    """A cap on password checks at once, across every login: each argon2id check holds ``memory_cost`` (64 MiB
    with the library's parameters) and a core for a tenth of a second, so a storm of logins must not run them all
    together. The checks run on ``running`` threads of their own, at a lower CPU priority than the service's
    other work (nice 10, where the system allows it), so that a storm slows the logins, not the classification;
    ``waiting`` more wait their turn; one beyond is refused at once (``ChecksBusy``)."""

    def __init__(self, running: int | None = None, waiting: int = 8) -> None:
        self.running = running or max(1, (os.cpu_count() or 1) // 4)
        self.waiting = waiting
        self._workers = ThreadPoolExecutor(self.running, "mealwatch-password-check", initializer=_lower_priority)
        self._inside = 0
        self._lock = threading.Lock()
        self.most_at_once = 0  # the most checks that ran together (a benchmark reads it)
        self._at_once = 0

    def run(self, check: Callable[[], T]) -> T:
        """``check()`` on a password-check thread, once one is free (waiting for it); ChecksBusy when too many
        are waiting already."""
        with self._lock:
            if self._inside >= self.running + self.waiting:
                raise ChecksBusy(f"{self._inside} logins are being checked or waiting")
            self._inside += 1
        try:
            return self._workers.submit(self._counted, check).result()
        finally:
            with self._lock:
                self._inside -= 1

    def _counted(self, check: Callable[[], T]) -> T:
        with self._lock:
            self._at_once += 1
            self.most_at_once = max(self.most_at_once, self._at_once)
        try:
            return check()
        finally:
            with self._lock:
                self._at_once -= 1


def _lower_priority() -> None:
    """Give this thread a lower CPU priority (Linux: nice 10 for the thread alone); nothing where not allowed."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
