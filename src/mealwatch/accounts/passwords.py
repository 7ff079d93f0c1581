"""Passwords, hashed with argon2id (``argon2-cffi``): a memory-hard function, so a stolen user table is slow to
guess through. Only the hash (its PHC string, parameters and salt included) is stored."""

from __future__ import annotations

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
