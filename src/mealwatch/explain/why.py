"""Why the classifier decided what it shows: each word's share of the *fused* decision, the one its labels come from.

A model with an n-gram channel decides on p_l = (1 − w)·p_enc,l + w·p_ng,l (``ngram_channel.fuse``; w is
``config.ngram_weight``, 0 without a channel). Each word gets, for each explained label l,

    s_l(word) = (1 − w)·E_l(word) + w·N_l(word)

- E_l, the encoder's part: integrated gradients of the encoder's probability P(l) from the all-[PAD] baseline
  (``ig.py``), summed over the word's pieces — WordPiece or SentencePiece alike, as the tokenizer made them. A
  model that reads romanised Hindi also in Devanagari (``transliteration``: p_enc = (1 − v)·P(text) + v·P(view))
  gets (1 − v)·E_l(text) + v·E_l(view): word i of the view is word i of the text;
- N_l, the n-gram channel's part, exact: the channel is linear in its n-gram features up to its sigmoid (or
  softmax), so each n-gram's share of the logit is W[l, f]·x_f, and each white-space piece of the text holds its
  n-grams (``NgramChannel.contributions``; a piece's share is split over the piece's words by their letters).
  The logit shares become probability along the straight path from no n-gram at all (logit b) to the text's
  (z): for a sigmoid, exactly (σ(z) − σ(b))/(z − b) times each share — integrated gradients in closed form;
  for a softmax, the Jacobian of the probabilities averaged along the same path.

So the words' scores add up to P_l(text) − P_l(nothing), where "nothing" is the encoder's all-[PAD] text and
the channel's empty one, up to ``delta``: the encoder's convergence error (and the channel's share of words
beyond the model's length, if the text was cut). ``parts`` keeps each part (weighted: the two add up to the
score), so a page can say which part each colour comes from. ``notices``:

- ``unreadable``: most of the text's words are unreadable to the encoder's vocabulary (``review.unreadable_share``
  over the model's ``max_unreadable``); its colours would mean nothing — show the text without them;
- ``approximate``: the scores miss the decision by more than a tenth of what they explain (|delta| over
  0.1·|P(text) − P(nothing)|, and over 0.01): integrated gradients needed more steps;
- ``view_not_shown``: the native-script view of the text did not split into the same words as the text, so its
  part of the decision is not among the colours (the text's own reading is).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..review import unreadable_shares
from .ig import integrated
from .registry import register
from .word_scores import WordScores

if TYPE_CHECKING:
    from ..ngram_channel import NgramChannel
    from ..pipeline import Pipeline
    from ..tokenizer import TokenizedBatch

NOTE = ("each word's share of the decision: the encoder's part (integrated gradients of its probability) and the "
        "n-gram channel's part (exact), weighted as they are fused")  # fmt: skip
ENCODER_ONLY_NOTE = "each word's share of the decision: integrated gradients of the encoder's probability"
#: the points the softmax's Jacobian is averaged over (a sigmoid's average is exact)
PATH_POINTS = 128
#: a delta over this share of what the scores explain (and over ``APPROXIMATE_FLOOR``) is flagged
APPROXIMATE_SHARE, APPROXIMATE_FLOOR = 0.1, 0.01


@register("why")
def why(
    pipeline: "Pipeline", texts: list[str], batch: "TokenizedBatch", labels: list[list[str]], steps: int
) -> list[WordScores]:
    encoder = encoder_scores(pipeline, texts, batch, labels, steps)
    channel = pipeline.ngram
    w = float(pipeline.config.ngram_weight) if channel is not None else 0.0
    policy, unreadable = pipeline.review_policy, unreadable_shares(batch)
    out = []
    for i, (text, wanted, e) in enumerate(zip(texts, labels, encoder)):
        words = len(batch.words[i])
        columns = [pipeline.labels.index(label) for label in wanted]
        enc = {label: [(1 - w) * x for x in e.scores[label]] for label in wanted}
        output = {label: (1 - w) * (e.output or {})[label] for label in wanted}
        baseline = {label: (1 - w) * (e.baseline_output or {})[label] for label in wanted}
        parts = {"encoder": enc}
        own = {"encoder": {label: (e.output or {})[label] for label in wanted}}
        if channel is not None and w > 0:
            shares, p_text, p_nothing = ngram_word_shares(channel, text, batch.word_spans[i])  # (W, L), (L,), (L,)
            parts["ngram"] = {label: [w * float(x) for x in shares[:words, k]] for label, k in zip(wanted, columns)}
            own["ngram"] = {label: float(p_text[k]) for label, k in zip(wanted, columns)}
            for label, k in zip(wanted, columns):
                output[label] += w * float(p_text[k])
                baseline[label] += w * float(p_nothing[k])
        scores = {label: [sum(part[label][j] for part in parts.values()) for j in range(words)] for label in wanted}
        delta = {label: sum(scores[label]) - (output[label] - baseline[label]) for label in wanted}
        notices = list(e.notices)  # "view_not_shown" from the encoder's part
        if unreadable[i] > policy.max_unreadable:
            notices.append("unreadable")
        explained = {label: abs(output[label] - baseline[label]) for label in wanted}
        if any(abs(d) > max(APPROXIMATE_SHARE * explained[label], APPROXIMATE_FLOOR) for label, d in delta.items()):
            notices.append("approximate")
        out.append(WordScores("why", list(batch.words[i]), list(batch.word_spans[i]), scores,
                              NOTE if len(parts) > 1 else ENCODER_ONLY_NOTE, truncated=batch.truncated[i],
                              steps=steps, delta=delta, baseline_output=baseline, output=output, parts=parts,
                              part_outputs=own, notices=notices, ngram_weight=w))  # fmt: skip
    return out


def encoder_scores(
    pipeline: "Pipeline", texts: list[str], batch: "TokenizedBatch", labels: list[list[str]], steps: int
) -> list[WordScores]:
    """Integrated gradients of the encoder's probabilities; for a text the model's native-script view changes, the
    text's and the view's, weighted as they are fused (word i of the view scores word i of the text)."""
    plain = integrated(pipeline, texts, batch, labels, steps)
    v = float(pipeline.config.translit_weight)
    views = pipeline.native_views(texts)
    changed = [i for i, (t, seen) in enumerate(zip(texts, views)) if seen != t]
    if not changed:
        return plain
    seen_texts = [views[i] for i in changed]
    seen = integrated(pipeline, seen_texts, pipeline.tokenize(seen_texts), [labels[i] for i in changed], steps)
    for i, view in zip(changed, seen):
        text = plain[i]
        if len(view.words) != len(text.words):  # not word for word: the view's part cannot be shown on the text
            text.notices = [*text.notices, "view_not_shown"]
            continue
        mix = lambda a, b: (1 - v) * a + v * b  # noqa: E731
        for label in text.scores:
            text.scores[label] = [mix(a, b) for a, b in zip(text.scores[label], view.scores[label])]
            text.output[label] = mix(text.output[label], view.output[label])
            text.baseline_output[label] = mix(text.baseline_output[label], view.baseline_output[label])
            text.delta[label] = mix(text.delta[label], view.delta[label])
    return plain


def ngram_word_shares(
    channel: "NgramChannel", text: str, word_spans: Sequence[tuple[int, int]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each word's share of the channel's probabilities (W, L) (the last row: pieces past the words shown), the
    probabilities of the text and of a text with no n-gram of the vocabulary."""
    pieces = channel.contributions(text)
    z, b = pieces.total(), pieces.bias  # (L,), (L,)
    jacobian = path_jacobian(channel, b, z)  # (L, L): ∂p/∂z averaged from b to z
    shares = pieces.logits @ jacobian.T  # (S, L): piece s's share of p_l = Σ_k J[l, k] · C[s, k]
    return spread(text, pieces.spans, shares, word_spans), channel.to_probabilities(z), channel.to_probabilities(b)


