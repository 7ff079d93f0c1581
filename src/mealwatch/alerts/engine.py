"""Evaluating the alert rules for complaints just saved (or corrected), and storing what they find.

The complaints are checked together: for each rule, those it counts are grouped by place (school or block),
and each place is read once — its counted complaints within the rule's window either side of the new ones
(``ComplaintLog.nearby``). For every new complaint the busiest window of the rule's length that holds it is
found in one sweep over the place's complaints in time order; windows that overlap, or lie within a window
of each other, make one alert draft, recorded once (``ComplaintLog.record_alert``: a new alert, or the open
one of that rule and place extended). So a check costs one read per place and one write per alert, however
many complaints a request saved. Raised and extended alerts go to the ``notify`` callback (a webhook).
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..log import AlertDraft, AlertOutcome, ComplaintLog, effective_labels, from_stored_time
from ..records import block_group, school_group
from .rules import DEFAULT_RULES, Rule

log = logging.getLogger("mealwatch.alerts")


@dataclass
class Window:
    """The complaints of one place that one rule found together (in time order), and their schools."""

    complaints: list[dict[str, Any]]
    schools: int


def counts(rule: Rule, complaint: dict[str, Any]) -> bool:
    """Whether a stored complaint counts for ``rule`` (its labels as they stand, signals and severity level)."""
    return rule.counts(complaint["text"], effective_labels(complaint), complaint.get("signals") or (),
                       complaint.get("severity_level"))  # fmt: skip


def place_key(rule: Rule, complaint: dict[str, Any]) -> str | None:
    """The group a complaint belongs to under ``rule`` (its school, or block); None when it has none."""
    if rule.group_by == "block":
        return block_group(complaint["district"], complaint["block"])
    group = school_group(complaint["school"], complaint["udise"], complaint["district"])
    return group or f"complaint:{complaint['id']}"  # a complaint naming no school is a place of its own


def event_time(complaint: dict[str, Any]) -> str:
    return complaint["incident_at"] or complaint["created_at"]


def school_of(complaint: dict[str, Any]) -> str:
    return school_group(complaint["school"], complaint["udise"], complaint["district"]) or f"#{complaint['id']}"


def busiest_windows(rule: Rule, counted: list[dict[str, Any]], new: Sequence[dict[str, Any]]) -> list[Window]:
    """For each of the ``new`` complaints (among ``counted``, a place's complaints the rule counts), the window of
    ``rule.window`` holding it with the most counted complaints, if it is enough (the earliest of equals); the
    distinct windows found, in time order.

    A window starts at a counted complaint's time. One sweep finds every start's window (its end and its schools,
    with a running count); the new complaints, in time order, then take the best start within a window before
    them from a sliding maximum, since both ends of that range only move forward.
    """
    ordered = sorted(counted, key=lambda c: (event_time(c), c["id"]))
    times: list[datetime] = [from_stored_time(event_time(c)) for c in ordered]
    n = len(ordered)
    ends, sizes, enough = [0] * n, [0] * n, [False] * n
    schools: Counter[str] = Counter()
    end = 0
    for i in range(n):  # the window starting at complaint i holds i..ends[i]
        while end < n and times[end] <= times[i] + rule.window:
            schools[school_of(ordered[end])] += 1
            end += 1
        ends[i], sizes[i] = end - 1, end - i
        enough[i] = sizes[i] >= rule.min_complaints and len(schools) >= rule.min_schools
        schools[school_of(ordered[i])] -= 1
        if not schools[school_of(ordered[i])]:
            del schools[school_of(ordered[i])]
    found: dict[int, Window] = {}
    best: deque[int] = deque()  # eligible starts in the range, sizes falling (the earliest of equals first)
    added = 0
    for c in sorted(new, key=lambda c: (event_time(c), c["id"])):
        t = from_stored_time(event_time(c))
        while added < n and times[added] <= t:  # starts at or before the complaint
            if enough[added]:
                while best and sizes[best[-1]] < sizes[added]:
                    best.pop()
                best.append(added)
            added += 1
        first = bisect.bisect_left(times, t - rule.window)  # starts at least a window before it
        while best and best[0] < first:
            best.popleft()
        if best and best[0] not in found:
            i = best[0]
            window = ordered[i : ends[i] + 1]
            found[i] = Window(window, len({school_of(x) for x in window}))
    return [found[i] for i in sorted(found)]


def merged(rule: Rule, windows: list[Window]) -> list[list[Window]]:
    """Windows (in time order) that overlap or lie within a window of each other, together: one alert each."""
    groups: list[list[Window]] = []
    last_end: datetime | None = None
    for w in windows:
        start, end = (from_stored_time(event_time(w.complaints[i])) for i in (0, -1))
        if groups and last_end is not None and start <= last_end + rule.window:
            groups[-1].append(w)
            last_end = max(last_end, end)
        else:
            groups.append([w])
            last_end = end
    return groups


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

    def check(self, complaint_ids: Sequence[int], stop: threading.Event | None = None) -> list[AlertOutcome]:
        """Evaluate every rule for the complaints (just saved or corrected); the alerts raised or extended.
        ``stop``, once set, ends the check between two places (the rest is checked again later)."""
        complaints = self.store.get_many(complaint_ids)
        outcomes = []
        for rule in self.rules:
            places: dict[str, list[dict[str, Any]]] = {}
            for c in complaints:
                counted = counts(rule, c)
                key = place_key(rule, c) if counted else None
                if key is not None:
                    places.setdefault(key, []).append(c)
            for key, new in places.items():
                if stop is not None and stop.is_set():
                    return outcomes
                for outcome in self.check_place(rule, key, new):
                    outcomes.append(outcome)
                    if self.notify is not None:
                        self.notify(outcome)
        return outcomes

    def check_place(self, rule: Rule, key: str, new: list[dict[str, Any]]) -> list[AlertOutcome]:
        """The rule at one place for its new complaints: the alerts raised or extended."""
        if key.startswith("complaint:"):
            counted = new
        else:
            moments = [from_stored_time(event_time(c)) for c in new]
            nearby = self.store.nearby(rule.group_by, key, min(moments) - rule.window, max(moments) + rule.window)
            counted = [c for c in nearby if counts(rule, c)]
            seen = {c["id"] for c in counted}
            counted += [c for c in new if c["id"] not in seen]
        outcomes = []
        for group in merged(rule, busiest_windows(rule, counted, new)):
            outcome = self.store.record_alert(self.draft(rule, key, group), rule.window)
            if outcome.kind != "unchanged":
                log.warning("alert %s (%s): %s", outcome.alert["id"], outcome.kind, outcome.alert["summary"])
                outcomes.append(outcome)
        return outcomes

    def draft(self, rule: Rule, key: str, windows: list[Window]) -> AlertDraft:
        """One alert for windows found together: every complaint they hold; its line is the busiest window's."""
        busiest = max(windows, key=lambda w: len(w.complaints))
        every = {c["id"]: c for w in windows for c in w.complaints}
        times = sorted(event_time(c) for c in every.values())
        latest = max(every.values(), key=lambda c: (event_time(c), c["id"]))  # its school and block name the place
        place = (latest["block"] if rule.group_by == "block" else latest["school"]) or "a school not named"
        summary = rule.summary.format(
            n=len(busiest.complaints), schools=busiest.schools, place=place, hours=f"{rule.window_hours:g}"
        )
        return AlertDraft(
            rule.name, summary, key, sorted(every), times[0], times[-1],
            school=latest["school"] if rule.group_by == "school" else None,
            udise=latest["udise"] if rule.group_by == "school" else None,
            block=latest["block"], district=latest["district"],
        )  # fmt: skip
