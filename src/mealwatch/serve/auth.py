"""Who sends a request, and whether they may: sessions, API tokens, roles, districts and the CSRF token.

With accounts off (no user in the log and no ``--accounts``) every request is the single local user, an
admin of every district, as before accounts existed. With accounts on, a request carries either a session
cookie (from ``POST /api/login``; ``HttpOnly``, ``SameSite=Strict``, ``Secure`` over TLS) or an API token
(``Authorization: Bearer mw_...``). ``RULES`` names the least role of every route; a route missing from it
answers 500 at once, and tests/test_role_matrix.py fails for it. A state-changing request of a session must
carry the session's CSRF token (header ``X-CSRF-Token``, or the form field ``csrf_token`` of a multipart form);
a token's requests need none (no browser sends it by itself).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Annotated, Any

from fastapi import Depends, Request

from ..accounts import CheckGate, LoginLimiter, allows, secret_hash
from ..log import AuditEntry, ComplaintLog, Scope, StoreError, from_stored_time, in_scope, scope, to_stored_time
from ..records import Record
from .errors import ApiError

logger = logging.getLogger("mealwatch.serve")
SESSION_COOKIE = "mealwatch_session"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
STATE_CHANGING = frozenset({"POST", "PATCH", "PUT", "DELETE"})
#: a session's (or token's) last use is written at most this often (seconds), and at least four times per idle limit
TOUCH_EVERY = 60

PUBLIC, SIGNED_IN = "public", "signed in"
#: (method, route path) -> who may: PUBLIC, SIGNED_IN (any session or token), or the least role
RULES: dict[tuple[str, str], str] = {
    ("GET", "/"): PUBLIC,  # the page: without a session it sends the browser to /login
    ("GET", "/login"): PUBLIC,
    ("GET", "/docs"): PUBLIC,
    ("GET", "/openapi.json"): PUBLIC,
    ("GET", "/static"): PUBLIC,  # the page's script and style (a mount: every file under it)
    ("GET", "/api/health"): PUBLIC,  # the number of complaints only for a signed-in account
    ("GET", "/api/labels"): PUBLIC,
    ("GET", "/api/settings"): PUBLIC,
    ("GET", "/api/session"): PUBLIC,
    ("GET", "/api/preferences"): PUBLIC,  # the login page speaks the browser's language too
    ("PUT", "/api/preferences"): SIGNED_IN,
    ("POST", "/api/login"): PUBLIC,
    ("POST", "/api/logout"): SIGNED_IN,
    # classifying reads the model only; saving (save: true) needs an officer (checked by the route)
    ("POST", "/api/classify"): "viewer",
    ("POST", "/api/classify/batch"): "viewer",
    ("POST", "/api/classify/csv"): "viewer",
    ("POST", "/api/attention"): "viewer",
    ("GET", "/attention"): "viewer",
    ("GET", "/api/complaints"): "viewer",
    ("GET", "/api/complaints.csv"): "viewer",
    ("GET", "/api/complaints/{complaint_id}"): "viewer",
    ("GET", "/api/complaints/{complaint_id}/history"): "viewer",
    ("PATCH", "/api/complaints/{complaint_id}"): "officer",
    ("GET", "/api/stats"): "viewer",
    ("GET", "/api/alerts"): "viewer",
    ("PATCH", "/api/alerts/{alert_id}"): "officer",
    ("GET", "/api/users"): "admin",
    ("POST", "/api/users"): "admin",
    ("PATCH", "/api/users/{name}"): "admin",
    ("GET", "/api/tokens"): "admin",
    ("POST", "/api/tokens"): "admin",
    ("DELETE", "/api/tokens/{name}"): "admin",
    ("GET", "/api/audit"): "admin",
    ("GET", "/api/search"): "viewer",
    ("GET", "/api/complaints/{complaint_id}/similar"): "viewer",
    ("GET", "/api/incidents"): "viewer",
    ("GET", "/api/incidents/{incident_id}"): "viewer",
    ("POST", "/api/incidents/merge"): "officer",
    ("POST", "/api/incidents/{incident_id}/split"): "officer",
    ("PATCH", "/api/incidents/{incident_id}"): "officer",
}


@dataclass
class Principal:
    """Who a request is from: a user with a session, an API token, or the single local user (accounts off)."""

    name: str | None
    role: str
    districts: list[str]
    kind: str  # "session", "token" or "local"
    session_hash: str | None = None
    csrf_token: str | None = None
    owner: str | None = None  # a token's: the account that created it (None: the command line's)

    @property
    def account(self) -> str | None:
        """The user account acting: a session's user, a token's owner (None: the local user, a command-line token)."""
        return self.name if self.kind == "session" else self.owner

    @property
    def scope(self) -> Scope:
        return scope(self.districts)

    def public(self) -> dict:
        return {"name": self.name, "role": self.role, "districts": self.districts, "kind": self.kind}


LOCAL = Principal(None, "admin", ["*"], "local")


@dataclass
class AccountSettings:
    """How accounts work in one service: on or off, session lifetimes, TLS, the login limiter and password checks."""

    enabled: bool = False
    follow_log: bool = False  # off until the log holds a user, then on: `mealwatch users add` under a running server
    idle: timedelta = timedelta(minutes=30)  # a session unused this long ends
    absolute: timedelta = timedelta(hours=12)  # a session this old ends, however busy
    tls_proxy: bool = False  # behind a TLS-terminating proxy: the cookie is Secure although the request is http
    limiter: LoginLimiter = field(default_factory=LoginLimiter)
    gate: CheckGate = field(default_factory=CheckGate)  # password checks at once, across every login


def settings(request: Request) -> AccountSettings:
    return request.app.state.accounts


def accounts_on(request: Request) -> bool:
    """Whether this request needs an account. A service following its log turns accounts on for good at the first
    request after a user was added (``mealwatch users add`` while it runs), without a restart."""
    config = settings(request)
    if not config.enabled and config.follow_log and store(request).has_users():
        config.enabled = True
    return config.enabled


def store(request: Request) -> ComplaintLog:
    return request.app.state.service.store


def client_address(request: Request) -> str | None:
    return request.client.host if request.client else None


def session_key(request: Request) -> str | None:
    return request.cookies.get(SESSION_COOKIE)


def resolve(request: Request) -> Principal | None:
    """The request's principal (cached on the request), None when accounts are on and it carries no valid one.

    An API token that is unknown or revoked, or a session that expired, is an ApiError 401 saying so.
    """
    if hasattr(request.state, "principal"):
        return request.state.principal
    found: Principal | None = LOCAL
    if accounts_on(request):
        found = _from_token(request) if "authorization" in request.headers else _from_session(request)
    request.state.principal = found
    return found


def _from_token(request: Request) -> Principal:
    kind, _, token = request.headers["authorization"].partition(" ")
    if kind.lower() != "bearer" or not token.strip():
        raise ApiError(401, "header 'Authorization' must be 'Bearer <token>' (a token from `mealwatch tokens create`)")
    log = store(request)
    row = log.token(secret_hash(token.strip()))
    if row is None:
        raise ApiError(401, "this API token is not known: check it, or create one with `mealwatch tokens create`")
    if row["revoked_at"] is not None:
        raise ApiError(401, f"the API token {row['name']!r} was revoked at {row['revoked_at']}: create a new one")
    if row["owner_disabled"]:  # a token dies with its owner's account (and lives again only if another admin says)
        raise ApiError(401, f"the API token {row['name']!r} belongs to a disabled account: it works no more")
    last = row["last_used_at"]
    if last is None or from_stored_time(log.clock()) - from_stored_time(last) > touch_every(settings(request)):
        bookkeeping(lambda: log.touch_token(row["id"]), f"the last use of token {row['name']!r}")
    return Principal(row["name"], row["role"], row["districts"], "token", owner=row["owner"])


def touch_every(config: AccountSettings) -> timedelta:
    """How often a session's (or a token's) last use is written: every ``TOUCH_EVERY`` seconds, or a quarter of the
    idle limit when that is shorter, so that a session in use never looks idle."""
    return min(timedelta(seconds=TOUCH_EVERY), config.idle / 4)


def bookkeeping(write: Callable[[], Any], what: str) -> None:
    """A write that only keeps records (a last use, an ended session): when the log cannot take it just now, the
    request goes on without it (logged), so that reads are not refused for it."""
    try:
        write()
    except StoreError as e:
        logger.warning("could not record %s (%s); the request goes on", what, e)


def _from_session(request: Request) -> Principal | None:
    key = session_key(request)
    if not key:
        return None
    log, config = store(request), settings(request)
    key_hash = secret_hash(key)
    found = log.session(key_hash)
    if found is None:
        return None
    now = from_stored_time(log.clock())
    user = found["user"]
    idle = now - from_stored_time(found["last_seen_at"])
    if user["disabled"] or idle > config.idle or now - from_stored_time(found["started_at"]) > config.absolute:
        bookkeeping(lambda: log.end_session(key_hash), "the end of an expired session")
        if not user["disabled"]:
            address = client_address(request)
            ended = lambda: log.audit(user["name"], "session_expired", client=address, districts=user["districts"])  # noqa: E731
            bookkeeping(ended, "an expired session in the audit log")
        raise ApiError(
            401, "your session has ended (idle too long, too old, or the account was disabled): log in again"
        )
    if idle > touch_every(config):
        bookkeeping(lambda: log.touch_session(key_hash), "a session's last use")
    return Principal(user["name"], user["role"], user["districts"], "session", key_hash, found["csrf_token"])


def rule_of(request: Request) -> str:
    path = getattr(request.scope.get("route"), "path", None)
    rule = RULES.get(("GET" if request.method == "HEAD" else request.method, path))
    if rule is None:
        raise ApiError(500, f"no access rule for {request.method} {path}: every route needs one in serve/auth.py")
    return rule


def authorize(request: Request) -> None:
    """The router's dependency: the route's rule (``RULES``) against the request's principal, and the CSRF token."""
    rule = rule_of(request)
    if rule == PUBLIC:
        return
    who = resolve(request)
    if who is None:
        raise ApiError(401, "log in first (POST /api/login, or the page at /login), or send an API token")
    if rule != SIGNED_IN and not allows(who.role, rule):
        raise ApiError(403, f"your role ({who.role}) may not do this: it needs {rule}")
    if who.kind == "session" and request.method in STATE_CHANGING:
        check_csrf(request, who)


