"""The complaint triage service: a FastAPI app with the classifier, the complaint log and the page.

``create_app(model_dir, db_path)`` loads the model once and opens (or creates) the log; see
docs/serve.md for the endpoints and their limits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from ..alerts import AlertEngine, AlertWorker, Rule, Webhook
from .accounts_api import router as accounts_router
from .classify_api import router as classify_router
from .admission import Admission
from .alerts_api import router as alerts_router
from .auth import AccountSettings, authorize
from .log_api import router as log_router
from .pages import STATIC
from .pages import router as pages_router
from .preferences import router as preferences_router
from .search_api import router as search_router
from .service import Service
from .service_api import router as service_router
from ..search.grouping import DEFAULT_RULE, GroupingRule
from ..search.vectors import SentenceVectors
from ..search.worker import SearchWorker
from .errors import install as install_error_handlers
from .batcher import MAX_TEXTS, MAX_TOKENS, MAX_WAIT_S
from .predictor import Predictor
from .security import LOOPBACK_HOSTS, SecurityMiddleware
from .startup import (
    StartError,
    checked_batching,
    checked_log,
    checked_rules,
    checked_sessions,
    checked_url,
    checked_zone,
)
from ..log import ComplaintLog, StoreError


def create_app(
    model_dir: str | Path | None = None,
    db_path: str | Path | None = None,
    *,
    max_batch: int = MAX_TEXTS,
    batch_wait_s: float = MAX_WAIT_S,
    batch_tokens: int = MAX_TOKENS,
    predictor: Predictor | None = None,
    speed: dict[str, Any] | None = None,
    timezone: str = "UTC",
    alert_rules: str | Path | Sequence[Rule] | None = None,
    alert_url: str | None = None,
    clock: Callable[[], str] | None = None,
    trusted_hosts: Sequence[str] = (),
    accounts: bool | None = None,
    account_settings: AccountSettings | None = None,
    search: str | SentenceVectors | None = None,
    grouping: GroupingRule | None = None,
) -> FastAPI:
    """The service for the model in ``model_dir`` (None: the latest run) and the log at ``db_path`` (see ``open_log``).

    ``max_batch`` (texts), ``batch_tokens`` (padded tokens) and ``batch_wait_s`` (the longest a text waits for
    others) bound the passes that concurrent requests share (``batcher``).
    ``predictor`` replaces loading a model (a test may share one between apps); ``speed`` holds the keyword
    arguments of ``Pipeline.from_folder`` (precision, compile, validation, log). ``timezone`` (an IANA name) is
    the officers' zone: the page shows times in it and incident dates without an offset are read in it.
    ``alert_rules``: a TOML/JSON rule file or rules (None: ``alerts.DEFAULT_RULES``); ``alert_url``: a webhook
    each raised or extended alert is POSTed to; ``clock`` replaces the log's clock (tests, replays). The service
    answers requests addressed to this machine's loopback names and to ``trusted_hosts`` (see ``security``).
    ``accounts``: True requires a login (``auth``), False never, None (default) once the log holds any user — at
    once, also for a user added while the service runs; ``account_settings`` sets session lifetimes, TLS and the
    login limiter (its ``enabled`` is decided here; the limiter is shared, not copied). A bad option is a
    ``StartError`` naming it; a log that cannot be used (or a damaged one) a ``StoreError``.
    ``search``: the sentence vectors of search by meaning and incidents — ``"e5"`` (the pre-trained
    multilingual-e5-small with its prefixes), ``"model"`` (the served model's fine-tuned encoder), a
    ``SentenceVectors``, or None (off); ``grouping`` replaces ``search.grouping.DEFAULT_RULE``.
    """
    # the start-up checks (``startup``): the options, then the log, before a model thread is running
    zone, rules, alert_url = checked_zone(timezone), checked_rules(alert_rules), checked_url(alert_url)
    checked_batching(max_batch, batch_wait_s, batch_tokens)
    sessions = checked_sessions(account_settings or AccountSettings())
    owned = predictor is None
    if db_path is None:
        from ..runs import default_log_path

        db_path = default_log_path()
    store = checked_log(db_path)
    if clock is not None:
        store.clock = clock
    if predictor is None:
        from ..runs import resolve_model

        try:
            predictor = Predictor.load(
                resolve_model(model_dir),
                max_batch=max_batch,
                batch_wait_s=batch_wait_s,
                batch_tokens=batch_tokens,
                speed=speed,
            )
        except BaseException:
            store.close()
            raise
    webhook = Webhook(alert_url) if alert_url else None
    enabled = store.has_users() if accounts is None else accounts
    config = replace(sessions, enabled=enabled, follow_log=accounts is None)

    alerts = AlertWorker(AlertEngine(store, rules, webhook)).start()  # first: what an earlier run left due
    try:
        searching = search_worker(search, grouping, store, predictor, alerts)
    except BaseException:
        alerts.close()
        store.close()
        if owned:
            predictor.close()
        raise

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        if searching is not None:
            searching.close()
        alerts.close()
        if webhook is not None:
            webhook.close()
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
    app.state.service = Service(predictor, store, alerts, zone, searching)
    app.state.webhook = webhook
    app.state.accounts = config
    app.add_middleware(Admission)  # inside the security checks: a foreign host or a cross-site write never gets here
    app.add_middleware(SecurityMiddleware, trusted_hosts=[*LOOPBACK_HOSTS, *trusted_hosts])
    install_error_handlers(app)
    routers = (classify_router, log_router, service_router, pages_router, alerts_router, accounts_router,
               preferences_router, search_router)  # fmt: skip
    for routes in routers:
        app.include_router(routes, dependencies=[Depends(authorize)])
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


#: seconds the model must have rested before the search thread embeds (saves and classifications come first)
IDLE_S = 0.5


def search_worker(
    search: str | SentenceVectors | None,
    grouping: GroupingRule | None,
    store: ComplaintLog,
    predictor: Predictor,
    alerts: AlertWorker,
) -> SearchWorker | None:
    """The search worker for ``search`` (see ``create_app``), started; None when search is off."""
    if search is None:
        return None
    from ..search.engine import Search

    if search == "model":
        vectors = SentenceVectors.from_pipeline(predictor.pipeline, predictor.version)
    elif isinstance(search, str):
        from ..transformer import CheckpointError

        try:
            vectors = SentenceVectors.pretrained(search)
        except (CheckpointError, OSError, ValueError) as e:
            raise StartError("search", f"--search: {e} (give e5, model, off or an encoder folder)") from None
    else:
        vectors = search
    engine = Search(store, vectors, rule=grouping or DEFAULT_RULE)
    busy = lambda: predictor.batcher.idle_for() < IDLE_S  # noqa: E731 - saves first: embed once the model rests
    return SearchWorker(engine, on_signals=alerts.poke, busy=busy).start()


__all__ = ["ComplaintLog", "Predictor", "StartError", "StoreError", "create_app"]
