"""The slow model work — integrated gradients, attention maps, the attention page's explanation — in a queue
and a thread of its own, on a copy of the model, so that it never delays classification.

Every job has a bounded cost and can be stopped:

- **a work budget**: integrated gradients cost (steps + 1) interpolation points × word pieces × labels
  explained, each a forward and backward pass; a request over ``MAX_IG_WORK`` is refused before it runs
  (``TooCostly``, a 422 that says how many steps the text allows);
- **a time limit**: a job still running after ``TIME_LIMIT_S`` is stopped (``Stopped``, a 503);
- **cancelling**: ``ExplainJob.cancel()`` (the service calls it when the client goes away) stops the job at
  its next pass through the model;
- **a short queue**: at most ``MAX_WAITING`` jobs wait; one more is refused at once (``Busy``, a 503).

The copy of the model runs in this worker only, and every pass through it first checks the running job's
cancel flag and deadline (a forward pre-hook), so a job stops within one batch of interpolation points.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from ..pipeline import Pipeline

#: the most (steps + 1) × word pieces × labels one request's integrated gradients may cost
MAX_IG_WORK = 65_536  # the default 50 steps on a full-length text with every one of 10 labels fits
#: seconds a job may run before it is stopped
TIME_LIMIT_S = 60.0
#: jobs that may wait for the worker; one more is refused
MAX_WAITING = 8

log = logging.getLogger("mealwatch.serve")


class Stopped(Exception):
    """The job was cancelled (its client left) or ran out of time; the message says which."""


class Busy(Exception):
    """Too many explanations are waiting."""


class TooCostly(ValueError):
    """The explanation asked for is over the work budget; the message says what fits."""


class ClientGone(Exception):
    """The client closed its connection while its explanation was waiting or running (the job was cancelled)."""


@dataclass
class ExplainJob:
    """One piece of slow work: ``run(pipeline)`` on the worker's copy of the model."""

    run: Callable[[Pipeline], Any]
    name: str
    future: Future = field(default_factory=Future)
    cancelled: threading.Event = field(default_factory=threading.Event)
    deadline: float = 0.0
    passes: int = 0  # passes through the model so far

    def cancel(self) -> None:
        """Stop the job at its next pass through the model (or before it starts)."""
        self.cancelled.set()


def ig_work(steps: int, pieces: list[int], labels: list[int]) -> int:
    """What integrated gradients over texts of ``pieces`` word pieces, explaining ``labels`` labels each, cost."""
    return sum((steps + 1) * p * max(1, k) for p, k in zip(pieces, labels))


def check_ig_budget(steps: int, pieces: list[int], labels: list[int]) -> None:
    """TooCostly when the request is over ``MAX_IG_WORK``, saying how many steps would fit."""
    work = ig_work(steps, pieces, labels)
    if work <= MAX_IG_WORK:
        return
    per_step = sum(p * max(1, k) for p, k in zip(pieces, labels))
    fits = MAX_IG_WORK // per_step - 1
    what = f"{len(pieces)} texts" if len(pieces) > 1 else f"this text ({pieces[0]} word pieces, {labels[0]} labels)"
    advice = f"ask for at most {fits} steps" if fits >= 1 else "send fewer or shorter texts"
    raise TooCostly(
        f"integrated gradients with {steps} steps on {what} would cost {work:,} units of work; the limit is "
        f"{MAX_IG_WORK:,} ((steps + 1) × word pieces × labels): {advice}, or use explain='grad'"
    )


class Explainer:
    """The worker thread for explanations; its own copy of the model, its own queue."""

    def __init__(self, pipeline: Pipeline, time_limit_s: float = TIME_LIMIT_S, max_waiting: int = MAX_WAITING) -> None:
        self.pipeline = copy.deepcopy(pipeline)
        self.time_limit_s = time_limit_s
        self._queue: queue.Queue[ExplainJob | None] = queue.Queue(maxsize=max_waiting)
        self._current: ExplainJob | None = None
        self.pipeline.before_each_pass(self._check)  # every pass, the classifier's and attention's
        self._worker = threading.Thread(target=self._serve, name="mealwatch-explainer", daemon=True)
        self._worker.start()

    def submit(self, run: Callable[[Pipeline], Any], name: str) -> ExplainJob:
        """Queue ``run``; Busy when ``MAX_WAITING`` jobs are waiting already."""
        job = ExplainJob(run, name)
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            raise Busy(
                f"{self._queue.maxsize} explanations are waiting already: try again in a minute, or use explain='grad'"
            ) from None
        return job

    def close(self) -> None:
        if self._current is not None:
            self._current.cancel()
        while True:  # stop the jobs still waiting, then the worker
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if job is not None and job.future.set_running_or_notify_cancel():
                job.future.set_exception(Stopped("the service is stopping"))
        self._queue.put(None)
        self._worker.join(timeout=10)

    def _check(self, module: Any, args: Any) -> None:
        job = self._current
        if job is None:
            return
        job.passes += 1
        if job.cancelled.is_set():
            raise Stopped(f"the {job.name} was cancelled: its client went away")
        if time.monotonic() > job.deadline:
            raise Stopped(
                f"the {job.name} took longer than {self.time_limit_s:.0f} s and was stopped: ask for fewer steps or "
                "a shorter text, or use explain='grad'"
            )

    def _serve(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            if not job.future.set_running_or_notify_cancel():
                continue  # its future was cancelled: nobody waits for it
            if job.cancelled.is_set():
                job.future.set_exception(Stopped(f"the {job.name} was cancelled before it started"))
                continue
            job.deadline = time.monotonic() + self.time_limit_s
            self._current = job
            try:
                result = job.run(self.pipeline)
            except BaseException as e:  # noqa: BLE001 - every failure goes to the waiting caller; the worker lives on
                if isinstance(e, Stopped):
                    log.info("%s", e)
                job.future.set_exception(e)
            else:
                job.future.set_result(result)
            finally:
                self._current = None


#: seconds between two checks that the client of a waiting explanation is still connected
POLL_S = 0.2


async def outcome(job: Any, request: Any) -> Any:
    """The result of a job (an ``ExplainJob`` or a batcher's ``BatchJob``: a ``future``, a ``name``, ``cancel()``)
    once done; cancels it and raises ClientGone when the client disconnects first."""
    import asyncio

    waiting = asyncio.wrap_future(job.future)
    while True:
        done, _ = await asyncio.wait({waiting}, timeout=POLL_S)
        if done:
            return waiting.result()
        if await request.is_disconnected():
            job.cancel()
            waiting.add_done_callback(lambda f: f.cancelled() or f.exception())  # its end is nobody's to read
            raise ClientGone(f"the client went away; its {job.name} was cancelled")
