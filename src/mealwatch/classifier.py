"""The classifier as an ``nn.Module``: the encoder, a pooled sentence vector, and a linear head.

    v = mean_pool(h_N, mask)  (or the [CLS] pooler output)
    logits = W · Dropout(v) + b            (B, L)
    probabilities: sigmoid per label (multi-label) or softmax over labels

and, when the config names severity levels, a second head over the same vector:

    severity_logits = W_s · Dropout(v) + b_s        (B, S)      severity = softmax over the S levels

Tokenization, thresholds, decisions, review and saving live in ``pipeline.Pipeline``; this
module holds only the network and its config (``ClassifierConfig``, saved as config.json).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from .transformer import CheckpointError, Encoder, EncoderConfig, EncoderOutput, mean_pool
from .transformer.checkpoint import WEIGHTS_FILE

#: the key in config.json that marks a classifier folder, and the format version written
FORMAT_KEY = "mealwatch_classifier"
FORMAT_VERSION = 1
POOLINGS = ("mean", "cls")
CONFIG_FILE, TOKENIZER_FILE = "config.json", "tokenizer.json"


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
    review: dict[str, float] = field(
        default_factory=dict
    )  # review.ReviewPolicy (close-call margin chosen on validation)
    ngram_weight: float = 0.0  # weight of the n-gram channel in the fused probabilities (0: none; ngram_channel)
    encoder_thresholds: list[float] | None = None  # with a channel: the thresholds tuned for the encoder alone
    translit_weight: float = 0.0  # weight of the Devanagari view of romanised Hindi (0: none; transliteration.py)
    severity_levels: list[str] = field(default_factory=list)  # the severity head's levels (empty: no such head)
    grave_threshold: float = 0.5  # P(hospital) + P(death) from which a complaint is grave (chosen on validation)

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, not {self.pooling!r}")
        if not self.labels:
            raise ValueError("a classifier needs at least one label")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"labels must be unique, got {self.labels}")
        if self.thresholds is not None and len(self.thresholds) != len(self.labels):
            raise ValueError(f"{len(self.thresholds)} thresholds for {len(self.labels)} labels")
        if not 0.0 <= self.ngram_weight < 1.0:
            raise ValueError(f"ngram_weight must be in [0, 1), not {self.ngram_weight}")
        if not 0.0 <= self.translit_weight <= 1.0:
            raise ValueError(f"translit_weight must be in [0, 1], not {self.translit_weight}")

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
    severity_logits: Tensor | None = None  # (B, S), with a severity head


class Classifier(nn.Module):
    """A BERT encoder with a linear head over its pooled sentence vector."""

    def __init__(self, encoder: Encoder, config: ClassifierConfig) -> None:
        super().__init__()
        self.encoder = encoder
        self.config = config
        config.encoder = encoder.config
        self.dropout = nn.Dropout(config.dropout)
        self.head = nn.Linear(encoder.config.hidden_size, len(config.labels))
        nn.init.normal_(self.head.weight, std=0.02)  # BERT's initialisation (draws from torch's global RNG)
        nn.init.zeros_(self.head.bias)
        self.severity_head: nn.Linear | None = None
        if config.severity_levels:
            self.severity_head = nn.Linear(encoder.config.hidden_size, len(config.severity_levels))
            nn.init.normal_(self.severity_head.weight, std=0.02)
            nn.init.zeros_(self.severity_head.bias)

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
        pooled = self.dropout(pooled)  # (B, H)
        severity = self.severity_head(pooled) if self.severity_head is not None else None  # (B, S)
        return ClassifierOutput(logits=self.head(pooled), encoder=out, severity_logits=severity)  # (B, L)

    def probabilities(self, logits: Tensor) -> Tensor:
        """(B, L) logits -> (B, L) probabilities: sigmoid per label (multi-label) or softmax over labels."""
        return torch.sigmoid(logits) if self.config.multi_label else torch.softmax(logits, dim=-1)


def read_config(folder: Path) -> ClassifierConfig:
    """The ClassifierConfig saved in ``folder``/config.json; errors name the folder and what is wrong."""
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
        raise CheckpointError(
            f"{file} has format version {raw[FORMAT_KEY]}; this mealwatch reads up to {FORMAT_VERSION}"
        )
    try:
        return ClassifierConfig.from_dict(raw)
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{file} does not describe a classifier: {e}") from e


def is_classifier_dir(path: str | Path) -> bool:
    """True for a folder written by ``pipeline.Pipeline.save`` (config.json with the format key, and weights)."""
    folder = Path(path)
    file = folder / CONFIG_FILE
    if not (file.is_file() and (folder / WEIGHTS_FILE).is_file()):
        return False
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(raw, dict) and FORMAT_KEY in raw
