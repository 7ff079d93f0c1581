"""Fitting the n-gram channel (``ngram_channel``) and choosing its fusion weight on validation; the same choice
for the native-script view of romanised text (``transliteration``); the identifier of Latin-letter languages
(``language_id``), an n-gram model of the same kind.

The channel is fitted by ``tuned_logistic`` (balanced class weights, C chosen by validation macro-F1 — the rule
the TF-IDF and frozen-encoder baselines reuse from here); the weight w of

    p = (1 − w) · p_encoder + w · p_ngram

is the one in ``WEIGHT_GRID`` whose fused validation probabilities give the best macro-F1 (multi-label: with
the thresholds tuned on them, as training tunes them: ``decisions.tuned_macro_f1``); ties go to the smaller
weight, so a channel that adds nothing is not kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..decisions import tuned_macro_f1
from ..language_id import FEATURES as LANGUAGE_FEATURES
from ..language_id import LanguageIdentifier, in_latin_letters
from ..ngram_channel import FEATURES, BlockSpec, FeatureBlock, NgramChannel, fuse, view_of

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..data import LabelledTexts

#: the fusion weights tried on validation (ties go to the smaller weight: the encoder alone first)
WEIGHT_GRID = tuple(round(0.1 * k, 1) for k in range(9))
#: the native-script view's weights: up to 1, the view alone for the texts it changes
VIEW_GRID = tuple(round(0.1 * k, 1) for k in range(11))
#: logit given to a label the training split never showed (single-label data): probability ~0
ABSENT_LOGIT = -30.0
#: inverse regularisation strengths tried for the logistic regressions (the channel's and the baselines')
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)


def fit_ngram_channel(
    train: "LabelledTexts",
    validation: "LabelledTexts",
    *,
    features: Sequence[BlockSpec] = FEATURES,
) -> NgramChannel:
    """The channel fitted on ``train`` (vocabularies, idf, logistic regression with C chosen on ``validation``);
    ``features``: the blocks to fit (a block finding no n-gram in any training text is left out)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    blocks, viewed = [], {}
    for spec in features:
        spec = BlockSpec(*spec)
        block = FeatureBlock(spec.analyzer, spec.ngram_range, spec.token_pattern, [], np.zeros(0), spec.view)
        if spec.view not in viewed:
            viewed[spec.view] = view_of(train.texts, spec.view)
        vectorizer = TfidfVectorizer(**block.vectorizer_options(), sublinear_tf=True)
        if not any(vectorizer.build_analyzer()(text) for text in viewed[spec.view]):
            continue  # no n-gram in any training text (a view of words none of them holds): the block adds nothing
        vectorizer.fit(viewed[spec.view])
        block.vocabulary = [""] * len(vectorizer.vocabulary_)
        for term, column in vectorizer.vocabulary_.items():
            block.vocabulary[column] = term
        block.idf = vectorizer.idf_.astype(np.float64)
        blocks.append(block)
    channel = NgramChannel(list(train.label_set), train.multi_label, blocks, np.zeros((0, 0)), np.zeros(0))
    model, _, detail = tuned_logistic(
        channel.features(train.texts), train, channel.features(validation.texts), validation, False
    )  # fmt: skip
    channel.weight, channel.bias = linear_layer(model, len(channel.labels), train.multi_label)
    channel.detail = detail
    return channel


def _logistic(C: float, multi_label: bool, scale: bool) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if multi_label:  # one binary problem per label: liblinear is many times faster than lbfgs there
        model: Any = OneVsRestClassifier(LogisticRegression(C=C, class_weight="balanced", solver="liblinear"))
    else:
        model = LogisticRegression(C=C, class_weight="balanced", max_iter=3000)
    return make_pipeline(StandardScaler(), model) if scale else model


def logistic_probabilities(model: Any, X: Any, n_labels: int) -> np.ndarray:
    """(N, L) probabilities in label-set order (a label absent from train scores 0)."""
    probs = model.predict_proba(X)
    if probs.shape[1] == n_labels:
        return probs
    out = np.zeros((probs.shape[0], n_labels))  # single-label data whose train split lacks some labels
    out[:, model.classes_] = probs
    return out


