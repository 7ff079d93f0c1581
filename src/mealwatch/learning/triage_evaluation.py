"""How well a model triages, per language form (``ta``, ``ta-latn``, ``hi-latn``, ``en``, ...): the labels'
macro-F1, the grave mark (a death or a hospital admission) — recall and precision —, clinic visits taken for
admissions, children counted exactly where the text states a number, the language identified for Latin-letter
text, and whether the review flag tells right from wrong (the error rate among flagged complaints against the
unflagged, and the share flagged).

Every score is scikit-learn's, on the rows of a dataset annotated with ``severity`` and ``children``
(``data.Dataset.severities``); ``evaluate_triage`` reads them through the pipeline, as every front end does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..severity import GRAVE_LEVELS

if TYPE_CHECKING:
    from ..data import Dataset
    from ..pipeline import Pipeline, Prediction

ALL = "all"


@dataclass
class FormScores:
    """One language form's triage scores (None where the rows hold nothing to score)."""

    n: int
    macro_f1: float
    grave_n: int  # rows whose true level is hospital or death
    grave_recall: float | None
    grave_precision: float | None
    clinic_as_grave: int  # rows whose true level is clinic, marked grave
    children_n: int  # rows that state a number of children
    children_exact: float | None
    language_accuracy: float  # the language identified (Latin-letter forms: by the model's identifier)
    flagged: float  # share of rows flagged for review
    error_flagged: float | None  # share of flagged rows whose label set is wrong
    error_unflagged: float | None

    @property
    def flag_ratio(self) -> float | None:
        """How many times likelier a flagged row is wrong than an unflagged one."""
        if self.error_flagged is None or not self.error_unflagged:
            return None
        return self.error_flagged / self.error_unflagged


@dataclass
class TriageReport:
    forms: dict[str, FormScores] = field(default_factory=dict)  # form -> scores; ``ALL``: every row

    def to_dict(self) -> dict[str, Any]:
        return {form: {**asdict(s), "flag_ratio": s.flag_ratio} for form, s in self.forms.items()}


def form_scores(
    predictions: Sequence["Prediction"], dataset: "Dataset", rows: np.ndarray, labels: Sequence[str]
) -> FormScores:
    """The scores of the ``rows`` (indices) of ``dataset``, predicted as ``predictions`` (one per row)."""
    from sklearn.metrics import f1_score

    examples = [dataset.examples[i] for i in rows]
    preds = [predictions[i] for i in rows]
    truth = np.array([[label in e.labels for label in labels] for e in examples], dtype=int)  # (n, L)
    guess = np.array([[label in p.labels for label in labels] for p in preds], dtype=int)  # (n, L)
    macro = float(f1_score(truth, guess, average="macro", zero_division=0))
    wrong = (truth != guess).any(axis=1)  # (n,)
    flagged = np.array([p.needs_review for p in preds])  # (n,)
    annotated = [(e, p) for e, p in zip(examples, preds) if e.severity is not None]
    actual = np.array([e.severity in GRAVE_LEVELS for e, _ in annotated], dtype=bool)
    marked = np.array([p.severity in GRAVE_LEVELS for _, p in annotated], dtype=bool)
    clinic = sum(e.severity == "clinic" and p.severity in GRAVE_LEVELS for e, p in annotated)
    stated = [(e, p) for e, p in zip(examples, preds) if e.children]
    exact = [p.children == e.children for e, p in stated]
    languages = [p.language == e.language for e, p in zip(examples, preds) if e.language is not None]
    rate = lambda mask: float(wrong[mask].mean()) if mask.any() else None  # noqa: E731
    return FormScores(
        n=len(rows), macro_f1=macro, grave_n=int(actual.sum()),
        grave_recall=float(marked[actual].mean()) if actual.any() else None,
        grave_precision=float(actual[marked].mean()) if marked.any() else None,
        clinic_as_grave=int(clinic), children_n=len(stated), children_exact=float(np.mean(exact)) if exact else None,
        language_accuracy=float(np.mean(languages)) if languages else 1.0, flagged=float(flagged.mean()),
        error_flagged=rate(flagged), error_unflagged=rate(~flagged),
    )  # fmt: skip


def evaluate_triage(pipeline: "Pipeline", dataset: "Dataset", *, batch_size: int = 64) -> TriageReport:
    """The triage scores of ``pipeline`` on ``dataset``, per language form and over every row (``ALL``)."""
    predictions = pipeline.predict(dataset.texts, batch_size=batch_size)
    forms = np.array(dataset.forms())
    report = TriageReport()
    report.forms[ALL] = form_scores(predictions, dataset, np.arange(len(forms)), dataset.label_set)
    for form in sorted(set(forms.tolist())):
        report.forms[form] = form_scores(predictions, dataset, np.flatnonzero(forms == form), dataset.label_set)
    return report


def _cell(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def format_triage(report: TriageReport) -> str:
    """The report as a text table, one line per form."""
    head = (f"{'form':<9} {'n':>5} {'macroF1':>8} {'grave':>5} {'recall':>7} {'prec':>6} {'clin>h':>6} "
            f"{'kids':>5} {'exact':>6} {'lang':>6} {'flag%':>6} {'err_f':>6} {'err_u':>6} {'ratio':>6}")  # fmt: skip
    lines = [head]
    for form, s in report.forms.items():
        lines.append(
            f"{form:<9} {s.n:>5} {s.macro_f1:>8.3f} {s.grave_n:>5} {_cell(s.grave_recall):>7} "
            f"{_cell(s.grave_precision, 2):>6} {s.clinic_as_grave:>6} {s.children_n:>5} "
            f"{_cell(s.children_exact, 2):>6} "
            f"{s.language_accuracy:>6.3f} {100 * s.flagged:>6.1f} {_cell(s.error_flagged, 2):>6} "
            f"{_cell(s.error_unflagged, 2):>6} {_cell(s.flag_ratio, 1):>6}"
        )  # fmt: skip
    return "\n".join(lines)
