"""``--precision auto``: the fastest inference mode on this machine that decides as fp32 does.

At load, each candidate mode (``modes.candidate_modes``) is built from the fp32 model and

- **timed** on the model's own shapes — one 32 x 64 batch and four 1 x 32 batches per round,
  the modes alternating round by round so that machine noise hits them alike, best round kept;
- **checked** on a labelled validation file: the share of texts whose decisions (label sets)
  equal fp32's must be at least ``MIN_AGREEMENT``, and macro-F1 must stay within
  ``MAX_F1_CHANGE`` of fp32's.

The fastest mode that passes is kept (``pick``; fp32 always passes). Without validation data no
lower precision can be checked, so only the fp32 kernels are candidates. The choice, every trial
and the reason are printed and stored in ``$MEALWATCH_HOME/cache/precision/`` under a key made of
the machine (CPU name and flags, torch version, threads), the weights (a digest of every tensor),
the validation texts and whether compiling was allowed; a later load reads it back instead of
measuring again.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import torch

from ..transformer.precision import cpu_flags, cpu_name
from .modes import Built, build, candidate_modes

if TYPE_CHECKING:
    from ..data import Dataset
    from ..pipeline import Pipeline

MIN_AGREEMENT = 0.995  # share of texts whose label decisions equal fp32's
MAX_F1_CHANGE = 0.003  # |macro-F1 - fp32's macro-F1|, i.e. 0.3 points
TIMING_ROUNDS = 3
CACHE_VERSION = 1


@dataclass
class Trial:
    """One candidate mode as measured: its time, and how its decisions compare with fp32's."""

    mode: str
    seconds: float  # best round: one 32 x 64 batch and four 1 x 32 batches
    agreement: float | None = None  # share of validation texts decided exactly as fp32 decides them
    macro_f1: float | None = None
    f1_change: float | None = None  # macro_f1 - fp32's
    failure: str | None = None  # why the mode could not run (e.g. compiling failed)

    @property
    def passes(self) -> bool:
        """Whether the mode may be chosen: it ran, and agrees with fp32 (or nothing was there to check)."""
        if self.failure is not None:
            return False
        if self.agreement is None:
            return self.mode.startswith("fp32") and "+" not in self.mode  # unchecked: only fp32's kernels
        return self.agreement >= MIN_AGREEMENT and abs(self.f1_change or 0.0) <= MAX_F1_CHANGE + 1e-12

    def describe(self) -> str:
        parts = [f"{self.mode}: {self.seconds * 1e3:.1f} ms"]
        if self.agreement is not None:
            parts.append(f"{self.agreement:.1%} of decisions as fp32, macro-F1 {self.macro_f1:.4f} "
                         f"({(self.f1_change or 0) * 100:+.2f} points)")  # fmt: skip
        if self.failure:
            parts.append(f"failed: {self.failure}")
        elif not self.passes:
            limits = f"needs >= {MIN_AGREEMENT:.1%} agreement and macro-F1 within {MAX_F1_CHANGE * 100:.1f} points"
            parts.append("rejected: " + ("unchecked (no validation data)" if self.agreement is None else limits))
        return ", ".join(parts)


@dataclass
class Pick:
    """The mode ``pick`` keeps and why."""

    mode: str
    reason: str


def pick(trials: Sequence[Trial]) -> Pick:
    """The fastest passing trial (see ``Trial.passes``); fp32 is the fallback when none passes."""
    reference = next((t for t in trials if t.mode == "fp32"), None)
    passing = sorted((t for t in trials if t.passes), key=lambda t: t.seconds)
    if not passing:
        return Pick("fp32", "no mode passed the checks; fp32 is the reference")
    best = passing[0]
    reason = f"{best.mode} is the fastest mode that decides as fp32 does ({best.seconds * 1e3:.1f} ms"
    if reference is not None and best.mode != "fp32":
        reason += f", {reference.seconds / best.seconds:.2f}x fp32's speed"
    reason += ")"
    rejected = [t for t in trials if not t.passes]
    if rejected:
        reason += "; not chosen: " + "; ".join(t.describe() for t in rejected)
    return Pick(best.mode, reason)


