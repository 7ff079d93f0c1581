"""The one way the service saves classified complaints, whichever route classified them.

``classify_and_answer`` is what every classifying route (one complaint, a batch, a CSV upload) ends in: a retry of
a request already saved is answered from the log without classifying again; otherwise the route's ``classify``
runs and ``respond`` turns its classified complaints into the answer. For a save it writes, in one transaction
(``ComplaintLog.add_many_once``): the complaints, the audit line naming them (with accounts on), the mark that
their alert check is due, and the answer itself under the request's ``Idempotency-Key``, so that a retry replays
it. Nothing touches the log after that commit: the alert rules are checked off the response path
(``alerts.AlertWorker``), so a save whose transaction committed is always answered. A request without a key gets
one made here, so that a commit whose acknowledgement was lost (the database's connection broke) is looked up
again once the log answers: found, the save is answered as usual; not found, a 503 says nothing was saved; no
answer in time, a 503 gives the key to send it again with. Who may save what is ``may_save`` (an officer,
complaints of their districts).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from .. import decisions
from ..children import children_text
from ..log import LogUnavailable, NewComplaint, SavedAnswer
from ..pipeline import Prediction
from ..records import Record
from . import idempotency
from .auth import Principal, audit_entry, place_in_scope, require
from .errors import ApiError
from .predictor import Classified, Predictor
from .record_fields import record_out

if TYPE_CHECKING:
    from .service import Service

#: seconds a save whose commit went unacknowledged waits for the log to answer whether it went through
RECOVERY_S = 5.0
#: what a route renders its answers into: (body, media type)
Render = Callable[[list[dict[str, Any]]], tuple[str, str]]
#: how a route classifies its texts (in order): the shared passes, an explanation's queue
Classify = Callable[[list[str]], Awaitable[list[Classified]]]


def certainty(prediction: Prediction, thresholds: list[float] | None) -> float:
    """How far the prediction is from changing (``decisions.certainty``; 0: a coin toss)."""
    probabilities = list(prediction.probabilities.values())
    if thresholds is not None and len(thresholds) != len(probabilities):
        thresholds = None  # not this prediction's thresholds: the top probability's lead instead
    return float(decisions.certainty([probabilities], thresholds)[0])


def new_complaint(predictor: Predictor, prediction: Prediction, record: Record) -> NewComplaint:
    """What the log saves for a classified complaint with its record."""
    pipeline = predictor.pipeline
    return NewComplaint(
        prediction.text, prediction.labels, prediction.probabilities, pipeline.log_urgency(prediction.labels),
        predictor.version, record.school, prediction.review_reasons, record.udise, record.district, record.block,
        record.incident_at, record.channel, record.reporter_phone, record.extra,
        certainty(prediction, pipeline.thresholds()), prediction.severity, prediction.language,
    )  # fmt: skip


def result(c: Classified, record: Record, version: str, complaint_id: int | None = None) -> dict[str, Any]:
    """One complaint's answer: the prediction, the record as sent, and its id once saved."""
    p = c.prediction
    return {
        "text": p.text,
        **record_out(record),
        "labels": p.labels,
        "probabilities": p.probabilities,
        "urgency": p.urgency,
        "truncated": p.truncated,
        "needs_review": p.needs_review,
        "review_reasons": p.review_reasons,
        "language": p.language,
        "severity_level": p.severity,
        "children": children_text(p.children),
        "importance": c.importance.to_dict() if c.importance else None,
        "id": complaint_id,
        "model_version": version,
    }


def may_save(
    who: Principal,
    save: bool,
    complaints: list[tuple[str, Record]],
    partial: bool = False,
    where: Callable[[int], str] | None = None,
) -> dict[int, str]:
    """A save needs an officer, and complaints of the officer's districts (see ``auth.place_in_scope``). Every
    complaint the caller may not save is refused: with ``partial``, returned (position -> why, for the route to
    leave out and list); else the request is refused, ``where(position)`` naming each (a batch's item, a file's
    line), or as ``place_in_scope`` said it."""
    if not save:
        return {}
    require(who, "officer", "save complaints")
    refused: dict[int, ApiError] = {}
    for i, (_, record) in enumerate(complaints):
        try:
            place_in_scope(who, [record])
        except ApiError as e:
            refused[i] = e
    if refused and not partial:
        first = next(iter(refused.values()))
        if where is None:
            raise first
        named = [f"{where(i)}: {e.message}" for i, e in list(refused.items())[:10]]
        more = f" (and {len(refused) - 10} more)" if len(refused) > 10 else ""
        raise ApiError(first.status, "; ".join(named) + more + ": nothing was saved (send partial=true to save "
                       "the others)")  # fmt: skip
    return {i: e.message for i, e in refused.items()}


