"""The pages: the officers' page (or, signed out, the login page first), a text's attention page, and the API's
own documentation page; every file they load is served from ``STATIC``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from .auth import accounts_on, optional
from .errors import ApiError
from .explainer import outcome
from .schemas import check_complaint_text
from .security import new_nonce, page_csp
from .service import Svc

router = APIRouter()
STATIC = Path(__file__).parent / "static"


@router.get("/", include_in_schema=False)
def index(request: Request) -> Response:
    """The page; with accounts on and nobody signed in, the login page first."""
    if accounts_on(request) and optional(request) is None:
        return RedirectResponse("/login", status_code=303)
    return FileResponse(STATIC / "index.html", media_type="text/html")


@router.get("/attention", response_class=HTMLResponse, tags=["explain"])
async def attention_page(
    svc: Svc,
    request: Request,
    text: Annotated[str, Query(description="the complaint to show")],
    explain: Annotated[bool, Query(description="add integrated gradients (slow on a CPU)")] = False,
) -> HTMLResponse:
    """The explain package's self-contained attention page for one text (heads, layers, and optionally why)."""
    from ..explain import render_page

    try:
        check_complaint_text(text)
    except ValueError as e:
        raise ApiError(422, f"query parameter 'text': {e}") from None
    wa = await outcome(svc.predictor.start_attention(text), request)
    explanation = await outcome(svc.predictor.start_explanation(text), request) if explain else None
    nonce = new_nonce()
    page = render_page(wa, explanation, model=svc.predictor.version, nonce=nonce)
    return HTMLResponse(page, headers={"Content-Security-Policy": page_csp(nonce)})


@router.get("/docs", include_in_schema=False)
def docs_page() -> FileResponse:
    """The API's endpoints, read from /openapi.json by the service's own script (nothing from another site)."""
    return FileResponse(STATIC / "docs.html", media_type="text/html")
