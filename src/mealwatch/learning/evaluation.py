"""Evaluation reports: scikit-learn metrics, a bootstrap interval for macro-F1, and matplotlib plots.

Targets and predictions come as ``Dataset.targets()`` does: (N, L) 0/1 for multi-label,
(N,) label indices for single-label — or as label names per row, which are encoded first.
Macro and weighted averages run over the whole label set; a label with no example and no
prediction scores 0 (``zero_division=0``), and its support of 0 shows in ``per_label``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.metrics import (
    accuracy_score,
    confusion_matrix,
    f1_score,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
)

from ..atomic import write_file_atomically, write_text_atomically
from ..decisions import as_targets, encode_labels

if TYPE_CHECKING:
    from torch import Tensor

    from ..data import Dataset
    from ..pipeline import Pipeline

#: texts predicted at a time when an evaluation reports its progress
PART = 256


@dataclass
class EvaluationReport:
    """Metrics of predictions against the truth on one labelled set."""

    labels: list[str]
    multi_label: bool
    n: int
    macro_f1: float
    micro_f1: float
    weighted_f1: float
    samples_f1: float | None  # mean per-row F1 (multi-label only)
    subset_accuracy: float  # rows with exactly the right label set (= accuracy for single-label)
    per_label: dict[str, dict[str, float]]  # label -> precision, recall, f1, support
    macro_f1_ci: tuple[float, float] | None  # 95 % bootstrap interval; None when bootstrap=0
    confusion: list  # (L, L) counts, rows true and columns predicted; multi-label: L of [[tn, fp], [fn, tp]]
    by_script: dict[str, dict[str, float]] | None = None  # script -> n, macro_f1, micro_f1 (see ``slice_scores``)
    by_language: dict[str, dict[str, float]] | None = None  # ISO 639-1 code -> n, macro_f1, micro_f1
    by_month: dict[str, dict[str, float]] | None = None  # month of arrival (YYYY-MM, UTC) -> n, macro_f1, micro_f1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of every field."""
        d = asdict(self)
        d["macro_f1_ci"] = list(self.macro_f1_ci) if self.macro_f1_ci is not None else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EvaluationReport":
        """The inverse of ``to_dict`` (as read back from metrics.json)."""
        d = dict(d)
        if d.get("macro_f1_ci") is not None:
            d["macro_f1_ci"] = tuple(d["macro_f1_ci"])
        return cls(**d)


def _as_targets(y: Any, labels: Sequence[str], multi_label: bool) -> np.ndarray:
    """Arrays pass through; rows of label names are encoded."""
    if isinstance(y, np.ndarray):
        return y.astype(np.int64)
    y = list(y)
    first = y[0] if y else None
    if isinstance(first, str) or (isinstance(first, Sequence) and first and isinstance(first[0], str)):
        return encode_labels(y, labels, multi_label)
    return np.asarray(y, dtype=np.int64)


def slice_scores(y_true: np.ndarray, y_pred: np.ndarray, groups: Sequence[str]) -> dict[str, dict[str, float]]:
    """Macro- and micro-F1 of each group of rows (e.g. each script), in sorted group order.

    A slice's macro-F1 averages over the labels that occur in its truth or its predictions, so a
    small slice is not marked down for labels it never had a chance to see.
    """
    groups = np.asarray(list(groups), dtype=object)
    if len(groups) != len(y_true):
        raise ValueError(f"{len(groups)} groups for {len(y_true)} rows")
    out = {}
    for name in sorted(set(groups.tolist())):
        rows = groups == name
        t, p = y_true[rows], y_pred[rows]
        present = sorted(set(np.flatnonzero(t.any(0) | p.any(0))) if t.ndim == 2 else set(t.tolist()) | set(p.tolist()))
        out[name] = {
            "n": int(rows.sum()),
            "macro_f1": float(f1_score(t, p, labels=present, average="macro", zero_division=0)),
            "micro_f1": float(f1_score(t, p, labels=present, average="micro", zero_division=0)),
        }
    return out