@dataclass
class Choice:
    """What ``auto`` chose on this machine for this model, every trial, and why; stored as JSON."""

    mode: str
    reason: str
    trials: list[Trial]
    cpu: str
    threads: int
    validation: str | None  # the file the decisions were checked on, if any
    measured_at: str
    measure_seconds: float  # how long measuring took
    from_cache: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("from_cache")
        return {"version": CACHE_VERSION, **d}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Choice":
        d = {k: v for k, v in d.items() if k != "version"}
        d["trials"] = [Trial(**t) for t in d["trials"]]
        return cls(**d, from_cache=True)

    def summary(self) -> str:
        """Lines for a person: the choice, the reason, each trial."""
        origin = "stored choice" if self.from_cache else f"measured in {self.measure_seconds:.1f} s"
        lines = [f"precision auto -> {self.mode} ({origin}; {self.cpu}, {self.threads} threads)", f"  {self.reason}"]
        return "\n".join(lines + [f"  - {t.describe()}" for t in self.trials])


# ---------------------------------------------------------------------------- the cache


def machine_key() -> str:
    """What the timings depend on besides the model: CPU name and flags, torch version, thread count."""
    text = "|".join([cpu_name(), " ".join(sorted(cpu_flags())), torch.__version__, str(torch.get_num_threads())])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def weights_key(model: torch.nn.Module) -> str:
    """A digest of every tensor of the model (names, shapes, dtypes and values)."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        t = tensor.detach().contiguous().cpu()
        digest.update(f"{name}|{tuple(t.shape)}|{t.dtype}".encode())
        digest.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return digest.hexdigest()[:16]


def texts_key(texts: Sequence[str] | None) -> str:
    if texts is None:
        return "none"
    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:12]


def cache_dir() -> Path:
    from ..runs import mealwatch_home

    return mealwatch_home() / "cache" / "precision"


def cache_path(model: torch.nn.Module, validation_texts: Sequence[str] | None, compile: bool) -> Path:
    name = f"{machine_key()}-{weights_key(model)}-{texts_key(validation_texts)}-{'compile' if compile else 'eager'}"
    return cache_dir() / f"{name}.json"


def read_choice(path: Path) -> Choice | None:
    """The stored choice at ``path``; None when missing, unreadable or of another version (then it is remeasured)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("version") != CACHE_VERSION:
            return None
        return Choice.from_dict(raw)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def write_choice(path: Path, choice: Choice) -> None:
    from ..atomic import write_text_atomically

    write_text_atomically(path, json.dumps(choice.to_dict(), indent=2))


# ---------------------------------------------------------------------------- measuring


class Chosen(NamedTuple):
    """The choice, and the winner's model when it was built while measuring (None when read from the cache)."""

    choice: Choice
    built: Built | None


def timing_batches(vocab_size: int, max_length: int) -> list[dict[str, torch.Tensor]]:
    """One 32 x 64 batch and four 1 x 32 batches of random token ids (lengths capped at ``max_length``)."""
    g = torch.Generator().manual_seed(0)
    batches = []
    for B, T in [(32, 64)] + [(1, 32)] * 4:
        T = min(T, max_length)
        ids = torch.randint(min(1000, vocab_size - 1), vocab_size, (B, T), generator=g)
        ones = torch.ones(B, T, dtype=torch.long)
        batches.append({"input_ids": ids, "attention_mask": ones, "token_type_ids": torch.zeros_like(ones)})
    return batches


