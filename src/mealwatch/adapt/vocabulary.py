"""Vocabulary extension: teach an English WordPiece vocabulary the pieces of Devanagari Hindi.

An English vocabulary has no Devanagari vowel signs, so every Hindi word becomes ``[UNK]``. We
train a WordPiece vocabulary on Hindi text with the ``tokenizers`` trainer (same normaliser and
pre-tokenizer as the checkpoint), keep the pieces the old vocabulary lacks, append them to the
tokenizer and append one row per piece to the word-embedding matrix:

    E' = [E ; e_new],   e_new(piece) = mean_i E[old_pieces(romanise(piece))_i]

Each new row starts as the mean of the old embeddings of the piece's romanisation ("खाना" ->
"khana" -> k ##han ##a), so the encoder starts from what it knows of the romanised word;
fine-tuning (or distillation) moves it from there. The old rows stay as they were.

Emoji the vocabulary lacks (every one is ``[UNK]`` to the English vocabulary, and each is a word of
its own: ``text.bert_pre_tokenizer``) are added the same way when the texts use them, each starting
from the mean embedding of the words of its Unicode name: "😂" -> "face with tears of joy".
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from tokenizers import Tokenizer as FastTokenizer
from tokenizers import models, trainers
from torch import nn

from ..romanise import romanise
from ..text import EMOJI, EMOJI_WORD, devanagari_share
from ..tokenizer import Tokenizer
from ..transformer import Encoder

#: how many pieces the Hindi WordPiece vocabulary is trained to (new pieces are those the old one lacks)
DEFAULT_PIECES = 6000
MIN_FREQUENCY = 2


def train_pieces(texts: Iterable[str], tokenizer: Tokenizer, size: int = DEFAULT_PIECES) -> list[str]:
    """WordPiece pieces with Devanagari that the tokenizer's vocabulary lacks, learned from ``texts``."""
    old = tokenizer.backend
    fresh = FastTokenizer(models.WordPiece(unk_token="[UNK]", continuing_subword_prefix="##"))
    fresh.normalizer = old.normalizer
    fresh.pre_tokenizer = old.pre_tokenizer
    trainer = trainers.WordPieceTrainer(vocab_size=size, min_frequency=MIN_FREQUENCY, special_tokens=["[UNK]"],
                                        continuing_subword_prefix="##", show_progress=False)  # fmt: skip
    fresh.train_from_iterator((t for t in texts if devanagari_share(t) > 0), trainer=trainer)
    known = old.get_vocab()
    learned = sorted(fresh.get_vocab().items(), key=lambda kv: kv[1])  # alphabet first, then merges in order
    return [p for p, _ in learned if p not in known and devanagari_share(p.removeprefix("##")) > 0]


def symbol_pieces(texts: Iterable[str], tokenizer: Tokenizer, min_frequency: int = MIN_FREQUENCY) -> list[str]:
    """Pieces for the emoji used at least ``min_frequency`` times in ``texts`` that the tokenizer's vocabulary
    lacks, most frequent first: "😂"; a skin tone or a flag's second letter continues its word ("👍", "##🏻")."""
    counts = Counter(
        piece
        for t in texts
        for word in re.findall(EMOJI_WORD, t)
        for piece in [word[0], *(f"{tokenizer.continuation_prefix}{ch}" for ch in word[1:])]
    )
    known = tokenizer.backend.get_vocab()
    frequent = [ch for ch, n in counts.items() if n >= min_frequency and ch not in known]
    return sorted(frequent, key=lambda ch: (-counts[ch], ch))


@dataclass
class Extension:
    """What ``extend`` did: the vocabulary size before, and the pieces appended after it."""

    pretrained_vocab_size: int
    pieces: list[str]


