"""A training run, whole (what ``mealwatch train`` does): read the training data, fine-tune, save the run with its
evaluation beside it.

Parallel renderings of training complaints (the bundled ``parallel.csv``, or ``--parallel FILE``) join the
training split. (Until the multilingual encoder became the default, this job first taught the English encoder
Hindi — vocabulary extension and distillation; docs/multilingual.md keeps that history.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..runs import new_run_dir

#: the triage scores per language form, written beside metrics.json when the held-out split is annotated
TRIAGE_FILE = "triage.json"

if TYPE_CHECKING:
    from ..data import Dataset, ParallelComplaint
    from .evaluation import EvaluationReport
    from .training import TrainingArguments, TrainingResult
    from .triage_evaluation import TriageReport


@dataclass
class FinishedRun:
    """What ``train_and_save`` produced: the saved folder, the training result and the held-out report."""

    folder: Path
    result: "TrainingResult"
    report: "EvaluationReport"
    report_split: str  # "test", or "validation" when there is no test split
    splits: dict[str, "Dataset"]
    triage: "TriageReport | None" = None  # per language form: severity, children, language, review (annotated data)


def load_training_data(
    data: str | Path | None = None,
    validation: str | Path | None = None,
    test: str | Path | None = None,
    *,
    languages: bool = True,
    **read_kwargs: Any,
) -> dict[str, "Dataset"]:
    """Train/validation(/test) datasets: ``data`` (None: the bundled complaints, each split joined by the same
    split of the complaints in India's other languages unless ``languages`` is False) split by ``read_splits``,
    or, when ``validation`` is given, ``data`` as the training file and ``validation`` (and ``test``) as given."""
    from ..data import read_dataset, read_splits, with_languages

    if validation is None:
        splits = read_splits(data, **read_kwargs)
        if data is None and languages:
            splits = with_languages(splits)
    else:
        if data is None or Path(data).is_dir():
            raise ValueError("with --validation, --data must be the training file (not a folder or the bundled data)")
        train = read_dataset(data, **read_kwargs)
        others = {**read_kwargs, "label_set": train.label_set, "multi_label": train.multi_label}
        splits = {"train": train, "validation": read_dataset(validation, **others)}
    if test is not None:
        first = splits["train"]
        splits["test"] = read_dataset(
            test, **{**read_kwargs, "label_set": first.label_set, "multi_label": first.multi_label}
        )
    return splits


def with_renderings(train: "Dataset", parallel: "list[ParallelComplaint]") -> "Dataset":
    """The training split plus the Devanagari and romanised renderings of its parallel complaints."""
    from ..data import Dataset

    known = {e.text: e for e in train.examples}
    added = [e for p in parallel if p.english in known for e in p.renderings(known[p.english]) if e.text not in known]
    return Dataset.from_examples(train.examples + added, train.label_set, train.multi_label, train.path)


def default_parallel(splits: dict[str, "Dataset"]) -> "list[ParallelComplaint]":
    """The bundled parallel renderings when training on the bundled complaints; none for other data."""
    from ..data import bundled_data_dir, read_parallel

    path = splits["train"].path
    bundled = path is not None and Path(path).resolve().parent == bundled_data_dir().resolve()
    return read_parallel() if bundled else []


def train_and_save(
    splits: dict[str, "Dataset"], args: "TrainingArguments", out: str | Path | None = None, progress: bool = True,
    *, parallel: "list[ParallelComplaint] | None" = None,
) -> FinishedRun:  # fmt: skip
    """Fine-tune on the splits, save the model to ``out`` (None: a new folder under ``runs.runs_root()``) and write
    its evaluation on the test split (validation if there is none) beside it. ``parallel`` renderings (only of
    training complaints) join the training split; None: ``default_parallel``."""
    from .evaluation import evaluate_pipeline, write_report
    from .training import train
    from .triage_evaluation import evaluate_triage

    parallel = default_parallel(splits) if parallel is None else parallel
    train_set = with_renderings(splits["train"], parallel) if parallel else splits["train"]
    result = train(train_set, splits["validation"], args, progress=progress)
    folder = Path(out) if out is not None else new_run_dir()
    result.pipeline.save(folder)
    split = "test" if "test" in splits else "validation"
    report = evaluate_pipeline(result.pipeline, splits[split])
    write_report(report, folder, title=f"Evaluation on the {split} split")
    triage = None
    if (splits[split].severities() >= 0).any():  # severity annotated: how the queue would treat them, per form
        triage = evaluate_triage(result.pipeline, splits[split])
        (folder / TRIAGE_FILE).write_text(json.dumps(triage.to_dict(), indent=2), encoding="utf-8")
    return FinishedRun(folder, result, report, split, splits, triage)