@torch.inference_mode()
def time_forwards(
    forwards: dict[str, Callable[..., Any]], batches: list[dict[str, torch.Tensor]], rounds: int = TIMING_ROUNDS
) -> dict[str, float]:
    """Best-round seconds of each forward over ``batches``, the forwards alternating round by round."""
    for forward in forwards.values():  # warm up (a compiled forward compiles here)
        for batch in batches[:2]:
            forward(**batch)
    best = {name: float("inf") for name in forwards}
    for _ in range(rounds):
        for name, forward in forwards.items():
            started = time.perf_counter()
            for batch in batches:
                forward(**batch)
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def choose(
    pipeline: "Pipeline",
    validation: "Dataset | None",
    *,
    compile: bool = False,
    log: Callable[[str], None] | None = None,
    use_cache: bool = True,
) -> Chosen:
    """Measure (or read back) the ``auto`` choice for ``pipeline``'s fp32 model."""
    texts = None if validation is None else list(validation.texts)
    path = cache_path(pipeline.model, texts, compile)
    if use_cache and (stored := read_choice(path)) is not None:
        return Chosen(stored, None)
    started = time.perf_counter()
    modes = candidate_modes(compile)
    if validation is None:  # nothing to check decisions on: only fp32's kernels, which compute the same numbers
        modes = [m for m in modes if m.precision == "fp32" and not m.compiled]
    if log:
        log(f"precision auto: timing {', '.join(m.name for m in modes)} on this machine (once; stored in {path})")
    builds: dict[str, Built] = {m.name: build(pipeline.model, m, copy_model=True) for m in modes}
    failures: dict[str, str | None] = {}
    probabilities: dict[str, torch.Tensor] = {}
    for name, built in builds.items():
        if validation is not None:
            probabilities[name] = pipeline.with_model(built.model, built.forward).probabilities(texts)
        failures[name] = getattr(built.forward, "failure", None)
    config = pipeline.config.encoder
    batches = timing_batches(config.vocab_size, min(pipeline.max_length, config.max_position_embeddings))
    seconds = time_forwards({n: b.forward for n, b in builds.items() if failures[n] is None}, batches)
    trials = [_trial(n, seconds.get(n, float("inf")), failures[n], pipeline, validation, probabilities)
              for n in builds]  # fmt: skip
    chosen = pick(trials)
    choice = Choice(
        mode=chosen.mode,
        reason=chosen.reason,
        trials=trials,
        cpu=cpu_name(),
        threads=torch.get_num_threads(),
        validation=None if validation is None else str(validation.path),
        measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        measure_seconds=time.perf_counter() - started,
    )
    if use_cache:
        write_choice(path, choice)
    return Chosen(choice, builds[chosen.mode])


def _trial(
    name: str,
    seconds: float,
    failure: str | None,
    pipeline: "Pipeline",
    validation: "Dataset | None",
    probabilities: dict[str, torch.Tensor],
) -> Trial:
    if validation is None or name not in probabilities:
        return Trial(name, seconds, failure=failure)
    return checked_trial(name, seconds, pipeline, validation, probabilities["fp32"], probabilities[name], failure)


def checked_trial(
    name: str,
    seconds: float,
    pipeline: "Pipeline",
    validation: "Dataset",
    reference: torch.Tensor,
    probabilities: torch.Tensor,
    failure: str | None = None,
) -> Trial:
    """The trial of a mode whose (N, L) ``probabilities`` on ``validation`` (read in the pipeline's label order)
    are decided against fp32's ``reference`` probabilities: agreement of label sets and macro-F1 change."""
    from ..decisions import macro_f1

    truth, thresholds = validation.targets(), pipeline.thresholds()
    every_label = list(range(len(pipeline.labels)))  # averaged as evaluation.evaluate_predictions averages

    def f1(p: torch.Tensor) -> float:
        p = p.detach().float().numpy() if isinstance(p, torch.Tensor) else p
        return macro_f1(p, truth, multi_label=pipeline.multi_label, thresholds=thresholds, labels=every_label)

    agreement = float(np.mean(np.all(pipeline.decide(reference) == pipeline.decide(probabilities), axis=1)))
    macro, reference_macro = f1(probabilities), f1(reference)
    return Trial(name, seconds, agreement, macro, macro - reference_macro, failure)
