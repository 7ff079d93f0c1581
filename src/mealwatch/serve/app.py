"""The routes: classification, attention, the complaint log, its CSV export and daily counts, and the page.

Handlers are plain functions (FastAPI runs them on its thread pool); the model work goes
through the ``Predictor`` (one worker, batched) and the log through the ``ComplaintLog`` (mealwatch.log).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Header, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from ..explain.word_attention import check_layer_head
from ..alerts import AlertWorker
from ..search.worker import SearchWorker
from ..labels import DEFINITIONS
from ..records import CHANNELS
from . import csv_io, csv_out
from .record_fields import BY_HEADER, shown
from .auth import Principal, Who, accounts_on, audit, optional, require
from .saving import Classify, classify_and_answer, may_save
from .errors import ApiError
from .explainer import outcome
from .predictor import Classified, Predictor
from .security import new_nonce, page_csp
from .schemas import (
    MAX_OFFSET,
    MAX_PAGE,
    AttentionRequest,
    BatchRequest,
    BatchResult,
    ClassifyRequest,
    ClassifyResult,
    Complaint,
    ComplaintPage,
    CsvResult,
    ComplaintPatch,
    Status,
    Urgency,
    check_complaint_text,
)
from ..log import (
    ComplaintChange,
    ComplaintLog,
    CursorError,
    Filters,
    TransitionError,
    day_range,
    in_scope,
)

STATIC = Path(__file__).parent / "static"
MAX_STATS_DAYS = 3660
JSON, CSV = "application/json", "text/csv; charset=utf-8"
#: the moments a 'from'/'to' filter may name, in UTC (a 'to' day is read as the start of the next day), a day
#: inside the calendar's ends so that the range arithmetic around them cannot overflow
EARLIEST = datetime(1, 1, 2, tzinfo=timezone.utc)
LATEST = datetime(9999, 12, 31, tzinfo=timezone.utc)


@dataclass
class Service:
    predictor: Predictor
    store: ComplaintLog
    alerts: AlertWorker | None = None  # None: no alert rules are checked
    zone: tzinfo = timezone.utc  # the officers' time zone: the page shows it, incident dates are read in it
    search: SearchWorker | None = None  # None: search and incidents are off


def service(request: Request) -> Service:
    return request.app.state.service


router = APIRouter()
Svc = Annotated[Service, Depends(service)]
FullPhone = Annotated[bool, Query(description="show the reporter's phone number in full (else ******3210)")]
Channel = Literal[CHANNELS]


def explained(svc: Service, request: Request, explain: str, steps: int) -> Classify:
    """How a JSON route classifies its texts: integrated gradients (and the "why" built on them) on the explainer's
    queue, the rest in the shared passes of the batcher (either dropped if the client leaves first); gradient ×
    input after the prediction, when asked."""

    async def classify(texts: list[str]) -> list[Classified]:
        if explain in ("ig", "why"):
            return await outcome(svc.predictor.start_ig(texts, steps, explain), request)
        predictions = await outcome(svc.predictor.start_classify(texts), request)
        if explain == "grad":
            return await run_in_threadpool(svc.predictor.with_importance, predictions)
        return [Classified(p) for p in predictions]

    return classify


@router.post("/api/classify", response_model=ClassifyResult, tags=["classify"])
async def classify(body: ClassifyRequest, svc: Svc, request: Request, who: Who) -> Response:
    """Labels, per-label probabilities, urgency and per-word importance of one complaint; saved when ``save``."""
    complaints = [(body.text, body.record(svc.zone))]
    may_save(who, body.save, complaints)

    def render(answers: list[dict]) -> tuple[str, str]:
        return ClassifyResult.model_validate(answers[0]).model_dump_json(), JSON

    asked = (body.model_dump_json(),)
    return await classify_and_answer(svc, request, who, body.save, asked, complaints,
                                     explained(svc, request, body.explain, body.steps), render)  # fmt: skip


@router.post("/api/classify/batch", response_model=BatchResult, tags=["classify"])
async def classify_batch(body: BatchRequest, svc: Svc, request: Request, who: Who) -> Response:
    """Up to 256 complaints at once, answered in the order sent (per-word importance only when asked); with
    ``partial``, the items that cannot be read or saved are listed in ``refused`` and the others saved."""
    complaints = [(text, fields.record(svc.zone)) for text, fields in body.complaints()]
    positions, refused = body.positions(), body.refused()
    out_of_scope = may_save(who, body.save, complaints, body.partial, lambda i: f"items[{positions[i]}]")
    refused.update({positions[i]: why for i, why in out_of_scope.items()})
    complaints = [c for i, c in enumerate(complaints) if i not in out_of_scope]
    if not complaints:
        said = "; ".join(f"items[{i}]: {why}" for i, why in sorted(refused.items()))
        raise ApiError(422, f"no item of the batch can be saved: {said}")
    refusals = [{"index": i, "error": why} for i, why in sorted(refused.items())]

    def render(answers: list[dict]) -> tuple[str, str]:
        answer = {"count": len(answers), "results": answers, "refused": refusals}
        return BatchResult.model_validate(answer).model_dump_json(), JSON

    asked = (body.model_dump_json(),)
    return await classify_and_answer(svc, request, who, body.save, asked, complaints,
                                     explained(svc, request, body.explain, body.steps), render)  # fmt: skip


@router.post(
    "/api/classify/csv", response_model=CsvResult, tags=["classify"], responses={200: {"content": {"text/csv": {}}}}
)
async def classify_csv(
    svc: Svc,
    request: Request,
    who: Who,
    file: Annotated[UploadFile, File(description="CSV, UTF-8, with a 'text' column and optionally 'school'")],
    save: Annotated[
        Literal["true", "false"], Form(description="add every complaint to the log: true or false")
    ] = "false",
    partial: Annotated[
        Literal["true", "false"],
        Form(
            description="lines that cannot be read or saved are left out and listed, the others saved (true); or "
            "one such line refuses the whole file (false)"
        ),
    ] = "false",
    format: Annotated[Literal["json", "csv"], Query(description="answer as JSON or as a CSV download")] = "json",
    with_csv: Annotated[bool, Query(description="JSON answer only: add the CSV download's text as 'csv'")] = False,
) -> Any:
    """Classify every row of an uploaded CSV file; a row that cannot be read (or, saving, that the caller may not
    save) refuses the whole file, naming its line — or, with ``partial``, is left out and listed in ``refused``."""
    name = file.filename or "the upload"
    data = await file.read(csv_io.MAX_CSV_BYTES + 1)
    try:
        upload = await run_in_threadpool(csv_io.read_upload, data, name, svc.zone)
    except csv_io.CsvUploadError as e:
        raise ApiError(422, str(e)) from None
    if upload.problems and partial != "true":
        advice = " (or send partial=true to classify the others)"
        raise ApiError(422, upload.refusal(name) + advice)
    refused = dict(upload.problems)
    out_of_scope = may_save(who, save == "true", [(r.text, r.record) for r in upload.rows], partial == "true",
                            lambda i: f"{name}: line {upload.rows[i].line}")  # fmt: skip
    refused.update({upload.rows[i].line: why for i, why in out_of_scope.items()})
    rows = [r for i, r in enumerate(upload.rows) if i not in out_of_scope]
    if not rows:
        raise ApiError(422, refusal_of_all(name, refused))
    complaints = [(r.text, r.record) for r in rows]
    refusals = [{"line": line, "error": why} for line, why in sorted(refused.items())]
    headers = {"Content-Disposition": attachment(f"{Path(name).stem or 'complaints'}-classified.csv")}
    asked = (name, save, partial, format, str(with_csv), data)

    async def classify(texts: list[str]) -> list[Classified]:  # waited for in full, the client gone or not
        return await run_in_threadpool(svc.predictor.classify, texts, "none", 0)

    def render(results: list[dict]) -> tuple[str, str]:
        for r, row in zip(results, rows):
            r["line"] = row.line
        want_csv = format == "csv" or with_csv
        text = csv_out.results_csv(svc.predictor.labels, results, svc.zone) if want_csv else None
        if format == "csv":
            return text or "", CSV
        answer = {"count": len(results), "results": results, "csv": text, "refused": refusals,
                  "left_out_columns": upload.left_out}  # fmt: skip
        return CsvResult.model_validate(answer).model_dump_json(), JSON

    return await classify_and_answer(svc, request, who, save == "true", asked, complaints, classify, render,
                                     headers if format == "csv" else None)  # fmt: skip


def refusal_of_all(name: str, refused: dict[int, str]) -> str:
    lines = [f"line {line}: {why}" for line, why in sorted(refused.items())]
    return csv_io.refusal(name, lines, "none can be classified")


def attachment(filename: str) -> str:
    """A Content-Disposition value for any file name: an ASCII fallback, and the UTF-8 name (RFC 6266/5987)."""
    from urllib.parse import quote

    ascii_name = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in filename)
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename, safe='')}"


@router.post("/api/attention", tags=["explain"])
async def attention(body: AttentionRequest, svc: Svc, request: Request) -> dict:
    """Attention merged to words: ``attention[layer][head][query word][key word]`` (rows sum to 1)."""
    layers, heads = svc.predictor.pipeline.num_layers, svc.predictor.pipeline.num_heads
    try:
        check_layer_head(layers, heads, body.layer, body.head)
    except ValueError as e:
        raise ApiError(422, str(e)) from None
    wa = await outcome(svc.predictor.start_attention(body.text, body.include_special), request)
    layer_ids = list(range(layers)) if body.layer is None else [body.layer]
    head_ids = list(range(heads)) if body.head is None else [body.head]
    chosen = wa.attention[layer_ids][:, head_ids]  # (layers', heads', W, W)
    return {
        "text": wa.text,
        "words": wa.words,
        "special": wa.special,
        "layers": layer_ids,
        "heads": head_ids,
        "include_special": wa.include_special,
        "renormalised": wa.renormalised,
        "truncated": wa.truncated,
        "attention": chosen.double().round(decimals=4).tolist(),
    }


# --- the complaint log -------------------------------------------------------------------------


def _moment(value: str | None, name: str, end: bool) -> datetime | None:
    """A query date (YYYY-MM-DD, a whole UTC day; ``end`` takes the day after) or ISO time, in UTC."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime.combine(day + timedelta(days=1 if end else 0), datetime.min.time(), timezone.utc)
        else:
            moment = datetime.fromisoformat(value)
            moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    except ValueError:
        raise ApiError(
            422, f"query parameter '{name}' must be a date (YYYY-MM-DD) or an ISO time, not {value!r}"
        ) from None
    except OverflowError:  # the day after 9999-12-31, or a time before 0001-01-01 once in UTC
        moment = None
    if moment is None or not EARLIEST <= moment <= LATEST:
        raise ApiError(
            422,
            f"query parameter '{name}': {value!r} falls outside the dates this service handles "
            f"({EARLIEST.date()} to {LATEST.date() - timedelta(days=1)}, UTC): "
            f"choose a date within them or leave '{name}' out",
        )
    return moment


