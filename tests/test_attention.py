"""Scaled dot-product and multi-head attention against hand computation and torch's reference."""

import math

import torch

from mealwatch.transformer import MultiHeadAttention, scaled_dot_product_attention


def test_attention_by_hand():
    q = torch.tensor([[1.0, 0.0]])  # (1, 2)
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])  # (2, 2)
    v = torch.tensor([[10.0, 0.0], [0.0, 20.0]])
    out, w = scaled_dot_product_attention(q, k, v)
    s = 1 / math.sqrt(2)  # scores [1/√2, 0]
    w0 = math.exp(s) / (math.exp(s) + 1)
    assert torch.allclose(w, torch.tensor([[w0, 1 - w0]]))
    assert torch.allclose(out, torch.tensor([[10 * w0, 20 * (1 - w0)]]))


def test_masked_keys_get_exactly_zero_weight_and_rows_sum_to_one():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4) for _ in range(3))
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)[:, None, None, :]
    out, w = scaled_dot_product_attention(q, k, v, mask)
    assert torch.equal(w[0, :, :, 3:], torch.zeros(3, 5, 2))
    assert torch.allclose(w.sum(-1), torch.ones(2, 3, 5))
    # the masked keys' values cannot leak: changing them changes nothing
    v2 = v.clone()
    v2[0, :, 3:] = 1e6
    assert torch.allclose(scaled_dot_product_attention(q, k, v2, mask)[0], out)


def test_multi_head_matches_torch_multihead_attention():
    torch.manual_seed(0)
    H, nh = 16, 4
    ours = MultiHeadAttention(H, nh).eval()
    ref = torch.nn.MultiheadAttention(H, nh, batch_first=True).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.w_q, ours.w_k, ours.w_v]))
        ref.in_proj_bias.copy_(ours.qkv_proj.bias)
        ref.out_proj.weight.copy_(ours.out_proj.weight)
        ref.out_proj.bias.copy_(ours.out_proj.bias)
    x = torch.randn(2, 6, H)
    key_mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1] * 6], dtype=torch.bool)
    with torch.no_grad():
        out, w = ours(x, key_mask, need_weights=True)
        ref_out, ref_w = ref(x, x, x, key_padding_mask=~key_mask, need_weights=True, average_attn_weights=False)
    assert torch.allclose(out, ref_out, atol=1e-6)
    assert torch.allclose(w, ref_w, atol=1e-6)


def test_fast_and_explicit_paths_agree():
    torch.manual_seed(1)
    mha = MultiHeadAttention(32, 8).eval()
    x = torch.randn(3, 10, 32)
    key_mask = torch.ones(3, 10, dtype=torch.bool)
    key_mask[1, 7:] = False
    key_mask[2, 2:] = False
    with torch.no_grad():
        fast, none = mha(x, key_mask, need_weights=False)
        explicit, w = mha(x, key_mask, need_weights=True)
    assert none is None and w.shape == (3, 8, 10, 10)
    assert torch.allclose(fast, explicit, atol=1e-6)
