"""A model folder's weights, checked: their SHA-256 recorded when the model is saved (``model.sha256``, in the
form ``sha256sum`` writes and checks) and compared when it is loaded, so that a damaged or altered weights file
is refused with one line instead of served (its predictions would be noise, or NaN)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .transformer import CheckpointError
from .transformer.checkpoint import WEIGHTS_FILE

DIGEST_FILE = "model.sha256"


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file, hex, read a megabyte at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def record_digest(folder: Path, weights: str) -> str:
    """Write ``folder/model.sha256`` for the weights file ``weights`` (``sha256sum -c model.sha256`` checks it)."""
    value = file_sha256(folder / weights)
    (folder / DIGEST_FILE).write_text(f"{value}  {weights}\n", encoding="utf-8")
    return value


def check_digest(folder: Path, weights: str) -> bool:
    """Compare the weights with their recorded SHA-256: True when they match, False when none was recorded (a model
    saved before mealwatch recorded it); CheckpointError when they differ, or the record cannot be read."""
    record = folder / DIGEST_FILE
    if not record.is_file():
        return False
    try:
        expected, _, name = record.read_text(encoding="utf-8").strip().partition("  ")
    except (OSError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{record} cannot be read ({e}): copy the model folder again") from e
    if name != weights or len(expected) != 64:
        raise CheckpointError(f"{record} is not a SHA-256 of {weights}: copy the model folder again")
    if file_sha256(folder / weights) != expected:
        raise CheckpointError(
            f"{folder / weights} does not match the SHA-256 recorded when the model was saved ({record}): the file "
            "is damaged or was altered; copy the model folder again from where it was trained"
        )
    return True


def model_version(model_dir: str | Path) -> str:
    """The model folder's name and the first 12 hex digits of its weights' SHA-256: ``20250131-142530-3f2a9c1b0d4e``
    (what the log records with every prediction, and what names a search index's vectors)."""
    folder = Path(model_dir)
    return f"{folder.resolve().name}-{file_sha256(folder / WEIGHTS_FILE)[:12]}"
