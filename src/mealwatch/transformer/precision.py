"""Numeric precisions for inference, and what the CPU computes natively.

A precision is applied to a model once, at load, by swapping its encoder's ``Linear`` layers
(where nearly all the time goes) for layers that hold their weights converted:

- ``fp32``: unchanged — the ``Linear`` of ``linear.py`` (oneDNN or PyTorch's default kernel);
- ``bf16``: ``Bf16Linear`` keeps W and b in bfloat16 (converted once); each product casts its
  input to bfloat16 and its output back to fp32, so embeddings, LayerNorm, softmax, the pooling
  and the head stay fp32;
- ``int8``: ``quantize.Int8Linear``, per-channel int8 weights and dynamically quantized inputs.

Which one is fastest and still right on a given CPU and model is measured by ``mealwatch.inference``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .linear import Linear

PRECISIONS = ("fp32", "bf16", "int8")


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags from /proc/cpuinfo (empty where it cannot be read)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


@functools.cache
def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo ("unknown CPU" where it cannot be read)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def cpu_has_bf16() -> bool:
    """True when the CPU computes bfloat16 natively (AVX512-BF16 or AMX), where autocast speeds training up."""
    return bool({"avx512_bf16", "amx_bf16"} & cpu_flags())


def supported_precisions() -> list[str]:
    """The precisions worth timing here: fp32 always, bf16 on native-bf16 CPUs, int8 where its kernels run."""
    from .quantize import int8_available

    return ["fp32"] + (["bf16"] if cpu_has_bf16() else []) + (["int8"] if int8_available() else [])


class Bf16Linear(nn.Module):
    """A linear layer with bfloat16 weights: fp32 in, bfloat16 product, fp32 out."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.register_buffer("weight", linear.weight.detach().to(torch.bfloat16).clone())  # (out, in)
        bias = None if linear.bias is None else linear.bias.detach().to(torch.bfloat16).clone()
        self.register_buffer("bias", bias)  # (out,)

    def forward(self, x: Tensor) -> Tensor:
        """(..., in_features) -> (..., out_features), in the input's dtype."""
        return F.linear(x.to(torch.bfloat16), self.weight, self.bias).to(x.dtype)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bfloat16 weights"


def apply_precision(model: nn.Module, precision: str) -> nn.Module:
    """Convert every encoder ``Linear`` of ``model`` (in place) to ``precision``; returns ``model``.

    The model must be fp32 (not converted before): weights are converted once, here.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    if precision == "fp32":
        return model
    from .quantize import Int8Linear

    convert = Bf16Linear if precision == "bf16" else Int8Linear.from_linear
    targets = [(name, module) for name, module in model.named_modules() if isinstance(module, Linear)]
    if not targets:
        raise ValueError("the model has no fp32 encoder Linear layers to convert (already converted?)")
    for name, module in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, convert(module))
    return model


def set_onednn(model: nn.Module, enabled: bool) -> nn.Module:
    """Let the fp32 ``Linear`` layers of ``model`` use oneDNN where it applies (True), or never (False)."""
    for module in model.modules():
        if isinstance(module, Linear):
            module.onednn = enabled
    return model
