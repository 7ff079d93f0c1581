"""Fine-tuning a classifier: AdamW with warmup and linear decay, length-bucketed batches, early stopping.

Every random choice (head initialisation, dropout, batch order) flows from ``args.seed``,
so the same seed on the same machine gives the same weights and the same metrics. On CPUs
with native bfloat16 the training steps run under bf16 autocast (weights stay float32);
the pre-trained word-embedding table stays fixed. Both make an epoch about twice as fast.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor, nn

from ..classifier import Classifier, ClassifierConfig
from ..data import LabelledTexts
from ..encoders import encoder_folder
from ..decisions import decided_targets, tuned_macro_f1
from .evaluation import evaluate_pipeline
from ..pipeline import Pipeline
from ..memory import (
    TRAINING_MMAP_THRESHOLD,
    MemoryReleaser,
    limit_kernel_caches,
    release_freed_memory,
    tune_allocator,
)
from .ngram_training import FusionChoice, add_ngram_channel, add_translit_view, fit_language_id
from ..review import (
    ReviewPolicy,
    calibrate,
    choose_form_margins,
    choose_margin,
    choose_risk_limits,
    language_quality,
    wrong_risk,
)
from ..severity import SEVERITY_LEVELS, choose_grave_threshold
from ..transformer.precision import cpu_has_bf16
from ..tokenizer import Tokenizer
from ..transformer import Encoder, EncoderConfig
from ..transformer.checkpoint import read_config

if TYPE_CHECKING:
    from .evaluation import EvaluationReport

#: "auto" class weights switch on when the most frequent label is this many times the rarest
IMBALANCE_RATIO = 3.0
#: batches are formed inside windows of this many batches of similar length, then shuffled
BUCKET_WINDOW = 50


@dataclass
class TrainingArguments:
    """How to fine-tune; saved with the model in its config.json."""

    epochs: int = 6  # validation macro-F1 still rose at epoch 4 on the grown data (docs/benchmarks.md)
    batch_size: int = 16
    learning_rate: float = 1e-4  # encoder
    head_learning_rate: float = 1e-2  # the freshly initialised linear head learns faster
    warmup_ratio: float = 0.1  # fraction of the steps over which the learning rate rises from 0
    weight_decay: float = 0.01  # AdamW, not applied to biases and LayerNorm weights
    max_grad_norm: float = 1.0
    seed: int = 0
    pooling: str = "mean"  # "mean" or "cls"
    class_weights: str = "auto"  # "auto", "on" or "off": weigh rare labels up in the loss
    patience: int = 3  # stop after this many epochs without a better validation macro-F1
    max_length: int = 128  # tokens per text
    #: a batch of more word pieces (texts x longest) runs in parts whose gradients add up: the same step, less memory
    max_batch_tokens: int = 512
    pretrained: bool = True  # False: the same architecture from random initialisation
    encoder_path: str | None = None  # an encoder name (encoders.NAMED: e5, minilm) or folder; None: the default
    threads: int | None = None  # torch CPU threads; None: torch's default
    dropout: float = 0.1
    freeze_word_embeddings: bool = True  # keep the pre-trained WordPiece table fixed (faster; ignored from scratch)
    frozen_layers: int = 0  # keep the embeddings and this many of the lowest encoder layers fixed (faster backward)
    bf16: bool | None = None  # bfloat16 autocast for the training steps; None: when the CPU has native bf16
    ngram_channel: bool = True  # fit the n-gram channel and fuse it at the weight validation prefers (0: not kept)
    translit_view: bool = True  # read romanised Hindi also in Devanagari, fused at the weight validation prefers
    severity_weight: float = 1.0  # the severity head's share of the loss (0: no head; needs annotated data)
    language_id: bool = True  # fit the identifier of Latin-letter languages on the training split (``language_id``)

    def __post_init__(self) -> None:
        if self.class_weights not in ("auto", "on", "off"):
            raise ValueError(f"class_weights must be 'auto', 'on' or 'off', not {self.class_weights!r}")
        for name in ("epochs", "batch_size", "max_length", "max_batch_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.frozen_layers < 0:
            raise ValueError(f"frozen_layers must be 0 or more, not {self.frozen_layers}")
        if self.learning_rate <= 0 or self.head_learning_rate <= 0:
            raise ValueError("learning rates must be positive")
        if self.severity_weight < 0:
            raise ValueError(f"severity_weight must be 0 or more, not {self.severity_weight}")


@dataclass
class TrainingResult:
    pipeline: Pipeline
    history: list[dict[str, Any]]  # one entry per epoch: epoch, loss, validation macro-F1, learning rate
    best_epoch: int  # 1-based; its weights are the ones kept
    seconds: float
    validation_report: "EvaluationReport | None" = field(default=None)
    fusion: FusionChoice | None = None  # the n-gram channel's weight chosen on validation, when one was fitted
    translit: FusionChoice | None = None  # the native-script view's weight chosen on validation, when one was tried


def build_pipeline(
    labels: Sequence[str], multi_label: bool, args: TrainingArguments, severity_levels: Sequence[str] = ()
) -> Pipeline:
    """An untrained pipeline: a pre-trained (or, with ``pretrained=False``, randomly initialised) encoder,
    its tokenizer and a fresh head (and a severity head over ``severity_levels``, when given)."""
    folder = encoder_folder(args.encoder_path)
    if args.pretrained:
        encoder = Encoder.from_pretrained(folder)
    else:
        encoder = Encoder(EncoderConfig.from_dict(read_config(folder)))
    # cut at the model's length from the start: a tokenizer asked for another length builds a second backend, a copy
    # of its whole vocabulary
    tokenizer = Tokenizer.from_pretrained(folder, max_length=args.max_length)
    training = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(args).items()}
    config = ClassifierConfig(
        labels=list(labels), multi_label=multi_label, pooling=args.pooling, dropout=args.dropout,
        training=training, encoder=encoder.config, max_length=args.max_length, severity_levels=list(severity_levels),
    )  # fmt: skip
    return Pipeline(Classifier(encoder, config), tokenizer)


def length_buckets(lengths: Tensor, batch_size: int, generator: torch.Generator) -> list[Tensor]:
    """Shuffled batches of indices whose texts have similar lengths (little padding, random order)."""
    order = torch.randperm(len(lengths), generator=generator)  # (N,)
    window = batch_size * BUCKET_WINDOW
    batches: list[Tensor] = []
    for start in range(0, len(order), window):
        chunk = order[start : start + window]
        chunk = chunk[torch.argsort(lengths[chunk], stable=True)]  # shortest first, random among equals
        batches.extend(chunk.split(batch_size))
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


def loss_function(targets: np.ndarray, multi_label: bool, n_labels: int, class_weights: str) -> nn.Module:
    """BCE-with-logits (multi-label) or cross-entropy, weighted towards rare labels when asked.

    Multi-label: ``pos_weight`` = sqrt(negatives / positives) per label (a softened balance:
    the thresholds tuned afterwards do the rest). Single-label: ``weight`` = N / (L · count),
    scikit-learn's "balanced" weights.
    """
    counts = targets.sum(axis=0) if multi_label else np.bincount(targets, minlength=n_labels)
    counts = np.maximum(counts.astype(np.float64), 1.0)
    imbalanced = counts.max() / counts.min() >= IMBALANCE_RATIO
    use = class_weights == "on" or (class_weights == "auto" and imbalanced)
    if multi_label:
        pos_weight = torch.tensor(np.sqrt((len(targets) - counts) / counts), dtype=torch.float32) if use else None
        return nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    weight = torch.tensor(len(targets) / (n_labels * counts), dtype=torch.float32) if use else None
    return nn.CrossEntropyLoss(weight=weight)


def severity_loss_function(severities: np.ndarray, n_levels: int) -> nn.Module:
    """Cross-entropy over the severity levels, weighted towards rare levels (sqrt of the balanced weights: a death is
    rare but must not be missed); rows not annotated (-1) are ignored."""
    known = severities[severities >= 0]
    counts = np.maximum(np.bincount(known, minlength=n_levels).astype(np.float64), 1.0)
    weight = torch.tensor(np.sqrt(len(known) / (n_levels * counts)), dtype=torch.float32)
    return nn.CrossEntropyLoss(weight=weight, ignore_index=-1, reduction="sum")


def severity_part_loss(loss_fn: nn.Module, logits: Tensor, part: Tensor, batch: Tensor) -> Tensor:
    """A part's share of its batch's weighted mean severity loss (the rows not annotated count for nothing):
    the parts' losses add up to the batch's."""
    known = batch[batch >= 0]
    if len(known) == 0 or not (part >= 0).any():
        return logits.sum() * 0.0
    total_weight = loss_fn.weight[known].sum()  # the batch's weighted-mean denominator
    return loss_fn(logits, part) / total_weight


def share_of_batch(loss_fn: nn.Module, part_targets: Tensor, batch_targets: Tensor) -> float:
    """A part's share of its batch's mean loss: its rows' share of the rows (cross-entropy with class weights:
    of the rows' weights, as that loss is their weighted mean)."""
    weight = getattr(loss_fn, "weight", None)
    if weight is not None and batch_targets.dim() == 1:  # single-label, weighted: sum(w_y * loss) / sum(w_y)
        return float(weight[part_targets].sum() / weight[batch_targets].sum())
    return len(part_targets) / len(batch_targets)


