"""The complaint classifier: the encoder, a pooled sentence vector, and a linear head.

    v = mean_pool(h_N, mask)  (or the [CLS] pooler output)
    logits = W · Dropout(v) + b            (B, L)
    single-label: softmax -> argmax;  multi-label: sigmoid -> per-label thresholds

A saved model is one folder: ``model.safetensors`` (every tensor of encoder and head),
``config.json`` (architecture, labels, thresholds, training arguments, and the format key
``mealwatch_classifier``) and ``tokenizer.json``. Saving is atomic: the folder is written
beside its destination, flushed to disk and renamed into place.
"""
from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from .labels import urgency
from .review import ReviewPolicy, reasons, unreadable_shares
from .tokenizer import Tokenizer
from .transformer import CheckpointError, Encoder, EncoderConfig, EncoderOutput, mean_pool

#: the key in config.json that marks a classifier folder, and the format version written
FORMAT_KEY = "mealwatch_classifier"
FORMAT_VERSION = 1
POOLINGS = ("mean", "cls")
WEIGHTS_FILE, CONFIG_FILE, TOKENIZER_FILE = "model.safetensors", "config.json", "tokenizer.json"
#: texts tokenized at once by ``predict_probabilities`` (bounds its memory on large files)
PREDICT_CHUNK = 4096


@dataclass
class ClassifierConfig:
    """What a classifier predicts and how; saved in config.json next to the weights."""

    labels: list[str]
    multi_label: bool
    pooling: str = "mean"  # "mean": masked mean of the last layer; "cls": the [CLS] pooler output
    thresholds: list[float] | None = None  # multi-label: one decision threshold per label (None: 0.5 each)
    dropout: float = 0.1  # before the head, during training
    training: dict[str, Any] = field(default_factory=dict)  # the training arguments, for the record
    encoder: EncoderConfig = field(default_factory=EncoderConfig)
    max_length: int = 128  # texts are cut to this many tokens, as in training
    review: dict[str, float] = field(default_factory=dict)  # review.ReviewPolicy (close-call margin chosen on validation)

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, not {self.pooling!r}")
        if not self.labels:
            raise ValueError("a classifier needs at least one label")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"labels must be unique, got {self.labels}")
        if self.thresholds is not None and len(self.thresholds) != len(self.labels):
            raise ValueError(f"{len(self.thresholds)} thresholds for {len(self.labels)} labels")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["encoder"] = self.encoder.to_dict()
        return {FORMAT_KEY: FORMAT_VERSION, **d}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ClassifierConfig":
        d = {k: v for k, v in d.items() if k != FORMAT_KEY}
        d["encoder"] = EncoderConfig.from_dict(d["encoder"])
        return cls(**d)


@dataclass
class ClassifierOutput:
    logits: Tensor  # (B, L)
    encoder: EncoderOutput


@dataclass
class Prediction:
    """One text's predicted labels, the probability of every label, the resulting urgency, and review reasons."""

    text: str
    labels: list[str]
    probabilities: dict[str, float]
    urgency: str
    truncated: bool = False  # True when the text was longer than max_length word pieces and only its start was read
    review_reasons: list[str] = field(default_factory=list)  # why a person should check it (see mealwatch.review)

    @property
    def needs_review(self) -> bool:
        """True when the labels should not be trusted without a person's check."""
        return bool(self.review_reasons)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "needs_review": self.needs_review}