async def classify_and_answer(
    svc: Service,
    request: Request,
    who: Principal,
    save: bool,
    asked: tuple[str | bytes, ...],
    complaints: list[tuple[str, Record]],
    classify: Classify,
    render: Render,
    headers: dict[str, str] | None = None,
) -> Response:
    """The answer to a classifying route's (text, record) pairs, saved when ``save`` (``may_save`` already passed):
    a retry of a request saved before (its ``Idempotency-Key``, what it ``asked`` the same) gets the stored answer,
    nothing classified again; else the texts are classified by ``classify`` and answered by ``respond``."""
    once = await run_in_threadpool(idempotency.once_for, svc.store, request, who, save, *asked)
    if isinstance(once, SavedAnswer):
        return idempotency.response(once, headers)
    done = await classify([text for text, _ in complaints])
    return await run_in_threadpool(respond, svc, request, done, complaints, once, render, headers)


def respond(
    svc: Service,
    request: Request,
    classified: list[Classified],
    complaints: list[tuple[str, Record]],
    once: idempotency.Once | None,
    render: Render,
    headers: dict[str, str] | None = None,
) -> Response:
    """The answer to classified (text, record) pairs, rendered by ``render``; saved first (see the module docstring)
    under ``once``'s key when the request saves (``idempotency.once_for``: the request's key, or one made here)."""
    version = svc.predictor.version

    def answers(ids: list[int] | list[None]) -> list[dict[str, Any]]:
        return [result(c, r, version, i) for c, (_, r), i in zip(classified, complaints, ids)]

    if once is None:
        body, media_type = render(answers([None] * len(complaints)))
        return Response(body, media_type=media_type, headers=headers)
    new = [new_complaint(svc.predictor, c.prediction, r) for c, (_, r) in zip(classified, complaints)]
    line = audit_entry(request, "save", districts=[r.district for _, r in complaints])
    try:
        saved = svc.store.add_many_once(once.stored_key, once.fingerprint, new, lambda i: render(answers(i)), line)
    except LogUnavailable as e:
        if not e.unknown_outcome:
            raise  # rolled back: nothing saved, a 503 says so
        saved = found_again(svc, once, e)  # the commit went out but its acknowledgement never came back
    idempotency.check_same(once, saved)  # a racing request with the same key may have asked something else
    if svc.alerts is not None and not saved.replayed:
        svc.alerts.poke()  # the transaction marked their check due: the worker takes it from here
    if svc.search is not None and not saved.replayed:
        svc.search.poke()  # their vectors and incidents, off the response path
    return idempotency.response(saved, headers)


def found_again(svc: Service, once: idempotency.Once, error: LogUnavailable) -> SavedAnswer:
    """After a commit whose outcome is unknown (``error``): the answer it stored, asked of the log until it answers
    (for ``RECOVERY_S``). LogUnavailable when it did not go through (nothing saved), or when the log does not answer
    in time (the outcome unknown: the message gives the key to send it again with)."""
    deadline = time.monotonic() + RECOVERY_S
    while True:
        try:
            saved = svc.store.saved_answer(once.stored_key)
            break
        except LogUnavailable:
            if time.monotonic() > deadline:
                raise LogUnavailable(
                    f"{error}; send it again with the header '{idempotency.HEADER}: {once.key}'", unknown_outcome=True
                ) from error
            time.sleep(0.25)
    if saved is None:
        raise LogUnavailable(f"{error}; it did not go through") from error
    saved.replayed = False  # the answer of this very request, found again
    return saved
