"""The model behind the service: loaded once, run by one worker thread that batches requests.

Requests from many HTTP threads are queued; the worker takes what is waiting (up to
``max_batch`` texts) and runs it as one batch, so concurrent clients share forward passes.
It waits for nobody (``max_wait_s`` = 0 by default): a lone request runs at once, and under
load the requests that arrive while a batch runs form the next one.
Classification holds one lock, because the tokenizer and the model are not meant to be driven by
several threads at once. The slow work — integrated gradients, attention maps, the attention page's
explanation — goes to the ``Explainer`` (explainer.py): its own queue, thread and copy of the model,
with a work budget, a time limit and cancelling, so that it never holds up a classification.

The service only queues and batches: predictions come from ``mealwatch.pipeline.Pipeline`` and
per-word importance from ``mealwatch.explain.attribute`` (``grad``, the fast default, or ``ig``).
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..explain.methods import attribute
from ..explain.scores import WordScores
from ..pipeline import Pipeline, Prediction
from .explainer import Explainer, ExplainJob, check_ig_budget

IMPORTANCE_METHODS = ("none", "grad", "ig")


@dataclass
class Classified:
    prediction: Prediction
    importance: WordScores | None = None


@dataclass
class _Job:
    texts: list[str]
    importance: str
    future: Future = field(default_factory=Future)


def model_version(model_dir: str | Path) -> str:
    """The run folder's name and the first 12 hex digits of its weights' SHA-256: ``20250131-142530-3f2a9c1b0d4e``."""
    folder = Path(model_dir)
    digest = hashlib.sha256()
    with open(folder / "model.safetensors", "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return f"{folder.resolve().name}-{digest.hexdigest()[:12]}"


class Predictor:
    """Classifies texts with one loaded pipeline; thread-safe; concurrent calls are batched together.

    The model is only ever run, never trained: its parameters are frozen (``requires_grad``
    off), so gradients for per-word importance flow to the inputs alone.
    """

    def __init__(self, pipeline: Pipeline, version: str, max_batch: int = 32, max_wait_s: float = 0.0) -> None:
        pipeline.model.eval().requires_grad_(False)
        self.pipeline = pipeline
        self.version = version
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self._lock = threading.Lock()
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._worker = threading.Thread(target=self._serve, name="mealwatch-predictor", daemon=True)
        self._worker.start()
        self.explainer = Explainer(pipeline)  # the slow work: its own thread, queue and copy of the model

    @classmethod
    def load(cls, model_dir: str | Path, *, speed: dict[str, Any] | None = None, **kwargs: Any) -> "Predictor":
        """The model in ``model_dir``, run as ``speed`` says (``Pipeline.from_folder``'s precision and compile)."""
        return cls(Pipeline.from_folder(model_dir, **(speed or {})), model_version(model_dir), **kwargs)

    @property
    def labels(self) -> list[str]:
        return self.pipeline.labels

    def close(self) -> None:
        self.explainer.close()
        self._queue.put(None)
        self._worker.join(timeout=10)

    def classify(self, texts: Sequence[str], importance: str = "none", steps: int = 50) -> list[Classified]:
        """Labels, probabilities and urgency per text, with per-word importance by ``importance``, in input order."""
        if importance not in IMPORTANCE_METHODS:
            raise ValueError(f"importance must be one of {', '.join(IMPORTANCE_METHODS)}, not {importance!r}")
        if not texts:
            return []
        if importance == "ig":
            return self.start_ig(texts, steps).future.result()
        job = _Job(list(texts), importance)
        self._queue.put(job)
        return job.future.result()

    # --- the slow work, on the explainer's worker and its copy of the model ------------------------

    def start_ig(self, texts: Sequence[str], steps: int = 50) -> ExplainJob:
        """Queue classification with integrated gradients (``classify(..., "ig")``); the job raises TooCostly
        when the texts and steps are over the work budget."""
        texts = list(texts)

        def run(pipeline: Pipeline) -> list[Classified]:
            predictions = pipeline.predict(texts)
            batch = pipeline.tokenize(texts)
            check_ig_budget(steps, [len(t) for t in batch.tokens], [len(p.labels) for p in predictions])
            scores = attribute(pipeline, texts, [p.labels for p in predictions], "ig", steps)
            return [Classified(p, s) for p, s in zip(predictions, scores)]

        return self.explainer.submit(run, "integrated-gradients explanation")

    def start_attention(self, text: str, include_special: bool = True) -> ExplainJob:
        """Queue the word-level attention of every layer and head, over the pieces a prediction reads."""
        return self.explainer.submit(lambda pipeline: pipeline.word_attention(text, include_special), "attention map")

    def start_explanation(self, text: str, steps: int = 50) -> ExplainJob:
        """Queue integrated gradients and attention rollout for one text (``mealwatch.explain.explain``)."""
        from ..explain import explain

        def run(pipeline: Pipeline):
            predictions = pipeline.predict([text])
            batch = pipeline.tokenize([text])
            check_ig_budget(steps, [len(batch.tokens[0])], [len(predictions[0].labels)])
            return explain(pipeline, text, steps=steps)

        return self.explainer.submit(run, "explanation")

    def attention(self, text: str, include_special: bool = True):
        """``start_attention``, waited for."""
        return self.start_attention(text, include_special).future.result()

    # --- the worker -------------------------------------------------------------------------------

    def _serve(self) -> None:
        try:  # warm up in this thread (its thread pool, the allocator), so the first request is not the slow one
            with self._lock:
                self._importance_batches(["warm up"])
        except Exception as e:  # noqa: BLE001 - a real request will meet (and report) the same failure
            logging.getLogger("mealwatch.serve").warning("the model's warm-up run failed: %s", e)
        while True:
            job = self._queue.get()
            if job is None:
                return
            jobs, n = [job], len(job.texts)
            while n < self.max_batch:  # gather what else is waiting, or arrives within max_wait_s
                try:
                    more = self._queue.get(timeout=self.max_wait_s) if self.max_wait_s > 0 else self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                jobs.append(more)
                n += len(more.texts)
            for method in ("none", "grad"):
                group = [j for j in jobs if j.importance == method]
                if group:
                    self._run(group, method)

    def _run(self, jobs: list[_Job], method: str) -> None:
        texts = [t for j in jobs for t in j.texts]
        try:
            with self._lock:
                if method == "grad":
                    results = self._importance_batches(texts)
                else:
                    results = [Classified(p) for p in self.pipeline.predict(texts, batch_size=self.max_batch)]
        except BaseException as e:  # hand the failure to every waiting caller; the worker lives on
            for j in jobs:
                j.future.set_exception(e)
            return
        start = 0
        for j in jobs:
            j.future.set_result(results[start : start + len(j.texts)])
            start += len(j.texts)

    def _importance_batches(self, texts: list[str]) -> list[Classified]:
        """Predictions and their gradient × input, batched so that no text pays for another's extra labels.

        The backward pass of a batch costs (batch size) × (most labels of any text in it), so the
        texts are first classified, then explained in groups with the same number of labels.
        """
        predictions = self.pipeline.predict(texts, batch_size=self.max_batch)
        results: list[Classified | None] = [None] * len(texts)
        for k in sorted({len(p.labels) for p in predictions}):
            group = [i for i, p in enumerate(predictions) if len(p.labels) == k]
            for start in range(0, len(group), self.max_batch):
                chunk = group[start : start + self.max_batch]
                scores = attribute(
                    self.pipeline, [texts[i] for i in chunk], [predictions[i].labels for i in chunk], "grad"
                )
                for i, s in zip(chunk, scores):
                    results[i] = Classified(predictions[i], s)
        return results  # type: ignore[return-value]

    def explanation(self, text: str, steps: int = 50):
        """``start_explanation``, waited for."""
        return self.start_explanation(text, steps).future.result()
