"""A model folder's weights, checked: their SHA-256 recorded when the model is saved (``model.sha256``, in the
form ``sha256sum`` writes and checks) and compared when it is loaded, so that a damaged or altered weights file
is refused with one line instead of served (its predictions would be noise, or NaN).

An encoder folder mealwatch builds (the e5 cache) records instead the digest of its *content* (``content.sha256``,
written once when the folder is written): of its weights the tensors themselves (names, dtypes, shapes, values:
the same tensors give the same digest however the file orders its header), of its JSON files the JSON they hold.
``check_content`` compares a folder with its record at load; ``model_version`` names such a folder by it, so that
the same encoder keeps one version however often its folder is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading
from collections.abc import Sequence
from pathlib import Path

from .transformer import CheckpointError
from .transformer.checkpoint import WEIGHTS_FILE

DIGEST_FILE = "model.sha256"
CONTENT_FILE = "content.sha256"
#: (folder, each recorded file's size, time and inode) -> content digest, for folders checked in this process
_checked: dict[tuple, str] = {}
_checked_lock = threading.Lock()


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


def tensors_sha256(path: str | Path) -> str:
    """The SHA-256 of a safetensors file's tensors (each one's name, dtype, shape and bytes, in name order; the
    header's order and its metadata do not count); CheckpointError when the file cannot be read as one."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            size = path.stat().st_size
            (length,) = struct.unpack("<Q", f.read(8).ljust(8, b"\0"))
            if not 2 <= length <= size - 8:
                raise ValueError(f"its header length ({length}) does not fit the file ({size} bytes)")
            header = json.loads(f.read(length))
            digest = hashlib.sha256()
            for name in sorted(k for k in header if k != "__metadata__"):
                info = header[name]
                start, end = (int(x) for x in info["data_offsets"])
                if not 0 <= start <= end <= size - 8 - length:
                    raise ValueError(f"tensor {name} lies beyond the end of the file")
                digest.update(json.dumps([name, info["dtype"], info["shape"], end - start]).encode())
                f.seek(8 + length + start)
                left = end - start
                while left:
                    chunk = f.read(min(left, 1 << 20))
                    if not chunk:
                        raise ValueError(f"tensor {name} is cut short")
                    digest.update(chunk)
                    left -= len(chunk)
    except OSError as e:
        raise CheckpointError(f"{path} cannot be read ({e.strerror or e})") from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{path} is damaged or truncated: {e}") from None
    return digest.hexdigest()


def json_sha256(path: str | Path) -> str:
    """The SHA-256 of the JSON a file holds (keys sorted, one spacing): the same whatever order it was written in;
    CheckpointError when the file is not JSON."""
    path = Path(path)
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise CheckpointError(f"{path} cannot be read ({e.strerror or e})") from None
    except ValueError as e:
        raise CheckpointError(f"{path} is damaged: it is not JSON ({e})") from None
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_sha256(path: Path) -> str:
    """The digest of one file's content: its tensors (``.safetensors``), its JSON (``.json``), else its bytes."""
    if path.suffix == ".safetensors":
        return tensors_sha256(path)
    return json_sha256(path) if path.suffix == ".json" else file_sha256(path)


def record_content(folder: Path, files: Sequence[str]) -> str:
    """Write ``folder/content.sha256``: the content digest of each of ``files``, one line each; the folder's digest
    (the SHA-256 of that record)."""
    text = "".join(f"{content_sha256(folder / name)}  {name}\n" for name in sorted(files))
    (folder / CONTENT_FILE).write_text(text, encoding="utf-8")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_content(folder: Path) -> str:
    """Compare a folder with its ``content.sha256``: the folder's digest when every file matches; CheckpointError
    (one line naming the file) when the record is missing or unreadable, a file is missing, or one differs."""
    folder = Path(folder)
    record = folder / CONTENT_FILE
    try:
        text = record.read_text(encoding="utf-8")
        lines = [line.partition("  ") for line in text.splitlines()]
    except FileNotFoundError:
        raise CheckpointError(f"{record} is missing: the folder was not written whole") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{record} cannot be read ({e})") from None
    if not lines or any(len(expected) != 64 or not name or "/" in name for expected, _, name in lines):
        raise CheckpointError(f"{record} is damaged: expected lines of a SHA-256, two spaces and a file name")
    try:
        key = (str(folder.resolve()), text, tuple(_stat(folder / name) for _, _, name in lines))
    except FileNotFoundError as e:
        raise CheckpointError(f"{e.filename} is missing") from None
    with _checked_lock:
        if key in _checked:
            return _checked[key]
    for expected, _, name in lines:
        if content_sha256(folder / name) != expected:
            raise CheckpointError(f"{folder / name} does not match its digest in {record}: damaged or altered")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    with _checked_lock:
        _checked[key] = digest
    return digest


def _stat(path: Path) -> tuple[int, int, int]:
    found = path.stat()
    return found.st_size, found.st_mtime_ns, found.st_ino


def model_version(model_dir: str | Path) -> str:
    """The model folder's name and the first 12 hex digits of its weights' SHA-256: ``20250131-142530-3f2a9c1b0d4e``
    (what the log records with every prediction, and what names a search index's vectors). A folder that records
    its content (``content.sha256``) is checked against it and named by it instead."""
    folder = Path(model_dir)
    if (folder / CONTENT_FILE).is_file():
        return f"{folder.resolve().name}-{check_content(folder)[:12]}"
    return f"{folder.resolve().name}-{file_sha256(folder / WEIGHTS_FILE)[:12]}"
