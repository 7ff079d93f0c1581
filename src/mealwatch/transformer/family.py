"""Checkpoint families: how each Hugging Face ``model_type`` lays out an encoder that ``Encoder`` runs.

Every supported family is the same network — embeddings, N post-LN encoder layers, an optional
pooler — with the same tensor names below a family prefix (``checkpoint.NAME_MAP``). A family says
only what differs between them:

- ``model_type``: config.json's name for it; ``architecture``: what ``save_pretrained`` writes;
- ``prefix``: the encoder's tensors carry it inside task checkpoints (``bert.``, ``roberta.``);
- ``ignored``: tensors of the folder that are not the encoder's (task heads, buffers);
- ``positions_after_padding``: BERT numbers positions 0..T-1; RoBERTa and XLM-R count the real tokens
  from ``pad_token_id + 1`` and give padding ``pad_token_id`` (``EncoderConfig.position_offset``).

A new family is one new file that calls ``register(Family(...))`` and one import line at the bottom
of this file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Family:
    """What one model family's checkpoint folders look like."""

    model_type: str
    architecture: str
    prefix: str
    ignored: str  # a regular expression matched against tensor names with ``prefix`` removed
    positions_after_padding: bool = False

    def encoder_fields(self, config: dict[str, Any]) -> dict[str, Any]:
        """``EncoderConfig`` fields this family implies that its config.json does not spell out."""
        if self.positions_after_padding and config.get("position_offset") is None:
            return {"position_offset": config.get("pad_token_id", 1)}  # positions start after the padding index
        return {}


#: model_type -> Family, filled by ``register``
FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add ``family`` to ``FAMILIES`` (each family file calls this once)."""
    FAMILIES[family.model_type] = family
    return family


# The registered families, one line each: importing a family's file registers it.
from . import bert  # noqa: E402,F401
from . import xlm_roberta  # noqa: E402,F401
