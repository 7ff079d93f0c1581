"""The BERT encoder: embeddings, a stack of encoder layers, and the pooler.

E = LayerNorm(word(input_ids) + position(position_ids) + token_type(token_type_ids))
h_0 = Dropout(E);  h_l = EncoderLayer_l(h_{l-1});  last_hidden_state = h_N
pooler_output = tanh(W_p · h_N[CLS] + b_p)     (h_N[CLS] itself for a checkpoint without a pooler)

position_ids are 0..T-1 (BERT), or, with ``position_offset`` p (RoBERTa, XLM-R), p + 1, p + 2, ...
for the real tokens and p for padding.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from .layer import EncoderLayer
from .linear import Linear
from .positions import LearnedPositions, SinusoidalPositions, check_length


@dataclass
class EncoderConfig:
    """Shape and numerics of a BERT-style encoder (field names as in a Hugging Face config.json)."""

    vocab_size: int = 30522
    hidden_size: int = 384
    num_hidden_layers: int = 6
    num_attention_heads: int = 12
    intermediate_size: int = 1536
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    pad_token_id: int = 0
    position_embedding: str = "learned"  # "learned" (BERT) or "sinusoidal" (the original paper)
    norm_first: bool = False  # False: post-LN as BERT; True: pre-LN (for training from scratch)
    model_type: str = "bert"  # the checkpoint family (family.py): "bert" or "xlm-roberta"
    position_offset: int | None = None  # None: positions 0..T-1; p: real tokens at p+1, p+2, ..., padding at p
    add_pooling_layer: bool = True  # False for a checkpoint saved without a pooler

    def __post_init__(self) -> None:
        """The family (``model_type``) fills in what its config.json leaves implicit (``Family.encoder_fields``)."""
        from .checkpoint import family_of

        for name, value in family_of(self.model_type, "encoder config").encoder_fields(asdict(self)).items():
            setattr(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """A Hugging Face-compatible config dict (loadable by ``transformers`` when post-LN/learned)."""
        from .checkpoint import family_of

        d = asdict(self)
        architecture = family_of(self.model_type).architecture
        d.update(architectures=[architecture], position_embedding_type="absolute")
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EncoderConfig":
        """Read our fields from a config dict, ignoring unrelated Hugging Face keys."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclass
class EncoderOutput:
    """What the encoder returns. Attention weights come back as data, never through hooks."""

    last_hidden_state: Tensor  # (B, T, H): context-aware embedding of every token
    pooler_output: Tensor  # (B, H): tanh(W · h[CLS] + b), or h[CLS] when the encoder has no pooler
    attentions: tuple[Tensor, ...] | None = None  # one (B, nh, T, T) per layer, if asked
    hidden_states: tuple[Tensor, ...] | None = None  # embeddings + each layer's output, (B, T, H) each, if asked


