"""Gathers the texts of concurrent classification requests into single passes through the model.

One worker thread runs every pass, so the model runs one pass at a time. A request's texts wait:

- **a bounded time**: a pass starts when the oldest waiting text has waited ``max_wait_s``, or sooner when
  the texts waiting would fill a pass already; a request that arrives while a pass runs has usually waited
  long enough by the time it ends, and goes into the next pass at once;
- **for a bounded pass**: a pass holds at most ``max_tokens`` padded tokens (its texts × its longest text's
  word pieces: what a padded batch costs) and at most ``max_texts`` texts. Waiting requests take turns, one
  text each, oldest request first, each request's texts shortest first; a text that would lift the pass over
  its budget is left for the next pass, and a shorter one may take its place, so texts of similar length tend
  to share a pass. The first text of a pass always runs, however long;
- **in a bounded queue**: more than ``max_waiting`` texts waiting, and a new request is refused at once
  (``Overloaded``: the service answers 503 with ``Retry-After``) instead of waiting without end.

A request whose client went away (``BatchJob.cancel``) before its first pass is dropped: none of its texts
reaches the model. The batcher only gathers texts and hands results back: ``run(texts)`` (the pipeline's batch
prediction, one call per pass) gives one result per text, and ``lengths(texts)`` says how many word pieces the
model reads of each.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

#: the default most seconds the oldest waiting text waits for others to share its pass
MAX_WAIT_S = 0.005
#: the default most padded tokens (texts × longest text's word pieces) in one pass
MAX_TOKENS = 2048
#: the default most texts in one pass
MAX_TEXTS = 64
#: the default most texts waiting; one more request is refused (a CSV upload of 2,000 rows fits twice)
MAX_WAITING = 4096
#: seconds a refused client is asked to wait before it tries again
RETRY_AFTER_S = 5

log = logging.getLogger("mealwatch.serve")


class Overloaded(Exception):
    """Too many texts are waiting for the model; the request was refused before it was queued."""

    retry_after_s = RETRY_AFTER_S


@dataclass
class Pass:
    """One pass through the model: which texts ran, and their padded cost."""

    texts: list[str]
    lengths: list[int]
    seconds: float = 0.0  # wall time of the model's call

    @property
    def padded_tokens(self) -> int:
        return len(self.texts) * max(self.lengths, default=0)


@dataclass
class BatchJob:
    """One request's texts; ``future`` gets their results in input order."""

    texts: list[str]
    name: str = "classification"
    future: Future = field(default_factory=Future)
    arrived: float = field(default_factory=time.monotonic)
    lengths: list[int] = field(default_factory=list)  # word pieces per text, set by the worker
    order: deque = field(default_factory=deque)  # indices of the texts still to run, shortest first
    results: dict[int, Any] = field(default_factory=dict)
    started: bool = False  # a pass has taken some of its texts: it can no longer be dropped
    counted: int = 0  # its texts counted as waiting

    def cancel(self) -> bool:
        """Drop the request if none of its texts has run yet (its client went away); True when dropped."""
        return self.future.cancel()


