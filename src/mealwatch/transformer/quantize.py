"""int8 linear layers: dynamic quantization with one weight scale per output channel.

The arithmetic, for y = x Wᵀ + b with W of shape (out, in):

1. **Weights, once, at load** — each output channel c (a row of W) gets its own scale
   s_c = max_k |W_ck| / 127 and is stored as integers Q_ck = round(W_ck / s_c) in [-127, 127]
   (``quantize_per_channel``). A row of small weights is not crushed by another row's large ones.
2. **Activations, at run time** — the whole input tensor is mapped to unsigned integers with one
   scale and zero point taken from its own range, lo = min(x, 0), hi = max(x, 0):
   a = (hi - lo) / (levels - 1), z = round(-lo / a), X_q = clamp(round(x / a) + z, 0, levels - 1)
   (``quantize_activations``). ``levels`` is 128 (7 bits) by default, as PyTorch's x86 kernels
   use, so that a pair of 8-bit products cannot saturate the 16-bit intermediate sums of CPUs
   without VNNI.
3. **Integer product** — acc_nc = Σ_k (X_q[n,k] - z) · Q_ck, exact in int32; then
   y_nc = a · s_c · acc_nc + b_c, back in fp32.

``int8_linear_reference`` spells the three steps out in plain tensor operations (it is slow; the
tests check the kernel against it). ``Int8Linear`` runs the same arithmetic through PyTorch's
public quantized kernels: ``torch.ops.quantized.linear_prepack`` packs our integers and scales
once, ``torch.ops.quantized.linear_dynamic`` quantizes the activations and multiplies (fbgemm
or oneDNN, whichever ``torch.backends.quantized.engine`` names). These kernels come from the
``torch.ao.quantization`` stack, which PyTorch has marked deprecated; its deprecation warnings
are silenced here, and ``int8_available`` says False (so ``auto`` never picks int8) where the
kernels are missing.

Gradients flow to the input (explanations of a frozen model): ∂L/∂x = (∂L/∂y · s) Q, the
dequantized weight's product, treating the activation rounding as the identity.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.autograd.function import once_differentiable

#: activation levels: 7 bits (0..127), as PyTorch's x86 dynamic kernels use
ACTIVATION_LEVELS = 128


@dataclass
class QuantizedWeight:
    """W ≈ scales[:, None] * values: int8 values (out, in) and one fp32 scale per output channel (out,)."""

    values: Tensor
    scales: Tensor

    def dequantize(self) -> Tensor:
        """The fp32 weight the integers stand for: (out, in)."""
        return self.values.float() * self.scales[:, None]


@dataclass
class QuantizedActivations:
    """x ≈ scale * (values - zero_point), one scale and zero point for the whole tensor."""

    values: Tensor  # uint8, the shape of x
    scale: float
    zero_point: int


def quantize_per_channel(weight: Tensor) -> QuantizedWeight:
    """(out, in) fp32 weight -> int8 values in [-127, 127] with scale max|row| / 127 per row (1.0 for a zero row)."""
    amax = weight.detach().float().abs().amax(dim=1)  # (out,)
    scales = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))  # (out,)
    values = torch.round(weight.detach().float() / scales[:, None]).clamp(-127, 127).to(torch.int8)  # (out, in)
    return QuantizedWeight(values, scales)


def quantize_activations(x: Tensor, levels: int = ACTIVATION_LEVELS) -> QuantizedActivations:
    """Map ``x`` to integers 0..levels-1 with a scale and zero point from its range (0 always representable)."""
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale = (hi - lo) / (levels - 1) if hi > lo else 1.0
    zero_point = int(round(-lo / scale))
    values = torch.clamp(torch.round(x / scale) + zero_point, 0, levels - 1).to(torch.uint8)
    return QuantizedActivations(values, scale, zero_point)


def int8_linear_reference(
    x: Tensor, weight: QuantizedWeight, bias: Tensor | None, levels: int = ACTIVATION_LEVELS
) -> Tensor:
    """y = x Wᵀ + b the int8 way, step by step (see the module docstring): (..., in) -> (..., out) fp32."""
    a = quantize_activations(x, levels)
    centred = a.values.to(torch.int64) - a.zero_point  # (..., in): X_q - z
    acc = centred @ weight.values.to(torch.int64).t()  # (..., out): exact integer sums
    y = acc.to(torch.float64) * a.scale * weight.scales.to(torch.float64)  # a · s_c · acc
    y = y.float()
    return y if bias is None else y + bias


@functools.cache
def int8_available() -> bool:
    """Whether PyTorch's dynamic int8 linear kernels exist and run here (checked once)."""
    try:
        layer = Int8Linear.from_linear(nn.Linear(8, 4))
        return layer(torch.randn(2, 8)).shape == (2, 4)
    except Exception:  # noqa: BLE001 - a build without the kernels: int8 is simply not offered
        return False


