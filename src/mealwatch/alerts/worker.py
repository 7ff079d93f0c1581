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
import time

from ..background import Worker
from ..log import StoreError
from .engine import AlertEngine

log = logging.getLogger("mealwatch.alerts")

#: the most complaints checked together (a larger backlog is worked off in turns)
BATCH = 5000
#: seconds between two looks for checks another server (or an earlier run) left due
POLL_S = 30.0
#: seconds before a check that failed (the log unreachable) is tried again
RETRY_S = 5.0


class AlertWorker(Worker):
    """Checks the alert rules of ``engine`` for the complaints marked due, on its own thread (``start``: it first
    checks what an earlier run left due; ``background.Worker``: ``poke``, ``wait``, ``close`` — what a close leaves
    stays due in the log)."""

    thread_name = "mealwatch-alert-checks"
    wait_s = 2.0
    close_s = 5.0

    def __init__(self, engine: AlertEngine, *, poll_s: float = POLL_S, retry_s: float = RETRY_S) -> None:
        super().__init__(poll_s=poll_s, retry_s=retry_s)
        self.engine = engine

    @property
    def rules(self):
        return self.engine.rules

    def work(self) -> bool:
        """Every check due worked off, ``BATCH`` complaints at a time (cut short by ``close`` between two places:
        the marks stay for the next start)."""
        store = self.engine.store
        while not self.stopping.is_set():
            due = store.alert_checks_due(BATCH)
            if not due.complaint_ids:
                return False
            t0 = time.perf_counter()
            self.engine.check(due.complaint_ids, stop=self.stopping)
            if self.stopping.is_set():
                return False  # cut short: the marks stay for the next start
            store.alert_checks_done(due)
            n, seconds = len(due.complaint_ids), time.perf_counter() - t0
            log.info("alert rules checked for %d complaints in %.2f s", n, seconds)
        return False

    def failed(self, error: Exception) -> None:  # the log unreachable, a full disk: the marks stay
        if isinstance(error, StoreError):  # says what is wrong in one line
            log.warning("the alert check failed (%s); it is tried again in %.0f s", error, self.retry_s)
        else:
            log.error("the alert check failed; it is tried again in %.0f s", self.retry_s, exc_info=error)
