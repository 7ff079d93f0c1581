"""The main job, whole: read the training data, teach the encoder Hindi when the data has Hindi in it,
fine-tune, save the run with its evaluation beside it.

When no ``--encoder`` is given and at least ``HINDI_SHARE`` of the training texts are not English in
Latin script, the bundled encoder is first adapted (``adapt.recipe``: vocabulary extension and
distillation on parallel complaints — the data's own, else the bundled ones) and the adapted folder is cached under
``$MEALWATCH_HOME/cache/encoders/`` (the same data and recipe reuse it; ``mealwatch adapt`` builds
the same folder on purpose). Parallel renderings of training complaints (the bundled
``parallel.csv``, or ``--parallel FILE``) are also added to the training split.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .runs import mealwatch_home, new_run_dir

if TYPE_CHECKING:
    from .adapt.recipe import AdaptArguments
    from .data import Dataset, ParallelComplaint, ParallelSentence
    from .evaluation import EvaluationReport
    from .training import TrainingArguments, TrainingResult


#: adapt the encoder when at least this share of the training texts is Hindi (romanised, Devanagari or mixed)
HINDI_SHARE = 0.1
ADAPT_MODES = ("auto", "on", "off")


@dataclass
class FinishedRun:
    """What ``train_and_save`` produced: the saved folder, the training result and the held-out report."""

    folder: Path
    result: "TrainingResult"
    report: "EvaluationReport"
    report_split: str  # "test", or "validation" when there is no test split
    splits: dict[str, "Dataset"]
    adapted_encoder: Path | None = None  # the adapted encoder the run started from, if any


def load_training_data(
    data: str | Path | None = None,
    validation: str | Path | None = None,
    test: str | Path | None = None,
    **read_kwargs: Any,
) -> dict[str, "Dataset"]:
    """Train/validation(/test) datasets: ``data`` (None: the bundled complaints) split by ``read_splits``,
    or, when ``validation`` is given, ``data`` as the training file and ``validation`` (and ``test``) as given."""
    from .data import read_dataset, read_splits

    if validation is None:
        splits = read_splits(data, **read_kwargs)
    else:
        if data is None or Path(data).is_dir():
            raise ValueError("with --validation, --data must be the training file (not a folder or the bundled data)")
        train = read_dataset(data, **read_kwargs)
        others = {**read_kwargs, "label_set": train.label_set, "multi_label": train.multi_label}
        splits = {"train": train, "validation": read_dataset(validation, **others)}
    if test is not None:
        first = splits["train"]
        splits["test"] = read_dataset(
            test, **{**read_kwargs, "label_set": first.label_set, "multi_label": first.multi_label}
        )
    return splits


def hindi_share(dataset: "Dataset") -> float:
    """Share of the texts whose script is romanised Hindi, Devanagari or mixed (column, else detected)."""
    scripts = dataset.scripts()
    return sum(s != "latn-en" for s in scripts) / max(1, len(scripts))


def should_adapt(splits: dict[str, "Dataset"], args: "TrainingArguments", mode: str = "auto") -> bool:
    """Whether to adapt the encoder first: ``on``, or ``auto`` when the encoder is the English MiniLM (``--encoder
    minilm``) and the data has Hindi in it; a multilingual encoder (the default) already reads Hindi."""
    from .transformer.checkpoint import bundled_model_dir

    if mode not in ADAPT_MODES:
        raise ValueError(f"adapt must be one of {', '.join(ADAPT_MODES)}, not {mode!r}")
    if mode == "off" or not args.pretrained:
        return False
    path = args.encoder_path
    english = path == "minilm" or (path is not None and Path(path).is_dir() and Path(path) == bundled_model_dir())
    return mode == "on" or (english and hindi_share(splits["train"]) >= HINDI_SHARE)


def adapted_encoder(
    train: "Dataset", parallel: "list[ParallelComplaint]", base: str | None = None,
    recipe: "AdaptArguments | None" = None, progress: bool = True,
    sentences: "list[ParallelSentence] | None" = None,
) -> Path:  # fmt: skip
    """The adapted encoder for this training data and recipe: from the cache, or built and cached now.

    ``sentences``: everyday parallel sentences distilled beside the complaints (None: none; the bundled ones,
    ``data.read_parallel_sentences()``, were tried as a default and not kept: docs/multilingual.md)."""
    import hashlib
    import json
    from dataclasses import asdict

    from .adapt.recipe import ADAPT_FILE, RECIPE_VERSION, AdaptArguments, AdaptationData, adapt_encoder, fingerprint
    from .memory import release_freed_memory

    recipe = recipe or AdaptArguments()
    data = AdaptationData.of(train, parallel, sentences or [])
    texts, pairs = data.texts, data.pairs
    identity = [fingerprint(texts, pairs), asdict(recipe), str(base), RECIPE_VERSION]  # a new version: a new folder
    key = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:16]
    folder = mealwatch_home() / "cache" / "encoders" / f"hindi-{key}"
    if (folder / ADAPT_FILE).is_file():
        if progress:
            print(f"Adapted encoder (cached): {folder}", flush=True)
        return folder
    if progress:
        print(
            f"Adapting the encoder to Hindi ({len(texts)} texts, {len(pairs)} parallel pairs) -> {folder}", flush=True
        )
    adapt_encoder(folder, texts, pairs, base=base, args=recipe, progress=progress)
    release_freed_memory(collect=True)  # the teacher and the student are gone: fine-tuning starts from a low base
    return folder


def with_renderings(train: "Dataset", parallel: "list[ParallelComplaint]") -> "Dataset":
    """The training split plus the Devanagari and romanised renderings of its parallel complaints."""
    from .data import Dataset

    known = {e.text for e in train.examples}
    added = [e for p in parallel if p.english in known for e in p.renderings() if e.text not in known]
    return Dataset.from_examples(train.examples + added, train.label_set, train.multi_label, train.path)


def default_parallel(splits: dict[str, "Dataset"]) -> "list[ParallelComplaint]":
    """The bundled parallel renderings when training on the bundled complaints; none for other data."""
    from .data import bundled_data_dir, read_parallel

    path = splits["train"].path
    bundled = path is not None and Path(path).resolve().parent == bundled_data_dir().resolve()
    return read_parallel() if bundled else []


def adaptation_parallel(parallel: "list[ParallelComplaint]") -> "list[ParallelComplaint]":
    """The parallel complaints the encoder is distilled on: the training data's own renderings, else the bundled
    ones — an English/Hindi corpus whose Hindi words, learned in distillation, carry over to other Hindi text
    (``mealwatch adapt`` takes the same default)."""
    from .data import read_parallel

    return list(parallel) if parallel else read_parallel()


def train_and_save(
    splits: dict[str, "Dataset"], args: "TrainingArguments", out: str | Path | None = None, progress: bool = True,
    *, adapt: str = "auto", parallel: "list[ParallelComplaint] | None" = None, adapt_on: "Dataset | None" = None,
) -> FinishedRun:  # fmt: skip
    """Fine-tune on the splits (teaching the encoder Hindi first when ``should_adapt``), save the model to ``out``
    (None: a new folder under ``runs.runs_root()``) and write its evaluation on the test split (validation if
    there is none) beside it. ``parallel`` renderings (only of training complaints) join the training split;
    None: ``default_parallel``. The encoder is distilled on them, or on the bundled ones when there are none
    (``adaptation_parallel``). ``adapt_on``: the split the encoder is adapted on (None: the training split);
    ``mealwatch train --add`` passes the split before its corrections, so that a retrain with corrections
    reuses the cached adapted encoder instead of adapting it again."""
    from dataclasses import replace

    from .evaluation import evaluate_pipeline, write_report
    from .training import train

    parallel = default_parallel(splits) if parallel is None else parallel
    encoder = None
    if should_adapt(splits, args, adapt):
        adapt_split = splits["train"] if adapt_on is None else adapt_on
        from .encoders import encoder_folder

        base = str(encoder_folder(args.encoder_path))
        encoder = adapted_encoder(adapt_split, adaptation_parallel(parallel), base, progress=progress)
        args = replace(args, encoder_path=str(encoder))
    train_set = with_renderings(splits["train"], parallel) if parallel else splits["train"]
    result = train(train_set, splits["validation"], args, progress=progress)
    folder = Path(out) if out is not None else new_run_dir()
    result.pipeline.save(folder)
    split = "test" if "test" in splits else "validation"
    report = evaluate_pipeline(result.pipeline, splits[split])
    write_report(report, folder, title=f"Evaluation on the {split} split")
    return FinishedRun(folder, result, report, split, splits, encoder)
