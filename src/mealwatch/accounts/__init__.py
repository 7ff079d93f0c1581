"""Accounts: who may use the service and how far — roles, districts, passwords, tokens, login limits.

Plain rules, no storage and no HTTP: the log keeps users, sessions, tokens and the audit log
(``mealwatch.log.account_store``); the service applies these rules to each request (``mealwatch.serve.auth``).
"""

from __future__ import annotations

from .limiter import Attempt, LoginLimiter
from .passwords import (
    MIN_PASSWORD_CHARS,
    CheckGate,
    ChecksBusy,
    check_password,
    hash_password,
    needs_rehash,
    verify_password,
)
from .roles import ALL_DISTRICTS, ROLES, AccountError, allows, check_name, check_role, covers, parse_districts
from .keys import new_secret, secret_hash

__all__ = [
    "ALL_DISTRICTS",
    "AccountError",
    "Attempt",
    "CheckGate",
    "ChecksBusy",
    "LoginLimiter",
    "MIN_PASSWORD_CHARS",
    "ROLES",
    "allows",
    "check_name",
    "check_password",
    "check_role",
    "covers",
    "hash_password",
    "needs_rehash",
    "new_secret",
    "parse_districts",
    "secret_hash",
    "verify_password",
]
