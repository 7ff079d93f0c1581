"""Handing memory that training has freed back to the operating system.

A training step allocates its activations and gradients, then frees them. The C allocator
(glibc's malloc) keeps most freed pages for reuse instead of returning them, and because
batches differ in shape the kept pages rarely fit the next request: the process's resident
memory climbs step after step although the live tensors stay the same size. ``malloc_trim``
returns every wholly free page to the system (``release_freed_memory``); the training loop
(``learning/training.py``) calls it every few steps through ``MemoryReleaser``. Both the server and training also
set glibc's thresholds once at their start (``tune_allocator``), so that a freed tensor's pages go back by
themselves: the pages a validation pass or a batch of another shape frees are not kept in the heap.

Training also bounds the caches of compiled kernels (``limit_kernel_caches``): oneDNN, which runs PyTorch's bf16 and
fp32 matrix products on the CPU, compiles kernels for each input shape and keeps them (up to 1,024 in each of two
caches by default); batches of every length make hundreds of shapes, and the kept kernels, scattered through the heap
among freed blocks, would keep it from giving those back.

On systems without glibc (macOS, Windows, musl) this is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys
from collections.abc import Callable

#: steps between two releases: often enough that freed pages never pile up, rarely enough to cost nothing
RELEASE_EVERY = 10


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:  # no C library found
        return None


def _find_malloc_trim() -> Callable[[int], int] | None:
    libc = _libc()
    try:
        return libc.malloc_trim if libc is not None else None
    except AttributeError:  # a C library without malloc_trim (musl)
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


#: allocations from this size up get their own pages from the system, handed back when freed (glibc's M_MMAP_THRESHOLD)
MMAP_THRESHOLD = 128 * 1024
#: training's threshold: its steps allocate and free many blocks a second, and mapping every one from 128 KiB up
#: costs the kernel more time than the step (docs/benchmarks.md, "Urgent cases in every language"); from 4 MiB up
#: the largest (activations of a long batch, a validation pass's) still go back at once
TRAINING_MMAP_THRESHOLD = 4 * 1024 * 1024
#: heaps glibc may keep for the server's many request threads (its default is 8 per core), each fragmenting alone
MALLOC_ARENAS = 2


def tune_allocator(mmap_threshold: int = MMAP_THRESHOLD) -> bool:
    """Set glibc's mmap threshold and arena count once, so that a freed tensor's memory goes back to the system
    by itself (what ``mealwatch serve`` and training, with ``TRAINING_MMAP_THRESHOLD``, do at their start); True
    when set.

    glibc raises its mmap threshold each time a large block is freed, so that after a few requests the
    model's activations come from the heap, where freed space of varied sizes (texts of every length,
    batches of every size) fragments and the server's memory keeps climbing under load. A fixed
    threshold keeps each large block its own mapping, returned whole when freed, and few arenas keep the
    request threads' small allocations from spreading over many heaps. Not glibc: nothing to do.
    """
    libc = _libc()
    if libc is None:
        return False
    try:
        arenas = libc.mallopt(-8, MALLOC_ARENAS)  # -8: M_ARENA_MAX
        return bool(libc.mallopt(-3, mmap_threshold)) and bool(arenas)  # -3: M_MMAP_THRESHOLD
    except AttributeError:  # a C library without mallopt (musl)
        return False


#: kernels each oneDNN cache keeps: those of the last few batch shapes (one shape's pass compiles about twenty)
KERNEL_CACHE_CAPACITY = 64
#: the settings that bound them: oneDNN's primitive cache, and the cache of PyTorch's oneDNN bridge (ideep)
KERNEL_CACHE_SETTINGS = ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY")


def limit_kernel_caches(capacity: int = KERNEL_CACHE_CAPACITY) -> dict[str, str]:
    """Bound the caches of compiled oneDNN kernels to ``capacity`` entries each (what training does at its start);
    returns the settings now in force.

    A setting already in the environment is left as it is (whoever set it chose). The libraries read these settings
    when they make their first kernel, so this holds for a process that has not yet run a matrix product through
    oneDNN, and changes nothing in one that has. A kernel dropped from the cache is compiled again when its shape
    comes back: the results are the same, only the compilation is repeated.
    """
    if capacity < 1:
        raise ValueError(f"capacity must be at least 1, not {capacity}")
    return {name: os.environ.setdefault(name, str(capacity)) for name in KERNEL_CACHE_SETTINGS}
