"""Continued masked-language-model pre-training: the objective BERT itself was trained with.

Pick 15 % of the real word pieces of each text (never [CLS], [SEP] or padding); of those,

    80 % are replaced by [MASK],  10 % by a random piece,  10 % are left as they are,

and train the encoder to predict the original piece at every picked position:

    h = encoder(x̃)                                    (B, T, H)
    z = LayerNorm(GELU(W_t h + b_t)) E^T + b_v          (B, T, V)   the decoder shares the word embeddings E
    loss = cross-entropy(z at picked positions, original pieces)

Leaving 10 % unchanged and corrupting 10 % at random keeps the encoder from learning that only
[MASK] positions matter (Devlin et al. 2019, section 3.1 and appendix C.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..memory import MemoryReleaser
from ..tokenizer import Tokenizer
from ..transformer.precision import cpu_has_bf16
from ..transformer import Encoder
from .vocabulary import freeze_pretrained_rows

IGNORE = -100  # label of positions that are not predicted (cross_entropy's ignore_index)


@dataclass
class MaskedBatch:
    input_ids: Tensor  # (B, T): the corrupted inputs
    labels: Tensor  # (B, T): the original piece where one was picked, IGNORE elsewhere


def mask_tokens(
    input_ids: Tensor,
    maskable: Tensor,
    *,
    mask_token_id: int,
    vocab_size: int,
    generator: torch.Generator,
    probability: float = 0.15,
) -> MaskedBatch:
    """BERT's 80/10/10 corruption of ``probability`` of the ``maskable`` (B, T) positions of ``input_ids`` (B, T)."""
    picked = (torch.rand(input_ids.shape, generator=generator) < probability) & maskable  # (B, T)
    labels = torch.where(picked, input_ids, torch.full_like(input_ids, IGNORE))  # (B, T)
    roll = torch.rand(input_ids.shape, generator=generator)  # (B, T): one draw decides mask / random / keep
    to_mask = picked & (roll < 0.8)  # (B, T)
    to_random = picked & (roll >= 0.8) & (roll < 0.9)  # (B, T)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator)  # (B, T)
    corrupted = torch.where(to_mask, torch.full_like(input_ids, mask_token_id), input_ids)
    corrupted = torch.where(to_random, random_ids, corrupted)  # (B, T); the last 10 % keep their piece
    return MaskedBatch(corrupted, labels)


class MaskedLMHead(nn.Module):
    """BERT's prediction head: a transform, then the word embeddings (shared) as the output layer."""

    def __init__(self, word_embeddings: nn.Embedding, layer_norm_eps: float = 1e-12) -> None:
        super().__init__()
        V, H = word_embeddings.weight.shape
        self.transform = nn.Linear(H, H)
        self.norm = nn.LayerNorm(H, eps=layer_norm_eps)
        self.word_embeddings = word_embeddings  # tied: the decoder's weight is E itself
        self.bias = nn.Parameter(torch.zeros(V))

    def forward(self, hidden: Tensor) -> Tensor:
        """(N, H) hidden vectors -> (N, V) logits over the vocabulary."""
        h = self.norm(F.gelu(self.transform(hidden)))  # (N, H)
        return h @ self.word_embeddings.weight.T + self.bias  # (N, V)


def continue_pretraining(
    encoder: Encoder,
    tokenizer: Tokenizer,
    texts: Sequence[str],
    *,
    epochs: int = 2,
    batch_size: int = 32,
    learning_rate: float = 1e-4,
    seed: int = 0,
    max_length: int = 128,
    frozen_rows: int = 0,
    progress: bool = False,
) -> list[float]:
    """Train ``encoder`` on ``texts`` with the masked-LM objective; returns the mean loss of each epoch.

    ``frozen_rows``: the first word-embedding rows (the pre-trained vocabulary) keep their values.
    """
    mask_id = tokenizer.backend.token_to_id(tokenizer.mask_token) if tokenizer.mask_token else None
    if mask_id is None:
        raise ValueError("the vocabulary has no mask token: masked-LM pre-training needs one")
    generator = torch.Generator().manual_seed(seed)
    head = MaskedLMHead(encoder.embeddings.word, encoder.config.layer_norm_eps)
    params = [p for p in [*encoder.parameters(), *head.transform.parameters(), *head.norm.parameters(), head.bias]]
    optimizer = torch.optim.AdamW([p for p in params if p.requires_grad], lr=learning_rate, weight_decay=0.0)
    steps = epochs * math.ceil(len(texts) / batch_size)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1 - step / steps))
    hook = freeze_pretrained_rows(encoder.embeddings.word, frozen_rows) if frozen_rows else None
    encoder.train()
    losses, releaser = [], MemoryReleaser()
    for epoch in range(epochs):
        total, count = 0.0, 0
        for idx in torch.randperm(len(texts), generator=generator).split(batch_size):
            batch = tokenizer([texts[i] for i in idx.tolist()], max_length=max_length)
            real = torch.tensor(
                [
                    [w is not None for w in ids] + [False] * (batch.input_ids.size(1) - len(ids))
                    for ids in batch.word_ids
                ]
            )  # (B, T): word pieces, not [CLS]/[SEP]/padding  fmt: skip
            masked = mask_tokens(batch.input_ids, real, mask_token_id=mask_id, vocab_size=tokenizer.vocab_size,
                                 generator=generator)  # fmt: skip
            picked = masked.labels != IGNORE  # (B, T)
            if not picked.any():
                continue
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=cpu_has_bf16()):
                hidden = encoder(input_ids=masked.input_ids, attention_mask=batch.attention_mask).last_hidden_state
                logits = head(hidden[picked])  # (N, V): only the picked positions are decoded
            loss = F.cross_entropy(logits.float(), masked.labels[picked])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            scheduler.step()
            releaser.step()
            total, count = total + loss.item() * int(picked.sum()), count + int(picked.sum())
        losses.append(total / max(count, 1))
        if progress:
            print(f"masked-LM epoch {epoch + 1}/{epochs}: loss {losses[-1]:.4f}", flush=True)
    if hook is not None:
        hook.remove()
    encoder.eval()
    return losses
