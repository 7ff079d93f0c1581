"""A worker off the response path: a thread of its own that works when ``poke``d (after a save's transaction
committed) and every ``poll_s`` seconds, with a ticket per poke that a reader can ``wait`` for.

A subclass says what one round of work is (``work``: whether more waits at once, worked after ``pause_s``), whether
a round that ended has caught up with the pokes made before it (``caught_up``), and how a failed round is reported
(``failed``: the round is tried again after ``retry_s``, and counted in ``failures``), and, if it must, how the thread
is set up on it before its first round (``starting``). ``close`` stops the thread between rounds; a long round
watches ``stopping`` itself.
"""

from __future__ import annotations

import threading


class Worker:
    """One background thread (``start``), woken by ``poke``, whose rounds of ``work`` a reader can ``wait`` for."""

    #: the thread's name
    thread_name = "mealwatch-worker"
    #: seconds ``wait`` and ``close`` give the thread by default
    wait_s = 5.0
    close_s = 5.0

    def __init__(self, *, poll_s: float, retry_s: float, pause_s: float = 0.0) -> None:
        self.poll_s, self.retry_s, self.pause_s = poll_s, retry_s, pause_s
        self.stopping = threading.Event()  # set by ``close``: a long round ends at its next step
        self.failures = 0  # rounds that failed (each tried again after ``retry_s``)
        self._wake = threading.Event()
        self._state = threading.Condition()
        self._asked = 0  # pokes so far
        self._done = 0  # pokes whose work is done
        self._thread: threading.Thread | None = None

    def starting(self) -> None:
        """Set up the thread itself, on it, before its first round (its priority, say)."""

    def work(self) -> bool:
        """One round of work; whether more waits at once (worked after ``pause_s``, without waiting for a poke)."""
        raise NotImplementedError

    def caught_up(self) -> bool:
        """Whether the round that just ended did the work of every poke made before it began."""
        return True

    def failed(self, error: Exception) -> None:
        """Report a round that raised ``error`` (it is tried again after ``retry_s``)."""
        raise NotImplementedError

    def start(self) -> Worker:
        """Start the thread; its first round begins at once."""
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def poke(self) -> int:
        """Say that there is work (after its transaction committed); a ticket for ``wait``."""
        with self._state:
            self._asked += 1
            ticket = self._asked
        self._wake.set()
        return ticket

    def wait(self, ticket: int | None = None, timeout: float | None = None) -> bool:
        """Wait until the work of ``ticket`` (default: every poke so far) is done; whether it was within ``timeout``
        seconds (default ``wait_s``)."""
        with self._state:
            target = self._asked if ticket is None else ticket
            return self._state.wait_for(lambda: self._done >= target, self.wait_s if timeout is None else timeout)

    def close(self, timeout: float | None = None) -> None:
        """Stop the thread between two rounds (or where a round watches ``stopping``); waits ``timeout`` seconds
        (default ``close_s``) for it."""
        self.stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(self.close_s if timeout is None else timeout)

    def _run(self) -> None:
        self.starting()
        while not self.stopping.is_set():
            with self._state:
                target = self._asked
            try:
                more = self.work()
            except Exception as e:
                self.failures += 1
                self.failed(e)
                self._rest(self.retry_s)
                continue
            if self.caught_up():
                with self._state:
                    self._done = max(self._done, target)
                    self._state.notify_all()
            if more:
                self.stopping.wait(self.pause_s)
                continue
            self._rest(self.poll_s)

    def _rest(self, seconds: float) -> None:
        """Sleep until poked (or closed), at most ``seconds``."""
        self._wake.wait(seconds)
        self._wake.clear()