def log_filters(
    svc: Svc,
    who: Who,
    label: Annotated[str | None, Query(description="complaints carrying this label")] = None,
    urgency: Annotated[Urgency | None, Query()] = None,
    school: Annotated[str | None, Query(description="part of the school's name, any case")] = None,
    status: Annotated[Status | None, Query()] = None,
    needs_review: Annotated[
        bool | None, Query(description="only complaints flagged (true) or not flagged (false) for review")
    ] = None,
    since: Annotated[str | None, Query(alias="from", description="from this day (YYYY-MM-DD, UTC) or time")] = None,
    until: Annotated[
        str | None, Query(alias="to", description="up to and including this day, or before this time")
    ] = None,
    dates: Annotated[
        Literal["arrival", "incident"],
        Query(description="what from/to read: the arrival time, or the incident time (else the arrival)"),
    ] = "arrival",
    district: Annotated[str | None, Query(description="part of the district's name, any case")] = None,
    block: Annotated[str | None, Query(description="part of the block's name, any case")] = None,
    unassigned: Annotated[
        bool | None, Query(description="only complaints naming no district (true) or only those naming one (false)")
    ] = None,
    channel: Annotated[Channel | None, Query()] = None,
    udise: Annotated[str | None, Query(description="the school's UDISE code")] = None,
    corrected: Annotated[
        bool | None, Query(description="only complaints whose labels an officer corrected (true) or not (false)")
    ] = None,
    assignee: Annotated[str | None, Query(description="complaints assigned to this person, any case")] = None,
    one_per_incident: Annotated[
        bool, Query(description="of the complaints of one incident, only the one it is shown by (its lead)")
    ] = False,
) -> Filters:
    label, school = (label or "").strip() or None, (school or "").strip() or None
    if label is not None:
        known = set(svc.predictor.labels) | svc.store.labels()
        if label not in known:
            raise ApiError(
                422, f"query parameter 'label': unknown label {label!r}; expected one of {', '.join(sorted(known))}"
            )
    filters = Filters(
        label, urgency, school, status, needs_review, _moment(since, "from", False), _moment(until, "to", True),
        *((v or "").strip() or None for v in (district, block, channel, udise)), corrected,
        (assignee or "").strip() or None, who.scope, unassigned, dates, one_per_incident,
    )  # fmt: skip
    if filters.since and filters.until and filters.since >= filters.until:
        raise ApiError(422, f"the date range is empty: 'from' ({since}) must come before 'to' ({until})")
    return filters


