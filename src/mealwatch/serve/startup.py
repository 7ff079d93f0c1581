"""The checks a service makes as it starts, in one place: ``create_app`` runs them before the model is loaded, and
``mealwatch serve`` relies on them (it adds only its own: the port, the address it listens on, a first admin asked
for at the terminal). Each failure is a ``StartError`` naming the option and what to do, in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..alerts import DEFAULT_RULES, AlertRuleError, Rule, load_rules
from ..alerts.webhook import check_url
from ..log import ComplaintLog, open_log


class StartError(ValueError):
    """An option the service cannot start with; ``option`` names it (as the command line spells it)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def checked_zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise StartError(
            "timezone", f"unknown time zone {timezone!r}: give an IANA name such as Asia/Kolkata or UTC"
        ) from None


def checked_rules(alert_rules: str | Path | Sequence[Rule] | None) -> tuple[Rule, ...]:
    """The alert rules of a TOML/JSON file, or those given, or the defaults."""
    if not isinstance(alert_rules, (str, Path)):
        return tuple(alert_rules or DEFAULT_RULES)
    try:
        return load_rules(alert_rules)
    except AlertRuleError as e:
        raise StartError("alert-rules", str(e)) from None


def checked_url(alert_url: str | None) -> str | None:
    try:
        return check_url(alert_url) if alert_url else None
    except ValueError as e:
        raise StartError("alert-url", str(e)) from None


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
