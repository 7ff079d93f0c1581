"""``Idempotency-Key``: a saving request sent again with the same key saves nothing new and gets the first answer.

A client (a phone on a bad connection, an SMS gateway) that did not hear back from a save may send it again
with the same ``Idempotency-Key`` header: the log stores each keyed request's answer in the same transaction
as its complaints (``ComplaintLog.add_many_once``), so a retry — even one racing the first — replays that
answer (with ``Idempotent-Replayed: true``) instead of saving the complaints twice. The key of a request that
was refused (a 4xx) is not used up. A key sent again with a different request is a 422. Keys are kept for
``IDEMPOTENCY_HOURS``. A request that saves nothing ignores the header. Keys belong to the account that sent
them (a user, whichever session; an API token; the local user without accounts): another account's request
with the same key is its own request, saved as any other.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

from ..log import ComplaintLog, SavedAnswer
from .auth import Principal
from .errors import ApiError

HEADER = "Idempotency-Key"
MAX_KEY_CHARS = 200


@dataclass
class Once:
    """A saving request's key (as sent, and as stored: within its account) and what it asks (its fingerprint).
    A request sent without a key gets one of the service's own (``made_here``): its answer is stored with it all
    the same, so that a save whose commit went unacknowledged can be found again, and its client can retry it."""

    key: str
    fingerprint: str
    stored_key: str
    made_here: bool = False


def account_key(who: Principal, key: str) -> str:
    """The key as the log stores it: within the account that sent it (a user's sessions share their keys)."""
    owner = {"session": "user", "token": "token"}.get(who.kind, who.kind)
    return f"{owner} {who.name or ''}\n{key}"  # a name holds no line break: no two accounts' keys meet


def request_key(request: Request) -> str | None:
    """The request's Idempotency-Key, checked: 1 to 200 visible ASCII characters; None when it sends none."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_CHARS or not all("!" <= c <= "~" for c in key):
        raise ApiError(
            422,
            f"header '{HEADER}' must be 1 to {MAX_KEY_CHARS} visible ASCII characters (a UUID is a good key), "
            f"not {key[:40]!r}",
        )
    return key


def fingerprint(request: Request, *parts: str | bytes) -> str:
    """SHA-256 of the route and what the request asks (its checked body, its file)."""
    digest = hashlib.sha256(f"{request.method} {request.url.path}".encode())
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def once_for(
    store: ComplaintLog, request: Request, who: Principal, save: bool, *parts: str | bytes
) -> Once | SavedAnswer | None:
    """None when the request saves nothing; the stored answer when ``who`` used its key for this very request (a
    retry: nothing is classified again); else the key (the request's, or one made here) and fingerprint to save it
    under."""
    if not save:
        return None
    key = request_key(request)
    if key is None:
        made = f"mw-{uuid.uuid4()}"
        return Once(made, fingerprint(request, *parts), account_key(who, made), made_here=True)
    once = Once(key, fingerprint(request, *parts), account_key(who, key))
    saved = store.saved_answer(once.stored_key)
    if saved is None:
        return once
    check_same(once, saved)
    return saved


def check_same(once: Once, saved: SavedAnswer) -> None:
    if saved.fingerprint != once.fingerprint:
        raise ApiError(
            422,
            f"the {HEADER} {once.key!r} was used for a different request: send a new key for a new request "
            "(reuse a key only to retry the very same request)",
        )


def response(saved: SavedAnswer, headers: dict[str, str] | None = None) -> Response:
    """The stored answer as the response; a replay says so."""
    extra = {"Idempotent-Replayed": "true"} if saved.replayed else {}
    return Response(saved.answer, media_type=saved.media_type, headers={**(headers or {}), **extra})
