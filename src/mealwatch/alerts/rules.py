"""Outbreak alert rules: what makes a complaint count, how complaints are grouped, and how many make an alert.

A rule counts a complaint when it carries one of the rule's ``labels`` (as corrected, where an officer corrected
them), or its severity level is one of the rule's ``levels`` (``mealwatch.severity``: read by the model in every
language, by the rule for a model without a severity head), or it mentions one of its ``keywords`` (whole words of
``mealwatch.text.normalize``d text, any case: ``hospital`` does not find ``hospitality``, so a rule lists each
inflection it wants), or carries one of its ``signals`` (``mealwatch.search.signals``: a death or a hospital
admission written in any of the complaints' languages, marked by the search worker after the save; the keywords stay
the floor). It groups counted complaints by school or by block and raises an alert when, within ``window_hours`` of
incident time, a group holds ``min_complaints`` of them from ``min_schools`` schools. Rules come from
``DEFAULT_RULES`` or a TOML/JSON file (``load_rules``).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..labels import LABELS
from ..severity import GRAVE_LEVELS, SEVERITY_LEVELS, phrase_pattern
from ..text import normalize

GROUPS = ("school", "block")


class AlertRuleError(ValueError):
    """A rule file or rule that cannot be used; the message names the file, the rule and what was expected."""


@dataclass(frozen=True)
class Rule:
    """One alert rule (see the module docstring)."""

    name: str
    summary: str  # the banner's line; {n} complaints, {schools} schools, {place}, {hours}
    labels: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    signals: tuple[str, ...] = ()  # what a complaint says in any language (``search.signals``)
    levels: tuple[str, ...] = ()  # severity levels (``severity.SEVERITY_LEVELS``) that count
    group_by: str = "school"
    window_hours: float = 24.0
    min_complaints: int = 1
    min_schools: int = 1

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise AlertRuleError("a rule needs a name")
        if not self.labels and not self.keywords and not self.signals and not self.levels:
            raise AlertRuleError(f"rule {self.name!r}: give labels, levels, keywords or signals")
        if bad := [v for v in self.levels if v not in SEVERITY_LEVELS]:
            raise AlertRuleError(f"rule {self.name!r}: unknown level {bad[0]!r}; the levels are "
                                 f"{', '.join(SEVERITY_LEVELS)}")  # fmt: skip
        if self.group_by not in GROUPS:
            raise AlertRuleError(f"rule {self.name!r}: group_by must be one of {', '.join(GROUPS)}")
        if not self.window_hours > 0:
            raise AlertRuleError(f"rule {self.name!r}: window_hours must be more than 0")
        if self.min_complaints < 1 or self.min_schools < 1:
            raise AlertRuleError(f"rule {self.name!r}: min_complaints and min_schools must be at least 1")
        if self.min_schools > self.min_complaints:
            raise AlertRuleError(f"rule {self.name!r}: min_schools cannot exceed min_complaints")
        object.__setattr__(self, "_patterns", tuple(keyword_pattern(k) for k in self.keywords))

    @property
    def window(self) -> timedelta:
        return timedelta(hours=self.window_hours)

    def counts(self, text: str, labels: Iterable[str], signals: Iterable[str] = (), level: str | None = None) -> bool:
        """Whether a complaint with ``text``, ``labels``, ``signals`` and severity ``level`` counts for this rule."""
        if set(labels) & set(self.labels) or set(signals) & set(self.signals) or level in self.levels:
            return True
        if not self._patterns:  # type: ignore[attr-defined]
            return False
        folded = normalize(text)
        return any(p.search(folded) for p in self._patterns)  # type: ignore[attr-defined]


def keyword_pattern(keyword: str) -> re.Pattern[str]:
    """A keyword found as whole words of normalised text, its spaces matching any run of white space."""
    try:
        return phrase_pattern(keyword)
    except ValueError:
        raise AlertRuleError("a keyword is empty") from None


DEFAULT_RULES: tuple[Rule, ...] = (
    Rule(
        "school_cluster",
        "{n} complaints of illness or a foreign object at {place} within {hours} hours",
        labels=("illness", "foreign_object"),
        min_complaints=3,
    ),
    Rule(
        "block_spread",
        "illness at {schools} schools of block {place} within {hours} hours (a shared kitchen or supplier?)",
        labels=("illness",),
        group_by="block",
        min_complaints=2,
        min_schools=2,
    ),
    Rule(
        "death_or_hospital",
        "a death or a hospital admission reported at {place}",
        levels=tuple(sorted(GRAVE_LEVELS)),
    ),
)


def rule_from_dict(entry: Mapping[str, Any], where: str) -> Rule:
    """A rule from a file's entry; unknown fields and wrong types are errors naming ``where``."""
    known = {f.name: f for f in fields(Rule)}
    unknown = [k for k in entry if k not in known]
    if unknown:
        raise AlertRuleError(f"{where}: unknown field {unknown[0]!r}; the fields are {', '.join(known)}")
    values: dict[str, Any] = {}
    for key, value in entry.items():
        if key in ("labels", "keywords", "signals", "levels"):
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise AlertRuleError(f"{where}: {key} must be a list of non-empty strings")
            value = tuple(v.strip() for v in value)
            if key == "labels" and (bad := [v for v in value if v not in LABELS]):
                raise AlertRuleError(f"{where}: unknown label {bad[0]!r}; the labels are {', '.join(LABELS)}")
        elif key in ("name", "summary", "group_by"):
            if not isinstance(value, str):
                raise AlertRuleError(f"{where}: {key} must be a string")
        elif key in ("min_complaints", "min_schools"):
            if not isinstance(value, int) or isinstance(value, bool):
                raise AlertRuleError(f"{where}: {key} must be a whole number")
        elif key == "window_hours":
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise AlertRuleError(f"{where}: window_hours must be a number")
            value = float(value)
        values[key] = value
    for required in ("name", "summary"):
        if required not in values:
            raise AlertRuleError(f"{where}: {required} is missing")
    try:
        return Rule(**values)
    except AlertRuleError as e:
        raise AlertRuleError(f"{where}: {e}") from None


def load_rules(path: str | Path) -> tuple[Rule, ...]:
    """The rules of a TOML (``[[rules]]`` tables) or JSON (``{"rules": [...]}``) file; they replace the defaults."""
    path = Path(path)
    if not path.is_file():
        raise AlertRuleError(f"{path}: no such file; expected a .toml or .json file of alert rules")
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".toml":
            data = tomllib.loads(text)
        elif path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            raise AlertRuleError(f"{path}: unknown file type {path.suffix!r}; expected .toml or .json")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise AlertRuleError(f"{path}: cannot be read ({e})") from None
    entries = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise AlertRuleError(f"{path}: expected a list of rules under 'rules' (TOML: [[rules]] tables)")
    rules = tuple(rule_from_dict(e, f"{path}, rule {i}") for i, e in enumerate(entries, start=1))
    names = [r.name for r in rules]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise AlertRuleError(f"{path}: two rules are named {twice!r}; names must be unique")
    return rules
