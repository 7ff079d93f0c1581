"""The complaint triage service: a FastAPI app with the classifier, the complaint log and the page.

``create_app(model_dir, db_path)`` loads the model once and opens (or creates) the log; see
docs/serve.md for the endpoints and their limits.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from collections.abc import Sequence
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .app import STATIC, Service, router
from .errors import install as install_error_handlers
from .predictor import Predictor
from .security import LOOPBACK_HOSTS, SecurityMiddleware
from ..log import ComplaintLog, StoreError, open_log


def create_app(
    model_dir: str | Path | None = None,
    db_path: str | Path | None = None,
    *,
    max_batch: int = 32,
    predictor: Predictor | None = None,
    trusted_hosts: Sequence[str] = (),
) -> FastAPI:
    """The service for the model in ``model_dir`` (None: the latest run) and the log at ``db_path`` (see ``open_log``).

    ``predictor`` replaces loading a model (a test may share one between apps). The service answers requests
    addressed to this machine's loopback names and to ``trusted_hosts`` (see ``security``).
    """
    owned = predictor is None
    if db_path is None:
        from ..runs import default_log_path

        db_path = default_log_path()
    # the log first: a log that cannot be used stops the start before a model thread is running
    store = open_log(db_path)
    if predictor is None:
        from ..runs import resolve_model

        try:
            predictor = Predictor.load(resolve_model(model_dir), max_batch=max_batch)
        except BaseException:
            store.close()
            raise

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        store.close()
        if owned:
            predictor.close()

    app = FastAPI(
        title="mealwatch complaint triage",
        description="Classify mid-day meal complaints, explain the prediction, and keep a log to work through.",
        version=predictor.version,
        lifespan=lifespan,
        docs_url=None,  # FastAPI's pages load their scripts from a CDN: /docs is the service's own page instead
        redoc_url=None,
    )
    app.state.service = Service(predictor, store)
    app.add_middleware(SecurityMiddleware, trusted_hosts=[*LOOPBACK_HOSTS, *trusted_hosts])
    install_error_handlers(app)
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


__all__ = ["ComplaintLog", "Predictor", "StoreError", "create_app"]