class Classifier(nn.Module):
    """A BERT encoder with a linear head over its pooled sentence vector."""

    def __init__(self, encoder: Encoder, tokenizer: Tokenizer, config: ClassifierConfig) -> None:
        super().__init__()
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.config = config
        config.encoder = encoder.config
        self.dropout = nn.Dropout(config.dropout)
        self.head = nn.Linear(encoder.config.hidden_size, len(config.labels))
        nn.init.normal_(self.head.weight, std=0.02)  # BERT's initialisation (draws from torch's global RNG)
        nn.init.zeros_(self.head.bias)

    @property
    def labels(self) -> list[str]:
        return list(self.config.labels)

    @property
    def multi_label(self) -> bool:
        return self.config.multi_label

    def forward(
        self,
        input_ids: Tensor | None = None,
        attention_mask: Tensor | None = None,
        token_type_ids: Tensor | None = None,
        inputs_embeds: Tensor | None = None,
        output_attentions: bool = False,
    ) -> ClassifierOutput:
        """Logits (B, L) for a batch of token ids (B, T) — or word embeddings ``inputs_embeds`` (B, T, H)."""
        out = self.encoder(
            input_ids=input_ids,
            attention_mask=attention_mask,
            token_type_ids=token_type_ids,
            inputs_embeds=inputs_embeds,
            output_attentions=output_attentions,
        )
        if self.config.pooling == "mean":
            hidden = out.last_hidden_state  # (B, T, H)
            mask = attention_mask if attention_mask is not None else torch.ones(hidden.shape[:2], dtype=torch.long)
            pooled = mean_pool(hidden, mask)  # (B, H)
        else:
            pooled = out.pooler_output  # (B, H)
        return ClassifierOutput(logits=self.head(self.dropout(pooled)), encoder=out)  # (B, L)

    def probabilities(self, logits: Tensor) -> Tensor:
        """(B, L) logits -> (B, L) probabilities: sigmoid per label (multi-label) or softmax over labels."""
        return torch.sigmoid(logits) if self.multi_label else torch.softmax(logits, dim=-1)

    def thresholds(self) -> Tensor:
        """(L,) decision thresholds of a multi-label model (0.5 where none were tuned)."""
        values = self.config.thresholds or [0.5] * len(self.config.labels)
        return torch.tensor(values, dtype=torch.float32)

    def decide(self, probabilities: Tensor) -> Tensor:
        """(B, L) probabilities -> (B, L) 0/1 decisions.

        Single-label: the most probable label. Multi-label: every label whose probability
        reaches its threshold; when none does, the single most probable label, so every
        complaint gets at least one label.
        """
        top = torch.zeros_like(probabilities, dtype=torch.long)  # (B, L)
        top.scatter_(1, probabilities.argmax(dim=1, keepdim=True), 1)
        if not self.multi_label:
            return top
        chosen = (probabilities >= self.thresholds()).long()  # (B, L)
        none = chosen.sum(dim=1, keepdim=True) == 0  # (B, 1)
        return torch.where(none, top, chosen)  # (B, L)

    def predict_probabilities(self, texts: Sequence[str], batch_size: int = 64) -> Tensor:
        """(N, L) probabilities for ``texts``, in input order."""
        return self._read(texts, batch_size)[0]

    def predict(self, texts: Sequence[str], batch_size: int = 64) -> list[Prediction]:
        """Labels, per-label probabilities and urgency for each text, in input order (see ``decide``).

        A text longer than ``config.max_length`` word pieces is judged on its start and flagged
        ``truncated``.
        """
        texts = list(texts)
        probs, truncated, unreadable = self._read(texts, batch_size)  # (N, L), N flags, N shares
        return self.predictions(texts, probs, truncated, unreadable)

    @property
    def review_policy(self) -> ReviewPolicy:
        return ReviewPolicy.from_dict(self.config.review)

    def predictions(
        self, texts: Sequence[str], probabilities: Tensor, truncated: Sequence[bool], unreadable: Sequence[float]
    ) -> list[Prediction]:
        """Predictions from (N, L) probabilities already computed for ``texts`` (decided by ``decide``).

        ``unreadable`` is each text's share of words the vocabulary cannot read (``review.unreadable_shares``).
        """
        decisions = self.decide(probabilities)  # (N, L)
        thresholds = self.thresholds().tolist() if self.multi_label else None
        policy, labels_all = self.review_policy, self.config.labels
        predictions = []
        for text, p, d, cut, u in zip(texts, probabilities.tolist(), decisions.tolist(), truncated, unreadable):
            labels = [label for label, on in zip(labels_all, d) if on]
            why = reasons(p, labels_all, thresholds, u, policy)
            predictions.append(Prediction(text, labels, dict(zip(labels_all, p)), urgency(labels), cut, why))
        return predictions

    @torch.inference_mode()
    def _read(self, texts: Sequence[str], batch_size: int) -> tuple[Tensor, list[bool], list[float]]:
        """(N, L) probabilities; per text, whether it was cut to ``max_length`` tokens and its unreadable share.

        Texts are tokenized a chunk at a time and batched by token count, so a batch holds
        texts of about the same length and little padding.
        """
        was_training = self.training
        self.eval()
        texts = list(texts)
        out = torch.zeros(len(texts), len(self.config.labels))  # (N, L)
        truncated: list[bool] = []
        unreadable: list[float] = []
        for start in range(0, len(texts), PREDICT_CHUNK):
            tokens = self.tokenizer(texts[start : start + PREDICT_CHUNK], max_length=self.config.max_length)
            truncated.extend(tokens.truncated)
            unreadable.extend(unreadable_shares(tokens))
            lengths = tokens.attention_mask.sum(dim=1)  # (C,)
            order = torch.argsort(lengths, stable=True)  # (C,)
            for idx in order.split(batch_size):
                T = int(lengths[idx].max())
                logits = self(
                    input_ids=tokens.input_ids[idx, :T], attention_mask=tokens.attention_mask[idx, :T],
                    token_type_ids=tokens.token_type_ids[idx, :T],
                ).logits  # (B, L)  fmt: skip
                out[start + idx] = self.probabilities(logits).float()
        self.train(was_training)
        return out, truncated, unreadable

    def save(self, directory: str | Path) -> None:
        """Write the model folder atomically (see the module docstring); replaces an older saved model."""
        def write(folder: Path) -> None:
            from safetensors.torch import save_file

            self.tokenizer.save(folder)
            tensors = {k: v.detach().contiguous().cpu() for k, v in self.state_dict().items()}
            save_file(tensors, str(folder / WEIGHTS_FILE), metadata={"format": "pt"})
            # config.json last: a folder without it is never taken for a classifier
            (folder / CONFIG_FILE).write_text(json.dumps(self.config.to_dict(), indent=2), encoding="utf-8")

        write_atomically(Path(directory), write, replaceable=is_classifier_dir)

    @classmethod
    def load(cls, directory: str | Path) -> "Classifier":
        """Load a folder written by ``save``; errors name the folder and what is wrong with it."""
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        folder = Path(directory)
        config = _read_config(folder)
        model = cls(Encoder(config.encoder), Tokenizer.from_pretrained(folder), config)
        try:
            tensors = load_file(str(folder / WEIGHTS_FILE))
        except FileNotFoundError as e:
            raise CheckpointError(f"{folder} has no {WEIGHTS_FILE}: the model folder is incomplete") from e
        except (SafetensorError, OSError, ValueError, RuntimeError) as e:
            raise CheckpointError(f"{folder / WEIGHTS_FILE} is damaged or truncated and cannot be read: {e}") from e
        expected = model.state_dict()
        problems = [f"missing tensor {k} (expected shape {tuple(v.shape)})" for k, v in expected.items() if k not in tensors]
        problems += [f"unexpected tensor {k}" for k in tensors if k not in expected]
        problems += [
            f"tensor {k} has shape {tuple(t.shape)}, expected {tuple(expected[k].shape)}"
            for k, t in tensors.items()
            if k in expected and t.shape != expected[k].shape
        ]
        if problems:
            raise CheckpointError(f"{folder / WEIGHTS_FILE} does not match its config.json:\n  " + "\n  ".join(problems))
        model.load_state_dict(tensors, strict=True)
        return model.eval()


