"""How bad a complaint is: what happened to the children (a level of care), how many it names, and the urgency of
its labels — the triage queue's key.

The **level** is the worst a complaint says happened to a child, one of ``SEVERITY_LEVELS``:

    none      no child became unwell
    unwell    children fell ill, no care given beyond the school's own (ORS, rest)
    clinic    seen by a doctor, nurse or health worker, at a PHC, clinic or a medical camp — not admitted
    hospital  admitted to (or taken into) a hospital: a ward, an ICU, a referral that was followed
    death     a child died

A trained model reads the level (``Classifier``'s severity head, trained on the annotated complaints of every
language); ``keyword_level`` is the rule used for a model that has no such head: a death word (``DEATH_WORDS``:
English, romanised Hindi, Devanagari) gives ``death``, a hospital word (``HOSPITAL_WORDS``) ``hospital``, the
``illness`` label ``unwell``.

The **children** named are read from the words in every language mealwatch identifies (``children.children_named``:
digits of any Indian script, number words, "all the children").

    key = 1,000,000 × level rank (0 none … 4 death)
        +    10,000 × (2 high, 1 medium, 0 low urgency)
        +             (the most children named, at most 9,998; "all the children" 9,999)

so the triage order is: a death, then a hospital admission, a clinic visit, children unwell; within a level the
most urgent labels, then the most children affected. An officer's correction of the labels changes only the
urgency part (``with_urgency``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .children import children_named
from .labels import urgency_rank
from .text import normalize

SEVERITY_LEVELS: tuple[str, ...] = ("none", "unwell", "clinic", "hospital", "death")
#: the levels an alert and the page's mark call "a death or a hospital admission"
GRAVE_LEVELS = frozenset({"hospital", "death"})
LEVEL_STEP, URGENCY_STEP = 1_000_000, 10_000


def level_rank(level: str) -> int:
    """0 for ``none`` up to 4 for ``death``; ValueError for a name that is not a level."""
    try:
        return SEVERITY_LEVELS.index(level)
    except ValueError:
        raise ValueError(f"unknown severity level {level!r}: expected one of {', '.join(SEVERITY_LEVELS)}") from None


# ---------------------------------------------------------------------------- the rule for models without a head

#: a death, in English, romanised Hindi and Devanagari (``keyword_level``)
DEATH_WORDS = (
    "died", "death", "deaths", "passed away", "maut", "mar gaya", "mar gayi", "mar gai", "mar gaye",
    "मौत", "मृत्यु", "मर गया", "मर गयी", "मर गई", "मर गए",
)  # fmt: skip
#: a hospital admission, in English, romanised Hindi and Devanagari (``keyword_level``)
HOSPITAL_WORDS = (
    "hospital", "hospitals", "hospitalised", "hospitalized", "hospitalisation", "hospitalization", "admitted", "icu",
    "aspatal", "aspataal", "hospital me", "bhartee", "bharti kiya", "bharti kiye", "bharti karaya", "bharti karwaya",
    "bharti hua", "bharti hue", "bharti hai", "bharti hain", "अस्पताल", "अस्पतालों", "भर्ती",
)  # fmt: skip
DEATH_OR_HOSPITAL = DEATH_WORDS + HOSPITAL_WORDS
_LETTER = r"[\w\u0900-\u0dff\u0600-\u06ff]"  # a letter, digit or Indic sign (a vowel sign is no \w)


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A phrase found as whole words of ``text.normalize``d text, its spaces matching any run of white space;
    ValueError for an empty phrase."""
    words = normalize(phrase).split()
    if not words:
        raise ValueError("a keyword is empty")
    return re.compile(rf"(?<!{_LETTER})" + r"\s+".join(re.escape(w) for w in words) + rf"(?!{_LETTER})")


_DEATH = tuple(phrase_pattern(k) for k in DEATH_WORDS)
_HOSPITAL = tuple(phrase_pattern(k) for k in HOSPITAL_WORDS)


def death_or_hospital(text: str) -> bool:
    """Whether ``text`` names a death or a hospital in ``DEATH_OR_HOSPITAL``'s words (whole words)."""
    folded = normalize(text)
    return any(p.search(folded) for p in _DEATH + _HOSPITAL)


def keyword_level(text: str, labels: Iterable[str]) -> str:
    """The level a model without a severity head gives: ``death`` or ``hospital`` when the text names one in
    ``DEATH_WORDS`` or ``HOSPITAL_WORDS``, ``unwell`` for the ``illness`` label, else ``none``."""
    folded = normalize(text)
    if any(p.search(folded) for p in _DEATH):
        return "death"
    if any(p.search(folded) for p in _HOSPITAL):
        return "hospital"
    return "unwell" if "illness" in set(labels) else "none"


# ---------------------------------------------------------------------------- the triage key


