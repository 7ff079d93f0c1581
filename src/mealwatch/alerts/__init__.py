"""Outbreak alerts: rules (``rules.py``), their evaluation as complaints are saved (``engine.py``) and an
optional webhook (``webhook.py``). The alerts themselves are kept by the complaint log."""

from .engine import AlertEngine
from .rules import DEFAULT_RULES, AlertRuleError, Rule, load_rules
from .webhook import Webhook, check_url

__all__ = ["AlertEngine", "AlertRuleError", "DEFAULT_RULES", "Rule", "Webhook", "check_url", "load_rules"]
