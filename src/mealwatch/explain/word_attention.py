"""Attention per word rather than per WordPiece.

The encoder attends between WordPiece tokens; a reader thinks in words. One rule merges
token attention to word attention, for every layer and head:

    A_word[i, j] = mean over the query pieces q of word i of ( Σ over the key pieces k of word j  A[q, k] )

Summing over key pieces keeps the total weight a query gives away; averaging over query
pieces makes a word's row the average of its pieces' rows. Since every token row sums to 1,
every word row sums to 1 too. [CLS] and [SEP] are shown as words of their own. Leaving
them out (``include_special=False``) drops their rows and columns and rescales every row
back to 1 — the page and the terminal say so, because much of BERT's attention rests on
[SEP] and [CLS] and the rescaled rows show only how the rest is shared out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ..text import check_text

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer
    from ..transformer import Encoder


@dataclass
class WordAttention:
    """One text's attention, merged to words, for every layer and head."""

    text: str
    words: list[str]  # the units shown: the text's words, plus "[CLS]"/"[SEP]" when include_special
    special: list[bool]  # per unit: True for [CLS]/[SEP]
    attention: Tensor  # (layers, heads, W, W): row = the attending (query) word, column = the attended (key) word
    include_special: bool
    renormalised: bool  # True when [CLS]/[SEP] were dropped and each row was rescaled to sum to 1
    truncated: bool = False  # True when the text was longer than the model's limit and was cut

    @property
    def layers(self) -> int:
        return self.attention.size(0)

    @property
    def heads(self) -> int:
        return self.attention.size(1)

    def view(self, layer: int | None = None, head: int | None = None) -> Tensor:
        """The (W, W) matrix of one head, the mean over heads of one layer, or the mean over everything."""
        check_layer_head(self.layers, self.heads, layer, head)
        if layer is None:
            return self.attention.mean(dim=(0, 1))  # (W, W)
        if head is None:
            return self.attention[layer].mean(dim=0)  # (W, W)
        return self.attention[layer, head]  # (W, W)

    def to_dict(self, decimals: int = 4) -> dict[str, Any]:
        """JSON-ready: ``attention`` is a nested list [layer][head][query word][key word]."""
        return {
            "text": self.text,
            "words": list(self.words),
            "special": list(self.special),
            "layers": self.layers,
            "heads": self.heads,
            "include_special": self.include_special,
            "renormalised": self.renormalised,
            "truncated": self.truncated,
            "attention": rounded(self.attention, decimals),
        }


def rounded(tensor: Tensor, decimals: int = 4) -> list:
    """Nested lists of Python floats rounded to ``decimals`` places (in float64, so 0.0772 stays 0.0772 in JSON)."""
    return tensor.detach().double().round(decimals=decimals).tolist()


def check_layer_head(layers: int, heads: int, layer: int | None, head: int | None) -> None:
    """Raise ValueError naming the valid range when ``layer`` or ``head`` does not exist."""
    if head is not None and layer is None:
        raise ValueError("a head needs a layer: give the layer too")
    if layer is not None and not 0 <= layer < layers:
        raise ValueError(f"layer {layer} is out of range: this model has {layers} layers, numbered 0 to {layers - 1}")
    if head is not None and not 0 <= head < heads:
        raise ValueError(f"head {head} is out of range: each layer has {heads} heads, numbered 0 to {heads - 1}")


def word_units(word_ids: Sequence[int | None]) -> list[list[int]]:
    """Token positions of each unit, in text order: every word is one unit, every special token its own."""
    units: list[list[int]] = []
    unit_of_word: dict[int, int] = {}
    for t, w in enumerate(word_ids):
        if w is None:
            units.append([t])
        elif w in unit_of_word:
            units[unit_of_word[w]].append(t)
        else:
            unit_of_word[w] = len(units)
            units.append([t])
    return units


def merge_to_words(attention: Tensor, word_ids: Sequence[int | None]) -> Tensor:
    """Token attention (..., T, T) -> word attention (..., W, W): mean over query pieces, sum over key pieces.

    ``word_ids`` maps each of the T tokens to its word, ``None`` for a special token, which
    becomes a unit of its own. Units are ordered as in ``word_units``.
    """
    T = attention.size(-1)
    if attention.size(-2) != T or len(word_ids) != T:
        raise ValueError(f"attention of shape {tuple(attention.shape)} does not match {len(word_ids)} word ids")
    units = word_units(word_ids)
    member = torch.zeros(T, len(units), dtype=attention.dtype, device=attention.device)  # (T, W)
    for u, positions in enumerate(units):
        member[positions, u] = 1.0
    query_mean = member / member.sum(dim=0, keepdim=True)  # (T, W): each column averages its unit's pieces
    key_summed = attention @ member  # (..., T, W)
    return query_mean.transpose(0, 1) @ key_summed  # (..., W, W)


def drop_special(attention: Tensor, special: Sequence[bool]) -> Tensor:
    """Remove special units' rows and columns from (..., W, W) and rescale each row to sum to 1."""
    keep = torch.tensor([not s for s in special], dtype=torch.bool, device=attention.device)
    kept = attention[..., keep, :][..., keep]  # (..., W', W')
    return kept / kept.sum(dim=-1, keepdim=True).clamp(min=1e-12)  # (..., W', W')


@torch.inference_mode()
def word_attention_batch(
    encoder: "Encoder",
    tokenizer: "Tokenizer",
    texts: Sequence[str],
    include_special: bool = True,
    max_length: int | None = None,
) -> list[WordAttention]:
    """Word attention for several texts run as one padded batch (same result as one at a time).

    ``max_length`` cuts longer texts to that many tokens (default: the tokenizer's limit).
    """
    for text in texts:
        check_text(text)
    encoder.eval()
    batch = tokenizer(list(texts), max_length=max_length)
    out = encoder(**batch.model_inputs(), output_attentions=True)
    stacked = torch.stack(out.attentions, dim=1).float()  # (B, layers, heads, T, T)
    results = []
    for i, text in enumerate(texts):
        if not batch.words[i]:
            raise ValueError(f"the text {text!r} has no words the tokenizer can read")
        n = len(batch.tokens[i])  # real tokens; padding comes after them and gets no attention
        merged = merge_to_words(stacked[i, :, :, :n, :n], batch.word_ids[i])  # (layers, heads, W, W)
        units = word_units(batch.word_ids[i])
        special = [batch.word_ids[i][u[0]] is None for u in units]
        labels = [
            batch.tokens[i][u[0]] if s else batch.words[i][batch.word_ids[i][u[0]]] for u, s in zip(units, special)
        ]
        if not include_special:
            merged = drop_special(merged, special)
            labels = [w for w, s in zip(labels, special) if not s]
            special = [False] * len(labels)
        results.append(
            WordAttention(
                text=text,
                words=labels,
                special=special,
                attention=merged.clone(),
                include_special=include_special,
                renormalised=not include_special,
                truncated=batch.truncated[i],
            )
        )
    return results


def word_attention(
    encoder: "Encoder",
    tokenizer: "Tokenizer",
    text: str,
    include_special: bool = True,
    max_length: int | None = None,
) -> WordAttention:
    """One text's attention merged to words, shape (layers, heads, W, W); every row sums to 1."""
    return word_attention_batch(encoder, tokenizer, [text], include_special, max_length)[0]
