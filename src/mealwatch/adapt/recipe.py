"""The adaptation recipe: an English BERT folder in, an encoder folder that reads Hindi out.

    base encoder ─► vocabulary extension (pieces learned on the Hindi training texts and the renderings, and the
                     emoji they use)
                 ─► continued masked-LM pre-training on the Hindi texts (optional)
                 ─► multilingual distillation on parallel English/Hindi complaints (and everyday sentences, when
                     given: not by default)
                 ─► folder: config.json, model.safetensors, tokenizer.json, mealwatch_adapt.json

The folder is an ordinary BERT checkpoint that ``mealwatch train --encoder`` takes;
``mealwatch_adapt.json`` records how it was made and how many rows of its vocabulary are the
pre-trained ones (training keeps those fixed and lets the new ones learn).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from typing import TYPE_CHECKING

from ..atomic import write_folder_atomically
from ..tokenizer import Tokenizer
from ..transformer import Encoder
from ..transformer.checkpoint import resolve
from .distill import distill
from .mlm import continue_pretraining
from .vocabulary import DEFAULT_PIECES, extend, symbol_pieces, train_pieces

if TYPE_CHECKING:
    from ..data import Dataset, ParallelComplaint, ParallelSentence

ADAPT_FILE = "mealwatch_adapt.json"
#: 2: new rows start from romanise.py's romanisation (schwa deletion inside words); 3: emoji; 4: web addresses
RECIPE_VERSION = 4


@dataclass
class AdaptArguments:
    """How to adapt; saved in the folder's mealwatch_adapt.json."""

    pieces: int = DEFAULT_PIECES  # size of the Hindi WordPiece vocabulary trained (new pieces are fewer)
    mlm_epochs: int = 0  # continued masked-LM pre-training on the texts; 0: none
    distill_epochs: int = 2  # 0: no distillation (2: the time budget; see docs/multilingual.md)
    learning_rate: float = 2e-4
    batch_size: int = 32
    seed: int = 0
    max_length: int = 128


@dataclass
class AdaptationData:
    """What the encoder is adapted on: the Hindi training texts and (English, Hindi rendering) pairs."""

    texts: list[str]
    pairs: list[tuple[str, str]]

    @classmethod
    def of(
        cls, train: "Dataset", parallel: "Sequence[ParallelComplaint]", sentences: "Sequence[ParallelSentence]" = ()
    ) -> "AdaptationData":
        """The training split's texts that are not English (by script), and both renderings of each parallel
        complaint and each everyday parallel sentence."""
        texts = [e.text for e, script in zip(train.examples, train.scripts()) if script != "latn-en"]
        pairs = [(p.english, t) for p in [*parallel, *sentences] for t in (p.devanagari, p.romanised)]
        return cls(texts, pairs)


def adapt_encoder(
    out: str | Path,
    texts: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    *,
    base: str | Path | None = None,
    args: AdaptArguments | None = None,
    progress: bool = False,
) -> Path:
    """Build the adapted encoder folder at ``out`` from Hindi ``texts`` and (English, Hindi) ``pairs``."""
    args = args or AdaptArguments()
    started = time.perf_counter()
    torch.manual_seed(args.seed)
    folder = resolve(base)
    tokenizer, encoder = Tokenizer.from_pretrained(folder), Encoder.from_pretrained(folder)
    hindi = [*texts, *(t for _, t in pairs)]
    pieces = train_pieces(hindi, tokenizer, args.pieces) + symbol_pieces(hindi, tokenizer)
    extension = extend(encoder, tokenizer, pieces)
    mlm_losses: list[float] = []
    if args.mlm_epochs:
        mlm_losses = continue_pretraining(
            encoder, tokenizer, hindi, epochs=args.mlm_epochs, batch_size=args.batch_size,
            learning_rate=args.learning_rate, seed=args.seed, max_length=args.max_length,
            frozen_rows=extension.pretrained_vocab_size, progress=progress,
        )  # fmt: skip
    losses: list[float] = []
    if args.distill_epochs and pairs:
        teacher, teacher_tokenizer = Encoder.from_pretrained(folder), Tokenizer.from_pretrained(folder)
        for p in teacher.parameters():
            p.requires_grad_(False)
        losses = distill(
            encoder, tokenizer, teacher, teacher_tokenizer, pairs, epochs=args.distill_epochs,
            batch_size=args.batch_size, learning_rate=args.learning_rate, seed=args.seed,
            max_length=args.max_length, frozen_rows=extension.pretrained_vocab_size, progress=progress,
        ).losses  # fmt: skip
    record = {
        "recipe_version": RECIPE_VERSION,
        "base": str(folder),
        "pretrained_vocab_size": extension.pretrained_vocab_size,
        "added_pieces": len(extension.pieces),
        "mlm_losses": mlm_losses,
        "distillation_losses": losses,
        "pairs": len(pairs),
        "texts": len(texts),
        "data_fingerprint": fingerprint(texts, pairs),
        "arguments": asdict(args),
        "seconds": round(time.perf_counter() - started, 1),
    }

    def write(staging: Path) -> None:
        encoder.save_pretrained(staging)
        tokenizer.save(staging)
        (staging / ADAPT_FILE).write_text(json.dumps(record, indent=2, ensure_ascii=False), encoding="utf-8")

    write_folder_atomically(Path(out), write, replaceable=lambda p: (p / ADAPT_FILE).is_file())
    return Path(out)


def fingerprint(texts: Sequence[str], pairs: Sequence[tuple[str, str]]) -> str:
    """A short hash of the adaptation data (a cached folder is reused only for the same data)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8") + b"\0")
    for s, t in pairs:
        h.update(s.encode("utf-8") + b"\1" + t.encode("utf-8") + b"\0")
    return h.hexdigest()[:16]


def read_adaptation(folder: str | Path | None) -> dict | None:
    """The folder's mealwatch_adapt.json, or None for a plain (not adapted) checkpoint."""
    if folder is None:
        return None
    file = Path(folder) / ADAPT_FILE
    return json.loads(file.read_text(encoding="utf-8")) if file.is_file() else None
