"""What the fine-tuned Transformer is measured against, and the comparison table.

Four ways to classify the same splits, each fitted on train, tuned on validation and scored
on test with the same report:

- ``tfidf``: TF-IDF of word 1-2-grams and character 2-5-grams + logistic regression;
- ``frozen``: mean-pooled embeddings of the pre-trained encoder, kept frozen, + logistic regression;
- ``scratch``: the same Transformer trained from random initialisation;
- ``finetune``: the pre-trained Transformer fine-tuned.

The logistic regressions get what the fine-tuned model gets: balanced class weights, their
C chosen by validation macro-F1, and — for multi-label data — per-label thresholds tuned on
validation with the training loop's grid and the classifier's rule (labels reaching their
threshold; none: the most probable one): ``ngram_training.tuned_logistic``, the n-gram channel's own fit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data import Dataset
from ..decisions import decided_targets
from .evaluation import EvaluationReport, evaluate_predictions
from .ngram_training import logistic_probabilities, tuned_logistic

#: the baselines ``compare`` knows, in table order
BASELINES = ("tfidf", "frozen", "scratch", "finetune")


@dataclass
class BaselineResult:
    """One row of the comparison table: test scores, training time and prediction speed."""

    name: str
    macro_f1: float
    micro_f1: float
    train_seconds: float  # fitting and tuning on validation (embedding the training texts included)
    texts_per_second: float  # predicting the test texts, featurisation included
    report: EvaluationReport
    detail: str = ""  # the choices made (C, thresholds, epochs)
    predictions: np.ndarray | None = field(default=None, repr=False)  # the test decisions: (N,) or (N, L) 0/1

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "macro_f1": self.macro_f1, "micro_f1": self.micro_f1,
            "train_seconds": self.train_seconds, "texts_per_second": self.texts_per_second,
            "detail": self.detail, "report": self.report.to_dict(),
        }  # fmt: skip


def _score(
    name: str, test: Dataset, predict: Callable[[list[str]], np.ndarray], train_seconds: float, detail: str, seed: int
) -> BaselineResult:
    """Time ``predict`` on the test texts and report on its decisions."""
    started = time.perf_counter()
    predicted = predict(test.texts)
    seconds = time.perf_counter() - started
    report = evaluate_predictions(test.targets(), predicted, test.label_set, test.multi_label, seed=seed,
                                  scripts=test.scripts(), languages=test.languages())  # fmt: skip
    return BaselineResult(name, report.macro_f1, report.micro_f1, train_seconds, len(test) / max(seconds, 1e-9),
                          report, detail, predicted)  # fmt: skip


def tfidf_baseline(splits: Mapping[str, Dataset], seed: int = 0) -> BaselineResult:
    """TF-IDF word 1-2-grams + char_wb 2-5-grams, then (one-vs-rest for multi-label) logistic regression."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_union

    train, validation, test = _three(splits)
    started = time.perf_counter()
    features = make_union(
        TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True),
        TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True),
    )
    X_train = features.fit_transform(train.texts)  # (N, F) sparse
    model, thresholds, detail = tuned_logistic(X_train, train, features.transform(validation.texts), validation, False)
    train_seconds = time.perf_counter() - started

    def predict(texts: list[str]) -> np.ndarray:
        probs = logistic_probabilities(model, features.transform(texts), len(train.label_set))
        return decided_targets(probs, multi_label=train.multi_label, thresholds=thresholds)

    return _score("TF-IDF + logistic regression", test, predict, train_seconds, detail, seed)


def frozen_baseline(
    splits: Mapping[str, Dataset], encoder: Any = None, tokenizer: Any = None, pooling: str = "mean", seed: int = 0,
    max_length: int = 128,
) -> BaselineResult:  # fmt: skip
    """The encoder's frozen sentence embeddings (default: the bundled all-MiniLM-L6-v2) + logistic regression."""
    from ..embeddings import embed_texts
    from ..tokenizer import Tokenizer
    from ..transformer import Encoder

    train, validation, test = _three(splits)
    encoder = encoder if encoder is not None else Encoder.from_pretrained()
    tokenizer = tokenizer if tokenizer is not None else Tokenizer.from_pretrained()

    def embed(texts: list[str]) -> np.ndarray:
        return embed_texts(encoder, tokenizer, texts, pooling=pooling, max_length=max_length)  # (N, H)

    started = time.perf_counter()
    model, thresholds, detail = tuned_logistic(embed(train.texts), train, embed(validation.texts), validation, True)
    train_seconds = time.perf_counter() - started

    def predict(texts: list[str]) -> np.ndarray:
        probs = logistic_probabilities(model, embed(texts), len(train.label_set))
        return decided_targets(probs, multi_label=train.multi_label, thresholds=thresholds)

    name = f"frozen encoder ({pooling} pooling) + logistic regression"
    return _score(name, test, predict, train_seconds, f"{pooling} pooling, {detail}", seed)


