"""What the service says of itself: its health (the model answering, its shared passes, the log's size), the
model's labels, and the settings the page needs (time zone, channels, alert rules)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ..labels import DEFINITIONS
from ..log import Filters
from ..records import CHANNELS
from .auth import optional
from .service import Svc

router = APIRouter()


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


@router.get("/api/settings", tags=["service"])
def settings(svc: Svc) -> dict:
    """What the page needs to know of this service: the officers' time zone, the channels, the alert rules."""
    rules = svc.alerts.rules if svc.alerts is not None else ()
    return {
        "timezone": str(getattr(svc.zone, "key", "UTC")),
        "channels": list(CHANNELS),
        "alert_rules": [{"name": r.name, "summary": r.summary} for r in rules],
    }
