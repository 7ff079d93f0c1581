"""Where one word looks: its strongest targets per layer, and the heads ranked by the weight
it puts on each candidate word ("it" -> "dal" or "meal"?).

Words are matched case-insensitively. A word that occurs more than once is chosen with
``WORD@N``, the N-th occurrence counted from 1 ("was@2" is the second "was"); a bare
repeated word means its first occurrence. (BERT splits "@" off as punctuation, so no word
contains it.)
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from .word_attention import WordAttention, rounded

_OCCURRENCE = re.compile(r"^(?P<word>.+)@(?P<n>\d+)$")


def find_word(words: Sequence[str], query: str, special: Sequence[bool] | None = None) -> int:
    """Index of ``query`` ("it" or "it@2") among ``words``; ValueError listing the words when absent."""
    query = query.strip()
    if not query:
        raise ValueError("the word to look at is empty")
    m = _OCCURRENCE.match(query)
    word, n = (m["word"], int(m["n"])) if m else (query, 1)
    special = special or [False] * len(words)
    shown = [w for w, s in zip(words, special) if not s]
    hits = [i for i, w in enumerate(words) if w.lower() == word.lower()]
    if not hits:
        raise ValueError(f"{word!r} is not a word of the text; its words are: {' '.join(shown)}")
    if n < 1 or n > len(hits):
        times = "once" if len(hits) == 1 else f"{len(hits)} times"
        raise ValueError(
            f"{word!r} occurs {times} in the text, so {word}@{n} does not exist; use {word}@1 to {word}@{len(hits)}"
        )
    return hits[n - 1]


def label_of(words: Sequence[str], index: int) -> str:
    """``word`` or ``word@N`` when the word occurs more than once."""
    same = [i for i, w in enumerate(words) if w.lower() == words[index].lower()]
    return words[index] if len(same) == 1 else f"{words[index]}@{same.index(index) + 1}"


def is_punctuation(word: str) -> bool:
    return all(ch in string.punctuation or not ch.isalnum() for ch in word)


@dataclass
class HeadWeight:
    layer: int
    head: int
    weight: float


@dataclass
class FocusReport:
    """How much one word attends to each other word, per layer and per head."""

    word: str  # as chosen, e.g. "it" or "was@2"
    index: int  # its unit index in the WordAttention
    words: list[str]
    top_per_layer: list[list[tuple[str, float]]]  # per layer, the most attended words (mean over heads)
    candidates: list[str]  # the words compared, labelled word or word@N
    weights: Tensor  # (layers, heads, C): weight from ``word`` to each candidate
    top_heads: dict[str, list[HeadWeight]] = field(default_factory=dict)  # per candidate, strongest heads first
    wins: dict[str, int] = field(default_factory=dict)  # per candidate, heads in which it gets the most weight
    #: per candidate, the heads it wins, ranked by its margin over the runner-up (weight = the margin)
    preferred: dict[str, list[HeadWeight]] = field(default_factory=dict)

    def to_dict(self, decimals: int = 4) -> dict[str, Any]:
        return {
            "word": self.word,
            "index": self.index,
            "top_per_layer": [
                [{"word": w, "weight": round(v, decimals)} for w, v in row] for row in self.top_per_layer
            ],
            "candidates": list(self.candidates),
            "weights": rounded(self.weights, decimals),  # [layer][head][candidate]
            "top_heads": {
                c: [{"layer": h.layer, "head": h.head, "weight": round(h.weight, decimals)} for h in heads]
                for c, heads in self.top_heads.items()
            },
            "wins": dict(self.wins),
            "preferred": {
                c: [{"layer": h.layer, "head": h.head, "margin": round(h.weight, decimals)} for h in heads]
                for c, heads in self.preferred.items()
            },
        }


def default_candidates(wa: WordAttention, index: int, count: int = 3) -> list[int]:
    """The ``count`` words ``index`` attends to most over all layers and heads (no specials, punctuation or itself)."""
    row = wa.attention[:, :, index, :].mean(dim=(0, 1))  # (W,)
    order = torch.argsort(row, descending=True).tolist()
    picked = [j for j in order if j != index and not wa.special[j] and not is_punctuation(wa.words[j])]
    return picked[:count]


def focus(
    wa: WordAttention,
    word: str,
    candidates: Sequence[str] | None = None,
    top: int = 5,
    layer: int | None = None,
    head: int | None = None,
) -> FocusReport:
    """Report where ``word`` looks; ``candidates`` default to the three words it attends to most.

    ``layer``/``head`` restrict the ranked heads to one layer or one head.
    """
    index = find_word(wa.words, word, wa.special)
    if candidates:
        cand_idx = [find_word(wa.words, c, wa.special) for c in candidates]
    else:
        cand_idx = default_candidates(wa, index)
    row = wa.attention[:, :, index, :]  # (layers, heads, W)
    per_layer = row.mean(dim=1)  # (layers, W)
    top_per_layer = []
    for values in per_layer:
        order = torch.argsort(values, descending=True)[:top].tolist()
        top_per_layer.append([(label_of(wa.words, j), float(values[j])) for j in order])
    weights = row[:, :, cand_idx] if cand_idx else row[:, :, :0]  # (layers, heads, C)
    labels = [label_of(wa.words, j) for j in cand_idx]
    selected = [
        (l, h)
        for l in range(wa.layers)
        for h in range(wa.heads)
        if (layer is None or l == layer) and (head is None or h == head)
    ]
    top_heads = {}
    for c, label in enumerate(labels):
        ranked = sorted(selected, key=lambda lh: float(weights[lh[0], lh[1], c]), reverse=True)[:top]
        top_heads[label] = [HeadWeight(l, h, float(weights[l, h, c])) for l, h in ranked]
    wins = {label: 0 for label in labels}
    margins: dict[str, list[HeadWeight]] = {label: [] for label in labels}
    if labels:
        for l, h in selected:
            values = weights[l, h]  # (C,)
            best = int(torch.argmax(values))
            wins[labels[best]] += 1
            runner_up = float(values.topk(2).values[1]) if len(labels) > 1 else 0.0
            margins[labels[best]].append(HeadWeight(l, h, float(values[best]) - runner_up))
    preferred = {c: sorted(m, key=lambda hw: hw.weight, reverse=True)[:top] for c, m in margins.items()}
    return FocusReport(
        word=label_of(wa.words, index),
        index=index,
        words=list(wa.words),
        top_per_layer=top_per_layer,
        candidates=labels,
        weights=weights.clone(),
        top_heads=top_heads,
        wins=wins,
        preferred=preferred,
    )
