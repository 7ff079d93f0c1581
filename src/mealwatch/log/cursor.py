"""Keyset paging: a page cursor names the last complaint of a page by its sort key, and the next page is read
from there through the order's index, however deep (an offset reads and drops every complaint before it).

A cursor is opaque to clients: ``base64url(JSON [order, needs_review, second key, created_at, id])``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from ..labels import URGENCY_LEVELS, urgency_rank
from .base import COLUMNS, ORDERS, CursorError, Tx, page_clause

#: order -> its sort keys (SQL expression, descending?), as in ``base.ORDERS``; the last one (id) is unique
ORDER_KEYS: dict[str, tuple[tuple[str, bool], ...]] = {
    "queue": (("needs_review", True), ("urgency_rank", False), ("created_at", True), ("id", True)),
    "review": (("needs_review", True), ("COALESCE(certainty, 2.0)", False), ("created_at", True), ("id", True)),
}
#: a time as the log stores it (``base.utc_now``), ASCII digits only
STORED_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_BROKEN = "the cursor is not one this service gave out (or was cut short): start again from the first page"


def sort_key(order: str, row: dict[str, Any]) -> list[Any]:
    """A decoded complaint's values of ``order``'s sort keys."""
    second = urgency_rank(row["urgency"]) if order == "queue" else (
        row["certainty"] if row["certainty"] is not None else 2.0)  # fmt: skip
    return [bool(row["needs_review"]), second, row["created_at"], int(row["id"])]


def encode_cursor(order: str, row: dict[str, Any]) -> str:
    """The cursor of the page that follows ``row`` (the last complaint of a page) in ``order``."""
    key = sort_key(order, row)
    key[0] = int(key[0])
    text = json.dumps([order, *key], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, order: str) -> list[Any]:
    """The sort key a cursor names; CursorError when it is broken or belongs to another order.

    Every value is checked before it reaches the database: a forged cursor (any JSON at all) is refused with
    CursorError, never passed on as a value the database cannot store or compare (a number past 64 bits, NaN,
    a lone surrogate, a NUL, a time not in the stored format).
    """
    try:
        text = base64.urlsafe_b64decode(cursor.strip() + "=" * (-len(cursor.strip()) % 4)).decode()
        got, review, second, created_at, last_id = json.loads(text)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError, RecursionError):
        raise CursorError(_BROKEN) from None
    if not isinstance(got, str) or got not in ORDER_KEYS:
        raise CursorError(_BROKEN)
    if got != order:
        raise CursorError(f"the cursor belongs to order={got}, not order={order}: pass order={got} or start again")
    if isinstance(second, bool) or not isinstance(second, (int, float)):
        raise CursorError(_BROKEN)
    if order == "queue":
        valid_second = second in range(len(URGENCY_LEVELS))
    else:
        valid_second = abs(second) < 2**63 and math.isfinite(second)  # a certainty: no NaN, no infinity
    valid = (
        review in (0, 1)
        and not isinstance(review, float)
        and valid_second
        and isinstance(created_at, str)
        and STORED_TIME.fullmatch(created_at) is not None
        and isinstance(last_id, int)
        and not isinstance(last_id, bool)
        and -(2**63) <= last_id < 2**63
    )
    if not valid:
        raise CursorError(_BROKEN)
    return [bool(review), int(second) if order == "queue" else float(second), created_at, last_id]


def keyset_rows(tx: Tx, order: str, where: str, params: Sequence[Any], start: Sequence[Any], limit: int) -> list[dict]:
    """Up to ``limit`` complaints matching ``where`` that come after ``start`` in ``order``.

    "After" in a mixed-direction order is a union of ranges, each one seek in the order's index: the same first
    keys and a later last key, tried from the deepest key up until the page is full.
    """
    keys = ORDER_KEYS[order]
    rows: list[dict[str, Any]] = []
    for depth in range(len(keys) - 1, -1, -1):
        conditions = [f"{expr} = ?" for expr, _ in keys[:depth]]
        expr, descending = keys[depth]
        conditions.append(f"{expr} {'<' if descending else '>'} ?")
        clause = (f"{where} AND " if where else " WHERE ") + " AND ".join(conditions)
        rows += tx.all(
            f"SELECT {COLUMNS} FROM complaints{clause}{ORDERS[order]}{page_clause(limit - len(rows), 0)}",
            [*params, *start[: depth + 1]],
        )
        if len(rows) >= limit:
            break
    return rows
