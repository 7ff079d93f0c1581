"""What a request must pass before its body is read: its route's size limit, and with accounts on, a principal the
route allows — so that a request nobody may make, or one too large for its route, costs nothing.

- **Size**: every route has a body limit (``BODY_LIMITS``, else ``DEFAULT_BODY_LIMIT``). A ``Content-Length`` over
  it is a 413 at once, the body unread; a body sent without a length is counted as it arrives and refused (413)
  as soon as it passes the limit.
- **Who**: a route that needs an account (``auth.RULES``) is answered 401 (nobody, an ended session, a revoked
  token) or 403 (a role too low) from the headers alone; the CSRF token and the checks of the route itself
  come after, as before (``auth.authorize``).
- **Time**: a body must keep coming: no piece for ``BODY_IDLE_S`` seconds, or slower than ``MIN_BODY_RATE`` bytes a
  second on the whole (after a first ``BODY_IDLE_S``), is a 408 and the connection is closed.
- **Shape**: a JSON body over ``SHAPE_CHECK_BYTES`` has its lists, objects and items counted before it is parsed
  (``json_values``: a scan at the speed of a byte search, strings left out), and one holding more than
  ``MAX_JSON_VALUES`` is a 422 — parsing a list of a million empty lists would hold the server for seconds.

Refusals close the connection (``Connection: close``): the rest of a body is never read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..accounts import allows
from .auth import PUBLIC, RULES, SIGNED_IN, accounts_on, resolve
from .errors import ApiError, unavailable
from .schemas import MAX_CSV_BYTES

logger = logging.getLogger("mealwatch.serve")
KIB, MIB = 1024, 1024 * 1024
#: (method, route) -> the largest body it takes, in bytes: a request at its every limit fits, with room for escapes
BODY_LIMITS: dict[tuple[str, str], int] = {
    ("POST", "/api/classify"): 1 * MIB,  # a 5,000-character text, 50 extra fields of 2,000 characters
    ("POST", "/api/classify/batch"): 4 * MIB,  # 256 texts of 5,000 Devanagari characters, as UTF-8
    ("POST", "/api/classify/csv"): MAX_CSV_BYTES + 64 * KIB,  # the file and the form around it
    ("POST", "/api/attention"): 128 * KIB,
    ("PATCH", "/api/complaints/{complaint_id}"): 128 * KIB,  # notes of 5,000 characters
}
DEFAULT_BODY_LIMIT = 16 * KIB
#: the longest wait for the next piece of a body, in seconds
BODY_IDLE_S = 30.0
#: the slowest a body may arrive on the whole, in bytes a second (a phone on 2G sends several times this)
MIN_BODY_RATE = 2 * KIB
#: JSON bodies larger than this have their values counted before they are parsed
SHAPE_CHECK_BYTES = 64 * KIB
#: the most lists, objects and items a JSON body may hold (256 complaints with every field and 50 extra fields each
#: hold under 20,000)
MAX_JSON_VALUES = 50_000


def json_values(body: bytes) -> int:
    """How many lists, objects and items (an upper bound for an invalid body) a JSON text holds, counted from its
    brackets and commas outside its strings: escaped backslashes and quotes removed, then every other piece
    between quotes is outside a string. Byte searches only, no parse."""
    plain = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(plain.split(b'"')[::2])
    return outside.count(b"[") + outside.count(b"{") + outside.count(b",")


def route_of(app: Any, scope: Scope) -> str | None:
    """The path template of the route ``scope`` goes to (``/api/complaints/{complaint_id}``), None for none."""
    return _route_in(app.router.routes, scope)


def _route_in(routes: Any, scope: Scope) -> str | None:
    for route in routes:
        if hasattr(route, "original_router"):  # a router included in the app: its own routes
            found = _route_in(route.original_router.routes, scope)
            if found is not None:
                return found
            continue
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return getattr(route, "path", None)
    return None


def body_limit(method: str, path: str | None) -> int:
    return BODY_LIMITS.get((method, path or ""), DEFAULT_BODY_LIMIT)


def too_large(size: int, limit: int, path: str) -> str:
    advice = " (send fewer complaints per request: the page sends 256 at a time)" if "batch" in path else ""
    return f"the request body is {size:,} bytes or more; {path} takes at most {limit:,}{advice}"


class Admission:
    """The admission of every HTTP request (see the module docstring); plain ASGI, before the routes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], route_of(scope["app"], scope)
        limit = body_limit(method, path)
        length = declared_length(scope)
        if length is not None and length > limit:
            await refuse(send, 413, too_large(length, limit, scope["path"]))
            return
        try:
            problem = await run_in_threadpool(check_principal, Request(scope), method, path)
        except Exception as e:  # the log cannot be read: a 503 naming why; anything else, the usual 500
            answer = unavailable(e)
            if answer is None:
                logger.error("checking who sent %s %s failed", method, scope["path"], exc_info=e)
                answer = (500, "internal error: the server could not check who sent the request (the details are "
                          "in its log)", {})  # fmt: skip
            await refuse(send, *answer)
            return
        if problem is not None:
            await refuse(send, problem.status, problem.message, problem.headers)
            return
        receive = metered(receive, limit, length, scope["path"])
        if is_json(scope) and (length is None or length > SHAPE_CHECK_BYTES):
            try:
                body = await read_body(receive)
            except HTTPException as e:
                await refuse(send, e.status_code, e.detail, e.headers)
                return
            values = json_values(body)
            if values > MAX_JSON_VALUES:
                await refuse(
                    send, 422, f"the request body holds {values:,} JSON lists, objects and items; the limit is "
                    f"{MAX_JSON_VALUES:,} (a batch is at most 256 complaints)",
                )  # fmt: skip
                return
            receive = replayed(body, receive)
        await self.app(scope, receive, send)


def declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server's parser refuses it
    return None


def is_json(scope: Scope) -> bool:
    kind = next((v for k, v in scope["headers"] if k == b"content-type"), b"").split(b";")[0].strip().lower()
    return kind == b"application/json" or kind.endswith(b"+json")


async def read_body(receive: Receive) -> bytes:
    """The whole body, through ``receive`` (metered: its limits and timeouts apply)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def replayed(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the app the body read already, then what comes after it (a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive_replayed() -> Message:
        return pending.pop() if pending else await receive()

    return receive_replayed


def check_principal(request: Request, method: str, path: str | None) -> ApiError | None:
    """The 401 or 403 a route that needs an account gives this request, judged from its headers; None: go on."""
    rule = RULES.get(("GET" if method == "HEAD" else method, path or ""))
    if rule is None or rule == PUBLIC or not accounts_on(request):
        return None
    try:
        who = resolve(request)  # kept on the request: the route's own check reads it again for free
    except ApiError as e:
        return e
    if who is None:
        return ApiError(401, "log in first (POST /api/login, or the page at /login), or send an API token")
    if rule != SIGNED_IN and not allows(who.role, rule):
        return ApiError(403, f"your role ({who.role}) may not do this: it needs {rule}")
    return None


def metered(receive: Receive, limit: int, length: int | None, path: str) -> Receive:
    """``receive`` refusing a body over ``limit`` bytes (413) or one that stops coming (408); the messages after the
    body (a disconnect) pass straight through."""
    received, done = 0, False
    deadline = time.monotonic() + BODY_IDLE_S + (length if length is not None else limit) / MIN_BODY_RATE

    async def receive_metered() -> Message:
        nonlocal received, done
        if done:
            return await receive()
        wait = min(BODY_IDLE_S, deadline - time.monotonic())
        try:
            if wait <= 0:
                raise asyncio.TimeoutError
            message = await asyncio.wait_for(receive(), wait)
        except asyncio.TimeoutError:
            raise HTTPException(
                408,
                f"the request body stopped coming ({received:,} bytes in): send it again on a working connection",
                headers={"Connection": "close"},
            ) from None
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise HTTPException(413, too_large(received, limit, path), headers={"Connection": "close"})
            done = not message.get("more_body", False)
        else:
            done = True
        return message

    return receive_metered


async def refuse(send: Send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    """Answer ``{"error": message}`` and close the connection (an unread body is never read)."""
    body = json.dumps({"error": message}).encode()
    extra = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"), *extra],
    })  # fmt: skip
    await send({"type": "http.response.body", "body": body})
