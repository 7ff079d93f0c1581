"""Every error leaves the service as JSON ``{"error": "..."}``: what was wrong and what was expected.

Validation errors are rewritten from pydantic's wording into one sentence per problem (the first
``SHOWN_PROBLEMS`` of them: a body with a million bad items gets a short answer); a log that cannot be used
just now (a full disk, a database stopped) is a 503 naming the cause with ``Retry-After``; unexpected
exceptions are logged with their trace and answered with a generic 500, so no stack trace ever reaches a
client.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..log import LogDamaged, LogUnavailable
from .batcher import Overloaded
from .explainer import Busy, ClientGone, Stopped, TooCostly
from .predictor import ModelFault

log = logging.getLogger("mealwatch.serve")
#: the most problems one 422 names (then how many more there were)
SHOWN_PROBLEMS = 10
#: seconds a client is asked to wait when the log cannot be used just now
LOG_RETRY_S = 30

_EXPECTED = {
    "string_type": "a string",
    "bool_type": "true or false",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "list_type": "a list",
    "dict_type": "a JSON object",
    "model_type": "a JSON object",
    "model_attributes_type": "a JSON object",
    "float_type": "a number",
}


class ApiError(Exception):
    """An error answered with ``status`` and ``{"error": message}`` (and ``headers``: Retry-After, ...)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _where(loc: tuple) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "form")]
    if not parts:
        return "the request body" if loc and loc[0] == "body" else "the request"
    name = parts[0] + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in parts[1:])
    kind = {"query": "query parameter", "path": "path parameter", "form": "form field"}.get(str(loc[0]), "field")
    return f"{kind} '{name}'"


def describe(error: dict) -> str:
    """One pydantic error as a sentence a person can act on."""
    kind, loc, msg = error.get("type", ""), tuple(error.get("loc", ())), str(error.get("msg", ""))
    where = _where(loc)
    if kind == "json_invalid":
        reason = (error.get("ctx") or {}).get("error", "")
        return f'the request body is not valid JSON ({reason}): send a JSON object such as {{"text": "..."}}'
    if kind == "missing":
        return f"{where} is missing"
    if kind == "extra_forbidden":
        return f"{where} is not a field of this request"
    if kind == "value_error":
        return f"{where}: {msg.removeprefix('Value error, ')}" if loc[1:] else msg.removeprefix("Value error, ")
    if kind in _EXPECTED:
        return f"{where} must be {_EXPECTED[kind]}"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        ctx = error.get("ctx") or {}
        bound = {"greater_than_equal": "at least", "less_than_equal": "at most", "greater_than": "more than",
                 "less_than": "less than"}[kind]  # fmt: skip
        return f"{where} must be {bound} {next(iter(ctx.values()), '')}"
    if kind == "literal_error":
        return f"{where}: {msg.lower()}"
    if kind == "too_long":
        ctx = error.get("ctx") or {}
        things = "complaints" if loc and loc[-1] in ("texts", "items") else "items"
        return (
            f"{where} holds {ctx.get('actual_length', 0):,} {things}; the limit is {ctx.get('max_length')}: send them "
            "in several requests"
        )
    return f"{where}: {msg}"


def unavailable(exc: BaseException) -> tuple[int, str, dict[str, str]] | None:
    """The 503 of an error that says the log cannot be used now (status, message, headers); None for any other."""
    if isinstance(exc, LogUnavailable):
        if exc.unknown_outcome:
            message = (
                f"the complaint log stopped answering while saving ({exc}): the save may or may not have gone "
                "through; send the same request again with the same Idempotency-Key to be sure it is saved once"
            )
        else:
            message = f"the complaint log cannot be used just now ({exc}): nothing was changed; try again later"
        return 503, message, {"Retry-After": str(LOG_RETRY_S)}
    if isinstance(exc, LogDamaged):
        return 503, f"{exc}; nothing was changed", {}
    return None


def problems(messages: list[str], more: int = 0) -> str:
    """Validation problems as one answer: each once, then how many more there were (``more``: not described)."""
    shown = "; ".join(dict.fromkeys(messages))
    return shown + (f"; and {more:,} more problems (the first {SHOWN_PROBLEMS} are named)" if more > 0 else "")


def unreadable_body(request: Request, reason: str) -> str:
    """What to say when a body cannot be parsed at all (not UTF-8 JSON, a broken multipart form)."""
    sent = request.headers.get("content-type", "").split(";")[0].strip() or "no Content-Type"
    if sent.startswith("multipart/"):
        expected = "a multipart/form-data upload with its boundary, a 'file' part and a 'save' field"
    else:
        expected = 'a JSON object in UTF-8 with Content-Type: application/json, such as {"text": "..."}'
    detail = "" if reason == "There was an error parsing the body" else f" ({reason.rstrip('.')})"
    return f"the request body ({sent}) could not be read{detail}: send {expected}"


def install(app: FastAPI) -> None:
    """Register the JSON error handlers on ``app``."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        messages = [describe(e) for e in errors[:SHOWN_PROBLEMS]]
        sent = request.headers.get("content-type", "")
        if any(tuple(e.get("loc", ())) == ("body",) for e in errors[:SHOWN_PROBLEMS]) and sent and "json" not in sent:
            messages.append(f"the body was sent as {sent.split(';')[0]}; send JSON with Content-Type: application/json")
        return error_response(422, problems(messages, max(0, len(errors) - SHOWN_PROBLEMS)))

    @app.exception_handler(LogUnavailable)
    @app.exception_handler(LogDamaged)
    async def _log_unavailable(request: Request, exc: Exception) -> JSONResponse:
        status, message, headers = unavailable(exc) or (503, str(exc), {})
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        response = error_response(status, message)
        response.headers.update(headers)
        return response

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> JSONResponse:
        response = error_response(exc.status, exc.message)
        response.headers.update(exc.headers)
        return response

    @app.exception_handler(TooCostly)
    async def _costly(request: Request, exc: TooCostly) -> JSONResponse:
        return error_response(422, str(exc))

    @app.exception_handler(Busy)
    @app.exception_handler(Stopped)
    async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
        response = error_response(503, str(exc))
        response.headers["Retry-After"] = "30"
        return response

    @app.exception_handler(Overloaded)
    async def _overloaded(request: Request, exc: Overloaded) -> JSONResponse:
        response = error_response(503, str(exc))  # the service is overloaded: not an error of the input
        response.headers["Retry-After"] = str(exc.retry_after_s)
        return response

    @app.exception_handler(ModelFault)
    async def _model_fault(request: Request, exc: ModelFault) -> JSONResponse:
        log.error("%s %s: %s", request.method, request.url.path, exc)
        return error_response(500, f"{exc}: the service's model must be replaced (the server's log says more)")

    @app.exception_handler(ClientGone)
    async def _gone(request: Request, exc: ClientGone) -> JSONResponse:
        return error_response(499, str(exc))  # nobody reads it: the client has closed the connection

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else "request failed"
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such page: {request.url.path} (the API is listed at /docs)"
        if exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path} (see /docs)"
        if exc.status_code == 400:  # the framework could not read the body at all: a bad body is a 422 here
            return error_response(422, unreadable_body(request, message))
        response = error_response(exc.status_code, message)
        response.headers.update(exc.headers or {})  # Connection: close after a body refused half-read
        return response

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(
            500, "internal error: the server could not complete the request (the details are in its log)"
        )
