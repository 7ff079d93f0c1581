"""Precision modes: int8 arithmetic by hand, per-mode parity on a tiny random model, the pipeline's modes."""

from __future__ import annotations

import math

import pytest
import torch

from mealwatch import Encoder
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.inference.modes import Mode, build, candidate_modes, fixed_mode
from mealwatch.labels import LABELS
from mealwatch.pipeline import Pipeline
from mealwatch.transformer.linear import Linear
from mealwatch.transformer.precision import Bf16Linear, apply_precision, cpu_has_bf16
from mealwatch.transformer.quantize import (
    Int8Linear,
    QuantizedWeight,
    int8_available,
    int8_linear_reference,
    quantize_activations,
    quantize_per_channel,
)

needs_int8 = pytest.mark.skipif(not int8_available(), reason="PyTorch's dynamic int8 kernels do not run here")


def test_weights_quantize_per_output_channel_by_hand() -> None:
    w = torch.tensor([[0.5, -1.27, 0.0], [0.03, 0.01, -0.04], [0.0, 0.0, 0.0]])
    q = quantize_per_channel(w)
    # row 0: max |w| = 1.27 -> scale 0.01; row 1: 0.04 -> 0.04 / 127; a zero row keeps scale 1
    torch.testing.assert_close(q.scales, torch.tensor([0.01, 0.04 / 127, 1.0]))
    assert q.values.dtype == torch.int8
    # 0.03 / (0.04/127) = 95.25 -> 95; 0.01 / (0.04/127) = 31.75 -> 32
    assert q.values.tolist() == [[50, -127, 0], [95, 32, -127], [0, 0, 0]]
    back = q.dequantize()
    assert (back - w).abs().max() <= q.scales.max() / 2 + 1e-7  # round trip within half a step of each row
    torch.testing.assert_close(back[0], torch.tensor([0.5, -1.27, 0.0]))


def test_activations_and_the_integer_product_by_hand() -> None:
    x = torch.tensor([[-1.0, 0.0, 2.0]])
    a = quantize_activations(x, levels=128)
    # range [-1, 2] over 127 steps: scale 3/127, zero point round(127/3) = 42
    assert math.isclose(a.scale, 3 / 127) and a.zero_point == 42
    assert a.values.tolist() == [[0, 42, 127]]  # -1 -> -42.3 -> -42 + 42; 0 -> 42; 2 -> 84.7 -> 85 + 42
    w = QuantizedWeight(torch.tensor([[50, -127, 0]], dtype=torch.int8), torch.tensor([0.01]))
    y = int8_linear_reference(x, w, torch.tensor([0.25]), levels=128)
    # acc = (0-42)·50 + (42-42)·(-127) + (127-42)·0 = -2100;  y = -2100 · 3/127 · 0.01 + 0.25
    assert y.shape == (1, 1)
    assert math.isclose(y.item(), -2100 * 3 / 127 * 0.01 + 0.25, rel_tol=1e-6)


@needs_int8
def test_the_int8_kernel_does_the_reference_arithmetic() -> None:
    torch.manual_seed(0)
    linear = torch.nn.Linear(64, 48)
    layer = Int8Linear.from_linear(linear)
    x = torch.randn(3, 5, 64)
    with torch.no_grad():
        kernel = layer(x)
        reference = int8_linear_reference(x, layer.quantized_weight, layer.bias)
        exact = linear(x)
    assert kernel.shape == (3, 5, 48) and kernel.dtype == torch.float32
    torch.testing.assert_close(kernel, reference, rtol=1e-5, atol=1e-5)
    assert (kernel - exact).abs().max() < 0.05 * exact.abs().max()  # int8 is an approximation, a close one


@needs_int8
def test_int8_and_bf16_layers_pass_gradients_to_the_input() -> None:
    torch.manual_seed(0)
    linear = Linear(16, 8).requires_grad_(False)
    for layer in (Int8Linear.from_linear(linear), Bf16Linear(linear)):
        x = torch.randn(2, 16, requires_grad=True)
        (grad,) = torch.autograd.grad(layer(x).sum(), x)
        weight = layer.quantized_weight.dequantize() if isinstance(layer, Int8Linear) else layer.weight.float()
        torch.testing.assert_close(grad, weight.sum(dim=0).expand(2, 16), rtol=1e-2, atol=1e-2)


def tiny_encoder(tiny_config) -> Encoder:
    torch.manual_seed(0)
    return Encoder(tiny_config).eval()


def padded_inputs(vocab: int) -> dict:
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(1000, vocab, (3, 12), generator=g)
    mask = torch.ones(3, 12, dtype=torch.long)
    mask[1, 7:] = 0
    mask[2, 4:] = 0
    return {"input_ids": ids * mask, "attention_mask": mask}


