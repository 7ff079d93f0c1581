"""Encoder speed: ours vs Hugging Face `BertModel` on the same all-MiniLM-L6-v2 weights.

Same thread count, fp32, inference mode, runs alternating between the models so that
machine noise hits them alike. Prints milliseconds per forward pass, the ratio ours/HF,
and the achieved GFLOP/s beside a plain matmul's on this machine.

Our linear layers multiply with oneDNN at inference (``mealwatch.transformer.linear``);
HF's use PyTorch's default fp32 kernel (MKL). Both are fp32. To show what the kernel choice
buys, ours is also timed with the oneDNN path switched off ("ours, default kernel"), and
the plain matmul is timed with each kernel.

    python benchmarks/encoder_speed.py [--threads 2] [--repeats 30]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import transformers

from mealwatch import Encoder
from mealwatch.transformer import bundled_model_dir
from mealwatch.transformer.linear import use_onednn

SHAPES = [(1, 32), (32, 64)]  # (batch, tokens)
TARGETS = {(1, 32): 0.8, (32, 64): 1.0}


def encoder_flops(config, batch: int, tokens: int) -> float:
    """Multiply-adds x2 of one forward pass (projections, attention scores and sums, feed-forward)."""
    H, I, T = config.hidden_size, config.intermediate_size, tokens
    per_layer = 2 * T * H * H * 4 + 2 * T * T * H * 2 + 2 * T * H * I * 2
    return batch * (config.num_hidden_layers * per_layer + 2 * H * H)


def time_call(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def matmul_gflops(n: int = 1024, repeats: int = 20, onednn: bool = False) -> float:
    """Best GFLOP/s of an (n x n) @ (n x n) fp32 product with PyTorch's default kernel or oneDNN's."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    if onednn:
        fn = lambda: torch.ops.mkldnn._linear_pointwise(a, b, None, "none", [], "")  # noqa: E731  a @ bᵀ
    else:
        fn = lambda: a @ b  # noqa: E731
    for _ in range(3):
        fn()
    best = min(time_call(fn, repeats))
    return 2 * n**3 / best / 1e9


def run_plain(fn):
    """``fn`` with our linears on PyTorch's default kernel."""
    with use_onednn(False):
        return fn()


@torch.inference_mode()
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--repeats", type=int, default=30, help="timed runs per model and shape")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    ours = Encoder.from_pretrained().eval()
    hf = transformers.BertModel.from_pretrained(bundled_model_dir()).eval()  # default attention (sdpa)
    print(
        f"torch {torch.__version__}, transformers {transformers.__version__}, {args.threads} threads, fp32, "
        f"HF attention: {hf.config._attn_implementation}"
    )
    print(
        f"plain 1024x1024 fp32 matmul: {matmul_gflops():.1f} GFLOP/s with PyTorch's default kernel, "
        f"{matmul_gflops(onednn=True):.1f} GFLOP/s with oneDNN\n"
    )
    print(
        "| batch x tokens | ours ms (median) | HF ms (median) | ours/HF | target | ours, default kernel ms | "
        "its ratio to HF | ours GFLOP/s | HF GFLOP/s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    failed, gaps = False, []
    for B, T in SHAPES:
        g = torch.Generator().manual_seed(0)
        ids = torch.randint(1000, 30000, (B, T), generator=g)
        mask = torch.ones(B, T, dtype=torch.long)
        types = torch.zeros(B, T, dtype=torch.long)
        run_ours = lambda: ours(ids, mask, types)  # noqa: E731
        run_hf = lambda: hf(input_ids=ids, attention_mask=mask, token_type_ids=types)  # noqa: E731
        run_default = lambda: run_plain(run_ours)  # noqa: E731
        for _ in range(5):  # warm up all three
            run_ours(), run_hf(), run_default()
        gap = (run_ours().last_hidden_state - run_hf().last_hidden_state).abs().max().item()
        assert gap < 1e-4, f"ours and HF differ by {gap} at {B} x {T}"
        gaps.append(f"{B} x {T}: {gap:.1e}")
        t_ours, t_hf, t_default = [], [], []
        for _ in range(args.repeats):  # alternate so noise hits all alike
            t_ours += time_call(run_ours, 1)
            t_hf += time_call(run_hf, 1)
            t_default += time_call(run_default, 1)
        m_ours, m_hf, m_default = (statistics.median(t) for t in (t_ours, t_hf, t_default))
        flops = encoder_flops(ours.config, B, T)
        ratio = m_ours / m_hf
        failed |= ratio > TARGETS[(B, T)]
        print(
            f"| {B} x {T} | {m_ours * 1e3:.2f} | {m_hf * 1e3:.2f} | {ratio:.2f} | ≤ {TARGETS[(B, T)]} "
            f"| {m_default * 1e3:.2f} | {m_default / m_hf:.2f} | {flops / m_ours / 1e9:.1f} "
            f"| {flops / m_hf / 1e9:.1f} |"
        )
    print("\nlargest |ours - HF| in last_hidden_state: " + "; ".join(gaps))
    print("all targets met" if not failed else "TARGET MISSED")


if __name__ == "__main__":
    main()
