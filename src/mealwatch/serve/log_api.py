"""The complaint log's routes: a page of complaints (filtered: ``filters.LogFilters``), their CSV export, one
complaint, its history, a change to one (status, corrected labels, assignee, notes, district), and the daily counts
per label.

The alerts are ``alerts_api.py``'s; search and incidents ``search_api.py``'s.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Request
from pydantic import BaseModel, Field
from fastapi.responses import Response

from ..log import ComplaintChange, CursorError, TransitionError, day_range, in_scope
from . import csv_out
from .auth import BY_HEADER, Principal, Who, actor, audit, require
from .errors import ApiError
from .filters import LogFilters
from .record_fields import shown
from .schemas import MAX_OFFSET, MAX_PAGE, MAX_STATS_DAYS, Complaint, ComplaintPage, ComplaintPatch
from .service import Service, Svc

router = APIRouter()
FullPhone = Annotated[bool, Query(description="show the reporter's phone number in full (else ******3210)")]


class Change(BaseModel):
    field: Literal["status", "labels", "assignee", "notes", "district", "block"]
    old: str | list[str] | None
    new: str | list[str] | None
    by: str | None = Field(description="who made it, as the request named them (null: not named)")
    at: str


@router.get("/api/complaints", response_model=ComplaintPage, tags=["log"])
def list_complaints(
    svc: Svc,
    filters: LogFilters,
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: Annotated[
        int, Query(ge=0, le=MAX_OFFSET, description="skip this many (slow deep in a long list: prefer cursor)")
    ] = 0,
    order: Annotated[
        Literal["queue", "review", "triage"],
        Query(
            description="queue: needing review, then most urgent, then newest; review: then the least certain; "
            "triage: the most severe first (a death or a hospital admission, the urgency, the children named), "
            "then needing review, then newest"
        ),
    ] = "queue",
    cursor: Annotated[
        str | None, Query(max_length=500, description="the previous page's next_cursor: the page after it")
    ] = None,
    full_phone: FullPhone = False,
) -> dict:
    """Saved complaints: those needing review first, then most urgent (or, ``order=review``, least certain), then
    newest; ``total`` counts every match; ``next_cursor`` (null on the last page) fetches the next page."""
    may_see_phones(who, full_phone)
    try:
        page = svc.store.list(filters, limit, offset, order, after=(cursor or "").strip() or None)
    except CursorError as e:
        raise ApiError(422, f"query parameter 'cursor': {e}") from None
    audit_phones(request, page.items, full_phone)
    items = [shown(c, full_phone) for c in page.items]
    return {"total": page.total, "limit": limit, "offset": offset, "next_cursor": page.next_cursor, "items": items}


@router.get(
    "/api/complaints.csv", tags=["log"], response_class=Response, responses={200: {"content": {"text/csv": {}}}}
)
def export_complaints(
    svc: Svc, filters: LogFilters, request: Request, who: Who, full_phone: FullPhone = False
) -> Response:
    """Every complaint matching the filters as a spreadsheet-ready CSV (``csv_out``): every column, the officer's
    own columns, one p_<label> column per label, times in the officers' zone."""
    may_see_phones(who, full_phone)
    rows = [shown(c, full_phone) for c in svc.store.list(filters, limit=None).items]
    detail = {"rows": len(rows), "query": str(request.query_params)} | ({"full_phone": True} if full_phone else {})
    audit(request, "export", "complaints.csv", detail, who.districts)
    text = csv_out.log_csv(svc.predictor.labels, rows, svc.zone)
    headers = {"Content-Disposition": 'attachment; filename="complaints.csv"'}
    return Response(text, media_type="text/csv; charset=utf-8", headers=headers)


def _existing(svc: Service, complaint_id: int, who: Principal) -> dict:
    found = svc.store.get(complaint_id, who.scope)
    if found is None:
        raise ApiError(404, f"no complaint with id {complaint_id}")
    return found


@router.get("/api/complaints/{complaint_id}", response_model=Complaint, tags=["log"])
def get_complaint(complaint_id: int, svc: Svc, who: Who, request: Request, full_phone: FullPhone = False) -> dict:
    """One complaint, with the history of its status changes."""
    may_see_phones(who, full_phone)
    found = _existing(svc, complaint_id, who)
    audit_phones(request, [found], full_phone)
    return shown(found, full_phone)


@router.get("/api/complaints/{complaint_id}/history", response_model=list[Change], tags=["log"])
def complaint_history(complaint_id: int, svc: Svc, who: Who) -> list[dict]:
    """Every change of the complaint's status, labels, assignee, notes, district and block, oldest first, with who
    and when."""
    changes = svc.store.changes(complaint_id, who.scope)
    if changes is None:
        raise ApiError(404, f"no complaint with id {complaint_id}")
    return changes


