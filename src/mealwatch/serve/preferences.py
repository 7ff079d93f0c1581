"""The language the page speaks to its user: chosen once and kept with the account, else the browser's.

``GET /api/preferences`` answers ``{language, chosen}``: the signed-in user's own choice (``chosen`` true), else
the best of the page's languages by the request's ``Accept-Language`` (a Hindi browser gets Hindi), else English.
``PUT /api/preferences {"language": "hi"}`` keeps a signed-in user's choice in the log; without accounts (one user
on this machine) nothing is kept on the server (``stored`` false: the page keeps it in the browser).
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from ..log.preference_store import LANGUAGES
from .service import Svc
from .auth import Who, optional

router = APIRouter()


class Preferences(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    language: Literal[LANGUAGES] = Field(description="the page's language: 'en' (English) or 'hi' (Hindi)")


def browser_language(header: str | None) -> str | None:
    """The page language an ``Accept-Language`` header prefers most (by q, then order), or None."""
    best: tuple[float, int, str] | None = None
    for i, item in enumerate((header or "").split(",")):
        tag, _, params = item.strip().partition(";")
        language = tag.strip().lower().split("-")[0]
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                continue
        if language in LANGUAGES and q > 0 and (best is None or (-q, i) < (-best[0], best[1])):
            best = (q, i, language)
    return best[2] if best else None


@router.get("/api/preferences", tags=["accounts"])
def preferences(svc: Svc, request: Request) -> dict:
    """The page's language for this user: their own choice, else the browser's, else English."""
    who = optional(request)
    chosen = svc.store.language(who.name) if who is not None and who.name else None
    language = chosen or browser_language(request.headers.get("accept-language")) or "en"
    return {"language": language, "chosen": chosen is not None, "languages": list(LANGUAGES)}


@router.put("/api/preferences", tags=["accounts"])
def choose(body: Preferences, svc: Svc, who: Who) -> dict:
    """Keep the signed-in user's language with their account (without accounts: nothing kept on the server)."""
    if who.kind not in ("session", "token") or not who.name:
        return {"language": body.language, "stored": False}
    svc.store.set_language(who.name, body.language)
    return {"language": body.language, "stored": True}