class Batcher:
    """The queue and worker thread that run texts from many requests in shared passes (module docstring)."""

    def __init__(
        self,
        run: Callable[[list[str]], Sequence[Any]],
        lengths: Callable[[list[str]], list[int]],
        *,
        max_wait_s: float = MAX_WAIT_S,
        max_tokens: int = MAX_TOKENS,
        max_texts: int = MAX_TEXTS,
        max_waiting: int = MAX_WAITING,
        on_pass: Callable[[Pass], None] | None = None,
    ) -> None:
        if max_wait_s < 0 or max_tokens < 1 or max_texts < 1 or max_waiting < 1:
            raise ValueError("max_wait_s must be at least 0, and max_tokens, max_texts and max_waiting at least 1")
        self._run, self._lengths = run, lengths
        self.max_wait_s, self.max_tokens = max_wait_s, max_tokens
        self.max_texts, self.max_waiting = max_texts, max_waiting
        self._on_pass = on_pass
        self._incoming: deque[BatchJob] = deque()
        self._waiting_texts = 0  # texts submitted and not yet run (or dropped)
        self._cond = threading.Condition()
        self._closed = False
        self._passing = False  # a pass is running
        self._last_pass = time.monotonic()  # when the last pass ended
        self._worker = threading.Thread(target=self._serve, name="mealwatch-batcher", daemon=True)
        self._worker.start()

    @property
    def waiting(self) -> int:
        """Texts submitted and not yet run."""
        with self._cond:
            return self._waiting_texts

    def idle_for(self) -> float:
        """Seconds since the model last worked: 0 while a pass runs or texts wait (background work yields to it)."""
        with self._cond:
            if self._waiting_texts or self._passing:
                return 0.0
            return time.monotonic() - self._last_pass

    def submit(self, texts: Sequence[str], name: str = "classification") -> BatchJob:
        """Queue the texts; Overloaded when more than ``max_waiting`` texts would be waiting."""
        job = BatchJob(list(texts), name)
        if not job.texts:
            job.future.set_result([])
            return job
        with self._cond:
            if self._closed:
                raise Overloaded("the service is stopping: try again in a moment")
            if self._waiting_texts and self._waiting_texts + len(job.texts) > self.max_waiting:
                n = self._waiting_texts
                raise Overloaded(
                    f"{n:,} complaint{' is' if n == 1 else 's are'} waiting for the model already (the limit is "
                    f"{self.max_waiting:,}): try again in {RETRY_AFTER_S} seconds"
                )
            self._waiting_texts += len(job.texts)
            job.counted = len(job.texts)
            self._incoming.append(job)
            self._cond.notify()
        return job

    def close(self) -> None:
        """Stop the worker; requests still waiting get Overloaded."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._worker.join(timeout=10)

    # --- the worker -------------------------------------------------------------------------------

    def _serve(self) -> None:
        pending: list[BatchJob] = []
        while True:
            with self._cond:
                while not self._incoming and not pending and not self._closed:
                    self._cond.wait()
                if self._closed:
                    stopped = [*pending, *self._incoming]
                    self._incoming.clear()
                    break
                arrived = list(self._incoming)
                self._incoming.clear()
            self._measure(arrived)
            pending += arrived
            pending = self._without_dropped(pending)
            if not pending:
                continue
            deadline = min(job.arrived for job in pending) + self.max_wait_s
            if not self._full(pending) and time.monotonic() < deadline:
                self._wait_for_more(deadline)
                continue  # take what arrived, then decide again (the deadline has not moved)
            self._run_pass(self._choose(pending))
            pending = self._without_dropped(pending)
        for job in stopped:
            self._forget(job, job.counted)
            if not job.future.done() and (job.started or job.future.set_running_or_notify_cancel()):
                job.future.set_exception(Overloaded("the service is stopping: try again in a moment"))

    def _pass_ended(self) -> None:
        with self._cond:
            self._passing, self._last_pass = False, time.monotonic()

    def _wait_for_more(self, deadline: float) -> None:
        with self._cond:
            if not self._incoming and not self._closed:
                self._cond.wait(timeout=max(0.0, deadline - time.monotonic()))

    def _measure(self, jobs: list[BatchJob]) -> None:
        """Each new job's word pieces per text, and its texts in order of length."""
        for job in jobs:
            if job.future.cancelled():
                continue
            try:
                job.lengths = list(self._lengths(job.texts))
            except BaseException as e:  # noqa: BLE001 - the request fails, the worker lives on
                self._forget(job, job.counted)
                if job.future.set_running_or_notify_cancel():
                    job.future.set_exception(e)
                continue
            job.order = deque(sorted(range(len(job.texts)), key=lambda i: job.lengths[i]))

    def _without_dropped(self, pending: list[BatchJob]) -> list[BatchJob]:
        kept = []
        for job in pending:
            if not job.future.done():
                kept.append(job)
                continue
            if job.future.cancelled() and job.counted:
                log.info("a %s was dropped before it ran: its client went away", job.name)
            self._forget(job, job.counted)
        return kept

    def _forget(self, job: BatchJob, n: int) -> None:
        """``n`` of the job's texts no longer wait (they ran, or will never run)."""
        with self._cond:
            job.counted -= n
            self._waiting_texts -= n

    def _full(self, pending: list[BatchJob]) -> bool:
        """True when the waiting texts would fill a pass already (no reason to wait for more)."""
        lengths = [job.lengths[i] for job in pending for i in job.order]
        return bool(lengths) and len(lengths) >= self.max_texts or len(lengths) * max(lengths) >= self.max_tokens

    def _choose(self, pending: list[BatchJob]) -> list[tuple[BatchJob, int]]:
        """The next pass: one text per request in turn, oldest request first, within the budget."""
        chosen: list[tuple[BatchJob, int]] = []
        longest = 0
        cursors = {id(job): 0 for job in pending}  # how far into each job's order this pass has looked
        open_jobs = list(pending)
        while open_jobs and len(chosen) < self.max_texts:
            still_open = []
            for job in open_jobs:
                k = cursors[id(job)]
                if k >= len(job.order) or len(chosen) >= self.max_texts:
                    continue
                i = job.order[k]
                n = job.lengths[i]
                if chosen and (len(chosen) + 1) * max(longest, n) > self.max_tokens:
                    continue  # too long for this pass; the job's later texts are longer still
                chosen.append((job, i))
                longest = max(longest, n)
                cursors[id(job)] = k + 1
                still_open.append(job)
            open_jobs = still_open
        return chosen

    def _run_pass(self, chosen: list[tuple[BatchJob, int]]) -> None:
        jobs = list({id(job): job for job, _ in chosen}.values())
        for job in jobs:
            if not job.started:
                job.started = True
                if not job.future.set_running_or_notify_cancel():  # cancelled at the last moment
                    job.started = False
        chosen = [(job, i) for job, i in chosen if job.started]
        for job, i in chosen:
            job.order.remove(i)
            self._forget(job, 1)
        if not chosen:
            return
        texts = [job.texts[i] for job, i in chosen]
        lengths = [job.lengths[i] for job, i in chosen]
        started = time.perf_counter()
        with self._cond:
            self._passing = True
        try:
            results = list(self._run(texts))
            if len(results) != len(texts):
                raise RuntimeError(f"the model gave {len(results)} results for {len(texts)} texts")
        except BaseException as e:  # noqa: BLE001 - every request in the pass gets the failure; the worker lives on
            self._pass_ended()
            for job in {id(job): job for job, _ in chosen}.values():
                self._forget(job, job.counted)
                job.order.clear()
                job.future.set_exception(e)
            return
        self._pass_ended()
        if self._on_pass is not None:
            try:
                self._on_pass(Pass(texts, lengths, time.perf_counter() - started))
            except Exception:  # noqa: BLE001 - an observer's failure is not the requests'
                log.exception("the batcher's on_pass callback failed")
        for (job, i), result in zip(chosen, results):
            job.results[i] = result
        for job in {id(job): job for job, _ in chosen}.values():
            if not job.order:
                job.future.set_result([job.results[i] for i in range(len(job.texts))])
