"""The encoder's Linear: oneDNN at fp32 inference, F.linear everywhere else, the same numbers."""

import pytest
import torch
import torch.nn.functional as F

from mealwatch import Encoder
from mealwatch.transformer import EncoderConfig
from mealwatch.transformer import linear
from mealwatch.transformer.linear import Linear, onednn_applies, onednn_available, use_onednn

needs_onednn = pytest.mark.skipif(not onednn_available(), reason="oneDNN linear missing, wrong or slower here")


@pytest.fixture
def layer() -> Linear:
    torch.manual_seed(0)
    return Linear(48, 80)


@needs_onednn
@pytest.mark.parametrize("bias", [True, False])
def test_onednn_matches_f_linear_on_any_layout(bias: bool) -> None:
    torch.manual_seed(1)
    layer = Linear(48, 80, bias=bias)
    inputs = {
        "2d": torch.randn(5, 48),
        "3d": torch.randn(2, 7, 48),
        "non-contiguous": torch.randn(7, 2, 48).transpose(0, 1),
        "one row": torch.randn(1, 1, 48),
    }
    with torch.inference_mode():
        for name, x in inputs.items():
            assert onednn_applies(x, layer.weight), name
            expected = F.linear(x, layer.weight, layer.bias)
            got = layer(x)
            assert got.shape == expected.shape, name
            torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5, msg=name)


@needs_onednn
def test_when_onednn_is_used(layer: Linear) -> None:
    x = torch.randn(3, 48)
    with torch.no_grad():
        assert onednn_applies(x, layer.weight)
        assert not onednn_applies(x.double(), layer.weight.double())
        assert not onednn_applies(x.bfloat16(), layer.weight.bfloat16())
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert not onednn_applies(x, layer.weight)
            assert layer(x).dtype == torch.bfloat16  # autocast still applies
        with use_onednn(False):
            assert not onednn_applies(x, layer.weight)
        assert onednn_applies(x, layer.weight)  # the switch is restored
    assert not onednn_applies(x, layer.weight, layer.bias)  # grad enabled and the weight needs it
    assert not onednn_applies(x, layer.weight.detach(), layer.bias)  # ... or the bias does
    assert onednn_applies(x.requires_grad_(), layer.weight.detach(), layer.bias.detach())  # only the input does


@needs_onednn
def test_gradients_by_the_input_of_a_frozen_layer_match_f_linear(layer: Linear) -> None:
    layer.requires_grad_(False)
    x = torch.randn(2, 5, 48, requires_grad=True)
    y = layer(x)
    assert type(y.grad_fn).__name__ == "_LinearOfInputBackward"  # the oneDNN path, differentiable in x
    torch.testing.assert_close(y, F.linear(x, layer.weight, layer.bias), rtol=1e-5, atol=1e-5)
    picks = torch.randn(3, *y.shape)  # three output gradients at once, as the service's explanations batch them
    (batched,) = torch.autograd.grad(y, x, grad_outputs=picks, is_grads_batched=True)  # (3, 2, 5, 48)
    torch.testing.assert_close(batched, picks @ layer.weight, rtol=1e-5, atol=1e-5)  # ∂L/∂x = ∂L/∂y · W
    (single,) = torch.autograd.grad(layer(x).sum(), x)
    torch.testing.assert_close(single, layer.weight.sum(dim=0).expand(2, 5, 48), rtol=1e-5, atol=1e-5)


def test_gradients_flow_as_in_nn_linear(layer: Linear) -> None:
    reference = torch.nn.Linear(48, 80)
    reference.load_state_dict(layer.state_dict())
    x = torch.randn(4, 48, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    layer(x).square().sum().backward()
    reference(x_ref).square().sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad)
    torch.testing.assert_close(layer.weight.grad, reference.weight.grad)
    assert list(layer.state_dict()) == ["weight", "bias"]


@needs_onednn
def test_encoder_gives_the_same_outputs_with_either_kernel() -> None:
    torch.manual_seed(0)
    config = EncoderConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                           intermediate_size=64, max_position_embeddings=40)  # fmt: skip
    encoder = Encoder(config).eval()
    ids = torch.randint(5, 100, (3, 11))
    mask = torch.ones(3, 11, dtype=torch.long)
    mask[1, 6:] = 0
    with torch.inference_mode():
        fast = encoder(ids, mask, output_attentions=True)
        with use_onednn(False):
            plain = encoder(ids, mask, output_attentions=True)
    torch.testing.assert_close(fast.last_hidden_state, plain.last_hidden_state, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(fast.pooler_output, plain.pooler_output, rtol=1e-5, atol=1e-5)
    for a, b in zip(fast.attentions, plain.attentions):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_a_broken_or_wrong_private_op_switches_the_path_off(monkeypatch):
    monkeypatch.setattr(linear, "_probed", None)
    monkeypatch.setattr(linear, "_onednn_linear", lambda x, w, b: (_ for _ in ()).throw(RuntimeError("no such op")))
    assert linear.onednn_available() is False
    monkeypatch.setattr(linear, "_probed", None)
    monkeypatch.setattr(linear, "_onednn_linear", lambda x, w, b: torch.nn.functional.linear(x, w, b) + 1.0)
    assert linear.onednn_available() is False  # a mismatch with F.linear
    x = torch.randn(2, 8)
    layer = Linear(8, 4).requires_grad_(False)
    assert not onednn_applies(x, layer.weight, layer.bias)
    torch.testing.assert_close(layer(x), torch.nn.functional.linear(x, layer.weight, layer.bias))