def path_jacobian(channel: "NgramChannel", start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """(L, L) the Jacobian of the channel's probabilities with respect to its logits, averaged along the straight
    path from ``start`` to ``end``: exact for a sigmoid, the trapezoid rule over ``PATH_POINTS`` for a softmax."""
    if channel.multi_label:
        sigmoid = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
        step = end - start
        flat = np.abs(step) < 1e-9  # (L,): no move along this label: the slope at the start
        slope = np.where(flat, sigmoid(start) * (1 - sigmoid(start)),
                         (sigmoid(end) - sigmoid(start)) / np.where(flat, 1.0, step))  # fmt: skip
        return np.diag(slope)
    alphas = np.linspace(0.0, 1.0, PATH_POINTS + 1)
    weights = np.full(PATH_POINTS + 1, 1.0 / PATH_POINTS)
    weights[[0, -1]] = 0.5 / PATH_POINTS
    p = channel.to_probabilities(start[None, :] + alphas[:, None] * (end - start)[None, :])  # (A, L)
    return np.einsum("a,al,lk->lk", weights, p, np.eye(len(start))) - np.einsum("a,al,ak->lk", weights, p, p)


def spread(
    text: str, piece_spans: Sequence[tuple[int, int]], shares: np.ndarray, word_spans: Sequence[tuple[int, int]]
) -> np.ndarray:
    """(W + 1, L): each piece's shares split over the words it overlaps, by the letters and digits each holds of
    it (equally, when none holds any); the last row holds the shares of pieces no word shows (a cut text)."""
    out = np.zeros((len(word_spans) + 1, shares.shape[1]))
    for (start, end), share in zip(piece_spans, shares):
        overlap = [(j, max(a, start), min(b, end)) for j, (a, b) in enumerate(word_spans) if a < end and b > start]
        if not overlap:
            out[-1] += share
            continue
        letters = np.array([sum(c.isalnum() for c in text[a:b]) for _, a, b in overlap], dtype=float)
        weights = letters / letters.sum() if letters.sum() > 0 else np.full(len(overlap), 1.0 / len(overlap))
        for (j, _, _), weight in zip(overlap, weights):
            out[j] += weight * share
    return out
