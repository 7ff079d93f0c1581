"""Why `auto` refuses int8 for a trained model: which layers change decisions, and what would fix it.

`--precision int8` (``transformer.quantize``) quantizes each linear layer's weights per output channel and
its input per call with ONE scale for the whole tensor in 7 bits (PyTorch's public x86 dynamic kernel). This
script converts a trained model in several ways and prints, on the bundled VALIDATION split, the share of
complaints whose label set is the same as fp32's and the macro-F1 change — what `auto` checks (it keeps int8
only at >= 99.5 % agreement and macro-F1 within 0.3 points):

- int8 everywhere (what `--precision int8` runs), and with some layers kept in fp32;
- SmoothQuant (Xiao et al., 2023): each input channel j divided by s_j = max|x_j|^α / max|W_j|^(1−α) before
  quantizing and W's column j multiplied by it (the same product in exact arithmetic), s calibrated on
  training texts — it moves outlier channels' range from the activations into the weights;
- per-token activations: each token's vector with its own 8-bit scale (simulated exactly in float64 from the
  integers; no public PyTorch CPU kernel runs it).

    python benchmarks/int8_agreement.py --model runs/<name> [--calibration 400] [--threads 2]
"""

from __future__ import annotations

import argparse
import copy
import sys
import warnings
from collections.abc import Callable

import torch
from torch import Tensor, nn

from mealwatch.transformer.linear import Linear
from mealwatch.transformer.precision import cpu_name
from mealwatch.transformer.quantize import Int8Linear, quantize_per_channel


class SmoothedInt8(nn.Module):
    """x ↦ Int8Linear(W·diag(s))(x / s): the same product as W x in exact arithmetic, quantized after smoothing."""

    def __init__(self, linear: nn.Linear, s: Tensor) -> None:
        super().__init__()
        self.register_buffer("inverse", (1.0 / s).float())  # (in,)
        scaled = nn.Linear(linear.in_features, linear.out_features)
        scaled.weight.data = linear.weight.detach() * s[None, :]  # (out, in): column j times s_j
        scaled.bias.data = linear.bias.detach().clone()
        self.int8 = Int8Linear.from_linear(scaled)

    def forward(self, x: Tensor) -> Tensor:
        return self.int8(x * self.inverse)  # (..., out)


