"""Multilingual knowledge distillation (Reimers and Gurevych, EMNLP 2020).

A frozen teacher (the English encoder) embeds an English complaint; the student (the same
encoder, its vocabulary extended) learns to give the same sentence vector to the complaint's
Hindi and romanised renderings, and to the English itself:

    loss = mean over pairs (s, t) of  || v_student(t) - v_teacher(s) ||²  +  || v_student(s) - v_teacher(s) ||²
    v(x) = mean_pool(encoder(x))  (the sentence vector all-MiniLM-L6-v2 was trained to give)

so that "बच्चों को उल्टी हुई", "bacchon ko ulti hui" and "the children vomited" land on one point,
and what the classifier later learns on any one of them carries over to the others.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from ..embeddings import embed_texts
from ..memory import MemoryReleaser
from ..tokenizer import Tokenizer
from ..transformer.precision import cpu_has_bf16
from ..transformer import Encoder, mean_pool
from .vocabulary import added_rows_learning


@dataclass
class DistillationResult:
    losses: list[float]  # mean loss per epoch
    pairs: int


def distill(
    student: Encoder,
    student_tokenizer: Tokenizer,
    teacher: Encoder,
    teacher_tokenizer: Tokenizer,
    pairs: Sequence[tuple[str, str]],
    *,
    epochs: int = 4,
    batch_size: int = 32,
    learning_rate: float = 2e-4,
    seed: int = 0,
    max_length: int = 128,
    frozen_rows: int = 0,
    progress: bool = False,
) -> DistillationResult:
    """Train ``student`` so that its vector of each (source, target) pair's target matches the teacher's of source.

    ``frozen_rows``: the first word-embedding rows (the pre-trained vocabulary) keep their values.
    """
    teacher.eval()
    sources = sorted({s for s, _ in pairs})
    index = {s: i for i, s in enumerate(sources)}
    targets = torch.from_numpy(embed_texts(teacher, teacher_tokenizer, sources, max_length=max_length))  # (S, H)
    # every pair trains the student on its target text, and each English source once on itself
    rows = [(t, index[s]) for s, t in pairs] + [(s, index[s]) for s in sources]
    generator = torch.Generator().manual_seed(seed)
    student.train()
    # the pre-trained rows stay as they are; the added rows learn, and go back into the one table at the end
    with added_rows_learning(student, frozen_rows) if frozen_rows else nullcontext():
        optimizer = torch.optim.AdamW([p for p in student.parameters() if p.requires_grad], lr=learning_rate,
                                      weight_decay=0.0)  # fmt: skip
        steps = epochs * math.ceil(len(rows) / batch_size)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1 - step / steps))
        losses, releaser = [], MemoryReleaser()
        for epoch in range(epochs):
            total = 0.0
            for idx in _length_batches(rows, batch_size, generator):
                texts = [rows[i][0] for i in idx.tolist()]
                goal = targets[[rows[i][1] for i in idx.tolist()]]  # (B, H)
                inputs = padded_to_multiple(student_tokenizer(texts, max_length=max_length), student_tokenizer)
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=cpu_has_bf16()):
                    hidden = student(**inputs).last_hidden_state  # (B, T', H)
                loss = F.mse_loss(mean_pool(hidden.float(), inputs["attention_mask"]), goal)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                scheduler.step()
                releaser.step()
                total += loss.item() * len(idx)
            losses.append(total / len(rows))
            if progress:
                print(f"distillation epoch {epoch + 1}/{epochs}: loss {losses[-1]:.6f}", flush=True)
    student.eval()
    return DistillationResult(losses, len(pairs))


def _length_batches(rows: Sequence[tuple[str, int]], batch_size: int, generator: torch.Generator) -> list[torch.Tensor]:
    """Shuffled batches of texts of similar length: less padding, and far fewer tensor shapes for the allocator."""
    order = torch.randperm(len(rows), generator=generator)  # (N,)
    window = batch_size * 50
    batches = []
    for start in range(0, len(order), window):
        chunk = order[start : start + window]
        lengths = torch.tensor([len(rows[i][0]) for i in chunk.tolist()])  # characters: a proxy for pieces
        batches.extend(chunk[torch.argsort(lengths, stable=True)].split(batch_size))
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


#: batches are padded to a multiple of this many pieces: a handful of tensor shapes instead of one per length,
#: which keeps the allocator's and oneDNN's per-shape caches from growing with every batch
SHAPE_STEP = 16


def padded_to_multiple(batch, tokenizer: Tokenizer, step: int = SHAPE_STEP) -> dict[str, torch.Tensor]:
    """A tokenized batch's model inputs, padded (with the pad token, mask 0) to a multiple of ``step`` pieces."""
    inputs = batch.model_inputs()
    T = inputs["input_ids"].size(1)
    extra = -T % step
    if not extra:
        return inputs
    fill = {"input_ids": tokenizer.pad_token_id, "attention_mask": 0, "token_type_ids": 0}
    return {k: F.pad(v, (0, extra), value=fill[k]) for k, v in inputs.items()}  # (B, T + extra)
