"""The linear layer y = x Wᵀ + b, with a faster fp32 matrix multiply for inference.

Every projection in the encoder (W_Q, W_K, W_V, W_O, the feed-forward W_1 and W_2, the
pooler) is a ``Linear``. It is ``torch.nn.Linear`` with the same parameters, state-dict keys
and initialisation; only the kernel that multiplies differs when W and b need no gradient:

- PyTorch's default fp32 CPU matrix multiply is Intel MKL's ``sgemm``, which runs far below
  the hardware on some CPUs (on our AMD EPYC: 114.5 GFLOP/s on a 1024 x 1024 product);
- oneDNN, the library PyTorch already ships for its mkldnn ops, runs the same fp32 product
  (fp32 inputs, fp32 accumulation, fp32 output) about twice as fast there (246.9 GFLOP/s).

The oneDNN product is reached through a private PyTorch op (``torch.ops.mkldnn._linear_pointwise``),
so it is a bet on one kernel and is never taken blindly:

- on first use ``onednn_available`` probes it once — it must exist, run, agree with ``F.linear``
  to fp32 rounding and be faster on this machine's encoder-sized products — and any error,
  mismatch or loss switches the path off for the process;
- each layer has an ``onednn`` switch: ``mealwatch.inference`` turns it off for a whole model when
  timing that model on its own shapes shows the default kernel is as fast (``fp32`` vs
  ``fp32-onednn`` in the ``auto`` precision choice);
- it is never used while ``torch.compile`` traces the model (``torch.compiler.is_compiling()``):
  Inductor cannot lower the private op, and it brings its own kernels;
- ``use_onednn(False)`` switches it off within a block (the benchmarks time both kernels).

When it applies — W and b need no gradient: at inference, and when only the input needs one
(explanations differentiate the output by the word embeddings of a frozen model) — fp32 CPU
products go through oneDNN. Everything else — training, autocast, other dtypes or devices,
compilation — goes through ``torch.nn.functional.linear``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.autograd.function import once_differentiable

_enabled = True
_probed: bool | None = None  # the probe's verdict, once made


def onednn_available() -> bool:
    """Whether the oneDNN product exists, agrees with ``F.linear`` and is faster here (probed once)."""
    global _probed
    if _probed is None:
        _probed = _probe()
    return _probed


def _probe(repeats: int = 5) -> bool:
    import time

    try:
        if not torch.backends.mkldnn.is_available():
            return False
        generator = torch.Generator().manual_seed(0)
        x = torch.randn(64, 384, generator=generator)  # an encoder-sized product: 64 tokens, hidden 384 -> 1536
        w, b = torch.randn(1536, 384, generator=generator), torch.randn(1536, generator=generator)
        with torch.no_grad():
            reference = F.linear(x, w, b)
            if not torch.allclose(_onednn_linear(x, w, b), reference, rtol=1e-4, atol=1e-3):
                return False
            timings = {}
            for name, fn in (("onednn", _onednn_linear), ("default", F.linear)) * 2:  # alternate, keep the best
                started = time.perf_counter()
                for _ in range(repeats):
                    fn(x, w, b)
                timings[name] = min(timings.get(name, float("inf")), time.perf_counter() - started)
        return timings["onednn"] < 0.9 * timings["default"]
    except Exception:  # noqa: BLE001 - a missing or broken private op means: do not use it
        return False


@contextmanager
def use_onednn(enabled: bool) -> Iterator[None]:
    """Within the block, let ``Linear`` layers use oneDNN where it applies (True) or always ``F.linear`` (False)."""
    global _enabled
    previous, _enabled = _enabled, enabled
    try:
        yield
    finally:
        _enabled = previous


def onednn_applies(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> bool:
    """True when ``x Wᵀ + b`` can run on oneDNN: fp32 CPU tensors, no autocast, no gradient for W or b,
    not being compiled."""
    return (
        _enabled
        and not torch.compiler.is_compiling()
        and x.device.type == "cpu"
        and x.dtype == torch.float32
        and weight.dtype == torch.float32
        and not (torch.is_grad_enabled() and (weight.requires_grad or (bias is not None and bias.requires_grad)))
        and not torch.is_autocast_enabled("cpu")
        and onednn_available()
    )


def _onednn_linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")  # x Wᵀ + b: (..., out)


class _LinearOfInput(torch.autograd.Function):
    """y = x Wᵀ + b on oneDNN, differentiable in x only (W and b are constants)."""

    generate_vmap_rule = True  # works under batched gradients (``autograd.grad(..., is_grads_batched=True)``)

    @staticmethod
    def forward(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        return _onednn_linear(x, weight, bias)  # (..., out)

    @staticmethod
    def setup_context(ctx, inputs, output) -> None:
        ctx.save_for_backward(inputs[1])

    @staticmethod
    @once_differentiable  # a second derivative through this product is a clear error, not a silent zero
    def backward(ctx, grad_output: Tensor):
        (weight,) = ctx.saved_tensors
        # ∂L/∂x = ∂L/∂y · W, itself a linear map with weight Wᵀ: (..., out) -> (..., in)
        return _onednn_linear(grad_output, weight.t(), None), None, None


class Linear(nn.Linear):
    """``torch.nn.Linear`` whose fp32 CPU products with a frozen W may run on oneDNN (same result to fp32 rounding).

    ``onednn`` (default True) lets this layer use oneDNN where ``onednn_applies``; False keeps it on
    ``F.linear`` always.
    """

    onednn: bool = True

    def forward(self, x: Tensor) -> Tensor:
        """(..., in_features) -> (..., out_features)."""
        if self.onednn and onednn_applies(x, self.weight, self.bias):
            if torch.is_grad_enabled() and x.requires_grad:
                return _LinearOfInput.apply(x, self.weight, self.bias)  # (..., out)
            return _onednn_linear(x, self.weight, self.bias)  # (..., out)
        return F.linear(x, self.weight, self.bias)  # (..., out)
