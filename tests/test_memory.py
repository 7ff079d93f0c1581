"""Freed memory goes back to the system (glibc), and the releaser does so every n steps."""

from pathlib import Path

import pytest

from mealwatch import memory


def resident_mb() -> int:
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) // 1024


@pytest.mark.skipif(memory._malloc_trim is None, reason="no glibc malloc_trim on this platform")
def test_release_returns_freed_pages_to_the_system():
    blocks = [bytearray(4000) for _ in range(50_000)]  # ~200 MB in malloc-sized pieces (not mmapped one by one)
    pinned = bytearray(4000)  # allocated after them: the freed pages are not at the top of the heap
    held = resident_mb()
    del blocks
    freed = resident_mb()
    if held - freed > 100:
        pytest.skip("this allocator handed the freed pages back by itself: nothing left to release")
    assert memory.release_freed_memory() is True
    released = resident_mb()
    assert freed - released > 150, (held, freed, released)
    del pinned


def test_releaser_releases_every_n_steps(monkeypatch):
    calls = []
    monkeypatch.setattr(memory, "release_freed_memory", lambda: calls.append(True))
    releaser = memory.MemoryReleaser(every=3)
    for _ in range(7):
        releaser.step()
    assert len(calls) == 2
    with pytest.raises(ValueError, match="at least 1"):
        memory.MemoryReleaser(every=0)


def test_kernel_caches_are_bounded_unless_already_set(monkeypatch):
    for name in memory.KERNEL_CACHE_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LRU_CACHE_CAPACITY", "7")  # someone's own choice stays
    assert memory.limit_kernel_caches(32) == {"ONEDNN_PRIMITIVE_CACHE_CAPACITY": "32", "LRU_CACHE_CAPACITY": "7"}
    with pytest.raises(ValueError, match="at least 1"):
        memory.limit_kernel_caches(0)
