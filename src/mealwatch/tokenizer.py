"""The checkpoint's own tokenizer (WordPiece or SentencePiece) through the `tokenizers` library,
keeping the map from tokens back to words.

A *word* is what the checkpoint's pre-tokenizer splits on. For BERT's WordPiece: runs of letters
and digits, and each punctuation mark on its own ("it's" -> "it", "'", "s"); for SentencePiece's
Metaspace (XLM-R, multilingual MiniLM, e5): whitespace-separated runs ("thi," is one word). Every
token points to its word (``word_ids``) and every word to its characters in the original text
(``word_spans``), so later stages can show attention and importance per word. Word spans cover whole
grapheme clusters and no surrounding whitespace, so a Devanagari word never loses a vowel sign at its edge.

The special tokens are found by role (``[CLS]`` or ``<s>``, ``[SEP]`` or ``</s>``, ``[PAD]`` or
``<pad>``, ``[UNK]`` or ``<unk>``) from the checkpoint's files (``transformer/special_tokens.py``),
and padding uses the real pad id. Normalisation follows the checkpoint's own settings (lowercase,
strip accents) through ``text.bert_normalizer``, which strips Latin accents but keeps every Indic
combining mark, and reads a web address as the one word "link" (its span covers the whole address); BERT's
pre-tokenizer is ``text.bert_pre_tokenizer``, which also sets every emoji apart ("funny😂" is "funny" and "😂",
not one ``[UNK]``).
"""

from __future__ import annotations

import bisect
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from tokenizers import Tokenizer as FastTokenizer
from tokenizers import normalizers, pre_tokenizers, processors
from tokenizers.models import WordPiece
from torch import Tensor

from .text import URL, bert_normalizer, bert_pre_tokenizer, snap_spans, widen_to_links
from .transformer.checkpoint import CheckpointError, resolve
from .transformer.special_tokens import ROLES, declared, find_roles, pipeline_tokens, tokenizer_config


