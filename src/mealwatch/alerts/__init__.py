"""Outbreak alerts: rules (``rules.py``), their evaluation for complaints saved (``engine.py``) on a thread of
its own after each save (``worker.py``), and an optional webhook (``webhook.py``). The alerts themselves, and
which complaints still need a check, are kept by the complaint log."""

from .engine import AlertEngine
from .rules import DEFAULT_RULES, AlertRuleError, Rule, load_rules
from .webhook import Webhook, check_url
from .worker import AlertWorker

__all__ = [
    "AlertEngine",
    "AlertRuleError",
    "AlertWorker",
    "DEFAULT_RULES",
    "Rule",
    "Webhook",
    "check_url",
    "load_rules",
]
