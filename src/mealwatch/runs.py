"""The ``runs/`` folder: one timestamped sub-folder per training run, finding the latest model, and a whole
training run (read the data, fine-tune, save the model with its evaluation)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .classifier import is_classifier_dir

if TYPE_CHECKING:
    from .data import Dataset
    from .evaluation import EvaluationReport
    from .training import TrainingArguments, TrainingResult

DEFAULT_ROOT = "runs"


class NoModelError(ValueError):
    """No trained model where one was expected; the message says how to get one (a ValueError, so the CLI prints it)."""


def new_run_dir(root: str | Path = DEFAULT_ROOT) -> Path:
    """Create and return a new, empty run folder named after the current time (``runs/20250131-142530``)."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        folder = root / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise RuntimeError(f"could not find a free run folder name under {root}")


def latest_run(root: str | Path = DEFAULT_ROOT) -> Path:
    """The most recently saved model among the run folders under ``root``."""
    root = Path(root)
    runs = [p for p in root.iterdir() if not p.name.startswith(".") and is_classifier_dir(p)] if root.is_dir() else []
    if not runs:
        raise NoModelError(f"no trained model found in {root}/: run `mealwatch train` first")
    return max(runs, key=lambda p: ((p / "config.json").stat().st_mtime, p.name))


def resolve_model(path: str | Path | None, root: str | Path = DEFAULT_ROOT) -> Path:
    """The model folder to use: ``path`` (which must hold a saved classifier) or, if None, ``latest_run(root)``."""
    if path is None:
        return latest_run(root)
    folder = Path(path)
    if not folder.is_dir():
        raise NoModelError(f"model folder {folder} does not exist: pass a folder written by `mealwatch train`")
    if not is_classifier_dir(folder):
        raise NoModelError(
            f"{folder} is not a trained mealwatch model (it needs config.json with the classifier format key "
            "and model.safetensors): pass a folder written by `mealwatch train`"
        )
    return folder


@dataclass
class FinishedRun:
    """What ``train_and_save`` produced: the saved folder, the training result and the held-out report."""

    folder: Path
    result: "TrainingResult"
    report: "EvaluationReport"
    report_split: str  # "test", or "validation" when there is no test split
    splits: dict[str, "Dataset"]


def load_training_data(
    data: str | Path | None = None,
    validation: str | Path | None = None,
    test: str | Path | None = None,
    **read_kwargs: Any,
) -> dict[str, "Dataset"]:
    """Train/validation(/test) datasets: ``data`` (None: the bundled complaints) split by ``read_splits``,
    or, when ``validation`` is given, ``data`` as the training file and ``validation`` (and ``test``) as given."""
    from .data import read_dataset, read_splits

    if validation is None:
        splits = read_splits(data, **read_kwargs)
    else:
        if data is None or Path(data).is_dir():
            raise ValueError("with --validation, --data must be the training file (not a folder or the bundled data)")
        train = read_dataset(data, **read_kwargs)
        others = {**read_kwargs, "label_set": train.label_set, "multi_label": train.multi_label}
        splits = {"train": train, "validation": read_dataset(validation, **others)}
    if test is not None:
        first = splits["train"]
        splits["test"] = read_dataset(test, **{**read_kwargs, "label_set": first.label_set, "multi_label": first.multi_label})
    return splits


def train_and_save(
    splits: dict[str, "Dataset"], args: "TrainingArguments", out: str | Path | None = None, progress: bool = True
) -> FinishedRun:
    """Fine-tune on the splits, save the model to ``out`` (None: a new folder under runs/) and write
    its evaluation on the test split (validation if there is none) beside it."""
    from .evaluation import write_report
    from .training import evaluate_classifier, train

    result = train(splits["train"], splits["validation"], args, progress=progress)
    folder = Path(out) if out is not None else new_run_dir()
    result.classifier.save(folder)
    split = "test" if "test" in splits else "validation"
    report = evaluate_classifier(result.classifier, splits[split])
    write_report(report, folder, title=f"Evaluation on the {split} split")
    return FinishedRun(folder, result, report, split, splits)