def make_optimizer(model: Classifier, args: TrainingArguments, total_steps: int):
    """AdamW (no decay on biases and norms, a higher rate for the head) and a warmup-then-linear-decay schedule."""
    groups: dict[tuple[float, float], list[nn.Parameter]] = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        lr = args.head_learning_rate if name.startswith(("head.", "severity_head.")) else args.learning_rate
        # no decay on biases and norms, nor on word embeddings (it would shrink pre-trained rows kept fixed)
        no_decay = name.endswith(".bias") or "norm" in name or "embeddings.word." in name  # .weight, or .added
        decay = 0.0 if no_decay else args.weight_decay
        groups.setdefault((lr, decay), []).append(p)
    optimizer = torch.optim.AdamW([{"params": ps, "lr": lr, "weight_decay": wd} for (lr, wd), ps in groups.items()])
    warmup = int(args.warmup_ratio * total_steps)

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / (warmup + 1)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


@contextmanager
def word_embeddings_fixed(model: Classifier, args: TrainingArguments) -> Iterator[None]:
    """With ``args.freeze_word_embeddings`` (and a pre-trained encoder), the pre-trained word embeddings stay fixed
    within the block."""
    word = model.encoder.embeddings.word.weight
    fixed = args.freeze_word_embeddings and args.pretrained and word.requires_grad
    if fixed:
        word.requires_grad_(False)
    try:
        yield
    finally:
        if fixed:
            word.requires_grad_(True)


