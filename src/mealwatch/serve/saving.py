"""The one way the service saves classified complaints, whichever route classified them.

``respond`` turns a route's classified complaints into its answer. With ``save`` it writes, in one transaction
(``ComplaintLog.add_many`` / ``add_many_once``): the complaints, the audit line naming them (with accounts on),
the mark that their alert check is due, and — under an ``Idempotency-Key`` — the answer itself, so that a retry
replays it. Nothing touches the log after that commit: the alert rules are checked off the response path
(``alerts.AlertWorker``), so a save whose transaction committed is always answered. Who may save what is
``may_save`` (an officer, complaints of their districts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import Response

from ..log import SavedAnswer
from ..records import Record
from . import idempotency
from .auth import Principal, audit_entry, place_in_scope, require
from .predictor import Classified
from .record_fields import new_complaint, record_out

if TYPE_CHECKING:
    from .app import Service

#: what a route renders its answers into: (body, media type)
Render = Callable[[list[dict[str, Any]]], tuple[str, str]]


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
        "importance": c.importance.to_dict() if c.importance else None,
        "id": complaint_id,
        "model_version": version,
    }


def may_save(who: Principal, save: bool, complaints: list[tuple[str, Record]]) -> None:
    """A save needs an officer, and complaints of the officer's districts (see ``auth.place_in_scope``)."""
    if save:
        require(who, "officer", "save complaints")
        place_in_scope(who, [r for _, r in complaints])


def respond(
    svc: Service,
    request: Request,
    classified: list[Classified],
    complaints: list[tuple[str, Record]],
    save: bool,
    once: idempotency.Once | None,
    render: Render,
    headers: dict[str, str] | None = None,
) -> Response:
    """The answer to classified (text, record) pairs, rendered by ``render``; with ``save``, saved first (see the
    module docstring), under ``once``'s key when the request carried one."""
    version = svc.predictor.version

    def answers(ids: list[int] | list[None]) -> list[dict[str, Any]]:
        return [result(c, r, version, i) for c, (_, r), i in zip(classified, complaints, ids)]

    if not save:
        body, media_type = render(answers([None] * len(complaints)))
        return Response(body, media_type=media_type, headers=headers)
    new = [new_complaint(svc.predictor, c.prediction, r) for c, (_, r) in zip(classified, complaints)]
    line = audit_entry(request, "save", districts=[r.district for _, r in complaints])
    if once is None:
        ids = svc.store.add_many(new, line)
        saved = SavedAnswer("", *render(answers(ids)), ids)
    else:
        saved = svc.store.add_many_once(once.stored_key, once.fingerprint, new, lambda i: render(answers(i)), line)
        idempotency.check_same(once, saved)  # a racing request with the same key may have asked something else
    if svc.alerts is not None and not saved.replayed:
        svc.alerts.poke()  # the transaction marked their check due: the worker takes it from here
    return idempotency.response(saved, headers)
