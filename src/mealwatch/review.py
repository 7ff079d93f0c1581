"""When a prediction must be checked by a person instead of trusted: the review flag.

A prediction ``needs_review`` when any of these holds, each with a reason a person can read:

- **no label cleared**: no label's probability reached its threshold (the label shown is only the
  most probable one);
- **unreadable**: too many of the text's words are unreadable to the model's vocabulary — a word is
  unreadable when it became the unknown token (``[UNK]``, ``<unk>``) or was cut into single letters
  (what an English WordPiece vocabulary does to Devanagari); the piece markers (WordPiece's ``##``,
  SentencePiece's ``▁``) and the unknown token are the tokenizer's own;
- **likely wrong** (multi-label models that keep a calibration): the calibrated chance that at least one label
  decision is wrong reaches the limit of its language form (``ta``, ``ta-latn``, ...; ``languages.language_form``),
  or ``max_risk`` for a form without one (``wrong_risk``, below);
- **close call** (models without a calibration): the prediction's ``decisions.certainty`` is below the margin of its
  language form, or ``margin`` for a form without one: a label's probability lies within the margin of its
  threshold (just in or just out), or, single-label, the two most probable labels are within the margin of each
  other;
- **language**: the text is written in a language the model was never checked on (no validation rows in it), or,
  for a policy that asks (``min_language_f1`` > 0, as models saved before per-form margins do), one whose measured
  quality is low.

The chance of a wrong label set is calibrated per label on the validation split (Platt scaling of the distance of
the label's probability from its threshold, in logits) and multiplied out over the labels:

    z_l    = logit(p_l) − logit(t_l)                        how far label l is from flipping      (L,)
    q_l    = σ(a_l · z_l + b_l)                              calibrated P(label l applies)         (L,)
    right  = Π_l (q_l if p_l ≥ t_l else 1 − q_l)             P(every decision right)
    risk   = 1 − right

``max_risk`` is the risk above which the riskiest ``MAX_FLAGGED`` of the validation rows lie, and a form whose own
rows would be flagged more often gets its own, higher limit (``choose_risk_limits``); ``margin`` and each form's
margin (models without a calibration) are chosen there too (``choose_margin``), and each language's quality is
measured there (``language_quality``); all are saved with the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .decisions import certainty
from .languages import LANGUAGES, UNDETERMINED

#: the margins ``choose_margin`` tries
MARGIN_GRID: tuple[float, ...] = (0.0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25)
#: ``choose_margin``: the share of validation rows with a wrong label set that the flag should catch ...
CATCH_TARGET = 0.5
#: ... without flagging more than this share of all validation rows
MAX_FLAGGED = 0.25
#: a language's validation macro-F1 is kept as its measured quality only with at least this many rows
MIN_LANGUAGE_ROWS = 10
#: a language form gets a margin of its own only with at least this many validation rows
MIN_FORM_ROWS = 20


@dataclass
class ReviewPolicy:
    """When a prediction is flagged; saved in the model's config.json."""

    margin: float = 0.05  # a probability this close to its threshold is a close call
    max_unreadable: float = 0.4  # flag when more than this share of the words is unreadable
    language_f1: dict[str, float] = field(default_factory=dict)  # ISO 639-1 code -> validation macro-F1 measured
    min_language_f1: float = 0.0  # > 0: flag a language measured below this (a blanket per language)
    form_margins: dict[str, float] = field(default_factory=dict)  # language form -> its own close-call margin
    calibration: list[list[float]] = field(default_factory=list)  # per label [a_l, b_l] (``wrong_risk``); [] none
    max_risk: float = 1.0  # flag when the calibrated chance of a wrong label set reaches this
    form_max_risk: dict[str, float] = field(default_factory=dict)  # language form -> its own limit

    def margin_for(self, form: str | None) -> float:
        """The close-call margin of a text of language ``form`` (``margin`` for a form without its own)."""
        return self.form_margins.get(form, self.margin) if form is not None else self.margin

    def max_risk_for(self, form: str | None) -> float:
        """The risk limit of a text of language ``form`` (``max_risk`` for a form without its own)."""
        return self.form_max_risk.get(form, self.max_risk) if form is not None else self.max_risk

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "ReviewPolicy":
        return cls(**(d or {}))


def language_quality(by_language: dict[str, dict[str, float]] | None) -> dict[str, float]:
    """Each language's validation macro-F1 (``EvaluationReport.by_language``), for those with enough rows."""
    return {code: round(m["macro_f1"], 4) for code, m in (by_language or {}).items()
            if m["n"] >= MIN_LANGUAGE_ROWS and code != UNDETERMINED}  # fmt: skip