def tuned_logistic(
    X_train: Any, train: "LabelledTexts", X_val: Any, validation: "LabelledTexts", scale: bool
) -> tuple[Any, list | None, str]:
    """Logistic regression with C (and multi-label thresholds) chosen by validation macro-F1."""
    y_train, y_val = train.targets(), validation.targets()
    n_labels = len(train.label_set)
    best: tuple[float, Any, list | None, float] | None = None
    for C in C_GRID:
        model = _logistic(C, train.multi_label, scale).fit(X_train, y_train)
        probs = logistic_probabilities(model, X_val, n_labels)  # (N, L)
        tuned = tuned_macro_f1(probs, y_val, multi_label=train.multi_label)
        score, thresholds = tuned.macro_f1, tuned.thresholds
        if best is None or score > best[0]:
            best = (score, model, thresholds, C)
    score, model, thresholds, C = best
    detail = f"C={C:g} (validation macro-F1 {score:.3f})"
    if train.multi_label:
        detail += ", per-label thresholds tuned on validation"
    return model, thresholds, detail


def linear_layer(model: Any, n_labels: int, multi_label: bool) -> tuple[np.ndarray, np.ndarray]:
    """W (L, F) and b (L,) of a fitted logistic regression (one-vs-rest for multi-label), in label order.

    Multi-label: row j is label j's binary model (a label constant in train: zero weights, the logit of
    its constant probability). Single-label: softmax logits; a binary model's one row becomes [0; w]; a label
    absent from train gets ``ABSENT_LOGIT``.
    """
    if multi_label:
        rows, biases = [], []
        for estimator in model.estimators_:
            if hasattr(estimator, "coef_"):
                rows.append(np.asarray(estimator.coef_, dtype=np.float64).ravel())
                biases.append(float(np.ravel(estimator.intercept_)[0]))
            else:  # a label that is always (or never) on in train: a constant probability
                n_features = model.n_features_in_
                p = float(np.clip(estimator.predict_proba(np.zeros((1, n_features)))[0, 1], 1e-12, 1 - 1e-12))
                rows.append(np.zeros(n_features))
                biases.append(float(np.log(p / (1 - p))))
        return np.stack(rows), np.array(biases)
    coef, intercept = np.asarray(model.coef_, dtype=np.float64), np.asarray(model.intercept_, dtype=np.float64)
    if coef.shape[0] == 1:  # binary: P(class 1) = sigmoid(z) = softmax([0, z])[1]
        coef, intercept = np.vstack([np.zeros_like(coef), coef]), np.concatenate([[0.0], intercept])
    weight = np.zeros((n_labels, coef.shape[1]))
    bias = np.full(n_labels, ABSENT_LOGIT)
    weight[model.classes_], bias[model.classes_] = coef, intercept
    return weight, bias


@dataclass
class FusionChoice:
    """The fusion weight kept, the thresholds that go with it, and the validation macro-F1 of every weight tried."""

    weight: float
    thresholds: list[float] | None  # multi-label: tuned for the fused probabilities
    scores: dict[float, float]
    name: str = "n-gram channel"  # what was fused
    #: (N, L) the validation probabilities fused at ``weight`` (what the pipeline now gives for those texts)
    probabilities: np.ndarray | None = field(default=None, repr=False, compare=False)

    def summary(self) -> str:
        tried = ", ".join(f"{w:g}: {s:.4f}" for w, s in self.scores.items())
        return f"{self.name} weight {self.weight:g} (validation macro-F1 by weight: {tried})"


def choose_weight(
    encoder_probabilities: np.ndarray, ngram_probabilities: np.ndarray, targets: np.ndarray, multi_label: bool,
    grid: Sequence[float] = WEIGHT_GRID,
) -> FusionChoice:  # fmt: skip
    """The weight in ``grid`` whose fused validation probabilities score the best macro-F1
    (multi-label: with thresholds tuned on them, as training does); ties go to the smaller weight."""
    scores: dict[float, float] = {}
    best: FusionChoice | None = None
    for w in grid:
        fused = fuse(encoder_probabilities, ngram_probabilities, w)  # (N, L)
        tuned = tuned_macro_f1(fused, targets, multi_label=multi_label)
        scores[w] = tuned.macro_f1
        if best is None or scores[w] > scores[best.weight] + 1e-12:
            best = FusionChoice(w, tuned.thresholds, scores, probabilities=fused)
    assert best is not None
    return best