def extend(encoder: Encoder, tokenizer: Tokenizer, pieces: Sequence[str]) -> Extension:
    """Append ``pieces`` to the tokenizer's vocabulary and rows for them to the encoder's embeddings."""
    if not isinstance(tokenizer.backend.model, models.WordPiece):
        kind = type(tokenizer.backend.model).__name__
        raise ValueError(f"vocabulary extension works on WordPiece vocabularies; this tokenizer is {kind} "
                         "(a multilingual checkpoint already reads Hindi: train on it without --adapt)")  # fmt: skip
    vocab = tokenizer.backend.get_vocab()
    V = len(vocab)
    if encoder.config.vocab_size != V:
        raise ValueError(f"the encoder has {encoder.config.vocab_size} word embeddings but the tokenizer {V} pieces")
    pieces = [p for p in dict.fromkeys(pieces) if p not in vocab]
    old_model = tokenizer.backend.model
    init = torch.stack([_initial_row(encoder, old_model, p) for p in pieces]) if pieces else None  # (K, H)
    new_vocab = {**vocab, **{p: V + i for i, p in enumerate(pieces)}}
    tokenizer.backend.model = models.WordPiece(new_vocab, unk_token=tokenizer.unk_token or "[UNK]",
                                               continuing_subword_prefix=tokenizer.continuation_prefix or "##",
                                               max_input_chars_per_word=100)  # fmt: skip
    old = encoder.embeddings.word
    grown = nn.Embedding(V + len(pieces), old.embedding_dim, padding_idx=old.padding_idx)
    with torch.no_grad():
        grown.weight[:V] = old.weight  # (V, H): the pre-trained rows, unchanged
        if init is not None:
            grown.weight[V:] = init  # (K, H)
    encoder.embeddings.word = grown
    encoder.config.vocab_size = V + len(pieces)
    return Extension(V, list(pieces))


def _initial_row(encoder: Encoder, old_model: models.Model, piece: str) -> torch.Tensor:
    """The mean old embedding of the pieces of the romanised ``piece``, or of the words of an emoji's name (all rows'
    mean when it has none)."""
    table = encoder.embeddings.word.weight  # (V, H)
    symbol = piece.removeprefix("##")
    if re.fullmatch(EMOJI, symbol):  # its Unicode name: "😂" -> face with tears of joy
        words = re.findall(r"[a-z0-9]+", unicodedata.name(symbol, "").lower())
    else:
        words = [romanise(symbol)]
    ids = [t.id for w in words if w for t in old_model.tokenize(w)]
    ids = [i for i in ids if i < table.size(0)]
    rows = table[ids] if ids else table
    return rows.detach().mean(dim=0)  # (H,)


class AddedRowsEmbedding(nn.Module):
    """A word-embedding table split in two while it trains: the first ``n`` rows fixed, the added rows learning.

        E = [E_fixed ; E_added]      e(id) = E_fixed[id] if id < n else E_added[id − n]

    Looked up this way, a training step computes, clips and updates the gradient of the added rows alone,
    not of the whole table (the pre-trained rows are most of it).
    """

    def __init__(self, table: nn.Embedding, n: int) -> None:
        super().__init__()
        if not 0 < n < table.num_embeddings:
            raise ValueError(f"n must be between 1 and {table.num_embeddings - 1}, not {n}")
        self.n = n
        self.register_buffer("fixed", table.weight.detach()[:n], persistent=False)  # (n, H), a view: no copy
        self.added = nn.Parameter(table.weight.detach()[n:].clone())  # (V − n, H)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """input_ids (B, T) -> (B, T, H)."""
        is_added = (input_ids >= self.n).unsqueeze(-1)  # (B, T, 1)
        fixed = nn.functional.embedding(input_ids.clamp(max=self.n - 1), self.fixed)  # (B, T, H)
        added = nn.functional.embedding((input_ids - self.n).clamp(min=0), self.added)  # (B, T, H)
        return torch.where(is_added, added, fixed)  # (B, T, H)


@contextmanager
def added_rows_learning(encoder: Encoder, n: int) -> Iterator[AddedRowsEmbedding]:
    """Within the block the encoder's word embeddings are an ``AddedRowsEmbedding``: the first ``n`` rows fixed,
    the rest a parameter of their own (build the optimizer inside); on leaving, the rows learned are written back
    into the one table, so the encoder saves and loads as before."""
    table = encoder.embeddings.word
    split = AddedRowsEmbedding(table, n)
    encoder.embeddings.word = split
    try:
        yield split
    finally:
        encoder.embeddings.word = table
        with torch.no_grad():
            table.weight[n:] = split.added  # (V − n, H)


def freeze_pretrained_rows(embedding: nn.Embedding, n: int) -> torch.utils.hooks.RemovableHandle:
    """Keep the first ``n`` rows of ``embedding`` fixed while training (their gradient is zeroed).

    Give the table no weight decay as well, or AdamW would still shrink the fixed rows.
    """

    def hook(grad: torch.Tensor) -> torch.Tensor:
        grad = grad.clone()
        grad[:n] = 0  # (n, H): the pre-trained rows
        return grad

    return embedding.weight.register_hook(hook)