def language_reason(language: str | None, policy: ReviewPolicy) -> str | None:
    """Why a text in ``language`` needs review by its measured quality, or None (also when nothing was measured)."""
    if not policy.language_f1 or language is None or language == UNDETERMINED:
        return None
    name = LANGUAGES.get(language, language)
    if language not in policy.language_f1:
        return f"written in {name}, a language this model was not checked on"
    f1 = policy.language_f1[language]
    if policy.min_language_f1 > 0 and f1 < policy.min_language_f1:
        return (
            f"written in {name}, where this model is less reliable (macro-F1 {f1:.2f} when checked, "
            f"below {policy.min_language_f1:.2f})"
        )
    return None


def unreadable_share(tokens: Sequence[str], word_ids: Sequence[int | None], words: Sequence[str],
                     unk_token: str | None = "[UNK]", prefix: str = "##", word_prefix: str = "") -> float:  # fmt: skip
    """Share of the words (two letters or longer, not punctuation) that became the unknown token or single letters.

    ``prefix`` marks a piece inside a word (WordPiece's "##"), ``word_prefix`` a piece that starts one
    (SentencePiece's "▁"); both are taken off before counting letters, and a bare "▁" piece is no letter.
    """
    pieces: dict[int, list[str]] = {}
    for token, w in zip(tokens, word_ids):
        if w is not None:
            piece = token.removeprefix(prefix).removeprefix(word_prefix)  # ("" removes nothing)
            if piece:  # a bare "▁" is a word boundary, not a letter
                pieces.setdefault(w, []).append(piece)
    counted = unreadable = 0
    for w, parts in pieces.items():
        if w >= len(words) or sum(ch.isalnum() for ch in words[w]) < 2:
            continue  # single letters, digits and punctuation say nothing about the vocabulary
        counted += 1
        unreadable += unk_token in parts or (len(parts) > 1 and all(len(p) == 1 for p in parts))
    return unreadable / counted if counted else 0.0


def unreadable_shares(batch) -> list[float]:
    """``unreadable_share`` of every text of a ``tokenizer.TokenizedBatch``, with its tokenizer's unknown token
    and piece markers."""
    return [
        unreadable_share(t, w, words, batch.unk_token, batch.continuation_prefix, batch.word_prefix)
        for t, w, words in zip(batch.tokens, batch.word_ids, batch.words)
    ]


def reasons(
    probabilities: Sequence[float], labels: Sequence[str], thresholds: Sequence[float] | None, unreadable: float,
    policy: ReviewPolicy, language: str | None = None, form: str | None = None,
) -> list[str]:  # fmt: skip
    """Why one prediction needs a person's review (empty when it does not); ``thresholds`` None: single-label;
    ``language`` the text's (``languages.detect_language``), ``form`` its language form (``ta-latn``)."""
    out = []
    by_language = language_reason(language, policy)
    if by_language:
        out.append(by_language)
    p = np.asarray(probabilities, dtype=float)
    if unreadable > policy.max_unreadable:
        out.append(f"{unreadable:.0%} of the words are unreadable to this model's vocabulary "
                   "(unknown or cut into single letters)")  # fmt: skip
    margin = policy.margin_for(form)
    calibrated = bool(policy.calibration) and thresholds is not None
    close = not calibrated and certainty(p[None, :], thresholds)[0] < margin
    if calibrated:
        risk = float(wrong_risk(p[None, :], thresholds, policy.calibration)[0])
        if risk >= policy.max_risk_for(form):
            out.append(f"likely wrong: a {risk:.0%} chance that a label is wrong or missing (calibrated when checked)")
    if thresholds is not None:
        t = np.asarray(thresholds, dtype=float)
        if not (p >= t).any():
            best = int(p.argmax())
            out.append(f"no label reached its threshold (most probable: {labels[best]} {p[best]:.2f} < {t[best]:.2f})")
        if close:  # the most probable of the labels within the margin of their thresholds
            i = int(next(i for i in np.argsort(-p) if abs(p[i] - t[i]) < margin))
            out.append(f"close call: {labels[i]} {p[i]:.2f} is within {margin:.2f} of its threshold {t[i]:.2f}")
    elif len(p) > 1 and close:
        first, second = np.argsort(-p)[:2]
        out.append(f"close call: {labels[first]} {p[first]:.2f} and {labels[second]} {p[second]:.2f}")
    return out


