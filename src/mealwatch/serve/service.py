"""What every route is handed: the ``Service`` (the predictor, the complaint log, the alert and search workers, the
officers' time zone) that ``create_app`` builds once, as the ``Svc`` dependency."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timezone, tzinfo
from typing import Annotated

from fastapi import Depends, Request

from ..alerts import AlertWorker
from ..log import ComplaintLog
from ..search.worker import SearchWorker
from .predictor import Predictor


@dataclass
class Service:
    predictor: Predictor
    store: ComplaintLog
    alerts: AlertWorker | None = None  # None: no alert rules are checked
    zone: tzinfo = timezone.utc  # the officers' time zone: the page shows it, incident dates are read in it
    search: SearchWorker | None = None  # None: search and incidents are off


def service(request: Request) -> Service:
    return request.app.state.service


Svc = Annotated[Service, Depends(service)]