def learned_state(model: nn.Module, into: dict[str, Tensor] | None = None) -> dict[str, Tensor]:
    """A copy of the tensors training can change (parameters that learn, and buffers); the fixed ones — a frozen
    250,000-row word table — are left out, so keeping the best epoch costs no second copy of them.

    ``into``: a copy made earlier by this function for the same model, overwritten in place and returned (keeping a
    better epoch then allocates nothing)."""
    learning = {name for name, p in model.named_parameters() if p.requires_grad}
    buffers = {name for name, _ in model.named_buffers()}
    state = {k: v.detach() for k, v in model.state_dict().items() if k in learning or k in buffers}
    if into is None:
        return {k: v.clone() for k, v in state.items()}
    if into.keys() != state.keys():
        raise ValueError("the kept copy holds other tensors than the model's learning ones")
    for name, tensor in state.items():
        into[name].copy_(tensor)
    return into


@contextmanager
def lowest_layers_fixed(model: Classifier, n: int) -> Iterator[None]:
    """With ``n`` > 0, the embeddings and the ``n`` lowest encoder layers stay fixed within the block: no gradient
    flows below layer ``n``, so the backward pass is shorter."""
    if n <= 0:
        yield
        return
    encoder = model.encoder
    if n > len(encoder.layers):
        raise ValueError(f"frozen_layers {n}: the encoder has only {len(encoder.layers)} layers")
    fixed = [p for m in (encoder.embeddings, *encoder.layers[:n]) for p in m.parameters() if p.requires_grad]
    for p in fixed:
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p in fixed:
            p.requires_grad_(True)


