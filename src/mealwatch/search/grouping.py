"""The incident rule: which saved complaint joins which incident, decided online, one complaint at a time.

A complaint joins an open incident of its place (its school, or its block when the rule groups by block) when
the incident's last complaint is within ``window_hours`` of it (incident time, else arrival) and the complaint
reads close enough to the incident's complaints: the cosine of their unit sentence vectors (``search.vectors``),
at its best over the incident's complaints (``linkage`` "max") or with their mean vector ("centroid"), at least
``threshold``. Of several such incidents the closest wins; with none, the complaint opens an incident of its own.
A complaint without a place (no school, or no block for a rule by block) is an incident of its own.

The thresholds are chosen on data/incidents/validation.csv by benchmarks/incidents.py; ``DEFAULT_RULE`` holds
its choice. ``replay`` runs the rule over complaints in arrival order without a log (the benchmark, the tests);
the log's worker (``search.worker``) applies the same ``best_incident`` to candidates it reads from the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations

import numpy as np

from ..records import block_group, school_group

GROUPS = ("school", "block")
LINKAGES = ("max", "centroid")


@dataclass(frozen=True)
class GroupingRule:
    """When a complaint joins an incident (see the module docstring)."""

    threshold: float = 0.80
    window_hours: float = 48.0
    group_by: str = "school"
    linkage: str = "max"

    def __post_init__(self) -> None:
        if self.group_by not in GROUPS:
            raise ValueError(f"group_by must be one of {', '.join(GROUPS)}, not {self.group_by!r}")
        if self.linkage not in LINKAGES:
            raise ValueError(f"linkage must be one of {', '.join(LINKAGES)}, not {self.linkage!r}")
        if not -1.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold is a cosine, between -1 and 1, not {self.threshold}")
        if not self.window_hours > 0:
            raise ValueError("window_hours must be more than 0")

    @property
    def window(self) -> timedelta:
        return timedelta(hours=self.window_hours)

    def place(self, school: str | None, udise: str | None, district: str | None, block: str | None) -> str | None:
        """The key of a complaint's place under this rule, or None (it groups with nothing)."""
        if self.group_by == "block":
            return block_group(district, block)
        return school_group(school, udise, district)


#: the rule the service applies (chosen on data/incidents/validation.csv: docs/benchmarks.md)
DEFAULT_RULE = GroupingRule()


@dataclass
class Candidate:
    """An open incident a complaint might join: its id, its last time and its complaints' unit vectors (M, H)."""

    incident_id: int
    last_at: datetime
    vectors: np.ndarray


def closeness(vector: np.ndarray, members: np.ndarray, linkage: str) -> float:
    """How close a unit ``vector`` (H,) reads to an incident's unit ``members`` (M, H) under ``linkage``."""
    if len(members) == 0:
        return -1.0
    if linkage == "max":
        return float((members @ vector).max())
    centroid = members.mean(axis=0)
    norm = float(np.linalg.norm(centroid))
    return float(centroid @ vector / norm) if norm > 0 else -1.0


def best_incident(rule: GroupingRule, vector: np.ndarray, at: datetime, candidates: Sequence[Candidate]) -> int | None:
    """The id of the incident a complaint at time ``at`` with unit ``vector`` joins, or None (a new incident)."""
    best, best_score = None, rule.threshold
    for c in candidates:
        if abs(at - c.last_at) > rule.window:
            continue
        score = closeness(vector, c.vectors, rule.linkage)
        if score >= best_score:
            best, best_score = c.incident_id, score
    return best


def replay(
    rule: GroupingRule, places: Sequence[str | None], times: Sequence[datetime], vectors: np.ndarray
) -> list[int]:
    """The incident of each complaint when they arrive in ``times`` order (ties in the order given): incident
    numbers from 0, in the order given."""
    order = sorted(range(len(times)), key=lambda i: (times[i], i))
    members: dict[int, list[int]] = {}
    last: dict[int, datetime] = {}
    open_at: dict[str, list[int]] = {}
    out = [-1] * len(times)
    for i in order:
        place = places[i]
        candidates = [Candidate(n, last[n], vectors[members[n]]) for n in open_at.get(place, [])] if place else []
        chosen = best_incident(rule, vectors[i], times[i], candidates)
        if chosen is None:
            chosen = len(members)
            members[chosen], last[chosen] = [], times[i]
            if place:
                open_at.setdefault(place, []).append(chosen)
        members[chosen].append(i)
        last[chosen] = max(last[chosen], times[i])
        out[i] = chosen
    return out


@dataclass(frozen=True)
class PairScores:
    """Pairwise agreement of a grouping with the truth: every pair of complaints together in both, or not."""

    precision: float
    recall: float
    f1: float
    true_pairs: int
    found_pairs: int


def pair_scores(truth: Sequence[str], found: Sequence[int]) -> PairScores:
    """Pairwise precision, recall and F1 of ``found`` incidents against ``truth`` events."""
    both = said = real = 0
    for i, j in combinations(range(len(truth)), 2):
        same_truth, same_found = truth[i] == truth[j], found[i] == found[j]
        real += same_truth
        said += same_found
        both += same_truth and same_found
    precision = both / said if said else 1.0
    recall = both / real if real else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PairScores(precision, recall, f1, real, said)