@pytest.mark.parametrize(
    "precision,tolerance",
    [("fp32", 1e-5), ("bf16", 5e-2), pytest.param("int8", 1.5e-1, marks=needs_int8)],
)
def test_each_precision_stays_close_to_fp32(tiny_config, precision: str, tolerance: float) -> None:
    encoder = tiny_encoder(tiny_config)
    inputs = padded_inputs(tiny_config.vocab_size)
    with torch.inference_mode():
        reference = encoder(**inputs).last_hidden_state
        converted = build(encoder, Mode(precision), copy_model=True).model
        got = converted(**inputs).last_hidden_state
    real = inputs["attention_mask"].bool()[..., None]
    gap = ((got - reference) * real).abs().max().item()
    assert gap <= tolerance, f"{precision}: {gap}"
    kinds = {type(m) for m in converted.modules()}
    expected = {"fp32": Linear, "bf16": Bf16Linear, "int8": Int8Linear}[precision]
    assert expected in kinds and (precision == "fp32" or Linear not in kinds)  # every encoder Linear converted
    assert any(isinstance(m, Linear) for m in encoder.modules())  # the original is untouched (copied)


def test_precision_is_applied_once(tiny_config) -> None:
    encoder = apply_precision(tiny_encoder(tiny_config), "bf16")
    with pytest.raises(ValueError, match="already converted"):
        apply_precision(encoder, "bf16")
    with pytest.raises(ValueError, match="precision must be one of"):
        apply_precision(encoder, "fp16")


def test_mode_names_round_trip() -> None:
    for mode in (Mode("fp32"), Mode("fp32", onednn=True), Mode("bf16", compiled=True), Mode("int8")):
        assert Mode.from_name(mode.name) == mode
    assert Mode("bf16", compiled=True).name == "bf16+compile"
    with pytest.raises(ValueError):
        Mode.from_name("fp16")
    assert fixed_mode("bf16", compile=True) == Mode("bf16", compiled=True)
    names = [m.name for m in candidate_modes(compile=False)]
    assert names[0] == "fp32" and ("bf16" in names) == cpu_has_bf16() and ("int8" in names) == int8_available()
    assert not any(m.compiled for m in candidate_modes(compile=False))


def tiny_pipeline(tokenizer, tiny_config) -> Pipeline:
    torch.manual_seed(0)
    model = Classifier(Encoder(tiny_config), ClassifierConfig(labels=list(LABELS), multi_label=True)).eval()
    return Pipeline(model, tokenizer)


TEXTS = ["worms in the khichdi", "खाने में कीड़े थे", "The dal was watery and tasteless again today, no salt"]


@pytest.mark.parametrize("precision", ["bf16", pytest.param("int8", marks=needs_int8)])
def test_a_saved_model_loads_in_each_precision(tokenizer, tiny_config, tmp_path, precision: str) -> None:
    tiny_pipeline(tokenizer, tiny_config).save(tmp_path / "model")
    fp32 = Pipeline.from_folder(tmp_path / "model")
    fast = Pipeline.from_folder(tmp_path / "model", precision=precision)
    assert fast.mode == precision and fp32.mode in ("fp32", "fp32-onednn")
    gap = (fast.probabilities(TEXTS) - fp32.probabilities(TEXTS)).abs().max().item()
    assert 0 < gap < 0.02  # a different product, close to fp32's
    with pytest.raises(ValueError, match="save the fp32 model"):
        fast.save(tmp_path / "other")
    with pytest.raises(ValueError, match="already set"):
        fast.prepare("fp32")
    with pytest.raises(ValueError, match="precision must be one of"):
        Pipeline.from_folder(tmp_path / "model", precision="fp16")


@pytest.mark.parametrize("precision", ["bf16", pytest.param("int8", marks=needs_int8)])
def test_explanations_run_in_each_precision(tokenizer, tiny_config, tmp_path, precision: str) -> None:
    from mealwatch.explain.registry import attribute

    tiny_pipeline(tokenizer, tiny_config).save(tmp_path / "model")
    fp32 = Pipeline.from_folder(tmp_path / "model")
    fast = Pipeline.from_folder(tmp_path / "model", precision=precision)
    fast.model.requires_grad_(False)  # as the service freezes it: gradients flow to the inputs only
    fp32.model.requires_grad_(False)
    labels = [["illness", "spoiled_food"], ["foreign_object"]]
    for method in ("grad", "ig"):
        got = attribute(fast, TEXTS[:2], labels, method, 8)
        expected = attribute(fp32, TEXTS[:2], labels, method, 8)
        for g, e in zip(got, expected):
            assert g.words == e.words
            for label in e.scores:
                a, b = torch.tensor(g.scores[label]), torch.tensor(e.scores[label])
                assert a.shape == b.shape and torch.isfinite(a).all()
                assert (a - b).abs().max() <= 0.25 * b.abs().max(), (method, label, a, b)  # the same picture
