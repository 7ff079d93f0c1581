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


class SearchWorker:
    """Runs ``search``'s embedding, placing and index catch-up on its own thread (``start``)."""

    def __init__(
        self,
        search: Search,
        *,
        poll_s: float = POLL_S,
        pause_s: float = PAUSE_S,
        on_signals: Callable[[], object] | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        self.search = search
        self.poll_s, self.pause_s, self.on_signals, self.busy = poll_s, pause_s, on_signals, busy
        self._wake, self._stop = threading.Event(), threading.Event()
        self._state = threading.Condition()
        self._asked = self._done = 0
        self.failures = 0
        self._thread: threading.Thread | None = None

    def start(self) -> SearchWorker:
        self._thread = threading.Thread(target=self._run, name="mealwatch-search", daemon=True)
        self._thread.start()
        return self

    def poke(self) -> int:
        """Say that complaints were saved; a ticket for ``wait``."""
        with self._state:
            self._asked += 1
            ticket = self._asked
        self._wake.set()
        return ticket

    def wait(self, ticket: int | None = None, timeout: float = 5.0) -> bool:
        """Wait until the saves of ``ticket`` (default: every poke so far) are embedded, placed and indexed."""
        with self._state:
            target = self._asked if ticket is None else ticket
            return self._state.wait_for(lambda: self._done >= target, timeout)

    def close(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        lower_this_thread()  # before the first embedding starts the thread's pool of model threads
        while not self._stop.is_set():
            with self._state:
                target = self._asked
            try:
                while self.search.catch_up() and not self._stop.is_set():
                    pass  # a fresh index reads the whole log first
                if self.search.index.needs_training():
                    self.search.index.train()  # the approximate index, off the request path
                more = self._batch()
                self.search.catch_up()
            except Exception:  # the log unreachable: tried again shortly
                self.failures += 1
                log.exception("the search worker failed; it tries again in %.0f s", RETRY_S)
                self._wake.wait(RETRY_S)
                self._wake.clear()
                continue
            if not self.search.progress.last_was_fresh:  # every save before the poke is embedded and indexed
                with self._state:
                    self._done = max(self._done, target)
                    self._state.notify_all()
            if more:
                self._stop.wait(self.pause_s)
                continue
            self._wake.wait(self.poll_s)
            self._wake.clear()

    def _batch(self) -> bool:
        """One batch embedded (whether there was one); the alert worker told when signals may have changed."""
        if self.busy is not None:
            deadline = time.monotonic() + MAX_DEFER_S
            while self.busy() and time.monotonic() < deadline and not self._stop.is_set():
                self._stop.wait(0.05)
        before = self.search.progress.embedded
        done = self.search.embed_due()
        if done and self.on_signals is not None:
            self.on_signals()
        return self.search.progress.embedded > before
