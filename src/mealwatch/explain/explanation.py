"""Why a fine-tuned classifier predicted its labels: per-word importance from integrated
gradients, with attention rollout beside it.

Integrated gradients here:
- target: the *probability* of each predicted label (softmax or sigmoid, as the model
  predicts), so a word's importance reads "this word moved P(label) by +0.21";
- baseline: every word piece replaced by the [PAD] token's embedding, while [CLS], [SEP]
  and the position and segment embeddings stay as they are (the model adds those after the
  word embeddings, which is where we interpolate: inputs_embeds = baseline + α (x − baseline));
- per word: attributions summed over the embedding dimension and over the word's pieces;
  [CLS] and [SEP] do not move, so they get none. The words' importances add up to
  P(label | text) − P(label | baseline), up to the convergence delta reported.

Rollout reads the row of the token the head pools: [CLS] for a "cls" model, and for a
"mean" model (the default) the average of all the real tokens' rows, because the mean-pooled
vector averages every token's final vector. It is merged to words by summing over pieces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .methods import attribute
from ..text import check_text

if TYPE_CHECKING:
    from ..pipeline import Pipeline

BASELINE = "[PAD] embedding at every word piece; [CLS], [SEP], positions and segments kept"


@dataclass
class Explanation:
    """A prediction for one text and the words behind it."""

    text: str
    words: list[str]  # the text's words (no [CLS]/[SEP])
    predicted: list[str]  # the labels the classifier predicts, each explained below
    probabilities: dict[str, float]  # every label's probability (fused with the n-gram channel, if the model has one)
    attributions: dict[str, list[float]]  # predicted label -> per-word integrated gradients of P(label)
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
        }


def explain_batch(pipeline: "Pipeline", texts: Sequence[str], steps: int = 50) -> list[Explanation]:
    """Explanations for several texts, run as one padded batch (same result as one at a time)."""
    for text in texts:
        check_text(text)
    texts = list(texts)
    predictions = pipeline.predict(texts)
    labels = [p.labels for p in predictions]
    ig = attribute(pipeline, texts, labels, "ig", steps)
    shares = attribute(pipeline, texts, labels, "rollout")
    explanations = []
    for text, prediction, g, r in zip(texts, predictions, ig, shares):
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
                encoder_probabilities=dict(g.output or {}),
            )
        )
    return explanations


def explain(pipeline: "Pipeline", text: str, steps: int = 50) -> Explanation:
    """Integrated gradients (per word, per predicted label) and attention rollout for one text."""
    return explain_batch(pipeline, [text], steps)[0]