def _read_config(folder: Path) -> ClassifierConfig:
    if not folder.is_dir():
        raise CheckpointError(f"model folder {folder} does not exist (or is not a folder)")
    file = folder / CONFIG_FILE
    if not file.is_file():
        raise CheckpointError(f"{folder} is not a mealwatch model folder: it has no {CONFIG_FILE}")
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{file} is not valid JSON: {e}") from e
    if not isinstance(raw, dict) or FORMAT_KEY not in raw:
        raise CheckpointError(
            f"{folder} is not a mealwatch classifier folder (its {CONFIG_FILE} has no {FORMAT_KEY!r} key; "
            "a plain encoder checkpoint has no classification head): pass a folder written by `mealwatch train`"
        )
    if raw[FORMAT_KEY] > FORMAT_VERSION:
        raise CheckpointError(f"{file} has format version {raw[FORMAT_KEY]}; this mealwatch reads up to {FORMAT_VERSION}")
    try:
        return ClassifierConfig.from_dict(raw)
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{file} does not describe a classifier: {e}") from e


def write_atomically(destination: Path, write: Callable[[Path], None], replaceable: Callable[[Path], bool]) -> None:
    """Let ``write`` fill a hidden sibling folder, flush it to disk, then rename it to ``destination``.

    An existing ``destination`` is replaced only when it is empty or ``replaceable`` says so;
    it is moved aside first and put back if the final rename fails, so an interruption at any
    point leaves either the old folder or the new one, and never a partial folder by that name.
    """
    destination = Path(destination)
    if destination.exists():
        if not destination.is_dir():
            raise CheckpointError(f"cannot save a model to {destination}: it exists and is not a folder")
        if any(destination.iterdir()) and not replaceable(destination):
            raise CheckpointError(
                f"cannot save a model to {destination}: the folder holds other files; choose a new or empty folder"
            )
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = destination.parent / f".{destination.name}.saving-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    try:
        write(staging)
        for file in staging.iterdir():
            _fsync(file)
        _fsync(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = destination.parent / f".{destination.name}.old-{uuid.uuid4().hex[:8]}"
    if destination.exists():
        os.rename(destination, old)
    try:
        os.rename(staging, destination)
    except BaseException:
        if old.exists():
            os.rename(old, destination)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _fsync(destination.parent)
    shutil.rmtree(old, ignore_errors=True)


def _fsync(path: Path) -> None:
    """Flush a file's (or a folder's entries') data to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def is_classifier_dir(path: str | Path) -> bool:
    """True for a folder written by ``Classifier.save`` (config.json with the format key, and weights)."""
    folder = Path(path)
    file = folder / CONFIG_FILE
    if not (file.is_file() and (folder / WEIGHTS_FILE).is_file()):
        return False
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(raw, dict) and FORMAT_KEY in raw