def may_see_phones(who: Principal, full_phone: bool) -> None:
    """Full phone numbers are for officers and above (a viewer sees them masked)."""
    if full_phone:
        require(who, "officer", "see full phone numbers (ask without full_phone=true for masked ones)")


def audit_phones(request: Request, complaints: list[dict], full_phone: bool) -> None:
    """Every read of full phone numbers is audited: the complaints whose phone it showed."""
    shown_to = [c for c in complaints if full_phone and c.get("reporter_phone")]
    if shown_to:
        ids = [c["id"] for c in shown_to]
        target = f"complaints {ids[0]}" + (f"-{ids[-1]}" if len(ids) > 1 else "")
        audit(request, "phone_read", target, {"ids": ids}, [c["district"] for c in shown_to])


@router.patch("/api/complaints/{complaint_id}", response_model=Complaint, tags=["log"])
def change_complaint(
    complaint_id: int,
    body: ComplaintPatch,
    svc: Svc,
    who: Who,
    request: Request,
    officer: Annotated[str | None, Header(alias=BY_HEADER, description="who makes the change")] = None,
) -> dict:
    """Move a complaint along new -> in_progress -> resolved (a move that is not allowed is a 409), correct its
    labels (kept beside the predicted ones), assign it, write notes, or put it in a district (one of the caller's)
    and block; each change goes into its history."""
    change = ComplaintChange(status=body.status, assignee=body.assignee, notes=body.notes, district=body.district,
                             block=body.block)  # fmt: skip
    if body.district and not in_scope(body.district, who.scope):
        raise ApiError(403, f"you may put complaints in {', '.join(who.districts)} only, not in {body.district!r}")
    if body.district == "" and who.scope is not None:
        raise ApiError(403, "only an account of every district may take a complaint out of its district")
    if body.labels is not None:
        change.labels = checked_labels(body.labels, svc.predictor.labels)
        change.urgency = svc.predictor.pipeline.log_urgency(change.labels)
    by = actor(who, body.by, officer)
    try:
        changed = svc.store.update(complaint_id, change, by, who.scope)
    except TransitionError as e:
        raise ApiError(409, str(e)) from None
    if changed is None:
        raise ApiError(404, f"no complaint with id {complaint_id}")
    asked = body.model_dump(exclude_none=True, exclude={"by"})
    audit(request, "change", f"complaint {complaint_id}", asked, [changed["district"]])
    moved = body.district is not None or body.block is not None
    if (body.labels is not None or moved) and svc.alerts is not None:
        svc.alerts.poke()  # a corrected label, or a school now of its district, may make an outbreak: marked due
    if body.district is not None and svc.search is not None:
        svc.search.poke()  # every index reads the complaint in its new district
    return shown(changed, False)


def checked_labels(labels: list[str], known: list[str]) -> list[str]:
    """Corrected labels: known to the model, at least one, each once, in the model's order."""
    cleaned = [label.strip() for label in labels]
    unknown = [label for label in cleaned if label not in known]
    if unknown:
        raise ApiError(422, f"field 'labels': unknown label {unknown[0]!r}; expected some of {', '.join(known)}")
    if not cleaned:
        raise ApiError(422, "field 'labels' is empty: a correction needs at least one label")
    return [label for label in known if label in cleaned]


@router.get("/api/stats", tags=["log"])
def stats(svc: Svc, filters: LogFilters) -> dict:
    """Complaints per label per day (UTC), every day of the range listed, days without complaints as 0."""
    per_day = svc.store.daily_label_counts(filters)
    first = filters.since.date() if filters.since else (date.fromisoformat(min(per_day)) if per_day else None)
    last = (
        (filters.until - timedelta(microseconds=1)).date()
        if filters.until
        else (date.fromisoformat(max(per_day)) if per_day else None)
    )
    if first is None or last is None:
        first = last = first or last or datetime.now(timezone.utc).date()
    if (last - first).days > MAX_STATS_DAYS:
        raise ApiError(422, f"the date range spans more than {MAX_STATS_DAYS} days: choose a shorter 'from'/'to'")
    days = day_range(first, last)
    labels = csv_out.probability_columns(svc.predictor.labels, [{"probabilities": d} for d in per_day.values()])
    counts = {label: [per_day.get(day, {}).get(label, 0) for day in days] for label in labels}
    return {"days": days, "labels": labels, "counts": counts, "totals": {label: sum(v) for label, v in counts.items()}}
