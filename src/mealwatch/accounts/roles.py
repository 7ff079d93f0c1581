"""Roles and districts: what an account may do, and where.

- ``viewer``: reads the log (lists, exports, stats, alerts, histories) and may classify without saving;
- ``officer``: a viewer who also saves complaints, changes status, labels, assignee and notes, and
  acknowledges alerts;
- ``admin``: an officer who also manages users and tokens and reads the audit log.

Each account is scoped to districts (``["*"]``: every district, a state admin). Outside its districts a
complaint or an alert does not exist for it; complaints naming no district are seen only by accounts of every
district. An admin grants and acts within its own districts (``covers``): a district's admin adds, lists,
disables and enables only accounts and tokens of its districts, and reads only their part of the audit log.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import MAX_NAME_CHARS, RecordError, check_storable, fold

ROLES = ("viewer", "officer", "admin")
#: the district list of an account that sees every district
ALL_DISTRICTS = ("*",)


class AccountError(ValueError):
    """An account field that cannot be used as given; the message says what to fix."""


def check_role(role: str) -> str:
    if role not in ROLES:
        raise AccountError(f"unknown role {role!r}: expected one of {', '.join(ROLES)}")
    return role


def allows(role: str, needed: str) -> bool:
    """Whether ``role`` may do what ``needed`` may (roles are ordered viewer < officer < admin)."""
    return ROLES.index(role) >= ROLES.index(needed)


def covers(own: Sequence[str], districts: Sequence[str]) -> bool:
    """Whether an account of districts ``own`` may grant, see or change an account of ``districts``: every one of
    them is its own (``["*"]`` covers everything; only ``["*"]`` covers ``["*"]``)."""
    if ALL_DISTRICTS[0] in own:
        return True
    mine = {fold(d) for d in own}
    return bool(districts) and ALL_DISTRICTS[0] not in districts and {fold(d) for d in districts} <= mine


def check_name(name: str, what: str = "a user name") -> str:
    """A user or token name: 1 to 200 characters, visible, kept as typed (stripped)."""
    value = name.strip() if isinstance(name, str) else ""
    if not value:
        raise AccountError(f"{what} is empty: give a name")
    if len(value) > MAX_NAME_CHARS:
        raise AccountError(f"{what} is {len(value)} characters long; the limit is {MAX_NAME_CHARS}")
    try:
        check_storable(value, what)
    except RecordError as e:
        raise AccountError(str(e)) from None
    if any(not c.isprintable() for c in value):
        raise AccountError(f"{what} holds a control or invisible character: use letters, digits and punctuation")
    return value


def parse_districts(text: str | list[str]) -> list[str]:
    """Districts from ``"Gaya,Patna"`` (or a list): each stripped, none empty; ``"*"`` alone is every district."""
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [check_name(d, "a district name") for d in items if isinstance(d, str) and d.strip()]
    if not names:
        raise AccountError("no districts given: name one or more (D1,D2), or '*' for every district")
    if "*" in names:
        if len(names) > 1:
            raise AccountError("'*' (every district) cannot be combined with named districts")
        return list(ALL_DISTRICTS)
    return list(dict.fromkeys(names))