LogFilters = Annotated[Filters, Depends(log_filters)]


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
    return shown(changed, False)


def actor(who: Principal, named: str | None, header: str | None) -> str | None:
    """Who a change is recorded as made by: the signed-in account; without accounts, as the request names them."""
    if who.kind in ("session", "token"):
        return who.name
    return named or (header or "").strip()[:200] or None


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


@router.get("/api/health", tags=["service"])
def health(svc: Svc, request: Request) -> dict:
    """Whether the service is up, which model answers, what its shared passes through the model have done (how
    well concurrent requests are batched), and how many complaints the log holds (of the districts of the
    account asking; left out for a request that is not signed in)."""
    answer = {
        "status": "ok" if svc.predictor.fault is None else f"degraded: {svc.predictor.fault}",
        "model_version": svc.predictor.version,
        "labels": len(svc.predictor.labels),
        "schema_version": svc.store.schema_version,
        "model_passes": svc.predictor.counts.to_dict(),
    }
    who = optional(request)
    if who is not None:
        seen = svc.store.count() if who.scope is None else svc.store.list(Filters(districts=who.scope), 0).total
        answer["complaints_stored"] = seen
    return answer


@router.get("/api/labels", tags=["service"])
def labels(svc: Svc) -> list[dict]:
    """The model's labels, each with its definition and the urgency it gives a complaint on its own."""
    pipeline = svc.predictor.pipeline
    return [
        {"label": label, "definition": DEFINITIONS.get(label, ""), "urgency": pipeline.urgency_of([label])}
        for label in pipeline.labels
    ]


# --- pages -------------------------------------------------------------------------------------


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
