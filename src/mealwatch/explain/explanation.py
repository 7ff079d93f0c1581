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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from .attributions import frozen_weights, integrated_gradients, label_targets, pad_baseline, rollout_importance
from .word_attention import check_text, word_units

if TYPE_CHECKING:
    from ..classifier import Classifier

BASELINE = "[PAD] embedding at every word piece; [CLS], [SEP], positions and segments kept"


@dataclass
class Explanation:
    """A prediction for one text and the words behind it."""

    text: str
    words: list[str]  # the text's words (no [CLS]/[SEP])
    predicted: list[str]  # the labels the classifier predicts, each explained below
    probabilities: dict[str, float]  # every label's probability
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
        }


def explain_batch(
    classifier: "Classifier", texts: Sequence[str], steps: int = 50, batch_size: int = 32
) -> list[Explanation]:
    """Explanations for several texts, run as one padded batch (same result as one at a time)."""
    for text in texts:
        check_text(text)
    texts = list(texts)
    classifier.eval()
    predictions = classifier.predict(texts)
    batch = classifier.tokenizer(texts, max_length=classifier.config.max_length)
    for text, words in zip(texts, batch.words):
        if not words:
            raise ValueError(f"the text {text!r} has no words the tokenizer can read")
    mask, types = batch.attention_mask, batch.token_type_ids  # (B, T)
    inputs, baseline = pad_baseline(
        classifier.encoder.embeddings.word, batch.input_ids, batch.word_ids, classifier.tokenizer.pad_token_id
    )  # (B, T, H) each
    targets = label_targets([p.labels for p in predictions], classifier.labels)  # (B, K)

    def forward(embeds: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        logits = classifier(inputs_embeds=embeds, attention_mask=mask[rows], token_type_ids=types[rows]).logits
        return classifier.probabilities(logits)  # (n, L)

    with frozen_weights(classifier):
        ig = integrated_gradients(forward, inputs, baseline, targets, steps=steps, batch_size=batch_size)
    with torch.no_grad():
        attentions = classifier.encoder(**batch.model_inputs(), output_attentions=True).attentions
    stacked = torch.stack(attentions, dim=1).float()  # (B, layers, heads, T, T)

    explanations = []
    for i, (text, prediction) in enumerate(zip(texts, predictions)):
        n = len(batch.tokens[i])
        units = [u for u in word_units(batch.word_ids[i]) if batch.word_ids[i][u[0]] is not None]
        shares = rollout_importance(stacked[i, :, :, :n, :n], classifier.config.pooling)  # (n,)
        per_label = {}
        for k, label in enumerate(prediction.labels):
            per_token = ig.attributions[i, k, :n]  # (n,)
            per_label[label] = [float(per_token[u].sum()) for u in units]
        rollout = [float(shares[u].sum()) for u in units]
        explanations.append(
            Explanation(
                text=text,
                words=list(batch.words[i]),
                predicted=list(prediction.labels),
                probabilities=dict(prediction.probabilities),
                attributions=per_label,
                baseline_probabilities={l: float(ig.baseline_output[i, k]) for k, l in enumerate(prediction.labels)},
                delta={l: float(ig.delta[i, k]) for k, l in enumerate(prediction.labels)},
                rollout=rollout,
                rollout_special=float(1.0 - sum(rollout)),
                rollout_row="[CLS]" if classifier.config.pooling == "cls" else "mean of all token rows",
                steps=steps,
                truncated=batch.truncated[i],
            )
        )
    return explanations


def explain(classifier: "Classifier", text: str, steps: int = 50) -> Explanation:
    """Integrated gradients (per word, per predicted label) and attention rollout for one text."""
    return explain_batch(classifier, [text], steps)[0]