def review_policy_on(
    pipeline: Pipeline, probs: np.ndarray, targets: np.ndarray, forms: Sequence[str] | None = None
) -> ReviewPolicy:
    """The review policy whose close-call margins and, for a multi-label model, risk calibration and limits (overall,
    and per language form when ``forms`` are given) are chosen on the pipeline's (N, L) probabilities ``probs`` of
    validation examples."""
    thresholds = pipeline.thresholds()
    decisions = decided_targets(probs, multi_label=pipeline.multi_label, thresholds=thresholds)
    by_form = choose_form_margins(probs, targets, decisions, thresholds, forms) if forms is not None else {}
    policy = ReviewPolicy(margin=choose_margin(probs, targets, decisions, thresholds), form_margins=by_form)
    if thresholds is not None:  # multi-label: the calibrated chance of a wrong label set decides the flag
        policy.calibration = calibrate(probs, targets, thresholds)
        policy.max_risk, policy.form_max_risk = choose_risk_limits(
            wrong_risk(probs, thresholds, policy.calibration), forms
        )
    return policy


def train(
    train_set: LabelledTexts,
    validation_set: LabelledTexts,
    args: TrainingArguments | None = None,
    progress: bool = True,
) -> TrainingResult:
    """Fine-tune on ``train_set``, keeping the epoch with the best macro-F1 on ``validation_set``.

    ``args.threads`` sets torch's CPU threads while training (restored afterwards).
    """
    args = args or TrainingArguments()
    _check_compatible(train_set, validation_set)
    tune_allocator(TRAINING_MMAP_THRESHOLD)  # large freed blocks go back to the system at once
    limit_kernel_caches()  # before the first step compiles a kernel: not one kept for every batch shape
    threads = torch.get_num_threads()
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        return _train(train_set, validation_set, args, progress)
    finally:
        torch.set_num_threads(threads)


