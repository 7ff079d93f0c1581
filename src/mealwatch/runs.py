"""Where trained models live and which one a command uses.

``mealwatch train`` saves each run in a timestamped folder under ``$MEALWATCH_HOME/runs/`` (default
``$XDG_DATA_HOME/mealwatch``, i.e. ``~/.local/share/mealwatch``), so every command finds it from any
folder. Without ``--model`` a command uses, in order: ``$MEALWATCH_MODEL``, the newest run under
``$MEALWATCH_HOME/runs/``, the newest run under ``./runs/`` (where older versions saved).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from .classifier import is_classifier_dir


DEFAULT_ROOT = "runs"  # the folder older versions trained into, relative to the working folder


def mealwatch_home() -> Path:
    """``$MEALWATCH_HOME``, else ``$XDG_DATA_HOME/mealwatch``, else ``~/.local/share/mealwatch``."""
    if os.environ.get("MEALWATCH_HOME"):
        return Path(os.environ["MEALWATCH_HOME"]).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "mealwatch"


def default_log_path() -> Path:
    """Where ``mealwatch serve`` keeps its complaint log without ``--db``: ``mealwatch_home() / "complaints.db"``."""
    return mealwatch_home() / "complaints.db"


def runs_root() -> Path:
    """Where ``mealwatch train`` saves its runs: ``mealwatch_home() / "runs"``."""
    return mealwatch_home() / "runs"


class NoModelError(ValueError):
    """No trained model where one was expected; the message says how to get one (a ValueError, so the CLI prints it)."""


def new_run_dir(root: str | Path | None = None) -> Path:
    """Create and return a new, empty run folder named after the current time (``runs/20250131-142530``)."""
    root = Path(root) if root is not None else runs_root()
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


def resolve_model(path: str | Path | None, root: str | Path | None = None) -> Path:
    """The model folder to use: ``path``; else ``$MEALWATCH_MODEL``; else the newest run under ``root``
    (None: ``$MEALWATCH_HOME/runs``, then ``./runs``). Errors say how to get a model."""
    if path is None and os.environ.get("MEALWATCH_MODEL"):
        path = os.environ["MEALWATCH_MODEL"]
    if path is None:
        roots = [Path(root)] if root is not None else [runs_root(), Path(DEFAULT_ROOT)]
        for folder in roots:
            try:
                return latest_run(folder)
            except NoModelError:
                continue
        where = " or ".join(f"{r}/" for r in roots)
        raise NoModelError(f"no trained model found in {where}: run `mealwatch train` first, or pass --model FOLDER")
    folder = Path(path)
    if not folder.is_dir():
        raise NoModelError(f"model folder {folder} does not exist: pass a folder written by `mealwatch train`")
    if not is_classifier_dir(folder):
        raise NoModelError(
            f"{folder} is not a trained mealwatch model (it needs config.json with the classifier format key "
            "and model.safetensors): pass a folder written by `mealwatch train`"
        )
    return folder
