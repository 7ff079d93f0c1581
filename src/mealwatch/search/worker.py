"""The search worker: a thread of its own that keeps vectors, the index and incidents in step with the log.

After a save the service ``poke``s it; it then embeds the new complaints (``Search.embed_due``), places them into
incidents, reads every vector written since into the index (``Search.catch_up``), and goes on with the back-fill
of older complaints a batch at a time, pausing ``pause_s`` between batches. Saves keep the cores: the thread runs at
the system's lowest CPU priority (``lower_this_thread``; the thread pool its model work starts inherits it), and
while ``busy()`` says the model has classifications waiting, a batch waits (up to ``MAX_DEFER_S``), so that an
embedding backlog is worked off when the service is quiet. It also looks every ``poll_s`` seconds for what other servers
wrote. A complaint whose signals changed has its alert check marked due by the log; ``on_signals`` (the alert
worker's ``poke``) is then called.
``wait`` lets a reader see the work of the saves made before it; ``close`` stops the thread between batches.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from ..background import Worker
from .engine import Search

log = logging.getLogger("mealwatch.search")

POLL_S = 5.0
RETRY_S = 5.0
#: seconds between two back-fill batches
PAUSE_S = 0.2
#: the longest a batch waits for the model to be idle (under a steady load the backlog grows meanwhile, and is
#: worked off a batch at a time)
MAX_DEFER_S = 20.0
#: the search thread's nice value: the lowest priority, so that the service's requests take the cores first
BACKGROUND_NICE = 19


def lower_this_thread(nice: int = BACKGROUND_NICE) -> bool:
    """Give the calling thread the CPU priority ``nice`` (threads it starts from then on inherit it); whether
    the system allowed it (Linux sets a nice value per thread; elsewhere this does nothing)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except (OSError, AttributeError) as e:  # not Linux, or refused
        log.info("the search thread keeps the service's CPU priority (%s)", e)
        return False
    return True


class SearchWorker(Worker):
    """Runs ``search``'s embedding, placing and index catch-up on its own thread (``start``; ``background.Worker``:
    ``poke``, ``wait``, ``close``)."""

    thread_name = "mealwatch-search"
    wait_s = 5.0
    close_s = 10.0

    def __init__(
        self,
        search: Search,
        *,
        poll_s: float = POLL_S,
        pause_s: float = PAUSE_S,
        on_signals: Callable[[], object] | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(poll_s=poll_s, retry_s=RETRY_S, pause_s=pause_s)
        self.search = search
        self.on_signals, self.busy = on_signals, busy

    def starting(self) -> None:
        lower_this_thread()  # before the first embedding starts the thread's pool of model threads

    def work(self) -> bool:
        """The index caught up with the log (trained when it needs to be), then one batch embedded and placed;
        whether there was one."""
        while self.search.catch_up() and not self.stopping.is_set():
            pass  # a fresh index reads the whole log first
        if self.search.index.needs_training():
            self.search.index.train()  # the approximate index, off the request path
        more = self._batch()
        self.search.catch_up()
        return more

    def caught_up(self) -> bool:
        return not self.search.progress.last_was_fresh  # every save before the poke is embedded and indexed

    def failed(self, error: Exception) -> None:  # the log unreachable: tried again shortly
        log.error("the search worker failed; it tries again in %.0f s", self.retry_s, exc_info=error)

    def _batch(self) -> bool:
        """One batch embedded (whether there was one); the alert worker told when signals may have changed."""
        if self.busy is not None:
            deadline = time.monotonic() + MAX_DEFER_S
            while self.busy() and time.monotonic() < deadline and not self.stopping.is_set():
                self.stopping.wait(0.05)
        before = self.search.progress.embedded
        done = self.search.embed_due()
        if done and self.on_signals is not None:
            self.on_signals()
        return self.search.progress.embedded > before
