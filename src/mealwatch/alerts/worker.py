"""The alert check off the response path: a thread of its own works off the complaints whose check is due.

A save (or a correction) marks its complaints in the same transaction (``ComplaintLog.alert_checks_due``), then
``poke``s the worker, which checks them together (``AlertEngine.check``) and clears the mark. The mark lives in
the log, so a check cut short — a crash, a stop, a database outage — is done at the next start (or by another
server on the same PostgreSQL log); nothing is checked by a request, and a retried request checks nothing again.
``wait`` lets a reader see the alerts of the saves made before it (``GET /api/alerts`` waits a little for them).
``close`` stops the thread between two places, within a second or two however large the check.
"""

from __future__ import annotations

import logging
import threading
import time

from ..log import StoreError
from .engine import AlertEngine

log = logging.getLogger("mealwatch.alerts")

#: the most complaints checked together (a larger backlog is worked off in turns)
BATCH = 5000
#: seconds between two looks for checks another server (or an earlier run) left due
POLL_S = 30.0
#: seconds before a check that failed (the log unreachable) is tried again
RETRY_S = 5.0


class AlertWorker:
    """Checks the alert rules of ``engine`` for the complaints marked due, on its own thread (``start``)."""

    def __init__(self, engine: AlertEngine, *, poll_s: float = POLL_S, retry_s: float = RETRY_S) -> None:
        self.engine = engine
        self.poll_s, self.retry_s = poll_s, retry_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._state = threading.Condition()
        self._asked = 0  # pokes so far
        self._done = 0  # pokes whose complaints have been checked
        self.failures = 0
        self._thread: threading.Thread | None = None

    @property
    def rules(self):
        return self.engine.rules

    def start(self) -> AlertWorker:
        """Start the thread; it first checks what an earlier run left due."""
        self._thread = threading.Thread(target=self._run, name="mealwatch-alert-checks", daemon=True)
        self._thread.start()
        return self

    def poke(self) -> int:
        """Say that complaints were marked due (after their transaction committed); a ticket for ``wait``."""
        with self._state:
            self._asked += 1
            ticket = self._asked
        self._wake.set()
        return ticket

    def wait(self, ticket: int | None = None, timeout: float = 2.0) -> bool:
        """Wait until the complaints of ``ticket`` (default: every poke so far) have been checked; whether they
        were within ``timeout`` seconds."""
        with self._state:
            target = self._asked if ticket is None else ticket
            return self._state.wait_for(lambda: self._done >= target, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread (between two places of a check); what is left stays due in the log."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._state:
                target = self._asked
            try:
                self._work_off()
            except Exception as e:  # the log unreachable, a full disk: the marks stay, tried again shortly
                self.failures += 1
                if isinstance(e, StoreError):  # says what is wrong in one line
                    log.warning("the alert check failed (%s); it is tried again in %.0f s", e, self.retry_s)
                else:
                    log.exception("the alert check failed; it is tried again in %.0f s", self.retry_s)
                self._wake.wait(self.retry_s)
                self._wake.clear()
                continue
            with self._state:
                self._done = max(self._done, target)
                self._state.notify_all()
            self._wake.wait(self.poll_s)
            self._wake.clear()

    def _work_off(self) -> None:
        store = self.engine.store
        while not self._stop.is_set():
            due = store.alert_checks_due(BATCH)
            if not due.complaint_ids:
                return
            t0 = time.perf_counter()
            self.engine.check(due.complaint_ids, stop=self._stop)
            if self._stop.is_set():
                return  # cut short: the marks stay for the next start
            store.alert_checks_done(due)
            n, seconds = len(due.complaint_ids), time.perf_counter() - t0
            log.info("alert rules checked for %d complaints in %.2f s", n, seconds)
