"""The search thread yields the cores to the service's requests: it runs at the lowest CPU priority, and the
threads it starts (its model's thread pool) inherit it."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from mealwatch.search.worker import BACKGROUND_NICE, lower_this_thread

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread is Linux's")


def nice_of(thread_id: int) -> int:
    stat = Path(f"/proc/self/task/{thread_id}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[16])  # field 19 of proc(5): nice


def test_the_lowered_thread_and_the_threads_it_starts_run_at_the_lowest_priority():
    seen: dict[str, int] = {}
    own = nice_of(threading.get_native_id())

    def child() -> None:
        seen["child"] = nice_of(threading.get_native_id())

    def background() -> None:
        seen["allowed"] = lower_this_thread()
        seen["self"] = nice_of(threading.get_native_id())
        started = threading.Thread(target=child)
        started.start()
        started.join()

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    assert seen == {"allowed": True, "self": BACKGROUND_NICE, "child": BACKGROUND_NICE}
    assert nice_of(threading.get_native_id()) == own  # the calling thread's own priority is untouched