def _pack(weight: QuantizedWeight, bias: Tensor | None):
    """Our int8 values and scales in the kernel's packed layout (made once per layer)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the torch.ao quantization stack warns that it is deprecated
        zero_points = torch.zeros(len(weight.scales), dtype=torch.long)
        # re-quantizing the dequantized weight with the same scales gives back exactly our integers
        qweight = torch.quantize_per_channel(
            weight.dequantize(), weight.scales.double(), zero_points, axis=0, dtype=torch.qint8
        )
        return torch.ops.quantized.linear_prepack(qweight, None if bias is None else bias.detach().float())


class _Int8LinearFunction(torch.autograd.Function):
    """The packed int8 product, differentiable in x through the dequantized weight."""

    generate_vmap_rule = True  # works under batched gradients (the service explains several labels at once)

    @staticmethod
    def forward(x: Tensor, packed, values: Tensor, scales: Tensor) -> Tensor:
        return torch.ops.quantized.linear_dynamic(x, packed, True)  # reduce_range: 7-bit activations

    @staticmethod
    def setup_context(ctx, inputs, output) -> None:
        ctx.save_for_backward(inputs[2], inputs[3])

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output: Tensor):
        values, scales = ctx.saved_tensors
        # y = x (s Q)ᵀ  =>  ∂L/∂x = (∂L/∂y · s) Q
        return (grad_output * scales) @ values.to(grad_output.dtype), None, None, None


class Int8Linear(nn.Module):
    """A linear layer whose weight is int8 per output channel and whose input is quantized at run time."""

    def __init__(self, weight: QuantizedWeight, bias: Tensor | None) -> None:
        super().__init__()
        self.in_features, self.out_features = weight.values.shape[1], weight.values.shape[0]
        self.register_buffer("weight_int8", weight.values)  # (out, in) int8
        self.register_buffer("weight_scales", weight.scales)  # (out,) fp32
        self.register_buffer("bias", None if bias is None else bias.detach().float().clone())
        self._packed = _pack(weight, self.bias)

    @classmethod
    def from_linear(cls, linear: nn.Linear) -> "Int8Linear":
        """Quantize a trained fp32 linear layer's weight (``quantize_per_channel``); the bias stays fp32."""
        return cls(quantize_per_channel(linear.weight), linear.bias)

    @property
    def quantized_weight(self) -> QuantizedWeight:
        return QuantizedWeight(self.weight_int8, self.weight_scales)

    def forward(self, x: Tensor) -> Tensor:
        """(..., in_features) fp32 -> (..., out_features) fp32."""
        if x.dtype != torch.float32:
            x = x.float()
        if torch.is_grad_enabled() and x.requires_grad:
            return _Int8LinearFunction.apply(x, self._packed, self.weight_int8, self.weight_scales)
        return torch.ops.quantized.linear_dynamic(x, self._packed, True)  # (..., out)

    def __deepcopy__(self, memo):
        return Int8Linear(QuantizedWeight(self.weight_int8.clone(), self.weight_scales.clone()), self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, per-channel int8 weights"