class PerTokenInt8(nn.Module):
    """Weights int8 per output channel; each token's input int8 with its own scale max|x_t| / 127 (simulated)."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        q = quantize_per_channel(linear.weight)
        self.register_buffer("values", q.values.double())  # (out, in) integers
        self.register_buffer("scales", q.scales.double())  # (out,)
        self.register_buffer("bias", linear.bias.detach().double())

    def forward(self, x: Tensor) -> Tensor:
        x64 = x.double()
        a = x64.abs().amax(dim=-1, keepdim=True).clamp(min=1e-12) / 127.0  # (..., 1): one scale per token
        xq = torch.round(x64 / a).clamp(-127, 127)  # (..., in) integers
        y = (xq @ self.values.t()) * a * self.scales + self.bias  # exact integer sums, then rescaled: (..., out)
        return y.float()


def replaced(model: nn.Module, make: Callable[[str, nn.Linear], nn.Module | None]) -> nn.Module:
    """A copy of ``model`` with each encoder Linear ``name`` replaced by ``make(name, layer)`` (None: kept fp32)."""
    out = copy.deepcopy(model)
    for name, module in [(n, m) for n, m in out.named_modules() if isinstance(m, Linear)]:
        new = make(name, module)
        if new is not None:
            parent, _, child = name.rpartition(".")
            setattr(out.get_submodule(parent), child, new)
    return out


def input_ranges(pipeline, texts: list[str]) -> dict[str, Tensor]:
    """max |x_j| of each encoder Linear's input channel j over ``texts``."""
    ranges: dict[str, Tensor] = {}

    def hook(name: str):
        def record(module, inputs, output):
            m = inputs[0].detach().abs().reshape(-1, inputs[0].shape[-1]).amax(dim=0)  # (in,)
            ranges[name] = torch.maximum(ranges[name], m) if name in ranges else m

        return record

    model = pipeline.model
    handles = [m.register_forward_hook(hook(n)) for n, m in model.named_modules() if isinstance(m, Linear)]
    try:
        pipeline.probabilities(texts)
    finally:
        for h in handles:
            h.remove()
    return ranges


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a trained model folder (its labels: the bundled complaints')")
    ap.add_argument("--calibration", type=int, default=400, help="training texts SmoothQuant's ranges come from")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    torch.set_num_threads(args.threads)
    from mealwatch.data import DataError, bundled_data_dir, read_dataset, read_splits
    from mealwatch.inference.precision_choice import checked_trial
    from mealwatch.pipeline import Pipeline

    pipeline = Pipeline.load(args.model)
    folder = bundled_data_dir()
    try:  # in the model's label order
        validation = read_dataset(
            folder / "validation.csv", label_set=list(pipeline.labels), multi_label=pipeline.multi_label
        )
    except DataError as e:
        ap.error(f"--model must be trained on the bundled complaints' labels (its validation split is read): {e}")
    fp32 = pipeline.model
    ranges = input_ranges(pipeline, read_splits(folder)["train"].texts[: args.calibration])

    def probabilities(model: nn.Module) -> Tensor:
        """(N, L) validation probabilities of the pipeline around ``model`` (n-gram channel included)."""
        return pipeline.with_model(model, model).probabilities(validation.texts)

    def smooth(alpha: float, keep: Callable[[str], bool] = lambda name: False):
        def make(name: str, layer: nn.Linear) -> nn.Module | None:
            if keep(name):
                return None
            w = layer.weight.detach().abs().amax(dim=0).clamp(min=1e-5)  # (in,): max |W_j| per input channel
            s = (ranges[name].clamp(min=1e-5) ** alpha / w ** (1 - alpha)).clamp(min=1e-5)  # (in,)
            return SmoothedInt8(layer, s)

        return make

    def int8_except(keep: Callable[[str], bool]):
        return lambda name, layer: None if keep(name) else Int8Linear.from_linear(layer)

    last = pipeline.encoder.config.num_hidden_layers - 1
    variants = {
        "int8 everywhere (--precision int8)": int8_except(lambda n: False),
        "int8, feed-forward W_2 kept fp32": int8_except(lambda n: n.endswith("feed_forward.down")),
        "int8, first and last layer kept fp32": int8_except(lambda n: any(f"layers.{i}." in n for i in (0, last))),
        "SmoothQuant α 0.5": smooth(0.5),
        "SmoothQuant α 0.7": smooth(0.7),
        "SmoothQuant α 0.85": smooth(0.85),
        "SmoothQuant α 0.5, W_2 kept fp32": smooth(0.5, lambda n: n.endswith("feed_forward.down")),
        "per-token 8-bit activations (simulated)": lambda n, m: PerTokenInt8(m),
    }  # fmt: skip
    with torch.inference_mode():
        reference = probabilities(fp32)
        fp32_trial = checked_trial("fp32", 0.0, pipeline, validation, reference, reference)
        print(f"CPU: {cpu_name()}; model {args.model}; validation split, {len(validation)} complaints")
        print(f"fp32 macro-F1 {fp32_trial.macro_f1:.4f}\n")
        print("| conversion | label sets as fp32 | macro-F1 | change (points) | `auto` would keep it |")
        print("|---|---:|---:|---:|---|")
        for label, make in variants.items():  # judged as `auto` judges a mode (inference.precision_choice)
            trial = checked_trial(label, 0.0, pipeline, validation, reference, probabilities(replaced(fp32, make)))
            print(f"| {label} | {trial.agreement:.2%} | {trial.macro_f1:.4f} | {trial.f1_change * 100:+.2f} | "
                  f"{'yes' if trial.passes else 'no'} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