def _train(
    train_set: LabelledTexts, validation_set: LabelledTexts, args: TrainingArguments, progress: bool
) -> TrainingResult:
    from tqdm.auto import tqdm

    started = time.perf_counter()
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    severities = train_set.severities()  # (N,) level indices, -1 where not annotated
    learns_severity = args.severity_weight > 0 and bool((severities >= 0).any())
    levels = SEVERITY_LEVELS if learns_severity else ()
    pipeline = build_pipeline(train_set.label_set, train_set.multi_label, args, levels)
    model = pipeline.model
    bf16 = cpu_has_bf16() if args.bf16 is None else args.bf16
    s = torch.tensor(severities, dtype=torch.long)  # (N,)
    severity_loss = severity_loss_function(severities, len(SEVERITY_LEVELS)) if learns_severity else None

    targets = train_set.targets()
    y = torch.tensor(targets, dtype=torch.float32 if train_set.multi_label else torch.long)  # (N, L) or (N,)
    batch = pipeline.tokenize(list(train_set.texts))
    lengths = batch.attention_mask.sum(dim=1)  # (N,)
    loss_fn = loss_function(targets, train_set.multi_label, len(train_set.label_set), args.class_weights)
    steps_per_epoch = math.ceil(len(y) / args.batch_size)
    with word_embeddings_fixed(model, args), lowest_layers_fixed(model, args.frozen_layers):
        optimizer, scheduler = make_optimizer(model, args, steps_per_epoch * args.epochs)
        validation_texts, validation_targets = list(validation_set.texts), validation_set.targets()

        history: list[dict[str, Any]] = []
        best_f1, best_epoch, best_state, best_thresholds, best_probs = -1.0, 0, None, None, None
        best_severity = None
        releaser = MemoryReleaser()
        for epoch in range(1, args.epochs + 1):
            model.train()
            total, seen = 0.0, 0
            # disable None: no bar where standard error is not a terminal (a log file gets the epoch lines alone)
            bar = tqdm(length_buckets(lengths, args.batch_size, generator), desc=f"epoch {epoch}/{args.epochs}",
                       disable=None if progress else True, leave=False, unit="batch")  # fmt: skip
            for idx in bar:
                T = int(lengths[idx].max())
                optimizer.zero_grad(set_to_none=True)
                batch_loss = 0.0
                for part in torch.split(idx, max(1, args.max_batch_tokens // T)):  # (b,) each, b * T <= the budget
                    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                        output = model(
                            input_ids=batch.input_ids[part, :T],
                            attention_mask=batch.attention_mask[part, :T],
                            token_type_ids=batch.token_type_ids[part, :T],
                        )  # fmt: skip
                    # the part's mean loss times its share of the batch: the parts' gradients add up to the batch's
                    loss = loss_fn(output.logits.float(), y[part]) * share_of_batch(loss_fn, y[part], y[idx])  # (b, L)
                    if severity_loss is not None and output.severity_logits is not None:
                        loss = loss + args.severity_weight * severity_part_loss(
                            severity_loss, output.severity_logits.float(), s[part], s[idx]
                        )  # (b, S) logits; rows not annotated add nothing
                    loss.backward()
                    batch_loss += loss.item()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                releaser.step()
                total, seen = total + batch_loss * len(idx), seen + len(idx)
                bar.set_postfix(loss=f"{total / seen:.4f}", best_val_f1=f"{max(best_f1, 0.0):.3f}")
            optimizer.zero_grad(set_to_none=True)  # not kept through the validation pass (the next step starts anew)
            run = pipeline.run(validation_texts)
            probs = run.probabilities.numpy()  # (N, L)
            tuned = tuned_macro_f1(probs, validation_targets, multi_label=pipeline.multi_label)
            f1, thresholds = tuned.macro_f1, tuned.thresholds
            history.append({"epoch": epoch, "loss": total / seen, "validation_macro_f1": f1,
                            "learning_rate": scheduler.get_last_lr()[0]})  # fmt: skip
            improved = f1 > best_f1
            if improved:
                best_f1, best_epoch, best_thresholds, best_probs = f1, epoch, thresholds, probs
                best_severity = run.severity
                best_state = learned_state(model, into=best_state)
            if progress:
                tqdm.write(f"epoch {epoch}/{args.epochs}: train loss {total / seen:.4f}, validation macro-F1 {f1:.4f}"
                           + (" (best so far)" if improved else ""))  # fmt: skip
            if epoch - best_epoch >= args.patience:
                if progress:
                    tqdm.write(f"stopping early: no better validation macro-F1 for {args.patience} epochs")
                break
        model.load_state_dict(best_state, strict=False)  # the fixed tensors never changed
        del optimizer, scheduler, best_state  # the optimizer's moments and the kept copy: not needed from here on
        release_freed_memory(collect=True)
    model.config.thresholds = best_thresholds
    model.eval()
    if args.language_id:
        pipeline.language_id = fit_language_id(train_set.texts, train_set.languages(), validation_texts,
                                               validation_set.languages())  # fmt: skip
    probs = best_probs  # (N, L) the validation texts as the pipeline reads them now, carried through each fusion
    translit = None
    if args.translit_view:
        translit = add_translit_view(pipeline, train_set, validation_set, probs)
        probs = translit.probabilities
        if progress:
            tqdm.write(translit.summary())
    fusion = None
    if args.ngram_channel:
        fusion = add_ngram_channel(pipeline, train_set, validation_set, probs)
        probs = fusion.probabilities
        if progress:
            tqdm.write(fusion.summary())
    if best_severity is not None:  # the grave mark's threshold, on the validation rows annotated, as labelled now
        known = validation_set.severities()  # (N,)
        annotated = known >= 0
        truth = [SEVERITY_LEVELS[i] for i in known[annotated]]
        ill = None
        if "illness" in pipeline.labels:
            decided = decided_targets(probs, multi_label=pipeline.multi_label, thresholds=pipeline.thresholds())
            column = pipeline.labels.index("illness")
            ill = (decided[:, column] == 1 if decided.ndim == 2 else decided == column)[annotated]
        model.config.grave_threshold = choose_grave_threshold(
            best_severity.numpy()[annotated], truth, SEVERITY_LEVELS, ill
        )
    policy = review_policy_on(pipeline, probs, validation_targets, validation_set.forms())
    # the interval belongs to the test report
    report = evaluate_pipeline(pipeline, validation_set, bootstrap=0, probabilities=probs)
    policy.language_f1 = language_quality(report.by_language)  # each language's quality, as measured here
    model.config.review = policy.to_dict()
    return TrainingResult(pipeline, history, best_epoch, time.perf_counter() - started, report, fusion, translit)


def _check_compatible(train_set: LabelledTexts, validation_set: LabelledTexts) -> None:
    if len(train_set.texts) == 0 or len(validation_set.texts) == 0:
        raise ValueError("training needs at least one training and one validation example")
    if (
        list(train_set.label_set) != list(validation_set.label_set)
        or train_set.multi_label != validation_set.multi_label
    ):
        raise ValueError(
            f"the validation data's labels {list(validation_set.label_set)} "
            f"(multi-label: {validation_set.multi_label}) "
            f"differ from the training data's {list(train_set.label_set)} (multi-label: {train_set.multi_label})"
        )
