"""``--backend onnxruntime``: a pipeline whose model is an exported ONNX graph run by ONNX Runtime.

``OnnxClassifier`` stands where ``classifier.Classifier`` stands in a ``Pipeline`` for prediction: it is
called with token ids and returns logits, and turns logits into probabilities the same way. Explanations
and attention need the PyTorch model (gradients, attention weights): they are not offered on this backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from ..classifier import ClassifierConfig
from ..transformer import CheckpointError
from .onnx import INPUTS, ONNX_FILE, ONNX_INT8_FILE

BACKENDS = ("torch", "onnxruntime")


@dataclass
class OnnxOutput:
    logits: Tensor  # (B, L)


class OnnxClassifier:
    """An exported classifier graph in an ONNX Runtime session (fp32: model.onnx, int8: model.int8.onnx)."""

    training = False

    def __init__(self, folder: Path, config: ClassifierConfig, precision: str = "fp32") -> None:
        import onnxruntime

        files = {"fp32": ONNX_FILE, "int8": ONNX_INT8_FILE}
        if precision not in files:
            raise ValueError(f"the onnxruntime backend runs fp32 or int8, not {precision!r}")
        path = folder / files[precision]
        if not path.is_file():
            raise CheckpointError(f"{folder} has no {files[precision]}: write it with `mealwatch export --format onnx`")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.config = config
        self.precision = precision

    def eval(self) -> "OnnxClassifier":
        return self

    def train(self, mode: bool = True) -> "OnnxClassifier":
        return self

    def __call__(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> OnnxOutput:
        feeds = dict(zip(INPUTS, (input_ids, attention_mask, token_type_ids)))
        arrays = {name: np.ascontiguousarray(t.numpy(), dtype=np.int64) for name, t in feeds.items()}
        (logits,) = self.session.run(["logits"], arrays)
        return OnnxOutput(torch.from_numpy(logits))

    def probabilities(self, logits: Tensor) -> Tensor:
        """As ``Classifier.probabilities``: sigmoid per label (multi-label) or softmax over labels."""
        return torch.sigmoid(logits) if self.config.multi_label else torch.softmax(logits, dim=-1)
