"""The one per-word result of every attribution method: each word's score toward each explained label."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: a label whose largest |score| is below this has no clear signal (shown as such, not as zeros)
FLAT = 1e-4


@dataclass
class WordScores:
    """Per word, how much it moved each explained label (positive: toward it), and how that was measured."""

    method: str  # the registry name: "grad", "ig", "rollout", ...
    words: list[str]  # the text's words as they appear in it (whole grapheme clusters)
    spans: list[tuple[int, int]]  # per word, (start, end) character offsets in the text
    scores: dict[str, list[float]]  # explained label -> per-word score
    note: str  # what the scores measure, in one line
    truncated: bool = False  # the text was longer than the model reads; only its start was scored
    steps: int | None = None  # integration steps (ig only)
    delta: dict[str, float] | None = None  # ig only: Σ scores − (F(text) − F(baseline))
    baseline_output: dict[str, float] | None = None  # ig, why: F(baseline) per label
    output: dict[str, float] | None = None  # ig: the encoder's probability per label; why: the fused one
    parts: dict[str, dict[str, list[float]]] | None = None  # why: part -> label -> per word (the parts add up)
    part_outputs: dict[str, dict[str, float]] | None = None  # why: part -> label -> that part's own P(label | text)
    notices: list[str] = field(default_factory=list)  # why: "unreadable", "approximate" (see explain/why.py)
    ngram_weight: float | None = None  # why: the n-gram channel's weight in the fused decision

    def flat_labels(self) -> list[str]:
        """Labels whose scores are all (near) zero: the method found no clear signal for them."""
        return [label for label, v in self.scores.items() if not v or max(abs(x) for x in v) < FLAT]

    def to_dict(self, decimals: int = 4) -> dict[str, Any]:
        r = lambda x: round(float(x), decimals)  # noqa: E731
        out: dict[str, Any] = {
            "method": self.method,
            "note": self.note,
            "words": [{"word": w, "start": s, "end": e} for w, (s, e) in zip(self.words, self.spans)],
            "scores": {label: [r(x) for x in v] for label, v in self.scores.items()},
            "no_clear_signal": self.flat_labels(),
            "truncated": self.truncated,
        }
        if self.steps is not None:
            out["steps"] = self.steps
        if self.delta is not None:
            out["delta"] = {k: r(v) for k, v in self.delta.items()}
        if self.parts is not None:
            out["parts"] = {part: {label: [r(x) for x in v] for label, v in by_label.items()}
                            for part, by_label in self.parts.items()}  # fmt: skip
            out["output"] = {k: r(v) for k, v in (self.output or {}).items()}
            out["baseline_output"] = {k: r(v) for k, v in (self.baseline_output or {}).items()}
            out["ngram_weight"] = self.ngram_weight
            out["part_outputs"] = {part: {k: r(v) for k, v in by_label.items()}
                                   for part, by_label in (self.part_outputs or {}).items()}  # fmt: skip
        if self.notices or self.parts is not None:
            out["notices"] = list(self.notices)
        return out


def per_word(per_token: list[float], word_ids: list[int | None], n_words: int) -> list[float]:
    """Token scores summed over each word's pieces ([CLS], [SEP] and padding dropped)."""
    out = [0.0] * n_words
    for w, value in zip(word_ids, per_token):
        if w is not None:
            out[w] += value
    return out