def evaluate_predictions(
    y_true: Any,
    y_pred: Any,
    labels: Sequence[str],
    multi_label: bool,
    bootstrap: int = 1000,
    seed: int = 0,
    *,
    scripts: Sequence[str] | None = None,
    languages: Sequence[str] | None = None,
    months: Sequence[str] | None = None,
) -> EvaluationReport:
    """Per-label and averaged precision, recall and F1, accuracy, confusion counts, and a macro-F1 interval.

    ``scripts``, ``languages`` and ``months`` (one per row, e.g. ``Dataset.scripts()``, ``Dataset.languages()``, the
    month a logged complaint arrived) add macro- and micro-F1 per script, per language and per month.
    """
    labels = list(labels)
    y_true, y_pred = _as_targets(y_true, labels, multi_label), _as_targets(y_pred, labels, multi_label)
    if y_true.shape != y_pred.shape or len(y_true) == 0:
        raise ValueError(f"y_true {y_true.shape} and y_pred {y_pred.shape} must have the same, non-empty shape")
    ids = list(range(len(labels)))
    precision, recall, f1, support = precision_recall_fscore_support(y_true, y_pred, labels=ids, zero_division=0)
    per_label = {
        label: {
            "precision": float(precision[i]),
            "recall": float(recall[i]),
            "f1": float(f1[i]),
            "support": int(support[i]),
        }
        for i, label in enumerate(labels)
    }

    def f1_avg(average: str, t: np.ndarray = y_true, p: np.ndarray = y_pred) -> float:
        return float(f1_score(t, p, labels=ids, average=average, zero_division=0))

    if multi_label:
        confusion = multilabel_confusion_matrix(y_true, y_pred, labels=ids).tolist()  # (L, 2, 2)
    else:
        confusion = confusion_matrix(y_true, y_pred, labels=ids).tolist()  # (L, L)
    ci = None
    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        scores = []
        for _ in range(bootstrap):
            rows = rng.integers(0, len(y_true), len(y_true))  # resample rows with replacement
            scores.append(f1_avg("macro", y_true[rows], y_pred[rows]))
        ci = (float(np.percentile(scores, 2.5)), float(np.percentile(scores, 97.5)))
    return EvaluationReport(
        labels=labels,
        multi_label=multi_label,
        n=int(len(y_true)),
        macro_f1=f1_avg("macro"),
        micro_f1=f1_avg("micro"),
        weighted_f1=f1_avg("weighted"),
        samples_f1=f1_avg("samples") if multi_label else None,
        subset_accuracy=float(accuracy_score(y_true, y_pred)),
        per_label=per_label,
        macro_f1_ci=ci,
        confusion=confusion,
        by_script=slice_scores(y_true, y_pred, scripts) if scripts is not None else None,
        by_language=slice_scores(y_true, y_pred, languages) if languages is not None else None,
        by_month=slice_scores(y_true, y_pred, months) if months is not None else None,
    )


def evaluate_pipeline(
    pipeline: "Pipeline", dataset: "Dataset", bootstrap: int = 1000, progress: Callable[[int], None] | None = None,
    *, probabilities: "Tensor | np.ndarray | None" = None, months: Sequence[str] | None = None,
) -> EvaluationReport:  # fmt: skip
    """A trained pipeline's report on a labelled dataset (labels in the model's order), per script and language too,
    and per month when ``months`` gives each text's; ``progress(texts done)`` is called as the predictions go
    (``probabilities_in_parts``). ``probabilities``: the pipeline's (N, L) probabilities of the dataset's texts, when
    already known (nothing is read again)."""
    if list(dataset.label_set) != pipeline.labels:
        raise ValueError(f"the data's labels {list(dataset.label_set)} differ from the model's {pipeline.labels}")
    if probabilities is None:
        probabilities = probabilities_in_parts(pipeline, list(dataset.texts), progress)
    elif len(probabilities) != len(dataset):
        raise ValueError(f"{len(probabilities)} rows of probabilities for {len(dataset)} texts")
    decided = as_targets(pipeline.decide(probabilities), pipeline.multi_label)
    return evaluate_predictions(dataset.targets(), decided, pipeline.labels, pipeline.multi_label, bootstrap=bootstrap,
                                scripts=dataset.scripts(), languages=dataset.languages(), months=months)  # fmt: skip


def probabilities_in_parts(
    pipeline: "Pipeline", texts: list[str], progress: Callable[[int], None] | None = None, part: int = PART
) -> "Tensor":
    """``pipeline.probabilities(texts)``, ``part`` texts at a time, ``progress(texts done)`` after each part."""
    import torch

    if progress is None or len(texts) <= part:
        out = pipeline.probabilities(texts)
        if progress is not None:
            progress(len(texts))
        return out
    parts = []
    for start in range(0, len(texts), part):
        parts.append(pipeline.probabilities(texts[start : start + part]))
        progress(min(start + part, len(texts)))
    return torch.cat(parts)


# ---------------------------------------------------------------------------- text


def _averages(report: EvaluationReport) -> list[tuple[str, float]]:
    rows = [("macro-F1", report.macro_f1), ("micro-F1", report.micro_f1), ("weighted-F1", report.weighted_f1)]
    if report.samples_f1 is not None:
        rows.append(("samples-F1", report.samples_f1))
    rows.append(("subset accuracy" if report.multi_label else "accuracy", report.subset_accuracy))
    return rows


def _interval(report: EvaluationReport) -> str:
    if report.macro_f1_ci is None:
        return ""
    lo, hi = report.macro_f1_ci
    return f"macro-F1 95 % bootstrap interval: {lo:.3f} – {hi:.3f}"


