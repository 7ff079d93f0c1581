"""Session cookies, CSRF tokens and API tokens: random secrets, stored only as their SHA-256 (a secret of 256
random bits needs no slow hash)."""

from __future__ import annotations

import hashlib
import secrets as _secrets


def new_secret(prefix: str = "") -> str:
    """32 random bytes, URL-safe (43 characters), after ``prefix`` (API tokens: ``mw_``, to be recognisable)."""
    return prefix + _secrets.token_urlsafe(32)


def secret_hash(secret: str) -> str:
    """What the log stores of a secret: its SHA-256, hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()
