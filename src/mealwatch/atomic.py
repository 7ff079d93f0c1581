"""Writing files and folders so that a reader never sees half of one: the one place this is done.

A file is written to a hidden sibling, flushed to disk and renamed over its destination; a folder
the same way, each of its files flushed first. An interruption at any point leaves the old file
or folder, or the new one, never a partial one by that name.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

from .transformer import CheckpointError


def write_file_atomically(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(temporary_path)``, flush it, then move it onto ``path`` (its folder is created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(Path(temp))
        _fsync(Path(temp))
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomically(path: str | Path, text: str) -> Path:
    """``text`` as UTF-8 at ``path``, atomically."""
    return write_file_atomically(path, lambda p: p.write_text(text, encoding="utf-8"))


def write_folder_atomically(
    destination: Path, write: Callable[[Path], None], replaceable: Callable[[Path], bool]
) -> None:
    """Let ``write`` fill a hidden sibling folder, flush it to disk, then rename it to ``destination``.

    An existing ``destination`` is replaced only when it is empty or ``replaceable`` says so;
    it is moved aside first and put back if the final rename fails, so an interruption at any
    point leaves either the old folder or the new one, and never a partial folder by that name.
    """
    destination = Path(destination)
    if destination.exists():
        if not destination.is_dir():
            raise CheckpointError(f"cannot save to {destination}: it exists and is not a folder")
        if any(destination.iterdir()) and not replaceable(destination):
            raise CheckpointError(
                f"cannot save to {destination}: the folder holds other files; choose a new or empty folder"
            )
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = destination.parent / f".{destination.name}.saving-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    try:
        write(staging)
        for file in staging.iterdir():
            _fsync(file)
        _fsync(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = destination.parent / f".{destination.name}.old-{uuid.uuid4().hex[:8]}"
    if destination.exists():
        os.rename(destination, old)
    try:
        os.rename(staging, destination)
    except BaseException:
        if old.exists():
            os.rename(old, destination)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _fsync(destination.parent)
    shutil.rmtree(old, ignore_errors=True)


def _fsync(path: Path) -> None:
    """Flush a file's (or a folder's entries') data to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