def format_report(report: EvaluationReport) -> str:
    """A plain-text table for the terminal."""
    width = max(len("label"), *(len(label) for label in report.labels))
    kind = "multi-label" if report.multi_label else "single-label"
    lines = [f"{report.n} texts, {len(report.labels)} labels ({kind})", ""]
    lines.append(f"{'label':<{width}}  precision  recall     f1  support")
    for label, m in report.per_label.items():
        lines.append(f"{label:<{width}}  {m['precision']:9.3f}  {m['recall']:6.3f}  {m['f1']:5.3f}  {m['support']:7d}")
    lines.append("")
    lines += [f"{name:<16} {value:.3f}" for name, value in _averages(report)]
    if report.macro_f1_ci is not None:
        lines.append(_interval(report))
    by = (("by script", report.by_script), ("by language", report.by_language),
          ("by month of arrival (UTC)", report.by_month))  # fmt: skip
    for title, slices in by:
        if slices:
            lines += ["", f"{title}:"]
            lines += [f"  {name:<8} {m['n']:5d} texts  macro-F1 {m['macro_f1']:.3f}  micro-F1 {m['micro_f1']:.3f}"
                      for name, m in slices.items()]  # fmt: skip
    return "\n".join(lines)


def report_markdown(report: EvaluationReport, title: str = "Evaluation") -> str:
    """The report as markdown: a table per label, the averages and the interval."""
    kind = "multi-label" if report.multi_label else "single-label"
    lines = [f"# {title}", "", f"{report.n} texts, {len(report.labels)} labels ({kind}).", ""]
    lines += ["| label | precision | recall | F1 | support |", "|---|---:|---:|---:|---:|"]
    for label, m in report.per_label.items():
        lines.append(f"| {label} | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} | {m['support']} |")
    lines += ["", "| average | value |", "|---|---:|"]
    lines += [f"| {name} | {value:.3f} |" for name, value in _averages(report)]
    if report.macro_f1_ci is not None:
        lines += ["", _interval(report) + "."]
    for title, slices in (("script", report.by_script), ("language", report.by_language), ("month", report.by_month)):
        if slices:
            lines += ["", f"| {title} | texts | macro-F1 | micro-F1 |", "|---|---:|---:|---:|"]
            lines += [f"| {name} | {m['n']} | {m['macro_f1']:.3f} | {m['micro_f1']:.3f} |"
                      for name, m in slices.items()]  # fmt: skip
    plot = "per_label_confusion.png" if report.multi_label else "confusion_matrix.png"
    lines += ["", f"![confusion]({plot})", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- files


def write_report(report: EvaluationReport, folder: str | Path, title: str = "Evaluation") -> None:
    """Write metrics.json, report.md and the confusion plot into ``folder``, each file atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomically(folder / "metrics.json", json.dumps(report.to_dict(), indent=2) + "\n")
    write_text_atomically(folder / "report.md", report_markdown(report, title))
    name = "per_label_confusion.png" if report.multi_label else "confusion_matrix.png"
    figure = _per_label_figure(report) if report.multi_label else _confusion_figure(report)
    write_file_atomically(folder / name, lambda p: figure.savefig(p, format="png", dpi=120))


def _figure(size: tuple[float, float]) -> Any:
    """A matplotlib figure drawn by the Agg (file-only) backend, outside pyplot's global state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size)
    FigureCanvasAgg(figure)
    return figure


def _confusion_figure(report: EvaluationReport) -> Any:
    """Counts of true (rows) against predicted (columns) labels."""

    counts = np.array(report.confusion)  # (L, L)
    size = max(4.0, 0.6 * len(report.labels) + 2)
    figure = _figure((size + 1, size))
    ax = figure.subplots()
    image = ax.imshow(counts, cmap="Blues")
    ticks = range(len(report.labels))
    ax.set_xticks(ticks, report.labels, rotation=45, ha="right")
    ax.set_yticks(ticks, report.labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    for (r, c), value in np.ndenumerate(counts):
        ax.text(c, r, str(value), ha="center", va="center", color="white" if value > counts.max() / 2 else "black")
    figure.colorbar(image, ax=ax)
    ax.set_title(f"confusion matrix (macro-F1 {report.macro_f1:.3f})")
    figure.tight_layout()
    return figure


def _per_label_figure(report: EvaluationReport) -> Any:
    """One 2x2 matrix (true no/yes against predicted no/yes) per label."""

    n = len(report.labels)
    cols = min(5, n)
    rows = (n + cols - 1) // cols
    figure = _figure((2.6 * cols, 2.6 * rows))
    axes = figure.subplots(rows, cols, squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i >= n:
            ax.axis("off")
            continue
        counts = np.array(report.confusion[i])  # (2, 2): [[tn, fp], [fn, tp]]
        ax.imshow(counts, cmap="Blues")
        for (r, c), value in np.ndenumerate(counts):
            ax.text(c, r, str(value), ha="center", va="center", color="white" if value > counts.max() / 2 else "black")
        ax.set_xticks([0, 1], ["no", "yes"])
        ax.set_yticks([0, 1], ["no", "yes"])
        ax.set_title(f"{report.labels[i]}\nF1 {report.per_label[report.labels[i]]['f1']:.2f}", fontsize=9)
        if i % cols == 0:
            ax.set_ylabel("true")
        if i >= n - cols:
            ax.set_xlabel("predicted")
    figure.suptitle(f"per-label confusion (macro-F1 {report.macro_f1:.3f})")
    figure.tight_layout()
    return figure
