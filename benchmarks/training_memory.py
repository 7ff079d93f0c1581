"""Where the main job's memory goes: peak resident memory of `mealwatch train`, stage by stage.

Runs what `mealwatch train` runs (``training_run.train_and_save`` with the default ``TrainingArguments``, the
bundled complaints with their other languages and parallel renderings) on a seeded subset of the training rows
(``--rows``; all by default) for ``--epochs`` epochs, and prints, for each stage, its wall time, the peak resident
memory reached while it ran (the kernel's VmHWM, reset at the start of each stage through /proc/self/clear_refs;
where that cannot be reset, the peak of samples taken every ``--interval`` seconds), the resident memory left
when it ended and glibc's heap then (in use, free but kept, mapped block by block), with its CPU time and the page
faults it took (each a page the kernel mapped in: what handing memory back too eagerly costs). The stages follow
the job: reading the data, loading the encoder and its tokenizer, each epoch's training steps and its validation
pass, the language identifier, the native-script view, the n-gram channel, the validation report, saving, the held-out
report and the triage table. Ends with the whole run's peak (the highest stage's peak), its wall time and the
validation macro-F1 and loss of each epoch, which must not move when only memory changes.

    python benchmarks/training_memory.py [--rows N] [--validation-rows N] [--test-rows N] [--epochs 1]
                                         [--threads 2] [--seed 0] [--encoder e5|minilm|DIR] [--trace FILE.csv]

``--seed`` also seeds numpy's global generator, which scikit-learn's liblinear fits (the n-gram channel's, with no
``random_state``) draw their seed from, so that two runs compare fusion weights and held-out scores alike.
Wall times mean little on a machine shared with other work; CPU seconds and page faults less so.
``--trace`` writes every sample (seconds, stage, resident MB) to a CSV file. Linux only (/proc/self/status).
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import resource
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")


def status_mb(key: str) -> float:
    """A memory figure of /proc/self/status (``VmRSS``, ``VmHWM``) in MB."""
    text = STATUS.read_text()
    return int(text.split(f"{key}:")[1].split()[0]) / 1024


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]  # fmt: skip


def heap_mb() -> tuple[float, float, float] | None:
    """glibc's heap in MB: (in use, free but kept, mapped one block each); None where glibc's mallinfo2 is missing."""
    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return None
    mallinfo2.restype = _Mallinfo2
    info = mallinfo2()
    return info.uordblks / 2**20, info.fordblks / 2**20, info.hblkhd / 2**20


def reset_peak() -> bool:
    """Reset the kernel's peak resident size (VmHWM) to the current one; False where the kernel does not allow it."""
    try:
        CLEAR_REFS.write_text("5")
        return True
    except OSError:
        return False


@dataclass
class Stage:
    """One stage's wall time, peak resident memory and the resident memory it left."""

    name: str
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # user + system, all threads
    faults: int = 0  # minor page faults (pages the kernel mapped in)
    peak_mb: float = 0.0
    end_mb: float = 0.0
    heap: tuple[float, float, float] | None = None  # ``heap_mb()`` at its end