def add_ngram_channel(
    pipeline: "Pipeline", train_set: LabelledTexts, validation_set: LabelledTexts,
    encoder_probabilities: np.ndarray | None = None,
) -> FusionChoice:  # fmt: skip
    """Fit the n-gram channel on train and fuse it at the weight validation macro-F1 prefers (0: the encoder alone).
    ``encoder_probabilities``: the pipeline's (N, L) probabilities of the validation texts, when already known."""
    if encoder_probabilities is None:
        encoder_probabilities = pipeline.probabilities(list(validation_set.texts)).numpy()  # (N, L)
    channel = fit_ngram_channel(train_set, validation_set)
    ngram_probabilities = channel.probabilities(validation_set.texts)  # (N, L)
    choice = choose_weight(encoder_probabilities, ngram_probabilities, validation_set.targets(), pipeline.multi_label)
    pipeline.fuse_ngram_channel(channel, choice.weight, choice.thresholds)
    return choice


def lexicon_texts(train_set: "LabelledTexts") -> tuple[list[str], list[str]]:
    """The texts the transliteration lexicons learn from, with each one's language: the training texts, and the
    bundled training complaints with their Devanagari renderings (never a validation or test complaint)."""
    from ..data import bundled_data_dir, read_dataset, read_parallel
    from ..languages import detect_language

    texts = list(train_set.texts)
    languages = list(train_set.languages())
    train_file = bundled_data_dir() / "train.csv"
    if train_file.is_file():
        extra = read_dataset(train_file).texts + [p.devanagari for p in read_parallel()]
        texts += extra
        languages += [detect_language(t) for t in extra]
    return texts, languages


def add_translit_view(
    pipeline: "Pipeline", train_set: "LabelledTexts", validation_set: "LabelledTexts",
    plain: np.ndarray | None = None,
) -> FusionChoice:  # fmt: skip
    """Learn a lexicon per language and fuse the native-script view of the validation texts it changes at the
    weight validation macro-F1 prefers (0: no view); texts it leaves as they are keep the encoder's probabilities.
    ``plain``: the pipeline's (N, L) probabilities of the validation texts, when already known."""
    from ..transliteration import NativeScriptView

    texts = list(validation_set.texts)
    if plain is None:
        plain = pipeline.probabilities(texts).numpy()  # (N, L)
    view = NativeScriptView.from_texts(*lexicon_texts(train_set))
    views = [view.view(t, language) for t, language in zip(texts, pipeline.languages_of(texts))]
    changed = [i for i, (t, v) in enumerate(zip(texts, views)) if v != t]
    seen = plain.copy()  # (N, L): the view's probabilities where it changed the text
    if changed:
        seen[changed] = pipeline.probabilities([views[i] for i in changed]).numpy()
    choice = choose_weight(plain, seen, validation_set.targets(), pipeline.multi_label, VIEW_GRID)
    choice.name = "native-script view"
    pipeline.fuse_translit_view(view, choice.weight, choice.thresholds)
    return choice


def fit_language_id(
    texts: Sequence[str],
    languages: Sequence[str],
    validation_texts: Sequence[str],
    validation_languages: Sequence[str],
    *,
    features: Sequence[BlockSpec] = LANGUAGE_FEATURES,
) -> LanguageIdentifier | None:
    """The identifier fitted on the Latin-letter ``texts`` and their ``languages`` (C chosen on the validation
    texts' macro-F1); None when the Latin-letter training texts are of fewer than two languages. ``features``: the
    blocks it reads (``language_id.FEATURES``)."""
    pick = [(t, lang) for t, lang in zip(texts, languages) if in_latin_letters(t)]
    codes = sorted({lang for _, lang in pick})
    held = [(t, lang) for t, lang in zip(validation_texts, validation_languages)
            if in_latin_letters(t) and lang in codes]  # fmt: skip
    if len(codes) < 2 or not held:
        return None
    channel = fit_ngram_channel(_Texts(pick, codes), _Texts(held, codes), features=features)
    return LanguageIdentifier(channel)


class _Texts:
    """Texts with one language each, as the n-gram fitting reads labelled texts (single-label)."""

    def __init__(self, rows: Sequence[tuple[str, str]], codes: Sequence[str]) -> None:
        self.texts = [t for t, _ in rows]
        self.label_set = list(codes)
        self.multi_label = False
        self._targets = np.array([self.label_set.index(lang) if lang in self.label_set else 0 for _, lang in rows])

    def targets(self) -> np.ndarray:
        return self._targets