def transformer_baseline(
    splits: Mapping[str, Dataset], pretrained: bool, epochs: int | None = None, seed: int = 0, progress: bool = False,
    **training: Any,
) -> BaselineResult:  # fmt: skip
    """The Transformer classifier trained by ``learning.training`` (``pretrained=False``: from random weights)."""
    from ..decisions import encode_labels
    from .training import TrainingArguments, train

    train_set, validation, test = _three(splits)
    if epochs is not None:
        training["epochs"] = epochs
    args = TrainingArguments(pretrained=pretrained, seed=seed, **training)
    result = train(train_set, validation, args, progress=progress)

    def predict(texts: list[str]) -> np.ndarray:
        labels = [p.labels for p in result.pipeline.predict(texts)]
        return encode_labels(labels, train_set.label_set, train_set.multi_label)

    detail = f"best epoch {result.best_epoch} of {len(result.history)} run ({args.epochs} allowed)"
    if train_set.multi_label:
        detail += ", per-label thresholds tuned on validation"
    name = "fine-tuned Transformer" if pretrained else "Transformer from random initialisation"
    return _score(name, test, predict, result.seconds, detail, seed)


def compare(
    splits: Mapping[str, Dataset], which: Sequence[str] = BASELINES, epochs: int | None = None, seed: int = 0,
    progress: bool = False,
) -> list[BaselineResult]:  # fmt: skip
    """Run the chosen baselines on the same splits, in ``BASELINES`` order."""
    unknown = [name for name in which if name not in BASELINES]
    if unknown:
        raise ValueError(f"unknown baseline {unknown[0]!r}; choose from {', '.join(BASELINES)}")
    _three(splits)
    runners: dict[str, Callable[[], BaselineResult]] = {
        "tfidf": lambda: tfidf_baseline(splits, seed=seed),
        "frozen": lambda: frozen_baseline(splits, seed=seed),
        "scratch": lambda: transformer_baseline(splits, False, epochs, seed, progress),
        "finetune": lambda: transformer_baseline(splits, True, epochs, seed, progress),
    }
    return [runners[name]() for name in BASELINES if name in which]


def format_table(results: Sequence[BaselineResult]) -> str:
    """A markdown table of the results, then one note per row saying what was tuned."""
    lines = [
        "| method | macro-F1 (95 % CI) | micro-F1 | training (s) | prediction (texts/s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        ci = f" ({r.report.macro_f1_ci[0]:.3f}–{r.report.macro_f1_ci[1]:.3f})" if r.report.macro_f1_ci else ""
        lines.append(f"| {r.name} | {r.macro_f1:.3f}{ci} | {r.micro_f1:.3f} | {r.train_seconds:.1f} | "
                     f"{r.texts_per_second:,.0f} |")  # fmt: skip
    if results:
        lines += ["", f"Test set: {results[0].report.n} texts; 95 % CI from 1000 bootstrap resamples of it."]
        lines += [f"- {r.name}: {r.detail}" for r in results if r.detail]
        lines += ["", *script_table(results)]
    return "\n".join(lines)


def script_table(results: Sequence[BaselineResult]) -> list[str]:
    """Markdown lines: test macro-F1 of each method per script (texts per script in the header)."""
    scripts = sorted({name for r in results for name in (r.report.by_script or {})})
    if not scripts:
        return []
    sizes = results[0].report.by_script or {}
    head = " | ".join(f"{name} ({sizes[name]['n'] if name in sizes else 0})" for name in scripts)
    lines = [f"| macro-F1 by script | {head} |", "|---|" + "---:|" * len(scripts)]
    for r in results:
        by = r.report.by_script or {}
        lines.append(
            f"| {r.name} | " + " | ".join(f"{by[s]['macro_f1']:.3f}" if s in by else "–" for s in scripts) + " |"
        )
    return lines


def _three(splits: Mapping[str, Dataset]) -> tuple[Dataset, Dataset, Dataset]:
    missing = [name for name in ("train", "validation", "test") if name not in splits]
    if missing:
        raise ValueError(f"comparing needs train, validation and test splits; missing: {', '.join(missing)}")
    return splits["train"], splits["validation"], splits["test"]
