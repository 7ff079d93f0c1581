"""Passwords, hashed with argon2id (``argon2-cffi``): a memory-hard function, so a stolen user table is slow to
guess through. Only the hash (its PHC string, parameters and salt included) is stored."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .roles import AccountError

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
    together. ``running`` checks run, ``waiting`` more wait their turn; one beyond is refused at once
    (``ChecksBusy``)."""

    def __init__(self, running: int | None = None, waiting: int = 8) -> None:
        self.running = running or max(1, (os.cpu_count() or 1) // 4)
        self.waiting = waiting
        self._slots = threading.Semaphore(self.running)
        self._inside = 0
        self._lock = threading.Lock()
        self.most_at_once = 0  # the most checks that ran together (a benchmark reads it)
        self._at_once = 0

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Hold one check slot (waiting for it); ChecksBusy when too many are waiting already."""
        with self._lock:
            if self._inside >= self.running + self.waiting:
                raise ChecksBusy(f"{self._inside} logins are being checked or waiting")
            self._inside += 1
        try:
            with self._slots:
                with self._lock:
                    self._at_once += 1
                    self.most_at_once = max(self.most_at_once, self._at_once)
                try:
                    yield
                finally:
                    with self._lock:
                        self._at_once -= 1
        finally:
            with self._lock:
                self._inside -= 1
