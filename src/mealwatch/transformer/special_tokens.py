"""Which token of a checkpoint's vocabulary plays which role, read from its tokenizer files.

WordPiece vocabularies (BERT, MuRIL) call the special tokens ``[CLS] [SEP] [PAD] [UNK] [MASK]``;
SentencePiece ones (XLM-R, and the multilingual MiniLM and e5 encoders built on its vocabulary) call
them ``<s> </s> <pad> <unk> <mask>``, with ``<pad>`` at id 1. Each role takes the first of these that
the vocabulary has:

1. the token the folder declares: tokenizer_config.json, else special_tokens_map.json
   (``cls_token`` or ``bos_token``, ``sep_token`` or ``eos_token``, ``pad_token``, ``unk_token``, ``mask_token``);
2. the token tokenizer.json's own pipeline uses: the post-processor's first and last special token
   (cls, sep), the padding token, the model's unknown token;
3. the conventional names above.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: role -> (the keys that declare it, the conventional names)
ROLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cls": (("cls_token", "bos_token"), ("[CLS]", "<s>")),
    "sep": (("sep_token", "eos_token"), ("[SEP]", "</s>")),
    "pad": (("pad_token",), ("[PAD]", "<pad>")),
    "unk": (("unk_token",), ("[UNK]", "<unk>")),
    "mask": (("mask_token",), ("[MASK]", "<mask>")),
}


def read_json(file: Path) -> Any:
    """A JSON file's content; a clear error naming the file when it is not JSON."""
    from .checkpoint import CheckpointError

    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{file} is not valid JSON: {e}") from e


def tokenizer_config(folder: Path) -> dict[str, Any]:
    """special_tokens_map.json overlaid with tokenizer_config.json ({} when the folder has neither)."""
    out: dict[str, Any] = {}
    for name in ("special_tokens_map.json", "tokenizer_config.json"):
        if (folder / name).is_file():
            data = read_json(folder / name)
            out.update(data if isinstance(data, dict) else {})
    return out


def declared(config: dict[str, Any]) -> dict[str, str]:
    """The ``*_token`` entries of a tokenizer config, as strings (an AddedToken dict gives its ``content``)."""
    out = {}
    for key, value in config.items():
        value = value.get("content") if isinstance(value, dict) else value
        if key.endswith("_token") and isinstance(value, str):
            out[key] = value
    return out


def pipeline_tokens(spec: dict[str, Any]) -> dict[str, str]:
    """The special tokens a tokenizer.json pipeline itself uses, under the config keys that declare them."""
    out: dict[str, str] = {}
    post = spec.get("post_processor") or {}
    for p in post.get("processors", []) if post.get("type") == "Sequence" else [post]:
        if p.get("type") in ("BertProcessing", "RobertaProcessing"):
            out["cls_token"], out["sep_token"] = p["cls"][0], p["sep"][0]
        elif p.get("type") == "TemplateProcessing" and p.get("single"):
            names = {k: v["tokens"][0] for k, v in p.get("special_tokens", {}).items() if v.get("tokens")}
            first, last = p["single"][0], p["single"][-1]  # "<s> $A </s>": the first and last pieces
            if "SpecialToken" in first:
                out["cls_token"] = names.get(first["SpecialToken"]["id"], first["SpecialToken"]["id"])
            if "SpecialToken" in last:
                out["sep_token"] = names.get(last["SpecialToken"]["id"], last["SpecialToken"]["id"])
    if (spec.get("padding") or {}).get("pad_token"):
        out["pad_token"] = spec["padding"]["pad_token"]
    model = spec.get("model") or {}
    if isinstance(model.get("unk_token"), str):  # WordPiece, BPE
        out["unk_token"] = model["unk_token"]
    elif model.get("type") == "Unigram" and model.get("unk_id") is not None:
        out["unk_token"] = model["vocab"][model["unk_id"]][0]
    return out


def find_roles(declared: dict[str, str], pipeline: dict[str, str], has: Callable[[str], bool]) -> dict[str, str | None]:
    """role -> its token (None where the vocabulary has none), by the order in the module docstring."""
    roles: dict[str, str | None] = {}
    for role, (keys, names) in ROLES.items():
        candidates = [declared.get(k) for k in keys] + [pipeline.get(k) for k in keys] + list(names)
        roles[role] = next((c for c in candidates if c is not None and has(c)), None)
    return roles


def folder_vocabulary(folder: Path) -> tuple[dict[str, int], dict[str, Any]]:
    """(token -> id, tokenizer.json as a dict or {}) from tokenizer.json or vocab.txt ({} and {} without either)."""
    if (folder / "tokenizer.json").is_file():
        spec = read_json(folder / "tokenizer.json")
        if not isinstance(spec, dict):
            return {}, {}
        model = spec.get("model") or {}
        vocab = model.get("vocab") or {}
        ids = dict(vocab) if isinstance(vocab, dict) else {piece: i for i, (piece, _score) in enumerate(vocab)}
        ids.update({t["content"]: t["id"] for t in spec.get("added_tokens") or []})
        return ids, spec
    if (folder / "vocab.txt").is_file():
        lines = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
        return {line: i for i, line in enumerate(lines)}, {}
    return {}, {}


def pad_token_id(folder: Path) -> int | None:
    """The id of the padding token of the folder's tokenizer (None when the folder has no tokenizer or no pad)."""
    ids, spec = folder_vocabulary(folder)
    if not ids:
        return None
    pad = find_roles(declared(tokenizer_config(folder)), pipeline_tokens(spec), ids.__contains__)["pad"]
    return None if pad is None else ids[pad]
