"""The model behind the service: loaded once; classification batched across requests, the slow work on its own.

Classification goes through the ``Batcher`` (batcher.py): the texts of concurrent requests wait a few
milliseconds at most and share passes through the model, bounded by a token budget, one pass at a time,
each pass one call of the pipeline's batch prediction. Per-word importance by gradient × input, when a
request asks for it, needs a backward pass and runs after its prediction, outside the shared pass, in
chunks of at most ``GRAD_CHUNK`` texts that take turns with the passes (one lock: one use of the model at
a time). The slow work — integrated gradients, attention maps, the attention page's explanation — goes
to the ``Explainer`` (explainer.py): its own queue, thread and copy of the model, with a work budget, a
time limit and cancelling, so that it never holds up a classification.

The service only queues and batches: predictions come from ``mealwatch.pipeline.Pipeline`` and
per-word importance from ``mealwatch.explain.attribute`` (``grad``, or ``ig``).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..checksums import model_version
from ..explain.registry import attribute
from ..explain.word_scores import WordScores
from ..inference.batches import padded_positions
from ..pipeline import Pipeline, Prediction
from .batcher import MAX_TEXTS, MAX_TOKENS, MAX_WAIT_S, MAX_WAITING, Batcher, BatchJob, Pass
from .explainer import Explainer, ExplainJob, check_ig_budget

IMPORTANCE_METHODS = ("none", "grad", "ig", "why")
#: the methods that run on the explainer's queue (integrated gradients: (steps + 1) passes through the model)
SLOW_METHODS = ("ig", "why")
#: the most texts one backward pass for gradient × input takes (it holds the model that long)
GRAD_CHUNK = 16


@dataclass
class PassCounts:
    """What the shared passes through the model have done since the service started."""

    passes: int = 0
    texts: int = 0
    tokens: int = 0  # word pieces of the texts
    padded_tokens: int = 0  # token positions the model computed: each group of a pass padded to its longest
    model_seconds: float = 0.0  # wall time inside the model's calls

    def to_dict(self) -> dict[str, Any]:
        per_pass = self.texts / self.passes if self.passes else 0.0
        return {"passes": self.passes, "texts": self.texts, "texts_per_pass": round(per_pass, 2), "tokens": self.tokens,
                "padded_tokens": self.padded_tokens, "model_seconds": round(self.model_seconds, 3)}  # fmt: skip


@dataclass
class Classified:
    prediction: Prediction
    importance: WordScores | None = None


class ModelFault(RuntimeError):
    """The model gave no valid probabilities (NaN or infinite): damaged weights; nothing is answered or saved."""


def check_finite(predictions: Sequence[Prediction]) -> None:
    """ModelFault unless every probability of every prediction is a finite number."""
    bad = sum(1 for p in predictions if not all(math.isfinite(v) for v in p.probabilities.values()))
    if bad:
        raise ModelFault(
            f"the model gave no valid probabilities (NaN) for {bad} of {len(predictions)} texts: its weights may be "
            "damaged; nothing was saved"
        )


class Predictor:
    """Classifies texts with one loaded pipeline; thread-safe; concurrent calls share passes through the model.

    The model is only ever run, never trained: its parameters are frozen (``requires_grad``
    off), so gradients for per-word importance flow to the inputs alone. ``max_batch``,
    ``batch_wait_s``, ``batch_tokens`` and ``max_waiting`` bound the passes and the queue (``Batcher``).
    """

    def __init__(
        self,
        pipeline: Pipeline,
        version: str,
        max_batch: int = MAX_TEXTS,
        *,
        batch_wait_s: float = MAX_WAIT_S,
        batch_tokens: int = MAX_TOKENS,
        max_waiting: int = MAX_WAITING,
    ) -> None:
        self.pipeline = pipeline.freeze()
        self.version = version
        self.counts = PassCounts()  # the shared passes so far (the warm-up's included)
        self.fault: str | None = None  # what the last pass found wrong with the model's output (None: nothing)
        self._lock = threading.Lock()  # one use of the model (and its tokenizer) at a time
        self.batcher = Batcher(
            self._predict,
            self._token_counts,
            max_wait_s=batch_wait_s,
            max_tokens=batch_tokens,
            max_texts=max_batch,
            max_waiting=max_waiting,
            on_pass=self._count_pass,
        )
        self.explainer = Explainer(pipeline)  # the slow work: its own thread, queue and copy of the model
        warm_up = self.batcher.submit(["warm up"], "warm-up")  # in the worker's thread: its thread pool, the allocator
        warm_up.future.add_done_callback(_report_warm_up)

    @classmethod
    def load(cls, model_dir: str | Path, *, speed: dict[str, Any] | None = None, **kwargs: Any) -> "Predictor":
        """The model in ``model_dir``, run as ``speed`` says (``Pipeline.from_folder``'s precision and compile)."""
        return cls(Pipeline.from_folder(model_dir, **(speed or {})), model_version(model_dir), **kwargs)

    @property
    def labels(self) -> list[str]:
        return self.pipeline.labels

    def close(self) -> None:
        self.explainer.close()
        self.batcher.close()

    def start_classify(self, texts: Sequence[str]) -> BatchJob:
        """Queue the texts for the shared passes; the job's future gets their ``Prediction`` objects in order.
        Raises ``Overloaded`` when the queue is full; ``job.cancel()`` drops it if it has not run yet."""
        return self.batcher.submit(texts)

    def classify(self, texts: Sequence[str], importance: str = "none", steps: int = 50) -> list[Classified]:
        """Labels, probabilities and urgency per text, with per-word importance by ``importance``, in input order."""
        if importance not in IMPORTANCE_METHODS:
            raise ValueError(f"importance must be one of {', '.join(IMPORTANCE_METHODS)}, not {importance!r}")
        if not texts:
            return []
        if importance in SLOW_METHODS:
            return self.start_ig(texts, steps, importance).future.result()
        predictions = self.start_classify(texts).future.result()
        return self.with_importance(predictions) if importance == "grad" else [Classified(p) for p in predictions]

    def with_importance(self, predictions: Sequence[Prediction]) -> list[Classified]:
        """The predictions with their gradient × input per word, each chunk of texts holding the model in turn.

        The backward pass of a chunk costs (chunk size) × (most labels of any text in it), so the
        texts are explained in groups with the same number of labels.
        """
        results: list[Classified | None] = [None] * len(predictions)
        for k in sorted({len(p.labels) for p in predictions}):
            group = [i for i, p in enumerate(predictions) if len(p.labels) == k]
            for start in range(0, len(group), GRAD_CHUNK):
                chunk = group[start : start + GRAD_CHUNK]
                texts, labels = [predictions[i].text for i in chunk], [predictions[i].labels for i in chunk]
                with self._lock:
                    scores = attribute(self.pipeline, texts, labels, "grad")
                for i, s in zip(chunk, scores):
                    results[i] = Classified(predictions[i], s)
        return results  # type: ignore[return-value]

    def _predict(self, texts: list[str]) -> list[Prediction]:
        with self._lock:
            predictions = self.pipeline.predict(texts, batch_size=len(texts))  # one pass: the batcher sized it
        try:
            check_finite(predictions)  # a NaN is never answered, stored or counted as a label
        except ModelFault as e:
            self.fault = str(e)
            raise
        self.fault = None
        return predictions

    def _token_counts(self, texts: list[str]) -> list[int]:
        with self._lock:
            return self.pipeline.token_counts(texts)

    def _count_pass(self, done: Pass) -> None:
        counts = self.counts  # only the batcher's worker thread writes it
        counts.passes, counts.texts = counts.passes + 1, counts.texts + len(done.texts)
        lengths = sorted(done.lengths)  # the pass as the pipeline runs it: cut by length, one call
        counts.tokens += sum(lengths)
        counts.padded_tokens += padded_positions(lengths, len(lengths))
        counts.model_seconds += done.seconds

    # --- the slow work, on the explainer's worker and its copy of the model ------------------------

    def start_ig(self, texts: Sequence[str], steps: int = 50, method: str = "ig") -> ExplainJob:
        """Queue classification with integrated gradients (``classify(..., "ig")``) or the fused decision's
        "why" (``"why"``: integrated gradients and the n-gram channel's exact share); the job raises TooCostly
        when the texts and steps are over the work budget."""
        texts = list(texts)

        def run(pipeline: Pipeline) -> list[Classified]:
            predictions = pipeline.predict(texts)
            batch = pipeline.tokenize(texts)
            check_ig_budget(steps, [len(t) for t in batch.tokens], [len(p.labels) for p in predictions])
            scores = attribute(pipeline, texts, [p.labels for p in predictions], method, steps)
            return [Classified(p, s) for p, s in zip(predictions, scores)]

        return self.explainer.submit(run, "explanation" if method == "why" else "integrated-gradients explanation")

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

    def explanation(self, text: str, steps: int = 50):
        """``start_explanation``, waited for."""
        return self.start_explanation(text, steps).future.result()


def _report_warm_up(future: Any) -> None:
    if not future.cancelled() and future.exception() is not None:  # a real request will meet (and report) it too
        logging.getLogger("mealwatch.serve").warning("the model's warm-up run failed: %s", future.exception())