@dataclass
class TokenizedBatch:
    """Padded model inputs for a batch of texts, plus the alignment of tokens to words."""

    input_ids: Tensor  # (B, T) long, padded to the longest text in the batch
    attention_mask: Tensor  # (B, T) long: 1 for real tokens, 0 for padding
    token_type_ids: Tensor  # (B, T) long: all 0 for single texts
    tokens: list[list[str]]  # per text, its real tokens, [CLS] ... [SEP] or <s> ... </s> (no padding)
    word_ids: list[list[int | None]]  # per token: index into ``words``, None for [CLS]/[SEP]
    words: list[list[str]]  # per text, its words as they appear in the text
    word_spans: list[list[tuple[int, int]]]  # per word, (start, end) character offsets in the text
    truncated: list[bool]  # True where a text was cut to max_length tokens
    unk_token: str | None = "[UNK]"  # the tokenizer's unknown token (see ``Tokenizer.unk_token``)
    continuation_prefix: str = "##"  # what marks a piece inside a word ("##" in WordPiece, "" in SentencePiece)
    word_prefix: str = ""  # what marks a piece that starts a word ("▁" in SentencePiece, "" in WordPiece)

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
    """A checkpoint's tokenizer (tokenizer.json, or BERT's vocab.txt), with padding and the map back to words."""

    def __init__(self, backend: FastTokenizer, max_length: int = 512, config: dict[str, Any] | None = None) -> None:
        """``config``: the folder's tokenizer_config.json / special_tokens_map.json, which name the special tokens;
        as in Hugging Face's BertTokenizer, its ``do_lower_case`` and ``strip_accents`` win over tokenizer.json's."""
        config = config or {}
        if isinstance(backend.normalizer, normalizers.BertNormalizer):  # a checkpoint's own BERT tokenizer
            # same settings, but Brahmic vowel signs, nukta and virama are letters, not accents to strip
            old = backend.normalizer
            lowercase = config.get("do_lower_case", old.lowercase)
            strip = config["strip_accents"] if "strip_accents" in config else old.strip_accents
            backend.normalizer = bert_normalizer(lowercase=lowercase, strip_accents=strip, links=True)
            if isinstance(backend.pre_tokenizer, pre_tokenizers.BertPreTokenizer):
                backend.pre_tokenizer = bert_pre_tokenizer()  # BERT's words, and each emoji a word of its own
        # a tokenizer mealwatch saved (a trained model) is left as it is: it reads text as its model was trained to
        self.backend = backend
        self.max_length = max_length
        spec = json.loads(backend.to_str())
        roles = find_roles(declared(config), pipeline_tokens(spec), lambda t: backend.token_to_id(t) is not None)
        for role in ("cls", "sep", "pad"):
            if roles[role] is None:
                names = " or ".join(ROLES[role][1])
                raise CheckpointError(f"the vocabulary has no {role} token: none declared, and no {names}")
        self.cls_token, self.sep_token, self.pad_token = roles["cls"], roles["sep"], roles["pad"]
        self.unk_token: str | None = roles["unk"]  # None for a vocabulary that cannot meet an unknown piece
        self.mask_token: str | None = roles["mask"]
        self.pad_token_id = self._id(self.pad_token)
        self.cls_token_id = self._id(self.cls_token)
        self.sep_token_id = self._id(self.sep_token)
        self.unk_token_id = None if self.unk_token is None else self._id(self.unk_token)
        self.continuation_prefix, self.word_prefix = piece_markers(spec)
        self.reads_links = reads_links(spec)  # web addresses read as one word, whose spans are widened back
        backend.enable_truncation(max_length=max_length)
        backend.enable_padding(pad_id=self.pad_token_id, pad_token=self.pad_token)  # to the longest in the batch
        # one backend per truncation length, never switched between calls: threads share this tokenizer
        self._by_length: dict[int, FastTokenizer] = {max_length: backend}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:  # a copy (the explainer's) makes its own lock and copies
        state = dict(self.__dict__)
        del state["_lock"]
        state["_by_length"] = {self.max_length: self.backend}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _id(self, token: str) -> int:
        i = self.backend.token_to_id(token)
        if i is None:
            raise CheckpointError(f"the vocabulary has no {token} token")
        return i

    @property
    def vocab_size(self) -> int:
        return self.backend.get_vocab_size()

    @property
    def built_lengths(self) -> tuple[int, ...]:
        """The cut lengths a backend is held for (each one a copy of the whole vocabulary)."""
        return tuple(sorted(self._by_length))

    @classmethod
    def from_pretrained(cls, path: str | Path | None = None, max_length: int = 512) -> "Tokenizer":
        """Load from a checkpoint folder; ``None`` means the bundled all-MiniLM-L6-v2."""
        folder = resolve(path)
        config = tokenizer_config(folder)
        if (folder / "tokenizer.json").is_file():
            try:
                backend = FastTokenizer.from_file(str(folder / "tokenizer.json"))
            except Exception as e:  # the Rust library raises a bare Exception on bad JSON
                raise CheckpointError(f"{folder / 'tokenizer.json'} cannot be read: {e}") from e
            return cls(backend, max_length, config)
        if (folder / "vocab.txt").is_file():
            return cls(_from_vocab(folder, config), max_length, config)
        raise CheckpointError(
            f"{folder} has no tokenizer: expected tokenizer.json or vocab.txt "
            "(a SentencePiece model file alone is not read: use the folder's tokenizer.json)"
        )

    def save(self, directory: str | Path) -> None:
        """Write tokenizer.json (and nothing else) into ``directory``; its padding, post-processor and model
        name every special token, so the roles come back without tokenizer_config.json."""
        Path(directory).mkdir(parents=True, exist_ok=True)
        self.backend.save(str(Path(directory) / "tokenizer.json"))

    def _backend(self, max_length: int | None) -> FastTokenizer:
        """The backend that cuts texts at ``max_length`` tokens (None: ``self.max_length``): a copy of ``backend``
        made once per length, so that concurrent calls with different lengths never change each other's."""
        limit = max_length or self.max_length
        found = self._by_length.get(limit)
        if found is None:
            with self._lock:
                found = self._by_length.get(limit)
                if found is None:
                    found = FastTokenizer.from_str(self.backend.to_str())
                    found.enable_truncation(max_length=limit)
                    self._by_length = {**self._by_length, limit: found}
        return found

    def lengths(self, texts: list[str], max_length: int | None = None) -> list[int]:
        """How many tokens (special ones included, after the cut to ``max_length``) each text is read as."""
        return [sum(e.attention_mask) for e in self._backend(max_length).encode_batch(list(texts))]

    def __call__(self, texts: str | list[str], max_length: int | None = None) -> TokenizedBatch:
        """Tokenize one text or a list; texts longer than ``max_length`` tokens are cut and flagged."""
        if isinstance(texts, str):
            texts = [texts]
        encodings = self._backend(max_length).encode_batch(list(texts))
        batch = TokenizedBatch(
            input_ids=torch.tensor([e.ids for e in encodings], dtype=torch.long),
            attention_mask=torch.tensor([e.attention_mask for e in encodings], dtype=torch.long),
            token_type_ids=torch.tensor([e.type_ids for e in encodings], dtype=torch.long),
            tokens=[], word_ids=[], words=[], word_spans=[], truncated=[], unk_token=self.unk_token,
            continuation_prefix=self.continuation_prefix, word_prefix=self.word_prefix,
        )  # fmt: skip
        for text, e in zip(texts, encodings):
            n = sum(e.attention_mask)
            word_ids, spans = merge_blank_words(text, list(e.word_ids[:n]), e.word_to_chars)
            spans = snap_spans(text, spans)
            if self.reads_links:
                spans = widen_to_links(text, spans)
            # a Unigram model shows an unknown piece as its text; the model reads the unknown token
            batch.tokens.append([self.unk_token if i == self.unk_token_id else t for t, i in zip(e.tokens[:n], e.ids)])
            batch.word_ids.append(word_ids)
            batch.word_spans.append(spans)
            batch.words.append([text[s:t] for s, t in spans])
            batch.truncated.append(len(e.overflowing) > 0)
        return batch


