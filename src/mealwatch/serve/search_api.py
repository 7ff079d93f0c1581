"""Routes of search by meaning and incidents: ``GET /api/search``, a complaint's similar complaints, and the
incidents (list, one, merge, split, close or reopen). Every answer keeps to the account's districts: the index
scores only their complaints and the log checks each again (``search.engine``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from ..log import in_scope
from ..log.incident_store import INCIDENT_STATUSES, IncidentError
from ..search.engine import MAX_RESULTS, Result, Search
from .auth import Principal, Who, actor, audit
from .errors import ApiError
from .record_fields import shown
from .schemas import MAX_IDS, MAX_OFFSET, MAX_QUERY_CHARS, Complaint, check_complaint_text
from .service import Service, Svc

router = APIRouter()


class Found(BaseModel):
    complaint: Complaint
    score: float = Field(
        description="the cosine of the two meanings (-1 to 1; 1: the same), plus up to 0.2 for the "
        "share of the query's concepts the complaint is about too (search)"
    )
    shared_words: list[str] = Field(description="words of the complaint the query (or complaint) also has")
    shared_labels: list[str] = Field(default_factory=list, description="labels both complaints carry (similar)")
    shared_concepts: list[str] = Field(
        default_factory=list,
        description="what both are about, written in any language: lizard, vomiting, hospital, ... (search.concepts)",
    )


class SearchAnswer(BaseModel):
    query: str | None = None
    complaint_id: int | None = None
    results: list[Found]
    indexed: int = Field(description="complaints of the account's districts the index holds")
    complete: bool = Field(description="false while older complaints are still being embedded or read into the index")
    vectors: str = Field(description="the version of the sentence vectors searched")


class Incident(BaseModel):
    id: int
    place: str
    school: str | None
    udise: str | None
    district: str | None
    block: str | None
    status: Literal[INCIDENT_STATUSES]
    first_at: str = Field(description="its first complaint's incident time (else arrival time), UTC")
    last_at: str
    size: int
    worst_urgency: Literal["high", "medium", "low"]
    lead_id: int = Field(description="the complaint the queue shows for it")
    labels: dict[str, int] = Field(description="label -> how many of its complaints carry it")
    complaint_ids: list[int]
    created_at: str
    updated_at: str
    closed_at: str | None
    closed_by: str | None
    complaints: list[Complaint] | None = None


class IncidentPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[Incident]


class Merge(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    incident_ids: list[int] = Field(min_length=2, max_length=MAX_IDS, description="the first keeps the others")


class Split(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    complaint_ids: list[int] = Field(min_length=1, max_length=MAX_IDS, description="moved into a new incident")


class IncidentPatch(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    status: Literal[INCIDENT_STATUSES] = Field(description="closed: no new complaint joins it; open again")


def searcher(svc: Service) -> Search:
    if svc.search is None:
        raise ApiError(503, "search is off on this server: start it with `mealwatch serve --search e5`")
    return svc.search.search


def answer(svc: Service, who: Principal, results: list[Result], **asked: Any) -> dict:
    search = searcher(svc)
    return {
        **asked,
        "results": [
            {
                "complaint": shown(r.complaint, False),
                "score": round(r.score, 4),
                "shared_words": r.shared_words,
                "shared_labels": r.shared_labels,
                "shared_concepts": r.shared_concepts,
            }
            for r in results
        ],  # fmt: skip
        "indexed": search.index.in_scope(who.scope),
        "complete": search.progress.complete,
        "vectors": search.version,
    }


@router.get("/api/search", response_model=SearchAnswer, tags=["search"])
async def search_complaints(
    svc: Svc,
    who: Who,
    q: Annotated[str, Query(description="what to look for, in any language or script", max_length=MAX_QUERY_CHARS)],
    k: Annotated[int, Query(ge=1, le=MAX_RESULTS, description="how many complaints")] = 10,
) -> dict:
    """The complaints (of the account's districts) closest in meaning to ``q``, best first, each with its score
    and the words it shares with ``q``."""
    text = q.strip()
    if not text:
        raise ApiError(422, "query parameter 'q' is empty: say what to look for")
    try:
        check_complaint_text(text)
    except ValueError as e:
        raise ApiError(422, f"query parameter 'q': {e}") from None
    search = searcher(svc)
    results = await run_in_threadpool(search.query, text, k, who.scope)
    return answer(svc, who, results, query=text)


@router.get("/api/complaints/{complaint_id}/similar", response_model=SearchAnswer, tags=["search"])
def similar_complaints(
    complaint_id: int,
    svc: Svc,
    who: Who,
    k: Annotated[int, Query(ge=1, le=MAX_RESULTS)] = 10,
    within: Annotated[
        Literal["all", "district", "block"], Query(description="only complaints of its district or its block")
    ] = "all",
) -> dict:
    """The complaints closest in meaning to this one (of the account's districts; ``within`` narrows it to the
    complaint's district or block), each with its score, shared words and shared labels."""
    search = searcher(svc)
    found = svc.store.get(complaint_id, who.scope)
    if found is None:
        raise ApiError(404, f"no complaint with id {complaint_id}")
    scope = who.scope
    if within != "all":
        from ..records import fold

        own = fold(found["district"]) if found["district"] else None
        if own is None or (scope is not None and own not in scope):
            return answer(svc, who, [], complaint_id=complaint_id)
        scope = (own,)
    results = search.similar(found, MAX_RESULTS if within == "block" else k, scope)
    if within == "block":
        results = [r for r in results if (r.complaint["block"] or "").casefold() == (found["block"] or "").casefold()
                   and found["block"]][:k]  # fmt: skip
    return answer(svc, who, results, complaint_id=complaint_id)


@router.get("/api/incidents", response_model=IncidentPage, tags=["incidents"])
def list_incidents(
    svc: Svc,
    who: Who,
    status: Annotated[Literal[INCIDENT_STATUSES] | None, Query()] = None,
    min_size: Annotated[int, Query(ge=1, le=10_000, description="2: only incidents of several complaints")] = 2,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict:
    """Incidents (of the account's districts): open first, then the most urgent, then the most recent."""
    page = svc.store.list_incidents(status, limit, offset, who.scope, min_size)
    return {"total": page.total, "limit": limit, "offset": offset, "items": page.items}


@router.get("/api/incidents/{incident_id}", response_model=Incident, tags=["incidents"])
def get_incident(incident_id: int, svc: Svc, who: Who) -> dict:
    """One incident with its complaints."""
    found = svc.store.get_incident(incident_id, who.scope)
    if found is None:
        raise ApiError(404, f"no incident with id {incident_id}")
    found["complaints"] = [shown(c, False) for c in svc.store.get_many(found["complaint_ids"])
                           if in_scope(c["district"], who.scope)]  # fmt: skip
    return found


@router.post("/api/incidents/merge", response_model=Incident, tags=["incidents"])
def merge_incidents(body: Merge, svc: Svc, who: Who, request: Request) -> dict:
    """Merge incidents into the first named: their complaints are one event."""
    try:
        merged = svc.store.merge_incidents(body.incident_ids, actor(who, None, None), who.scope)
    except IncidentError as e:
        raise ApiError(404 if "no incident" in str(e) else 422, str(e)) from None
    audit(request, "incident_merge", f"incident {merged['id']}", {"incident_ids": body.incident_ids},
          [merged["district"]])  # fmt: skip
    return merged


@router.post("/api/incidents/{incident_id}/split", response_model=Incident, tags=["incidents"])
def split_incident(incident_id: int, body: Split, svc: Svc, who: Who, request: Request) -> dict:
    """Move some of an incident's complaints into a new incident (another event); the new incident."""
    try:
        new = svc.store.split_incident(incident_id, body.complaint_ids, actor(who, None, None), who.scope)
    except IncidentError as e:
        raise ApiError(404 if "no incident" in str(e) else 422, str(e)) from None
    audit(request, "incident_split", f"incident {incident_id}", {"complaint_ids": body.complaint_ids,
          "new_incident": new["id"]}, [new["district"]])  # fmt: skip
    return new


@router.patch("/api/incidents/{incident_id}", response_model=Incident, tags=["incidents"])
def change_incident(incident_id: int, body: IncidentPatch, svc: Svc, who: Who, request: Request) -> dict:
    """Close an incident (new complaints no longer join it) or open it again."""
    changed = svc.store.set_incident_status(incident_id, body.status, actor(who, None, None), who.scope)
    if changed is None:
        raise ApiError(404, f"no incident with id {incident_id}")
    audit(request, "incident_status", f"incident {incident_id}", {"status": body.status}, [changed["district"]])
    return changed
