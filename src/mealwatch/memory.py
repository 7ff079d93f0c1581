"""Handing memory that training has freed back to the operating system.

A training step allocates its activations and gradients, then frees them. The C allocator
(glibc's malloc) keeps most freed pages for reuse instead of returning them, and because
batches differ in shape the kept pages rarely fit the next request: the process's resident
memory climbs step after step although the live tensors stay the same size. ``malloc_trim``
returns every wholly free page to the system. The training loops (fine-tuning, distillation,
masked-language-model pre-training) call it every few steps through ``MemoryReleaser``.

On systems without glibc (macOS, Windows, musl) this is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
from collections.abc import Callable

#: steps between two releases: often enough that freed pages never pile up, rarely enough to cost nothing
RELEASE_EVERY = 10


def _find_malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # no C library found, or one without malloc_trim (musl)
        return None


_malloc_trim = _find_malloc_trim()


def release_freed_memory(collect: bool = False) -> bool:
    """Return the allocator's free pages to the system (``collect``: run Python's garbage collector first).

    True when this platform can (glibc), False where it is a no-op.
    """
    if collect:
        gc.collect()
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


class MemoryReleaser:
    """Call ``step()`` once per training step: every ``every`` steps the freed memory goes back to the system."""

    def __init__(self, every: int = RELEASE_EVERY) -> None:
        if every < 1:
            raise ValueError(f"every must be at least 1, not {every}")
        self.every = every
        self.steps = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps % self.every == 0:
            release_freed_memory()