def check_csrf(request: Request, who: Principal) -> None:
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.headers.get("content-type", "").startswith("multipart/form-data"):
        form = getattr(request, "_form", None)  # parsed by FastAPI before the dependencies run
        value = form.get(CSRF_FIELD) if form is not None else None
        sent = value if isinstance(value, str) else None
    if not sent or not who.csrf_token or not hmac.compare_digest(sent.encode(), who.csrf_token.encode()):
        raise ApiError(
            403,
            f"missing or wrong CSRF token: send the header '{CSRF_HEADER}' (or the form field '{CSRF_FIELD}') with "
            "the token from GET /api/session",
        )


def optional(request: Request) -> Principal | None:
    """The principal on a public route: None for nobody, an ended session or a bad token (no error)."""
    try:
        return resolve(request)
    except ApiError:
        return None


def current(request: Request) -> Principal:
    """The principal of a request that passed ``authorize`` (a public route without one: nobody, a viewer of none)."""
    return resolve(request) or Principal(None, "viewer", [], "nobody")


Who = Annotated[Principal, Depends(current)]


def require(who: Principal, role: str, what: str) -> None:
    if not allows(who.role, role):
        raise ApiError(403, f"your role ({who.role}) may not {what}: it needs {role}")


#: the request header naming who makes a change (without accounts); a body's ``by`` wins over it
BY_HEADER = "X-Officer"


