"""Routes of accounts: the login page, logging in and out, the current session (and its CSRF token), and the
admin's users, API tokens and audit log. Who may call each is in ``auth.RULES``."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..accounts import (
    MIN_PASSWORD_CHARS,
    ROLES,
    AccountError,
    ChecksBusy,
    allows,
    check_name,
    covers,
    hash_password,
    needs_rehash,
    new_secret,
    parse_districts,
    secret_hash,
    verify_password,
)
from ..log import StoreError
from . import auth
from .auth import CSRF_HEADER, SESSION_COOKIE, Who
from .errors import ApiError
from .schemas import MAX_OFFSET

router = APIRouter()
STATIC_LOGIN = "login.html"


class _Body(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class Login(_Body):
    name: str = Field(max_length=200)
    password: str = Field(max_length=1024)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_name(v)  # a NUL would reach the database (PostgreSQL refuses it) and the audit log


class NewUser(_Body):
    name: str
    password: str = Field(description=f"at least {MIN_PASSWORD_CHARS} characters")
    role: Literal[ROLES]
    districts: list[str] = Field(max_length=1000, description="district names, or ['*'] for every district")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_name(v)

    @field_validator("districts")
    @classmethod
    def _districts(cls, v: list[str]) -> list[str]:
        return parse_districts(v)


class UserPatch(_Body):
    disabled: bool = Field(description="true: the user can no longer log in and their sessions end")


class NewToken(_Body):
    name: str = Field(description="what uses it, e.g. sms-gateway")
    role: Literal[ROLES]
    districts: list[str] = Field(max_length=1000)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_name(v, "a token name")

    @field_validator("districts")
    @classmethod
    def _districts(cls, v: list[str]) -> list[str]:
        return parse_districts(v)


def _cookie(request: Request, response: JSONResponse, value: str, max_age: int | None) -> None:
    secure = request.url.scheme == "https" or auth.settings(request).tls_proxy
    response.set_cookie(
        SESSION_COOKIE, value, max_age=max_age, path="/", httponly=True, samesite="strict", secure=secure
    )


@router.get("/login", include_in_schema=False)
def login_page() -> FileResponse:
    from .pages import STATIC

    return FileResponse(STATIC / STATIC_LOGIN, media_type="text/html")


@router.post("/api/login", tags=["accounts"])
def login(body: Login, request: Request) -> JSONResponse:
    """Start a session: a cookie (HttpOnly, SameSite=Strict) and the CSRF token to send with each change."""
    config, log = auth.settings(request), auth.store(request)
    if not auth.accounts_on(request):
        raise ApiError(404, "this service has no accounts: it is a single-user tool on this machine")
    client = auth.client_address(request) or "unknown"
    attempt = config.limiter.begin(body.name, client)  # taken before any check: racing attempts cannot pass together
    if not attempt.allowed:
        if attempt.newly_held:  # one audit line when a bucket runs dry, not one per refused attempt
            why = {"reason": "too many failures", "held": attempt.newly_held, "for_seconds": attempt.retry_after}
            log.audit(body.name[:200], "login_held", detail=why, client=client)
        wait = attempt.retry_after
        raise ApiError(429, f"too many failed logins: try again in {wait} seconds", headers={"Retry-After": str(wait)})
    try:
        user = log.user(body.name) if body.name.strip() else None
        places = user["districts"] if user else None
        try:
            stored = user["password_hash"] if user else None
            right = config.gate.run(lambda: verify_password(stored, body.password))  # a cap on checks at once
        except ChecksBusy:
            config.limiter.given_back(attempt)
            busy = "too many logins at once: try again in a second"
            raise ApiError(503, busy, headers={"Retry-After": "1"}) from None
        if not right or user["disabled"]:  # a disabled account answers as a wrong password: it confirms nothing
            config.limiter.failed(attempt)
            why = {"reason": "disabled" if right else "wrong name or password"}
            log.audit(body.name[:200], "login_failed", detail=why, client=client, districts=places)
            raise ApiError(401, "wrong name or password")
        config.limiter.succeeded(attempt)
    finally:
        config.limiter.failed(attempt)  # whatever else went wrong counts (nothing, once its outcome was told)
    if needs_rehash(user["password_hash"]):
        log.set_password_hash(user["id"], hash_password(body.password))
    auth.sweep_sessions(log, config)
    key, csrf = new_secret(), new_secret()
    log.start_session(secret_hash(key), user["id"], csrf, client)
    log.audit(user["name"], "login", client=client, districts=places)
    public = {"name": user["name"], "role": user["role"], "districts": user["districts"], "kind": "session"}
    response = JSONResponse({"user": public, "csrf_token": csrf})
    _cookie(request, response, key, int(config.absolute.total_seconds()))
    return response


@router.post("/api/logout", tags=["accounts"])
def logout(request: Request, who: Who) -> JSONResponse:
    """End this session (the cookie is cleared and the session deleted on the server)."""
    if who.kind != "session":
        raise ApiError(422, "only a session logs out: an API token is revoked with `mealwatch tokens revoke`")
    auth.store(request).end_session(who.session_hash)
    auth.audit(request, "logout", districts=who.districts)
    response = JSONResponse({"logged_out": True})
    _cookie(request, response, "", 0)
    return response


@router.get("/api/session", tags=["accounts"])
def session(request: Request) -> dict:
    """Whether accounts are on, who is signed in (null: nobody) and the CSRF token of this session."""
    enabled = auth.accounts_on(request)
    try:
        who = auth.resolve(request)
    except ApiError:  # an ended session or a bad token: nobody, the page asks for a login
        who = None
    if who is None or not enabled:
        return {"accounts": enabled, "user": None, "csrf_token": None, "csrf_header": CSRF_HEADER}
    return {"accounts": True, "user": who.public(), "csrf_token": who.csrf_token, "csrf_header": CSRF_HEADER}


# --- the admin's -----------------------------------------------------------------------------------


def accounts_on(request: Request, what: str) -> None:
    """Users and tokens are added only with accounts on: without them every request is the local user, and an
    account added through it would lock that user out. The first admin comes from the command line."""
    if not auth.accounts_on(request):
        raise ApiError(
            409,
            f"this service has no accounts, so it {what} no account through its API: create the first admin with "
            "`mealwatch users add NAME --role admin --districts '*'` (accounts then turn on at once), and log in",
        )


def granted(who: auth.Principal, role: str, districts: list[str], what: str) -> None:
    """403 unless ``who`` may grant ``role`` over ``districts``: a role at most its own, districts of its own."""
    if not allows(who.role, role):
        raise ApiError(403, f"your role ({who.role}) may not grant the role {role}")
    if not covers(who.districts, districts):
        raise ApiError(
            403,
            f"you may give {what} of your own districts only ({', '.join(who.districts)}), not of "
            f"{', '.join(districts)}: an admin of every district can",
        )


def taken(who: auth.Principal, error: StoreError, what: str, holder: dict | None) -> str:
    """Why a name cannot be given: the store's words when the account holding it is of ``who``'s districts, else
    words that say nothing of another district's accounts."""
    if holder is None or covers(who.districts, holder["districts"]):
        return str(error)
    return f"that name cannot be used ({what} are unique across the state): choose another name"


