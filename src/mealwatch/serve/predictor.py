"""The model behind the service: loaded once, run by one worker thread that batches requests.

Requests from many HTTP threads are queued; the worker takes what is waiting (up to
``max_batch`` texts) and runs it as one batch, so concurrent clients share forward passes.
It waits for nobody (``max_wait_s`` = 0 by default): a lone request runs at once, and under
load the requests that arrive while a batch runs form the next one.
All model work — batches, integrated gradients, attention — holds one lock, because the
tokenizer and the model are not meant to be driven by several threads at once.

Per-word importance, two methods:
- ``grad`` (the default): gradient × (input − baseline) on the word embeddings, for the
  probability of each predicted label — the one-point version of integrated gradients with
  the same baseline (every word piece's embedding replaced by [PAD]'s). One forward pass and
  one backward pass (batched over the predicted labels), so it fits a per-request latency budget; it is a first-order
  estimate, and its scores need not add up to P(label) − P(baseline).
- ``ig``: integrated gradients from ``mealwatch.explain`` (``steps`` forward and backward
  passes, seconds on a CPU for the full MiniLM), whose scores add up up to the reported delta.
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

import torch

from ..classifier import Classifier, Prediction
from ..explain.attributions import label_targets, pad_baseline
from ..review import unreadable_shares

IMPORTANCE_METHODS = ("none", "grad", "ig")
GRAD_NOTE = "gradient × (embedding − [PAD] embedding) of P(label), summed over each word's pieces"
IG_NOTE = "integrated gradients of P(label) from an all-[PAD] baseline, summed over each word's pieces"


@dataclass
class WordImportance:
    """Per word, how much it moved the probability of each predicted label (positive: toward it)."""

    method: str  # "grad" or "ig"
    words: list[str]
    spans: list[tuple[int, int]]  # per word, (start, end) character offsets in the text
    scores: dict[str, list[float]]  # predicted label -> per-word score
    note: str
    steps: int | None = None  # ig only
    delta: dict[str, float] | None = None  # ig only: Σ scores − (P(text) − P(baseline))
    truncated: bool = False

    def to_dict(self, decimals: int = 4) -> dict[str, Any]:
        r = lambda x: round(float(x), decimals)  # noqa: E731
        out: dict[str, Any] = {
            "method": self.method,
            "note": self.note,
            "words": [{"word": w, "start": s, "end": e} for w, (s, e) in zip(self.words, self.spans)],
            "scores": {label: [r(x) for x in v] for label, v in self.scores.items()},
            "truncated": self.truncated,
        }
        if self.steps is not None:
            out["steps"] = self.steps
        if self.delta is not None:
            out["delta"] = {k: r(v) for k, v in self.delta.items()}
        return out


@dataclass
class Classified:
    prediction: Prediction
    importance: WordImportance | None = None


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
    """Classifies texts with one loaded model; thread-safe; concurrent calls are batched together.

    The model is only ever run, never trained: its parameters are frozen (``requires_grad``
    off), so gradients for per-word importance flow to the inputs alone.
    """

    def __init__(self, classifier: Classifier, version: str, max_batch: int = 32, max_wait_s: float = 0.0) -> None:
        self.classifier = classifier.eval().requires_grad_(False)
        self.version = version
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self._lock = threading.Lock()
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._worker = threading.Thread(target=self._serve, name="mealwatch-predictor", daemon=True)
        self._worker.start()

    @classmethod
    def load(cls, model_dir: str | Path, **kwargs: Any) -> "Predictor":
        return cls(Classifier.load(model_dir), model_version(model_dir), **kwargs)

    @property
    def labels(self) -> list[str]:
        return self.classifier.labels

    def close(self) -> None:
        self._queue.put(None)
        self._worker.join(timeout=10)

    def classify(self, texts: Sequence[str], importance: str = "none", steps: int = 50) -> list[Classified]:
        """Labels, probabilities and urgency per text, with per-word importance by ``importance``, in input order."""
        if importance not in IMPORTANCE_METHODS:
            raise ValueError(f"importance must be one of {', '.join(IMPORTANCE_METHODS)}, not {importance!r}")
        if not texts:
            return []
        if importance == "ig":
            return [self._integrated_gradients(text, steps) for text in texts]
        job = _Job(list(texts), importance)
        self._queue.put(job)
        return job.future.result()

    def attention(self, text: str, include_special: bool = True):
        """Word-level attention of every layer and head (``mealwatch.explain.word_attention``)."""
        from ..explain import word_attention

        with self._lock:
            return word_attention(self.classifier.encoder, self.classifier.tokenizer, text, include_special)

    # --- the worker -------------------------------------------------------------------------------

    def _serve(self) -> None:
        try:  # warm up in this thread (its thread pool, the allocator), so the first request is not the slow one
            with self._lock:
                self.classifier.predict(["warm up"])
                self._gradient_times_input(["warm up"])
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
                    results = [Classified(p) for p in self.classifier.predict(texts, batch_size=self.max_batch)]
        except BaseException as e:  # hand the failure to every waiting caller; the worker lives on
            for j in jobs:
                j.future.set_exception(e)
            return
        start = 0
        for j in jobs:
            j.future.set_result(results[start : start + len(j.texts)])
            start += len(j.texts)

    def _importance_batches(self, texts: list[str]) -> list[Classified]:
        """Gradient × input for many texts, batched so that no text pays for another's extra labels.

        The backward pass of a batch costs (batch size) × (most labels of any text in it). One text
        runs as is; several are first classified, then grouped by their number of labels.
        """
        if len(texts) == 1:
            return self._gradient_times_input(texts)
        predictions = self.classifier.predict(texts, batch_size=self.max_batch)
        results: list[Classified | None] = [None] * len(texts)
        for k in sorted({len(p.labels) for p in predictions}):
            group = [i for i, p in enumerate(predictions) if len(p.labels) == k]
            for start in range(0, len(group), self.max_batch):
                chunk = group[start : start + self.max_batch]
                done = self._gradient_times_input([texts[i] for i in chunk], [predictions[i] for i in chunk])
                for i, c in zip(chunk, done):
                    results[i] = c
        return results  # type: ignore[return-value]

    def _gradient_times_input(self, texts: list[str], known: list[Prediction] | None = None) -> list[Classified]:
        """Predictions and their per-word gradient × input; ``known`` predictions are explained instead of made."""
        clf = self.classifier
        batch = clf.tokenizer(texts, max_length=clf.config.max_length)
        mask, types = batch.attention_mask, batch.token_type_ids  # (B, T)
        embedding, pad_id = clf.encoder.embeddings.word, clf.tokenizer.pad_token_id
        inputs, baseline = pad_baseline(embedding, batch.input_ids, batch.word_ids, pad_id)  # (B, T, H) each
        x = inputs.clone().requires_grad_(True)  # (B, T, H)
        with torch.enable_grad():
            probs = clf.probabilities(clf(inputs_embeds=x, attention_mask=mask, token_type_ids=types).logits)  # (B, L)
            predictions = known or clf.predictions(texts, probs.detach().float(), batch.truncated, unreadable_shares(batch))
            targets = label_targets([p.labels for p in predictions], clf.labels)  # (B, K)
            K = targets.size(1)
            # one backward pass for all K labels: K one-hot output gradients, batched (vmap) through autograd
            picks = torch.zeros(K, *probs.shape)  # (K, B, L)
            picks.scatter_(2, targets.T.unsqueeze(-1), 1.0)
            (grads,) = torch.autograd.grad(probs, x, grad_outputs=picks, is_grads_batched=True)  # (K, B, T, H)
        per_token = ((x.detach() - baseline) * grads).sum(dim=-1)  # (K, B, T)
        per_token_lists = per_token.transpose(0, 1).tolist()  # (B, K, T) as nested lists
        results = []
        for i, prediction in enumerate(predictions):
            scores = {}
            for k, label in enumerate(prediction.labels):
                per_word = [0.0] * len(batch.words[i])
                for w, value in zip(batch.word_ids[i], per_token_lists[i][k]):
                    if w is not None:
                        per_word[w] += value
                scores[label] = per_word
            importance = WordImportance(
                "grad", list(batch.words[i]), list(batch.word_spans[i]), scores, GRAD_NOTE, truncated=batch.truncated[i]
            )
            results.append(Classified(prediction, importance))
        return results

    def explanation(self, text: str, steps: int = 50):
        """Integrated gradients and attention rollout for one text (``mealwatch.explain.explain``)."""
        from ..explain import explain

        with self._lock:
            return explain(self.classifier, text, steps=steps)

    def _integrated_gradients(self, text: str, steps: int) -> Classified:
        e = self.explanation(text, steps)
        clf = self.classifier
        with self._lock:
            batch = clf.tokenizer([text], max_length=clf.config.max_length)
        spans = batch.word_spans[0]
        probs = torch.tensor([[e.probabilities[label] for label in clf.labels]])  # (1, L)
        prediction = clf.predictions([text], probs, [e.truncated], unreadable_shares(batch))[0]
        importance = WordImportance(
            "ig", list(e.words), list(spans), dict(e.attributions), IG_NOTE, steps=steps, delta=dict(e.delta),
            truncated=e.truncated,
        )  # fmt: skip
        return Classified(prediction, importance)