@dataclass
class StageRecorder:
    """The stage now running, a sampler of resident memory, and each finished stage's figures."""

    interval: float
    stages: list[Stage] = field(default_factory=list)
    samples: list[tuple[float, str, float]] = field(default_factory=list)
    _current: Stage | None = None
    _started: float = 0.0
    _usage: Any = None
    _exact: bool = True
    _stop: threading.Event = field(default_factory=threading.Event)
    _origin: float = field(default_factory=time.perf_counter)

    def enter(self, name: str) -> None:
        """End the stage running (if any) and start ``name``."""
        self.close()
        self._exact = reset_peak() and self._exact
        self._current, self._started = Stage(name), time.perf_counter()
        self._usage = resource.getrusage(resource.RUSAGE_SELF)

    def close(self) -> None:
        """End the stage running, recording its figures."""
        stage = self._current
        if stage is None:
            return
        stage.seconds = time.perf_counter() - self._started
        usage = resource.getrusage(resource.RUSAGE_SELF)
        stage.cpu_seconds = usage.ru_utime + usage.ru_stime - self._usage.ru_utime - self._usage.ru_stime
        stage.faults = usage.ru_minflt - self._usage.ru_minflt
        stage.end_mb, stage.heap = status_mb("VmRSS"), heap_mb()
        sampled = max((mb for _, name, mb in self.samples if name == stage.name), default=stage.end_mb)
        stage.peak_mb = max(status_mb("VmHWM"), sampled) if self._exact else sampled
        self.stages.append(stage)
        self._current = None

    @property
    def current(self) -> str:
        return self._current.name if self._current is not None else ""

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            stage = self._current
            if stage is not None:
                self.samples.append((time.perf_counter() - self._origin, stage.name, status_mb("VmRSS")))

    @contextmanager
    def sampling(self) -> Iterator[None]:
        thread = threading.Thread(target=self._sample, daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            thread.join()
            self.close()


def wrap(owner: Any, name: str, before: Callable[[], None], after: Callable[[], None] | None = None) -> None:
    """Replace ``owner.name`` by a function that calls ``before()``, the original, then ``after()``."""
    original = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        before()
        try:
            return original(*args, **kwargs)
        finally:
            if after is not None:
                after()

    setattr(owner, name, wrapped)


def subset(dataset: Any, rows: int | None, seed: int) -> Any:
    """``rows`` examples of ``dataset`` drawn at random with ``seed`` (kept in file order); all when None."""
    from mealwatch.data import Dataset

    if rows is None or rows >= len(dataset):
        return dataset
    keep = np.sort(np.random.default_rng(seed).permutation(len(dataset))[:rows])
    examples = [dataset.examples[i] for i in keep]
    return Dataset.from_examples(examples, dataset.label_set, dataset.multi_label, dataset.path)


def instrument(recorder: StageRecorder, epochs: int) -> None:
    """Mark each stage of the training run as it starts (the functions the job calls, wrapped)."""
    from mealwatch import pipeline
    from mealwatch.learning import evaluation, training, training_run, triage_evaluation

    epoch = [0]

    def steps() -> None:
        epoch[0] += 1
        recorder.enter(f"epoch {epoch[0]}: training steps")

    def validation_pass() -> None:
        if recorder.current.endswith("training steps"):
            recorder.enter(f"epoch {epoch[0]}: validation pass")

    def after_validation_pass() -> None:
        if recorder.current.endswith("validation pass") and epoch[0] < epochs:
            steps()

    wrap(training, "build_pipeline", lambda: recorder.enter("load encoder and tokenizer"), steps)
    wrap(pipeline.Pipeline, "run", validation_pass, after_validation_pass)
    wrap(training, "fit_language_id", lambda: recorder.enter("language identifier"))
    wrap(training, "add_translit_view", lambda: recorder.enter("native-script view"))
    wrap(training, "add_ngram_channel", lambda: recorder.enter("n-gram channel"))
    wrap(training, "evaluate_pipeline", lambda: recorder.enter("validation report"))
    wrap(pipeline.Pipeline, "save", lambda: recorder.enter("save"))
    wrap(evaluation, "evaluate_pipeline", lambda: recorder.enter("held-out report"))
    wrap(triage_evaluation, "evaluate_triage", lambda: recorder.enter("triage table"))
    del training_run  # imports its helpers at call time: the wrapped ones above


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, help="training rows, drawn at random with --seed (default: all)")
    parser.add_argument("--validation-rows", type=int, help="validation rows, drawn alike (default: all)")
    parser.add_argument("--test-rows", type=int, help="held-out (test) rows, drawn alike (default: all)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--encoder", help="as `mealwatch train --encoder` (default: mealwatch's default)")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between two samples")
    parser.add_argument("--trace", type=Path, help="write every sample (seconds, stage, MB) to this CSV file")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    np.random.seed(args.seed)  # the n-gram channel's liblinear fits draw from it

    from mealwatch.learning.training import TrainingArguments
    from mealwatch.learning.training_run import default_parallel, load_training_data, train_and_save, with_renderings

    recorder = StageRecorder(args.interval)
    started = time.perf_counter()
    with recorder.sampling():
        recorder.enter("read the data")
        splits = load_training_data(None)
        parallel = default_parallel(splits)
        splits["train"] = subset(with_renderings(splits["train"], parallel), args.rows, args.seed)
        splits["validation"] = subset(splits["validation"], args.validation_rows, args.seed)
        splits["test"] = subset(splits["test"], args.test_rows, args.seed)
        instrument(recorder, args.epochs)
        training_args = TrainingArguments(epochs=args.epochs, seed=args.seed, threads=args.threads,
                                          encoder_path=args.encoder)  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="training-memory-") as out:
            run = train_and_save(splits, training_args, Path(out) / "model", progress=not args.quiet, parallel=[])
    seconds = time.perf_counter() - started

    print(f"{len(splits['train'])} training rows, {len(splits['validation'])} validation rows, {args.epochs} "
          f"epoch(s), {args.threads} thread(s), torch {torch.__version__}")  # fmt: skip
    print("| stage | seconds | CPU seconds | page faults | peak MB | MB at its end | heap in use / free / mmapped MB |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for stage in recorder.stages:
        heap = " / ".join(f"{mb:.0f}" for mb in stage.heap) if stage.heap is not None else "–"
        print(
            f"| {stage.name} | {stage.seconds:.1f} | {stage.cpu_seconds:.1f} | {stage.faults} | {stage.peak_mb:.0f} "
            f"| {stage.end_mb:.0f} | {heap} |"
        )
    peak = max(stage.peak_mb for stage in recorder.stages)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux; the peak since the last reset
    cpu = sum(stage.cpu_seconds for stage in recorder.stages)
    faults = sum(stage.faults for stage in recorder.stages)
    print(f"whole run: {seconds:.1f} s ({cpu:.1f} CPU seconds, {faults} page faults), peak resident memory "
          f"{peak:.0f} MB (the last stage's ru_maxrss: {maxrss:.0f})")  # fmt: skip
    scores = ", ".join(f"{h['epoch']}: {h['validation_macro_f1']:.6f}" for h in run.result.history)
    print(f"validation macro-F1 by epoch: {scores}; loss by epoch: "
          + ", ".join(f"{h['loss']:.6f}" for h in run.result.history))  # fmt: skip
    for choice in (run.result.translit, run.result.fusion):
        if choice is not None:
            print(choice.summary())
    from mealwatch.transformer.linear import onednn_available

    print(f"fp32 products through oneDNN (timed once per process): {onednn_available()}")
    print(f"{run.report_split} macro-F1 {run.report.macro_f1:.6f}")
    if args.trace is not None:
        with args.trace.open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["seconds", "stage", "rss_mb"])
            writer.writerows((f"{t:.3f}", name, f"{mb:.1f}") for t, name, mb in recorder.samples)


if __name__ == "__main__":
    main()
