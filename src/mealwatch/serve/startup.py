"""The checks a service makes as it starts, in one place: ``create_app`` runs them before the model is loaded, and
``mealwatch serve`` relies on them (it runs the option checks first too, to answer before opening the log or
loading a model, and adds only its own: the port, the address it listens on, a first admin asked for at the
terminal). Each failure is a ``StartError``: one line naming the option as the command line spells it, and what
to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..alerts import DEFAULT_RULES, AlertRuleError, Rule, load_rules
from ..alerts.webhook import check_url
from ..log import ComplaintLog, open_log
from .auth import AccountSettings


class StartError(ValueError):
    """An option the service cannot start with; ``option`` names it (as the command line spells it, without the
    dashes), and so does the message, first."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def checked_zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise StartError(
            "timezone", f"--timezone: unknown time zone {timezone!r}: give an IANA name such as Asia/Kolkata or UTC"
        ) from None


def checked_rules(alert_rules: str | Path | Sequence[Rule] | None) -> tuple[Rule, ...]:
    """The alert rules of a TOML/JSON file, or those given, or the defaults."""
    if not isinstance(alert_rules, (str, Path)):
        return tuple(alert_rules or DEFAULT_RULES)
    try:
        return load_rules(alert_rules)
    except AlertRuleError as e:
        raise StartError("alert-rules", f"--alert-rules: {e}") from None


def checked_url(alert_url: str | None) -> str | None:
    try:
        return check_url(alert_url) if alert_url else None
    except ValueError as e:
        raise StartError("alert-url", f"--alert-url: {e}") from None


def checked_batching(max_batch: int, batch_wait_s: float, batch_tokens: int) -> None:
    """The bounds of the passes concurrent requests share (``batcher``): at least one text and one word piece a
    pass, a wait of 0 to 1 second."""
    if max_batch < 1:
        raise StartError("max-batch", f"--max-batch must be at least 1, not {max_batch}")
    wait_ms = batch_wait_s * 1000
    if not 0 <= wait_ms <= 1000:  # NaN too
        raise StartError("batch-wait-ms", f"--batch-wait-ms must be between 0 and 1000 milliseconds, not {wait_ms:g}")
    if batch_tokens < 1:
        raise StartError("batch-tokens", f"--batch-tokens must be at least 1, not {batch_tokens}")


def checked_sessions(settings: AccountSettings) -> AccountSettings:
    """Account settings whose sessions last a while: the idle and the absolute lifetime above 0."""
    if settings.idle <= timedelta(0) or settings.absolute <= timedelta(0):
        raise StartError("session-idle-minutes", "--session-idle-minutes and --session-hours must be above 0")
    return settings


def checked_log(db: str | Path) -> ComplaintLog:
    """The log at ``db``, opened (created, migrated) and its pages read once (``ComplaintLog.check_pages``): a log
    that cannot be used, or a damaged file, stops the start with a StoreError saying why."""
    store = open_log(db)
    try:
        store.check_pages()
    except BaseException:
        store.close()
        raise
    return store
