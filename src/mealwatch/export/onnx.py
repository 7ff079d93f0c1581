"""``mealwatch export --format onnx``: the classifier as an ONNX graph, and an int8 copy of it.

The graph takes ``input_ids``, ``attention_mask`` and ``token_type_ids`` (int64, batch x tokens, both
axes dynamic) and returns ``logits`` (batch x labels). The padding mask is part of the graph: while
exporting, the encoder never takes its shortcut for batches without padding (``encoder._tracing``),
so padded batches give the same logits as our model (``check_parity`` runs a padded batch through both).

Written (atomically, as one folder): ``model.onnx``, ``model.int8.onnx`` (ONNX Runtime's dynamic
quantization of the MatMul weights, per channel), ``config.json`` (the classifier's own, so the folder is
read as a mealwatch model by ``--backend onnxruntime``), ``tokenizer.json`` and the model's n-gram channel if it
has one (the runtime pipeline fuses it as the torch one does).
"""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn

from ..classifier import CONFIG_FILE

if TYPE_CHECKING:
    from ..pipeline import Pipeline

ONNX_FILE, ONNX_INT8_FILE = "model.onnx", "model.int8.onnx"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 18


class LogitsOnly(nn.Module):
    """The classifier with plain tensor inputs and one output, as an exporter wants it."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def example_batch(pipeline: "Pipeline") -> dict[str, Tensor]:
    """A padded batch of three texts of different lengths (the example the graph is traced with and checked on)."""
    texts = [
        "worms in the khichdi",
        "The meal was served without dal because it was spoiled and smelled bad.",
        "no meal",
    ]
    return pipeline.tokenize(texts).model_inputs()


def write_onnx(pipeline: "Pipeline", path: Path) -> None:
    """The classifier's graph at ``path`` (dynamic batch and sequence axes, padding mask kept)."""
    write_graph(LogitsOnly(pipeline.model).eval(), example_batch(pipeline), path, pipeline.max_length, "logits")


def write_graph(module: nn.Module, inputs: dict[str, Tensor], path: Path, max_length: int, output: str) -> None:
    """``module(input_ids, attention_mask, token_type_ids)`` as an ONNX graph with dynamic batch and sequence."""
    batch, sequence = torch.export.Dim("batch", min=1, max=4096), torch.export.Dim("sequence", min=1, max=max_length)
    shapes = {name: {0: batch, 1: sequence} for name in INPUTS}
    quiet = logging.getLogger("torch.onnx")  # it logs each optional op library it skips (torchvision)
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            program = torch.onnx.export(
                module, tuple(inputs[name] for name in INPUTS), input_names=list(INPUTS), output_names=[output],
                dynamic_shapes=shapes, opset_version=OPSET, dynamo=True, external_data=False, verbose=False,
            )  # fmt: skip
    finally:
        quiet.setLevel(level)
    program.save(str(path))


def quantize_onnx(source: Path, target: Path) -> None:
    """ONNX Runtime's dynamic int8 quantization of ``source`` (MatMul weights per channel) at ``target``."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(source), str(target), weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"]
    )


def export_onnx(pipeline: "Pipeline", out: str | Path) -> Path:
    """Write the ONNX folder for ``pipeline`` (an fp32 pipeline) at ``out`` and check it; returns ``out``."""
    from ..atomic import write_folder_atomically

    if pipeline.mode.partition("+")[0] not in ("fp32", "fp32-onednn"):
        raise ValueError(f"export the fp32 model (this pipeline runs in {pipeline.mode})")
    out = Path(out)

    def write(folder: Path) -> None:
        write_onnx(pipeline, folder / ONNX_FILE)
        quantize_onnx(folder / ONNX_FILE, folder / ONNX_INT8_FILE)
        pipeline.tokenizer.save(folder)
        if pipeline.ngram is not None:  # the runtime pipeline fuses it as the torch one does
            pipeline.ngram.save(folder)
        (folder / CONFIG_FILE).write_text(json.dumps(pipeline.config.to_dict(), indent=2), encoding="utf-8")

    write_folder_atomically(out, write, replaceable=lambda p: (Path(p) / ONNX_FILE).is_file())
    return out


def is_onnx_dir(path: str | Path) -> bool:
    """True for a folder written by ``export_onnx``."""
    folder = Path(path)
    return (folder / ONNX_FILE).is_file() and (folder / CONFIG_FILE).is_file()
