"""Keyset paging: a page cursor names the last complaint of a page by its sort key, and the next page is read
from there through the order's index, however deep (an offset reads and drops every complaint before it).

A cursor is opaque to clients: ``base64url(JSON [order, its sort keys' values ...])``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..labels import URGENCY_LEVELS, urgency_rank
from .complaint_rows import COLUMNS, ORDERS
from .shapes import CursorError, Tx, page_clause

#: order -> its sort keys (SQL expression, descending?, kind of value), as in ``base.ORDERS``; the last (id) is unique
ORDER_KEYS: dict[str, tuple[tuple[str, bool, str], ...]] = {
    "queue": (("needs_review", True, "flag"), ("urgency_rank", False, "rank"), ("created_at", True, "time"),
              ("id", True, "id")),
    "review": (("needs_review", True, "flag"), ("COALESCE(certainty, 2.0)", False, "certainty"),
               ("created_at", True, "time"), ("id", True, "id")),
    "triage": (("severity", True, "severity"), ("needs_review", True, "flag"), ("created_at", True, "time"),
               ("id", True, "id")),
}  # fmt: skip
#: a time as the log stores it (``base.utc_now``), ASCII digits only
STORED_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_BROKEN = "the cursor is not one this service gave out (or was cut short): start again from the first page"
#: kind of sort key -> its value in a decoded complaint
_VALUE: dict[str, Callable[[dict[str, Any]], Any]] = {
    "flag": lambda row: int(bool(row["needs_review"])),
    "rank": lambda row: urgency_rank(row["urgency"]),
    "certainty": lambda row: row["certainty"] if row["certainty"] is not None else 2.0,
    "severity": lambda row: int(row["severity"]),
    "time": lambda row: row["created_at"],
    "id": lambda row: int(row["id"]),
}


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: kind of sort key -> whether a value from a cursor is one the database can compare (checked before it is sent)
_VALID: dict[str, Callable[[Any], bool]] = {
    "flag": lambda v: _whole(v) and v in (0, 1),
    "rank": lambda v: _whole(v) and v in range(len(URGENCY_LEVELS)),
    # (abs first: 10**400 is no float, and math.isfinite would overflow on it)
    "certainty": lambda v: isinstance(v, (int, float))
    and not isinstance(v, bool)
    and abs(v) < 2**63
    and math.isfinite(v),
    "severity": lambda v: _whole(v) and 0 <= v < 2**63,
    "time": lambda v: isinstance(v, str) and STORED_TIME.fullmatch(v) is not None,
    "id": lambda v: _whole(v) and -(2**63) <= v < 2**63,
}
#: kind of sort key -> the value as the query binds it
_BOUND: dict[str, Callable[[Any], Any]] = {"flag": bool, "certainty": float}


def sort_key(order: str, row: dict[str, Any]) -> list[Any]:
    """A decoded complaint's values of ``order``'s sort keys."""
    return [_VALUE[kind](row) for _, _, kind in ORDER_KEYS[order]]


def encode_cursor(order: str, row: dict[str, Any]) -> str:
    """The cursor of the page that follows ``row`` (the last complaint of a page) in ``order``."""
    text = json.dumps([order, *sort_key(order, row)], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, order: str) -> list[Any]:
    """The sort key a cursor names; CursorError when it is broken or belongs to another order.

    Every value is checked before it reaches the database: a forged cursor (any JSON at all) is refused with
    CursorError, never passed on as a value the database cannot store or compare (a number past 64 bits, NaN,
    a lone surrogate, a NUL, a time not in the stored format).
    """
    try:
        text = base64.urlsafe_b64decode(cursor.strip() + "=" * (-len(cursor.strip()) % 4)).decode()
        got, *values = json.loads(text)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError, RecursionError):
        raise CursorError(_BROKEN) from None
    if not isinstance(got, str) or got not in ORDER_KEYS:
        raise CursorError(_BROKEN)
    if got != order:
        raise CursorError(f"the cursor belongs to order={got}, not order={order}: pass order={got} or start again")
    kinds = [kind for _, _, kind in ORDER_KEYS[order]]
    if len(values) != len(kinds) or not all(_VALID[kind](v) for kind, v in zip(kinds, values)):
        raise CursorError(_BROKEN)
    return [_BOUND.get(kind, lambda v: v)(v) for kind, v in zip(kinds, values)]


def keyset_rows(tx: Tx, order: str, where: str, params: Sequence[Any], start: Sequence[Any], limit: int) -> list[dict]:
    """Up to ``limit`` complaints matching ``where`` that come after ``start`` in ``order``.

    "After" in a mixed-direction order is a union of ranges, each one seek in the order's index: the same first
    keys and a later last key, tried from the deepest key up until the page is full.
    """
    keys = ORDER_KEYS[order]
    rows: list[dict[str, Any]] = []
    for depth in range(len(keys) - 1, -1, -1):
        conditions = [f"{expr} = ?" for expr, _, _ in keys[:depth]]
        expr, descending, _ = keys[depth]
        conditions.append(f"{expr} {'<' if descending else '>'} ?")
        clause = (f"{where} AND " if where else " WHERE ") + " AND ".join(conditions)
        rows += tx.all(
            f"SELECT {COLUMNS} FROM complaints{clause}{ORDERS[order]}{page_clause(limit - len(rows), 0)}",
            [*params, *start[: depth + 1]],
        )
        if len(rows) >= limit:
            break
    return rows
