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
    check_name,
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
    districts: list[str] = Field(description="district names, or ['*'] for every district")

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
    districts: list[str]

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
    from .app import STATIC

    return FileResponse(STATIC / STATIC_LOGIN, media_type="text/html")


@router.post("/api/login", tags=["accounts"])
def login(body: Login, request: Request) -> JSONResponse:
    """Start a session: a cookie (HttpOnly, SameSite=Strict) and the CSRF token to send with each change."""
    config, log = auth.settings(request), auth.store(request)
    if not config.enabled:
        raise ApiError(404, "this service has no accounts: it is a single-user tool on this machine")
    client = auth.client_address(request) or "unknown"
    keys = (f"user:{body.name.strip().casefold()}", f"address:{client}")
    wait = config.limiter.retry_after(*keys)
    if wait:
        log.audit(body.name[:200], "login_failed", detail={"reason": "too many failures"}, client=client)
        raise ApiError(429, f"too many failed logins: try again in {wait} seconds", headers={"Retry-After": str(wait)})
    user = log.user(body.name) if body.name.strip() else None
    if not verify_password(user["password_hash"] if user else None, body.password):
        config.limiter.failed(*keys)
        log.audit(body.name[:200], "login_failed", detail={"reason": "wrong name or password"}, client=client)
        raise ApiError(401, "wrong name or password")
    if user["disabled"]:
        log.audit(user["name"], "login_failed", detail={"reason": "disabled"}, client=client)
        raise ApiError(403, f"the account {user['name']!r} is disabled: ask an admin")
    config.limiter.succeeded(keys[0])
    if needs_rehash(user["password_hash"]):
        log.set_password_hash(user["id"], hash_password(body.password))
    auth.sweep_sessions(log, config)
    key, csrf = new_secret(), new_secret()
    log.start_session(secret_hash(key), user["id"], csrf, client)
    log.audit(user["name"], "login", client=client)
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
    auth.audit(request, "logout")
    response = JSONResponse({"logged_out": True})
    _cookie(request, response, "", 0)
    return response


@router.get("/api/session", tags=["accounts"])
def session(request: Request) -> dict:
    """Whether accounts are on, who is signed in (null: nobody) and the CSRF token of this session."""
    config = auth.settings(request)
    try:
        who = auth.resolve(request)
    except ApiError:  # an ended session or a bad token: nobody, the page asks for a login
        who = None
    if who is None or not config.enabled:
        return {"accounts": config.enabled, "user": None, "csrf_token": None, "csrf_header": CSRF_HEADER}
    return {"accounts": True, "user": who.public(), "csrf_token": who.csrf_token, "csrf_header": CSRF_HEADER}


# --- the admin's -----------------------------------------------------------------------------------


@router.get("/api/users", tags=["accounts"])
def list_users(request: Request) -> list[dict]:
    """Every user (names, roles, districts, disabled, last login); never a password or its hash."""
    return auth.store(request).users()


@router.post("/api/users", tags=["accounts"], status_code=201)
def add_user(body: NewUser, request: Request) -> dict:
    try:
        user = auth.store(request).add_user(body.name, hash_password(body.password), body.role, body.districts)
    except AccountError as e:
        raise ApiError(422, f"field 'password': {e}") from None
    except StoreError as e:
        raise ApiError(409, str(e)) from None
    auth.audit(request, "user_add", f"user {user['name']}", {"role": user["role"], "districts": user["districts"]})
    return user


@router.patch("/api/users/{name}", tags=["accounts"])
def change_user(name: str, body: UserPatch, request: Request, who: Who) -> dict:
    """Disable (their sessions end at once) or enable a user."""
    if body.disabled and who.name is not None and name.casefold() == who.name.casefold():
        raise ApiError(422, "you cannot disable yourself: ask another admin")
    user = auth.store(request).set_user_disabled(name, body.disabled)
    if user is None:
        raise ApiError(404, f"no user named {name!r}")
    auth.audit(request, "user_disable" if body.disabled else "user_enable", f"user {user['name']}")
    return user


@router.get("/api/tokens", tags=["accounts"])
def list_tokens(request: Request) -> list[dict]:
    """Every API token (names, roles, districts, last use, revoked); never the token or its hash."""
    return auth.store(request).tokens()


@router.post("/api/tokens", tags=["accounts"], status_code=201)
def create_token(body: NewToken, request: Request) -> dict:
    """A new API token: ``token`` is shown this once (the log keeps only its hash)."""
    token = new_secret("mw_")
    try:
        row = auth.store(request).add_token(body.name, secret_hash(token), body.role, body.districts)
    except StoreError as e:
        raise ApiError(409, str(e)) from None
    auth.audit(request, "token_create", f"token {row['name']}", {"role": row["role"], "districts": row["districts"]})
    return {**row, "token": token}


@router.delete("/api/tokens/{name}", tags=["accounts"])
def revoke_token(name: str, request: Request) -> dict:
    row = auth.store(request).revoke_token(name)
    if row is None:
        raise ApiError(404, f"no token named {name!r}")
    auth.audit(request, "token_revoke", f"token {row['name']}")
    return row


@router.get("/api/audit", tags=["accounts"])
def audit_log(
    request: Request,
    action: Annotated[str | None, Query(description="only this action (login, login_failed, change, ...)")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict:
    """The audit log, newest first: who (``actor``) did what (``action`` on ``target``), when, from where."""
    page = auth.store(request).audit_entries(limit, offset, (action or "").strip() or None)
    return {"total": page.total, "limit": limit, "offset": offset, "items": page.items}