def choose_margin(probabilities: np.ndarray, targets: np.ndarray, decisions: np.ndarray,
                  thresholds: Sequence[float] | None) -> float:  # fmt: skip
    """The smallest margin whose close calls catch ``CATCH_TARGET`` of the wrong validation rows.

    ``probabilities`` (N, L); ``targets`` and ``decisions`` (N, L) 0/1 (multi-label) or (N,)
    indices. Margins that would flag more than ``MAX_FLAGGED`` of the rows are not taken; if
    none reaches the target, the largest margin under that cap is.
    """
    wrong = (targets != decisions).any(axis=1) if targets.ndim == 2 else targets != decisions  # (N,)
    distance = certainty(probabilities, thresholds)  # (N,)
    chosen = MARGIN_GRID[0]
    for margin in MARGIN_GRID:
        flagged = distance < margin  # (N,)
        if flagged.mean() > MAX_FLAGGED:
            break
        chosen = margin
        if not wrong.any() or (flagged & wrong).sum() / wrong.sum() >= CATCH_TARGET:
            break
    return float(chosen)


def choose_form_margins(probabilities: np.ndarray, targets: np.ndarray, decisions: np.ndarray,
                        thresholds: Sequence[float] | None, forms: Sequence[str]) -> dict[str, float]:  # fmt: skip
    """Each language form's own margin (``choose_margin`` on its validation rows), for the forms with at least
    ``MIN_FORM_ROWS`` rows."""
    forms_array = np.asarray(forms)
    out = {}
    for form in sorted(set(forms)):
        rows = forms_array == form  # (N,)
        if rows.sum() >= MIN_FORM_ROWS:
            out[form] = choose_margin(probabilities[rows], targets[rows], decisions[rows], thresholds)
    return out


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=float), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def wrong_risk(probabilities: np.ndarray, thresholds: Sequence[float], calibration: Sequence[Sequence[float]]
               ) -> np.ndarray:  # fmt: skip
    """(N,) the calibrated chance that at least one label decision of each row is wrong, from (N, L) probabilities,
    the labels' thresholds and each label's ``[a, b]`` (module docstring)."""
    p = np.asarray(probabilities, dtype=float)  # (N, L)
    z = _logit(p) - _logit(np.asarray(thresholds))[None, :]  # (N, L) distance from flipping, in logits
    a, b = np.asarray(calibration, dtype=float).T  # (L,), (L,)
    q = 1.0 / (1.0 + np.exp(-(a[None, :] * z + b[None, :])))  # (N, L) calibrated P(label applies)
    right = np.where(z >= 0, q, 1.0 - q).prod(axis=1)  # (N,) P(every decision right)
    return 1.0 - right


def calibrate(probabilities: np.ndarray, targets: np.ndarray, thresholds: Sequence[float]) -> list[list[float]]:
    """Each label's ``[a, b]``: a logistic regression of the (N, L) 0/1 ``targets`` on the logit distance of its
    probability from its threshold (``[1, 0]`` for a label the rows never or always carry)."""
    from sklearn.linear_model import LogisticRegression

    z = _logit(probabilities) - _logit(np.asarray(thresholds))[None, :]  # (N, L)
    out = []
    for label in range(z.shape[1]):
        y = targets[:, label]
        if y.min() == y.max():
            out.append([1.0, 0.0])
            continue
        fitted = LogisticRegression(C=1.0).fit(z[:, label : label + 1], y)
        out.append([float(fitted.coef_[0, 0]), float(fitted.intercept_[0])])
    return out


def choose_risk_limits(risk: np.ndarray, forms: Sequence[str] | None = None) -> tuple[float, dict[str, float]]:
    """(the risk limit above which the riskiest ``MAX_FLAGGED`` of the (N,) validation ``risk`` lie, each language
    form's own higher limit where that share of its rows — ``MIN_FORM_ROWS`` or more — would otherwise be passed)."""
    risk = np.asarray(risk, dtype=float)
    limit = float(np.quantile(risk, 1 - MAX_FLAGGED))
    by_form: dict[str, float] = {}
    if forms is not None:
        forms_array = np.asarray(forms)
        for form in sorted(set(forms)):
            rows = risk[forms_array == form]
            if len(rows) >= MIN_FORM_ROWS and (rows >= limit).mean() > MAX_FLAGGED:
                by_form[form] = float(np.quantile(rows, 1 - MAX_FLAGGED))
    return limit, by_form
