"""The outbreak alerts' routes: the alerts of the account's districts (open first), and an officer acknowledging
one. The rules that raise them are ``mealwatch.alerts``'; the log keeps them (``log/alert_store.py``)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..log import ALERT_STATUSES
from ..records import clean_name
from .auth import BY_HEADER, Who, actor, audit
from .errors import ApiError
from .schemas import MAX_OFFSET, MAX_PAGE
from .service import Svc

router = APIRouter()


class Alert(BaseModel):
    id: int
    rule: str
    summary: str
    school: str | None
    udise: str | None
    block: str | None
    district: str | None
    complaint_ids: list[int]
    incident_ids: list[int] = Field(default_factory=list, description="the incidents its complaints belong to")
    first_at: str = Field(description="the first complaint's incident time (else arrival time), UTC")
    last_at: str
    status: Literal["open", "acknowledged"]
    raised_at: str
    updated_at: str
    acknowledged_at: str | None
    acknowledged_by: str | None


class AlertPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[Alert]


class AlertPatch(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    status: Literal["acknowledged"] = Field(description="an officer has seen it and acts on it")
    by: str | None = Field(None, description="who acknowledges it (else the X-Officer header)")

    @field_validator("by")
    @classmethod
    def _by(cls, v: str | None) -> str | None:
        return clean_name(v, "by")


@router.get("/api/alerts", response_model=AlertPage, tags=["alerts"])
def list_alerts(
    svc: Svc,
    who: Who,
    status: Annotated[Literal[ALERT_STATUSES] | None, Query(description="only open or acknowledged alerts")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict:
    """Outbreak alerts (of the account's districts), open ones first, then the most recent; the alerts of the
    complaints saved before this request are in it (their check runs after each save: it waits up to 2 s)."""
    if svc.alerts is not None:
        svc.alerts.wait(timeout=2.0)
    page = svc.store.list_alerts(status, limit, offset, who.scope)
    return {"total": page.total, "limit": limit, "offset": offset, "items": page.items}


@router.patch("/api/alerts/{alert_id}", response_model=Alert, tags=["alerts"])
def acknowledge_alert(
    alert_id: int,
    body: AlertPatch,
    svc: Svc,
    who: Who,
    request: Request,
    officer: Annotated[str | None, Header(alias=BY_HEADER, description="who acknowledges it")] = None,
) -> dict:
    """Acknowledge an alert (the page's banner goes); acknowledging it again changes nothing."""
    alert = svc.store.acknowledge_alert(alert_id, actor(who, body.by, officer), who.scope)
    if alert is None:
        raise ApiError(404, f"no alert with id {alert_id}")
    audit(request, "acknowledge", f"alert {alert_id}", districts=[alert["district"]])
    return alert
