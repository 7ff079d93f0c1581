"""Evaluating the alert rules as complaints are saved (or corrected), and storing what they find.

For each rule a saved complaint counts for, the engine reads the complaints of its school (or block)
whose incident time (else arrival time) lies within the rule's window either side of the complaint's,
finds the busiest window of that length holding the complaint, and, when it holds enough complaints
from enough schools, records an alert (``ComplaintLog.record_alert``: a new one, or the open one of
that rule and place extended). Raised and extended alerts go to the ``notify`` callback (a webhook).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..log import AlertDraft, AlertOutcome, ComplaintLog, effective_labels, from_stored_time
from ..records import block_group, school_group
from .rules import DEFAULT_RULES, Rule

log = logging.getLogger("mealwatch.alerts")


@dataclass
class Window:
    """The complaints of one place that one rule found together."""

    complaints: list[dict[str, Any]]
    schools: int


def place_key(rule: Rule, complaint: dict[str, Any]) -> str | None:
    """The group a complaint belongs to under ``rule`` (its school, or block); None when it has none."""
    if rule.group_by == "block":
        return block_group(complaint["district"], complaint["block"])
    group = school_group(complaint["school"], complaint["udise"], complaint["district"])
    return group or f"complaint:{complaint['id']}"  # a complaint naming no school is a place of its own


def event_time(complaint: dict[str, Any]) -> str:
    return complaint["incident_at"] or complaint["created_at"]


def busiest_window(rule: Rule, complaint: dict[str, Any], counted: list[dict[str, Any]]) -> Window | None:
    """The window of ``rule.window`` holding ``complaint`` with the most counted complaints, if it is enough."""
    t = from_stored_time(event_time(complaint))
    times = [(from_stored_time(event_time(c)), c) for c in counted]
    best: Window | None = None
    for start, _ in times:
        if not start <= t <= start + rule.window:
            continue
        inside = [c for moment, c in times if start <= moment <= start + rule.window]
        schools = len({school_group(c["school"], c["udise"], c["district"]) or f"#{c['id']}" for c in inside})
        if len(inside) >= rule.min_complaints and schools >= rule.min_schools:
            if best is None or len(inside) > len(best.complaints):
                best = Window(inside, schools)
    return best


class AlertEngine:
    """Applies ``rules`` to complaints of ``store``; ``notify(outcome)`` hears of every raised or extended alert."""

    def __init__(
        self,
        store: ComplaintLog,
        rules: Sequence[Rule] = DEFAULT_RULES,
        notify: Callable[[AlertOutcome], None] | None = None,
    ) -> None:
        self.store = store
        self.rules = tuple(rules)
        self.notify = notify

    def check(self, complaint_ids: Sequence[int]) -> list[AlertOutcome]:
        """Evaluate every rule for each complaint (just saved or corrected); the alerts raised or extended."""
        outcomes = []
        for complaint_id in complaint_ids:
            complaint = self.store.get(complaint_id)
            if complaint is None:
                continue
            for rule in self.rules:
                outcome = self.check_rule(rule, complaint)
                if outcome is not None and outcome.kind != "unchanged":
                    outcomes.append(outcome)
                    if self.notify is not None:
                        self.notify(outcome)
        return outcomes

    def check_rule(self, rule: Rule, complaint: dict[str, Any]) -> AlertOutcome | None:
        if not rule.counts(complaint["text"], effective_labels(complaint)):
            return None
        key = place_key(rule, complaint)
        if key is None:
            return None
        if key.startswith("complaint:"):
            counted = [complaint]
        else:
            t = from_stored_time(event_time(complaint))
            nearby = self.store.nearby(rule.group_by, key, t - rule.window, t + rule.window)
            counted = [c for c in nearby if rule.counts(c["text"], effective_labels(c))]
            if all(c["id"] != complaint["id"] for c in counted):
                counted.append(complaint)
        found = busiest_window(rule, complaint, counted)
        if found is None:
            return None
        times = sorted(event_time(c) for c in found.complaints)
        place = (complaint["block"] if rule.group_by == "block" else complaint["school"]) or "a school not named"
        hours = f"{rule.window_hours:g}"
        summary = rule.summary.format(n=len(found.complaints), schools=found.schools, place=place, hours=hours)
        draft = AlertDraft(
            rule.name, summary, key, [c["id"] for c in found.complaints], times[0], times[-1],
            school=complaint["school"] if rule.group_by == "school" else None,
            udise=complaint["udise"] if rule.group_by == "school" else None,
            block=complaint["block"], district=complaint["district"],
        )  # fmt: skip
        outcome = self.store.record_alert(draft, rule.window)
        if outcome.kind != "unchanged":
            log.warning("alert %s (%s): %s", outcome.alert["id"], outcome.kind, summary)
        return outcome