class Embeddings(nn.Module):
    """Token + position + segment embeddings, summed, normalised, dropped out."""

    def __init__(self, config: EncoderConfig) -> None:
        super().__init__()
        H = config.hidden_size
        self.word = nn.Embedding(config.vocab_size, H, padding_idx=config.pad_token_id)
        if config.position_embedding == "learned":
            self.position: nn.Module = LearnedPositions(config.max_position_embeddings, H)
        elif config.position_embedding == "sinusoidal":
            self.position = SinusoidalPositions(config.max_position_embeddings, H)
        else:
            raise ValueError(f"position_embedding must be 'learned' or 'sinusoidal', not {config.position_embedding!r}")
        self.token_type = nn.Embedding(config.type_vocab_size, H)
        self.norm = nn.LayerNorm(H, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.max_positions = config.max_position_embeddings
        self.position_offset = config.position_offset

    def position_ids(self, B: int, T: int, attention_mask: Tensor | None, device: torch.device) -> Tensor:
        """(B, T) positions: 0..T-1, or with offset p the real tokens counted from p + 1 and padding at p."""
        if self.position_offset is None:
            check_length(T, self.max_positions)
            return torch.arange(T, device=device).expand(B, T)  # (B, T)
        check_length(T, self.max_positions - self.position_offset - 1)  # rows 0..p are never a real token's
        real = torch.ones(B, T, dtype=torch.long, device=device) if attention_mask is None else attention_mask.long()
        # the k-th real token gets p + k, padding gets p (Hugging Face's create_position_ids_from_input_ids)
        return torch.cumsum(real, dim=1) * real + self.position_offset  # (B, T)

    def forward(self, word_embeds: Tensor, token_type_ids: Tensor, attention_mask: Tensor | None = None) -> Tensor:
        """word_embeds (B, T, H), token_type_ids (B, T), attention_mask (B, T) or None -> (B, T, H)."""
        B, T, _ = word_embeds.shape
        position_ids = self.position_ids(B, T, attention_mask, word_embeds.device)  # (B, T)
        x = word_embeds + self.position(position_ids) + self.token_type(token_type_ids)  # (B, T, H)
        return self.dropout(self.norm(x))  # (B, T, H)


class Pooler(nn.Module):
    """BERT's pooler: a dense layer and tanh on the first ([CLS]) token."""

    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.dense = Linear(hidden_size, hidden_size)

    def forward(self, hidden: Tensor) -> Tensor:
        """(B, T, H) -> (B, H)."""
        return torch.tanh(self.dense(hidden[:, 0]))  # (B, H)


class Encoder(nn.Module):
    """A BERT encoder written from first principles; loads Hugging Face BERT and XLM-R checkpoints."""

    def __init__(self, config: EncoderConfig) -> None:
        super().__init__()
        self.config = config
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(
            EncoderLayer(
                config.hidden_size,
                config.num_attention_heads,
                config.intermediate_size,
                config.hidden_act,
                config.hidden_dropout_prob,
                config.attention_probs_dropout_prob,
                config.layer_norm_eps,
                config.norm_first,
            )
            for _ in range(config.num_hidden_layers)
        )
        # pre-LN stacks end with one more LayerNorm; post-LN layers already end normalised
        self.final_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps) if config.norm_first else None
        self.pooler = Pooler(config.hidden_size) if config.add_pooling_layer else None
        self.apply(self._init_weights)

    def _init_weights(self, module: nn.Module) -> None:
        """BERT's initialisation: N(0, 0.02) weights, zero biases, unit LayerNorm."""
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)
        if isinstance(module, nn.Embedding) and module.padding_idx is not None:
            with torch.no_grad():
                module.weight[module.padding_idx].zero_()
        if isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    def forward(
        self,
        input_ids: Tensor | None = None,
        attention_mask: Tensor | None = None,
        token_type_ids: Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
        inputs_embeds: Tensor | None = None,
    ) -> EncoderOutput:
        """Encode a batch.

        input_ids (B, T) — or ``inputs_embeds`` (B, T, H), word embeddings used in their
        place (for gradients with respect to the input, as in integrated gradients);
        attention_mask (B, T), 1 for real tokens and 0 for padding; token_type_ids (B, T).
        """
        if (input_ids is None) == (inputs_embeds is None):
            raise ValueError("give exactly one of input_ids and inputs_embeds")
        word_embeds = self.embeddings.word(input_ids) if inputs_embeds is None else inputs_embeds  # (B, T, H)
        B, T, _ = word_embeds.shape
        if token_type_ids is None:
            token_type_ids = torch.zeros(B, T, dtype=torch.long, device=word_embeds.device)  # (B, T)
        key_mask = None if attention_mask is None else attention_mask.bool()  # (B, T)
        if key_mask is not None and not output_attentions and not _tracing() and bool(key_mask.all()):
            key_mask = None  # nothing to hide: lets the fused kernel take its mask-free path

        x = self.embeddings(word_embeds, token_type_ids, attention_mask)  # (B, T, H)
        hidden_states = [x] if output_hidden_states else None
        attentions = [] if output_attentions else None
        for layer in self.layers:
            x, weights = layer(x, key_mask, need_weights=output_attentions)  # (B, T, H), (B, nh, T, T)
            if attentions is not None:
                attentions.append(weights)
            if hidden_states is not None:
                hidden_states.append(x)
        if self.final_norm is not None:
            x = self.final_norm(x)  # (B, T, H)
            if hidden_states is not None:
                hidden_states[-1] = x
        return EncoderOutput(
            last_hidden_state=x,
            pooler_output=x[:, 0] if self.pooler is None else self.pooler(x),  # (B, H)
            attentions=None if attentions is None else tuple(attentions),
            hidden_states=None if hidden_states is None else tuple(hidden_states),
        )

    @classmethod
    def from_pretrained(cls, path: str | Path | None = None) -> "Encoder":
        """Load a Hugging Face-format folder (a family of family.py); ``None``: the bundled all-MiniLM-L6-v2."""
        from .checkpoint import load_encoder

        return load_encoder(cls, path)

    def save_pretrained(self, directory: str | Path) -> None:
        """Write config.json and model.safetensors with Hugging Face tensor names."""
        from .checkpoint import save_encoder

        save_encoder(self, directory)


def _tracing() -> bool:
    """True while ``torch.compile`` or an exporter traces the model: a graph must keep the padding mask
    (a check of the example batch's values would be baked in, and padded batches would lose their mask)."""
    return torch.compiler.is_compiling() or torch.compiler.is_exporting() or torch.onnx.is_in_onnx_export()


def mean_pool(hidden: Tensor, attention_mask: Tensor) -> Tensor:
    """Average of the real (unpadded) token vectors: (B, T, H), (B, T) -> (B, H)."""
    m = attention_mask.unsqueeze(-1).to(hidden.dtype)  # (B, T, 1)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)  # (B, H)
