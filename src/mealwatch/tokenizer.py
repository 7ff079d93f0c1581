"""WordPiece tokenization with the `tokenizers` library, keeping the map from tokens back to words.

A *word* here is what BERT's pre-tokenizer splits on: runs of letters and digits, and each
punctuation mark on its own ("it's" -> "it", "'", "s"). Every token points to its word
(``word_ids``) and every word to its characters in the original text (``word_spans``), so
later stages can show attention and importance per word. Word spans cover whole grapheme clusters,
so a Devanagari word never loses a vowel sign at its edge.

Normalisation follows the checkpoint's own settings (lowercase, strip accents) through
``text.bert_normalizer``, which strips Latin accents but keeps every Indic combining mark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import Tokenizer as FastTokenizer
from tokenizers import normalizers, pre_tokenizers, processors
from tokenizers.models import WordPiece
from torch import Tensor

from .text import bert_normalizer, snap_spans
from .transformer.checkpoint import CheckpointError, resolve


@dataclass
class TokenizedBatch:
    """Padded model inputs for a batch of texts, plus the alignment of tokens to words."""

    input_ids: Tensor  # (B, T) long, padded to the longest text in the batch
    attention_mask: Tensor  # (B, T) long: 1 for real tokens, 0 for padding
    token_type_ids: Tensor  # (B, T) long: all 0 for single texts
    tokens: list[list[str]]  # per text, its real tokens, [CLS] ... [SEP] (no padding)
    word_ids: list[list[int | None]]  # per token: index into ``words``, None for [CLS]/[SEP]
    words: list[list[str]]  # per text, its words as they appear in the text
    word_spans: list[list[tuple[int, int]]]  # per word, (start, end) character offsets in the text
    truncated: list[bool]  # True where a text was cut to max_length tokens

    def __len__(self) -> int:
        return self.input_ids.size(0)

    def model_inputs(self) -> dict[str, Tensor]:
        """The tensors an ``Encoder`` takes, as keyword arguments."""
        return {
            "input_ids": self.input_ids,
            "attention_mask": self.attention_mask,
            "token_type_ids": self.token_type_ids,
        }


class Tokenizer:
    """BERT's uncased WordPiece tokenizer from a checkpoint folder (tokenizer.json or vocab.txt)."""

    def __init__(self, backend: FastTokenizer, max_length: int = 512) -> None:
        if isinstance(backend.normalizer, normalizers.BertNormalizer):
            # same settings, but Brahmic vowel signs, nukta and virama are letters, not accents to strip
            old = backend.normalizer
            backend.normalizer = bert_normalizer(lowercase=old.lowercase, strip_accents=old.strip_accents)
        self.backend = backend
        self.max_length = max_length
        self.pad_token_id = self._id("[PAD]")
        self.cls_token_id = self._id("[CLS]")
        self.sep_token_id = self._id("[SEP]")
        backend.enable_truncation(max_length=max_length)
        self._truncation = max_length
        backend.enable_padding(pad_id=self.pad_token_id, pad_token="[PAD]")  # to the longest in the batch

    def _id(self, token: str) -> int:
        i = self.backend.token_to_id(token)
        if i is None:
            raise CheckpointError(f"the vocabulary has no {token} token")
        return i

    @property
    def vocab_size(self) -> int:
        return self.backend.get_vocab_size()

    @classmethod
    def from_pretrained(cls, path: str | Path | None = None, max_length: int = 512) -> "Tokenizer":
        """Load from a checkpoint folder; ``None`` means the bundled all-MiniLM-L6-v2."""
        folder = resolve(path)
        if (folder / "tokenizer.json").is_file():
            try:
                return cls(FastTokenizer.from_file(str(folder / "tokenizer.json")), max_length)
            except Exception as e:  # the Rust library raises a bare Exception on bad JSON
                raise CheckpointError(f"{folder / 'tokenizer.json'} cannot be read: {e}") from e
        if (folder / "vocab.txt").is_file():
            return cls(_from_vocab(folder), max_length)
        raise CheckpointError(f"{folder} has no tokenizer: expected tokenizer.json or vocab.txt")

    def save(self, directory: str | Path) -> None:
        """Write tokenizer.json (and nothing else) into ``directory``."""
        Path(directory).mkdir(parents=True, exist_ok=True)
        self.backend.save(str(Path(directory) / "tokenizer.json"))

    def __call__(self, texts: str | list[str], max_length: int | None = None) -> TokenizedBatch:
        """Tokenize one text or a list; texts longer than ``max_length`` tokens are cut and flagged."""
        if isinstance(texts, str):
            texts = [texts]
        limit = max_length or self.max_length
        if limit != self._truncation:
            self.backend.enable_truncation(max_length=limit)
            self._truncation = limit
        encodings = self.backend.encode_batch(list(texts))
        batch = TokenizedBatch(
            input_ids=torch.tensor([e.ids for e in encodings], dtype=torch.long),
            attention_mask=torch.tensor([e.attention_mask for e in encodings], dtype=torch.long),
            token_type_ids=torch.tensor([e.type_ids for e in encodings], dtype=torch.long),
            tokens=[], word_ids=[], words=[], word_spans=[], truncated=[],
        )  # fmt: skip
        for text, e in zip(texts, encodings):
            n = sum(e.attention_mask)
            word_ids = list(e.word_ids[:n])
            n_words = max((w for w in word_ids if w is not None), default=-1) + 1
            spans = snap_spans(text, [e.word_to_chars(w) for w in range(n_words)])
            batch.tokens.append(list(e.tokens[:n]))
            batch.word_ids.append(word_ids)
            batch.word_spans.append(spans)
            batch.words.append([text[s:t] for s, t in spans])
            batch.truncated.append(len(e.overflowing) > 0)
        return batch


def _from_vocab(folder: Path) -> FastTokenizer:
    """Build BERT's WordPiece pipeline from vocab.txt (+ tokenizer_config.json's do_lower_case)."""
    lower = True
    config_file = folder / "tokenizer_config.json"
    if config_file.is_file():
        lower = json.loads(config_file.read_text(encoding="utf-8")).get("do_lower_case", True)
    vocab = {
        line.rstrip("\n"): i for i, line in enumerate((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
    }
    backend = FastTokenizer(WordPiece(vocab, unk_token="[UNK]"))
    backend.normalizer = bert_normalizer(lowercase=lower)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls_id, sep_id = vocab["[CLS]"], vocab["[SEP]"]
    backend.post_processor = processors.BertProcessing(("[SEP]", sep_id), ("[CLS]", cls_id))
    return backend