def piece_markers(spec: dict[str, Any]) -> tuple[str, str]:
    """(continuation prefix, word-start prefix) of a tokenizer.json: ("##", "") for WordPiece, ("", "▁") for
    SentencePiece's Metaspace."""
    model = spec.get("model") or {}
    continuation = (model.get("continuing_subword_prefix") or "") if model.get("type") in ("WordPiece", "BPE") else ""
    pre = spec.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    word = next((p.get("replacement", "▁") for p in steps if p.get("type") == "Metaspace"), "")
    return continuation, word


def reads_links(spec: dict[str, Any]) -> bool:
    """Whether a tokenizer.json's normaliser reads every web address as one word (``text.bert_normalizer``'s
    ``links``); a tokenizer saved before that step existed does not."""
    norm = spec.get("normalizer") or {}
    steps = norm.get("normalizers", []) if norm.get("type") == "Sequence" else [norm]
    return any(n.get("type") == "Replace" and n.get("pattern") == {"Regex": URL} for n in steps)


def merge_blank_words(
    text: str, word_ids: list[int | None], word_to_chars: Callable[[int], tuple[int, int]]
) -> tuple[list[int | None], list[tuple[int, int]]]:
    """Word ids and character spans with whitespace trimmed off each span; a word that is only whitespace
    (SentencePiece's lone "▁" before a doubled space) joins the next word, or the one before it at the end."""
    n_words = max((w for w in word_ids if w is not None), default=-1) + 1
    spans = []
    for w in range(n_words):
        s, e = word_to_chars(w)
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        spans.append((s, e))
    kept = [w for w in range(n_words) if spans[w][0] < spans[w][1]]
    if len(kept) == n_words:
        return word_ids, spans
    if not kept:  # only whitespace: no words, as WordPiece finds none
        return [None] * len(word_ids), []
    # a blank word joins the next kept word (the last kept one when none follows)
    new_id = {w: min(bisect.bisect_left(kept, w), len(kept) - 1) for w in range(n_words)}
    return [None if w is None else new_id[w] for w in word_ids], [spans[w] for w in kept]


def _from_vocab(folder: Path, config: dict[str, Any]) -> FastTokenizer:
    """Build BERT's WordPiece pipeline from vocab.txt and the folder's tokenizer_config.json (do_lower_case,
    strip_accents and the special tokens, as Hugging Face's BertTokenizer reads them)."""
    lower = config.get("do_lower_case", True)
    strip = config.get("strip_accents")  # None: follows do_lower_case, as in BERT
    vocab = {
        line.rstrip("\n"): i for i, line in enumerate((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
    }
    roles = find_roles(declared(config), {}, vocab.__contains__)
    for role in ("cls", "sep", "unk"):
        if roles[role] is None:
            raise CheckpointError(f"{folder / 'vocab.txt'} has no {role} token ({' or '.join(ROLES[role][1])})")
    backend = FastTokenizer(WordPiece(vocab, unk_token=roles["unk"]))
    backend.normalizer = bert_normalizer(lowercase=lower, strip_accents=strip, links=True)
    backend.pre_tokenizer = bert_pre_tokenizer()
    cls, sep = roles["cls"], roles["sep"]
    backend.post_processor = processors.BertProcessing((sep, vocab[sep]), (cls, vocab[cls]))
    return backend
