"""The model's routes: classify one complaint, a batch or an uploaded CSV file (saved when asked, through
``saving.classify_and_answer``), and the attention between a text's words.

Handlers are plain functions or coroutines; the model work goes through the ``Predictor`` (one worker, batched).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..explain.word_attention import check_layer_head
from . import csv_io, csv_out
from .auth import Who
from .errors import ApiError
from .explainer import outcome
from .predictor import Classified
from .saving import Classify, classify_and_answer, may_save
from .schemas import (
    MAX_CSV_BYTES,
    AttentionRequest,
    BatchRequest,
    BatchResult,
    ClassifyRequest,
    ClassifyResult,
    CsvResult,
)
from .service import Service, Svc

router = APIRouter()
JSON, CSV = "application/json", "text/csv; charset=utf-8"


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
    data = await file.read(MAX_CSV_BYTES + 1)
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
