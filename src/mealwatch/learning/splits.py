"""Seeded, stratified splits of labelled examples, deterministic for a set of examples whatever their order."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from sklearn.model_selection import train_test_split


class Labelled(Protocol):
    """Anything with a text and a tuple of labels (``mealwatch.data.Example``)."""

    text: str
    labels: tuple[str, ...]


E = TypeVar("E", bound=Labelled)


def normalize_text(text: str) -> str:
    """Lower-cased text with punctuation removed and runs of white space collapsed to one space."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(" " if unicodedata.category(c).startswith("P") else c for c in text)
    return re.sub(r"\s+", " ", text).strip()


def stratified_split(
    examples: Sequence[E], fractions: Sequence[float], seed: int, *, also_by: Callable[[E], str] | None = None
) -> list[list[E]]:
    """Split ``examples`` into parts of the given fractions, stratified by label, in a seeded way.

    ``also_by`` adds a second key to the strata (e.g. the script: label x script).

    The result depends on the set of examples, not their order (they are sorted by normalised
    text first). A multi-label row is stratified on its rarest label; labels too rare to
    stratify are pooled. Afterwards a part lacking a label receives (in exchange for one of
    its own rows) an example from a part holding two or more, so every label with enough
    examples reaches every part.
    """
    if not fractions or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-6:
        raise ValueError(f"fractions must be non-negative and sum to 1, not {list(fractions)}")
    ordered = sorted(examples, key=lambda e: (normalize_text(e.text), e.text, e.labels, getattr(e, "line", 0)))
    counts = Counter(label for e in ordered for label in e.labels)
    strata = [min(e.labels, key=lambda label: (counts[label], label)) for e in ordered]
    if also_by is not None:
        strata = [f"{s}|{also_by(e)}" for s, e in zip(strata, ordered)]
    sizes = _part_sizes(len(ordered), fractions)
    parts: list[list[int]] = []
    rest = list(range(len(ordered)))
    for i, size in enumerate(sizes[:-1]):
        if size in (0, len(rest)):
            taken, rest = rest[:size], rest[size:]
        else:
            taken, rest = _split_indices(rest, size, [strata[j] for j in rest], seed + i)
        parts.append(taken)
    parts.append(rest)
    _spread_labels(parts, ordered)
    return [[ordered[j] for j in sorted(part)] for part in parts]


def _part_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    """Whole part sizes summing to ``n``, by largest remainder."""
    raw = [f * n for f in fractions]
    sizes = [int(r) for r in raw]
    by_remainder = sorted(range(len(raw)), key=lambda i: (sizes[i] - raw[i], i))
    for i in by_remainder[: n - sum(sizes)]:
        sizes[i] += 1
    return sizes


def _split_indices(indices: list[int], size: int, strata: list[str], seed: int) -> tuple[list[int], list[int]]:
    """``size`` of ``indices`` and the rest, stratified when scikit-learn can (rare strata pooled)."""
    counts = Counter(strata)
    pooled = ["\0rare" if counts[s] < 2 else s for s in strata]
    if pooled.count("\0rare") == 1:  # a pool of one cannot be stratified either: join the largest stratum
        pooled[pooled.index("\0rare")] = counts.most_common(1)[0][0]
    sizes = {"train_size": size, "test_size": len(indices) - size, "random_state": seed}
    try:
        taken, rest = train_test_split(indices, stratify=pooled, **sizes)
    except ValueError:  # more strata than rows in a part: a plain seeded shuffle, repaired afterwards
        taken, rest = train_test_split(indices, **sizes)
    return list(taken), list(rest)


def _spread_labels(parts: list[list[int]], examples: Sequence[Labelled]) -> None:
    """Give each part every label it lacks, from a part with two or more, swapping a row back."""

    def count(part: list[int]) -> Counter:
        return Counter(label for j in part for label in examples[j].labels)

    labels = sorted({label for e in examples for label in e.labels})
    for p, part in enumerate(parts):
        for label in labels:
            if not part or count(part)[label]:
                continue
            donors = [d for d in range(len(parts)) if d != p and count(parts[d])[label] >= 2]
            if not donors:
                continue  # too rare to reach this part without taking it from another
            d = max(donors, key=lambda d: (count(parts[d])[label], -d))
            have = count(parts[d])
            movable = [
                j for j in parts[d] if label in examples[j].labels and all(have[x] >= 2 for x in examples[j].labels)
            ]
            if not movable:
                continue
            moved = movable[0]
            parts[d].remove(moved)
            part.append(moved)
            have = count(part)
            back = [j for j in part if j != moved and all(have[x] >= 2 for x in examples[j].labels)]
            if back:  # keep the part sizes: send back the row whose labels this part has most of
                returned = max(back, key=lambda j: (min(have[x] for x in examples[j].labels), -j))
                part.remove(returned)
                parts[d].append(returned)
