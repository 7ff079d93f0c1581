"""Why a fine-tuned classifier predicted its labels: each word's share of the decision (``why.py``: the encoder's
part by integrated gradients, the n-gram channel's exact part, weighted as they are fused), with attention
rollout beside it.

The same scores as the triage page's "why" (``attribute(..., "why")``), so the two views never contradict:
- target: the *probability* of each predicted label as the model decides it (fused with the n-gram channel when
  the model has one), so a word's importance reads "this word moved P(label) by +0.21";
- baseline: the encoder's every word piece replaced by the [PAD] token's embedding ([CLS], [SEP], positions and
  segments kept), the n-gram channel's a text with no n-gram at all;
- per word: summed over the word's pieces; [CLS] and [SEP] get none. The words' importances add up to
  P(label | text) − P(label | baseline), up to the ``delta`` reported (the integral's convergence error).

Rollout reads the row of the token the head pools: [CLS] for a "cls" model, and for a "mean" model (the default)
the average of all the real tokens' rows, because the mean-pooled vector averages every token's final vector. It
is merged to words by summing over pieces; it says what the pooled vector draws on, not why a label was chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .registry import attribute
from ..text import check_text

if TYPE_CHECKING:
    from ..pipeline import Pipeline

BASELINE = (
    "[PAD] embedding at every word piece ([CLS], [SEP], positions and segments kept); for the n-gram "
    "channel, a text with no n-gram"
)


@dataclass
class Explanation:
    """A prediction for one text and the words behind it."""

    text: str
    words: list[str]  # the text's words (no [CLS]/[SEP])
    predicted: list[str]  # the labels the classifier predicts, each explained below
    probabilities: dict[str, float]  # every label's probability (fused with the n-gram channel, if the model has one)
    attributions: dict[str, list[float]]  # predicted label -> per-word share of P(label) (explain/why.py)
    baseline_probabilities: dict[str, float]  # predicted label -> P(label) at the baseline
    delta: dict[str, float]  # predicted label -> Σ attributions − (P(text) − P(baseline))
    rollout: list[float]  # per word, its share of the pooled vector under attention rollout
    rollout_special: float  # the share left on [CLS] and [SEP]
    rollout_row: str  # which rollout row was read: "[CLS]" or "mean of all token rows"
    steps: int
    baseline: str = BASELINE
    target: str = "probability"
    truncated: bool = False
    encoder_probabilities: dict[str, float] = field(default_factory=dict)  # predicted label -> the encoder's P(label)
    parts: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # "encoder"/"ngram" -> label -> per word
    ngram_weight: float = 0.0  # the n-gram channel's weight in the decision (0: the encoder alone)
    notices: list[str] = field(default_factory=list)  # "unreadable", "approximate" (explain/why.py)

    @property
    def labels(self) -> list[str]:
        """The explained labels (the predicted ones), as the architecture contract names them."""
        return list(self.predicted)

    def to_dict(self, decimals: int = 4) -> dict[str, Any]:
        r = lambda x: round(float(x), decimals)  # noqa: E731
        return {
            "text": self.text,
            "words": list(self.words),
            "predicted": list(self.predicted),
            "probabilities": {k: r(v) for k, v in self.probabilities.items()},
            "attributions": {k: [r(x) for x in v] for k, v in self.attributions.items()},
            "baseline_probabilities": {k: r(v) for k, v in self.baseline_probabilities.items()},
            "delta": {k: r(v) for k, v in self.delta.items()},
            "rollout": [r(x) for x in self.rollout],
            "rollout_special": r(self.rollout_special),
            "rollout_row": self.rollout_row,
            "steps": self.steps,
            "baseline": self.baseline,
            "target": self.target,
            "truncated": self.truncated,
            "encoder_probabilities": {k: r(v) for k, v in self.encoder_probabilities.items()},
            "parts": {part: {k: [r(x) for x in v] for k, v in by.items()} for part, by in self.parts.items()},
            "ngram_weight": self.ngram_weight,
            "notices": list(self.notices),
        }


def explain_batch(pipeline: "Pipeline", texts: Sequence[str], steps: int = 50) -> list[Explanation]:
    """Explanations for several texts, run as one padded batch (same result as one at a time)."""
    for text in texts:
        check_text(text)
    texts = list(texts)
    predictions = pipeline.predict(texts)
    labels = [p.labels for p in predictions]
    why = attribute(pipeline, texts, labels, "why", steps)
    shares = attribute(pipeline, texts, labels, "rollout")
    explanations = []
    for text, prediction, g, r in zip(texts, predictions, why, shares):
        rollout = r.scores[prediction.labels[0]]
        explanations.append(
            Explanation(
                text=text,
                words=list(g.words),
                predicted=list(prediction.labels),
                probabilities=dict(prediction.probabilities),
                attributions=g.scores,
                baseline_probabilities=dict(g.baseline_output or {}),
                delta=dict(g.delta or {}),
                rollout=rollout,
                rollout_special=float(1.0 - sum(rollout)),
                rollout_row="[CLS]" if pipeline.config.pooling == "cls" else "mean of all token rows",
                steps=steps,
                truncated=g.truncated,
                encoder_probabilities=dict((g.part_outputs or {}).get("encoder", {})),
                parts=dict(g.parts or {}),
                ngram_weight=float(g.ngram_weight or 0.0),
                notices=list(g.notices),
            )
        )
    return explanations


def explain(pipeline: "Pipeline", text: str, steps: int = 50) -> Explanation:
    """Each word's share of the decision (per predicted label) and attention rollout for one text."""
    return explain_batch(pipeline, [text], steps)[0]