@dataclass(frozen=True)
class TriageKey:
    """The parts of a triage key: the level, the urgency points (0–2) and the children part."""

    level: str
    urgency_points: int
    children: int

    @property
    def key(self) -> int:
        return LEVEL_STEP * level_rank(self.level) + URGENCY_STEP * self.urgency_points + self.children

    @classmethod
    def of(cls, key: int) -> "TriageKey":
        """The parts of a stored key."""
        rank, rest = divmod(int(key), LEVEL_STEP)
        points, children = divmod(rest, URGENCY_STEP)
        return cls(SEVERITY_LEVELS[min(max(rank, 0), len(SEVERITY_LEVELS) - 1)], points, children)


def triage_key(level: str, urgency: str, text: str) -> int:
    """The triage key of a complaint with ``text``, its severity ``level`` and labels of ``urgency``."""
    return TriageKey(level, 2 - urgency_rank(urgency), children_named(text)).key


def with_urgency(key: int, urgency: str) -> int:
    """``key`` with its urgency part set to ``urgency``'s (an officer corrected the labels)."""
    parts = TriageKey.of(key)
    return TriageKey(parts.level, 2 - urgency_rank(urgency), parts.children).key


# ---------------------------------------------------------------------------- the severity head's decision

#: ``choose_grave_threshold``: the share of validation complaints of a death or a hospital admission to find (above
#: the 0.95 wanted on unseen complaints in every language, whose small parts vary by one miss in fifteen)
GRAVE_RECALL = 0.97
#: the thresholds tried (the largest that keeps the recall is chosen: the fewest false marks); the head is sure of
#: most complaints, so the low end is fine-grained
GRAVE_GRID: tuple[float, ...] = (0.01, 0.02, 0.03, 0.04) + tuple(round(0.05 * k, 2) for k in range(1, 20))


def grave_probability(probabilities: np.ndarray, levels: Sequence[str]) -> np.ndarray:
    """(N,) P(hospital) + P(death) from (N, S) probabilities over ``levels``."""
    grave = [i for i, level in enumerate(levels) if level in GRAVE_LEVELS]
    return np.asarray(probabilities)[:, grave].sum(axis=1)


def decide_severity(
    probabilities: np.ndarray, levels: Sequence[str], grave_threshold: float, ill: Sequence[bool] | None = None
) -> list[str]:
    """Each row's level from (N, S) probabilities over ``levels``: the more probable of hospital and death when
    their sum reaches ``grave_threshold``, else the most probable of the other levels. Given ``ill`` (per row, the
    ``illness`` label decided), labels and level agree as the datasheets define them — a level above ``none`` is
    what illness led to: a row labelled ill is never ``none`` (a grave complaint the head misses still ranks above
    every complaint without illness), and a row not labelled ill is never grave (a hospital named about a cook, a
    threat, a figure of speech) — when the head reads it as grave, it takes the most probable level between none
    and grave, so that a grave complaint whose labels miss the illness stays above those without illness."""
    p = np.asarray(probabilities, dtype=float)  # (N, S)
    grave_mask = np.array([level in GRAVE_LEVELS for level in levels])  # (S,)
    head_grave = grave_probability(p, levels) >= grave_threshold  # (N,)
    is_grave = head_grave & np.asarray(ill, dtype=bool) if ill is not None else head_grave  # (N,)
    allowed = grave_mask[None, :] == is_grave[:, None]  # (N, S)
    if ill is not None and "none" in levels:
        # labelled ill, or read as grave by the head against the labels: somewhere between none and grave
        allowed[np.asarray(ill, dtype=bool) | head_grave, list(levels).index("none")] = False
    masked = np.where(allowed, p, -1.0)  # (N, S) the allowed levels' probabilities
    return [levels[i] for i in masked.argmax(axis=1)]


def choose_grave_threshold(
    probabilities: np.ndarray, truth: Sequence[str], levels: Sequence[str], ill: Sequence[bool] | None = None
) -> float:
    """The largest threshold of ``GRAVE_GRID`` at which ``GRAVE_RECALL`` of the validation rows whose true level
    (``truth``) is grave are marked grave; the smallest of the grid when none is (or 0.5 without grave rows).
    ``ill``: the rows' ``illness`` label as decided — only rows labelled ill can be marked (``decide_severity``), so
    the recall is counted among them."""
    actual = np.array([t in GRAVE_LEVELS for t in truth])  # (N,)
    if ill is not None:
        actual &= np.asarray(ill, dtype=bool)
    if not actual.any():
        return 0.5
    g = grave_probability(probabilities, levels)  # (N,)
    for threshold in sorted(GRAVE_GRID, reverse=True):
        if (g[actual] >= threshold).mean() >= GRAVE_RECALL:
            return threshold
    return GRAVE_GRID[0]
