"""The ``runs/`` folder: one timestamped sub-folder per training run, and finding the latest model."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from .classifier import is_classifier_dir

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