@router.get("/api/users", tags=["accounts"])
def list_users(request: Request, who: Who) -> list[dict]:
    """The users of the admin's districts (names, roles, districts, disabled, last login); never a password or its
    hash. A district's admin sees the users all of whose districts are its own."""
    return [u for u in auth.store(request).users() if covers(who.districts, u["districts"])]


@router.post("/api/users", tags=["accounts"], status_code=201)
def add_user(body: NewUser, request: Request, who: Who) -> dict:
    """Add a user with a role at most the admin's own, of the admin's districts."""
    accounts_on(request, "adds")
    granted(who, body.role, body.districts, "accounts")
    try:
        user = auth.store(request).add_user(body.name, hash_password(body.password), body.role, body.districts)
    except AccountError as e:
        raise ApiError(422, f"field 'password': {e}") from None
    except StoreError as e:
        raise ApiError(409, taken(who, e, "user names", auth.store(request).user(body.name))) from None
    detail = {"role": user["role"], "districts": user["districts"]}
    auth.audit(request, "user_add", f"user {user['name']}", detail, user["districts"])
    return user


@router.patch("/api/users/{name}", tags=["accounts"])
def change_user(name: str, body: UserPatch, request: Request, who: Who) -> dict:
    """Disable (their sessions end at once, their API tokens stop working) or enable a user of the admin's districts;
    no account disables or enables itself, through a session or one of its tokens."""
    if who.account is not None and name.strip().casefold() == who.account.strip().casefold():
        what = "disable" if body.disabled else "enable"
        raise ApiError(422, f"you cannot {what} your own account: ask another admin")
    log = auth.store(request)
    found = log.user(name)
    if found is None or not covers(who.districts, found["districts"]):
        raise ApiError(404, f"no user named {name!r}")
    user = log.set_user_disabled(name, body.disabled)
    if user is None:
        raise ApiError(404, f"no user named {name!r}")
    action = "user_disable" if body.disabled else "user_enable"
    auth.audit(request, action, f"user {user['name']}", districts=user["districts"])
    return user


@router.get("/api/tokens", tags=["accounts"])
def list_tokens(request: Request, who: Who) -> list[dict]:
    """The API tokens of the admin's districts (names, roles, districts, last use, revoked); never a token or its
    hash."""
    return [t for t in auth.store(request).tokens() if covers(who.districts, t["districts"])]


@router.post("/api/tokens", tags=["accounts"], status_code=201)
def create_token(body: NewToken, request: Request, who: Who) -> dict:
    """A new API token of the admin's districts: ``token`` is shown this once (the log keeps only its hash)."""
    accounts_on(request, "creates")
    granted(who, body.role, body.districts, "tokens")
    token = new_secret("mw_")
    try:
        row = auth.store(request).add_token(body.name, secret_hash(token), body.role, body.districts, who.account)
    except StoreError as e:
        found = next((t for t in auth.store(request).tokens() if t["name"] == body.name), None)
        raise ApiError(409, taken(who, e, "token names", found)) from None
    detail = {"role": row["role"], "districts": row["districts"]}
    auth.audit(request, "token_create", f"token {row['name']}", detail, row["districts"])
    return {**row, "token": token}


@router.delete("/api/tokens/{name}", tags=["accounts"])
def revoke_token(name: str, request: Request, who: Who) -> dict:
    """Revoke an API token of the admin's districts (again: unchanged)."""
    log = auth.store(request)
    found = next((t for t in log.tokens() if t["name"] == name), None)
    if found is None or not covers(who.districts, found["districts"]):
        raise ApiError(404, f"no token named {name!r}")
    row = log.revoke_token(name)
    auth.audit(request, "token_revoke", f"token {row['name']}", districts=row["districts"])
    return row


@router.get("/api/audit", tags=["accounts"])
def audit_log(
    request: Request,
    who: Who,
    action: Annotated[str | None, Query(description="only this action (login, login_failed, change, ...)")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict:
    """The audit log, newest first: who (``actor``) did what (``action`` on ``target``), when, from where. A
    district's admin reads the entries concerning its districts alone (not those of the whole state)."""
    page = auth.store(request).audit_entries(limit, offset, (action or "").strip() or None, who.scope)
    return {"total": page.total, "limit": limit, "offset": offset, "items": page.items}