def actor(who: Principal, named: str | None, header: str | None) -> str | None:
    """Who a change is recorded as made by: the signed-in account; without accounts, as the request names them."""
    if who.kind in ("session", "token"):
        return who.name
    return named or (header or "").strip()[:200] or None


def place_in_scope(who: Principal, records: list[Record]) -> None:
    """Check (and fill) the districts of complaints ``who`` saves: each in their districts; one with no district
    gets theirs when they have exactly one. A complaint they could not see again is refused."""
    if who.scope is None:
        return
    for record in records:
        if record.district is None and len(who.districts) == 1:
            record.district = who.districts[0]
        if record.district is None:
            raise ApiError(422, f"field 'district' is missing: name the district, one of {', '.join(who.districts)}")
        if not in_scope(record.district, who.scope):
            raise ApiError(
                403, f"you may save complaints of {', '.join(who.districts)} only, not of {record.district!r}"
            )


def audit_entry(
    request: Request,
    action: str,
    target: str | None = None,
    detail: dict | None = None,
    districts: Sequence[str | None] | None = None,
) -> AuditEntry | None:
    """The audit line of an action by this request's principal, concerning ``districts`` (None: the whole state);
    None when accounts are off (a local single-user service keeps no audit log)."""
    if not accounts_on(request):
        return None
    who = resolve(request) if hasattr(request.state, "principal") else None
    return AuditEntry(who.name if who else None, action, target, detail or {}, client_address(request), districts)


def audit(
    request: Request,
    action: str,
    target: str | None = None,
    detail: dict | None = None,
    districts: Sequence[str | None] | None = None,
) -> None:
    """Record an action in the audit log (``audit_entry``), in a transaction of its own."""
    entry = audit_entry(request, action, target, detail, districts)
    if entry is not None:
        store(request).audit(entry.actor, entry.action, entry.target, entry.detail, entry.client, entry.districts)


def sweep_sessions(log: ComplaintLog, config: AccountSettings) -> int:
    """Delete the sessions that have expired (called at each login); how many."""
    now = from_stored_time(log.clock())
    return log.end_sessions_before(to_stored_time(now - config.idle), to_stored_time(now - config.absolute))
