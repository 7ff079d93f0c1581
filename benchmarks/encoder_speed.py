"""Encoder speed in every precision: ours vs Hugging Face `BertModel` and ONNX Runtime, same MiniLM weights.

One run, contenders alternating call by call so that machine noise hits them alike; ratios are to
Hugging Face fp32 (sdpa attention). Columns: HF fp32 and bf16 autocast; ours in fp32 (PyTorch's default
kernel and oneDNN), bf16 (weights converted once) and int8 (per-channel weights), each also compiled
with ``--compile``; ONNX Runtime fp32 and int8 (needs ``pip install 'mealwatch[export]'``). Then the
GFLOP/s of each beside a plain matmul's per dtype on this machine; with ``--model`` the decision
agreement and macro-F1 change of each mode on the bundled test split; and load time and peak memory
per mode (each in a fresh process).

    python benchmarks/encoder_speed.py [--threads 2] [--repeats 15] [--compile] [--model DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import transformers

from mealwatch import Encoder
from mealwatch.inference.modes import Mode, build
from mealwatch.transformer import bundled_model_dir
from mealwatch.transformer.linear import onednn_available
from mealwatch.transformer.precision import cpu_name, supported_precisions
from mealwatch.transformer.quantize import Int8Linear

SHAPES = [(1, 32), (32, 64), (16, 128)]  # (batch, tokens)


def encoder_flops(config, batch: int, tokens: int) -> float:
    """Multiply-adds x2 of one forward pass (projections, attention scores and sums, feed-forward)."""
    H, I, T = config.hidden_size, config.intermediate_size, tokens
    per_layer = 2 * T * H * H * 4 + 2 * T * T * H * 2 + 2 * T * H * I * 2
    return batch * (config.num_hidden_layers * per_layer + 2 * H * H)


def best_seconds(fn, repeats: int = 10) -> float:
    for _ in range(3):
        fn()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


@torch.inference_mode()
def matmul_gflops(n: int = 1024) -> dict[str, float]:
    """GFLOP/s of a plain (n x n) product per dtype and kernel (best of 10)."""
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(n, n, generator=g), torch.randn(n, n, generator=g)
    out = {"fp32 (default kernel)": best_seconds(lambda: a @ b)}
    if onednn_available():
        from mealwatch.transformer.linear import _onednn_linear  # the kernel our fp32-onednn mode uses

        out["fp32 (oneDNN)"] = best_seconds(lambda: _onednn_linear(a, b, None))
    a16, b16 = a.bfloat16(), b.bfloat16()
    out["bf16"] = best_seconds(lambda: a16 @ b16)
    if "int8" in supported_precisions():
        layer = Int8Linear.from_linear(torch.nn.Linear(n, n, bias=False))
        out["int8 (dynamic, activations quantized per call)"] = best_seconds(lambda: layer(a))
    return {k: 2 * n**3 / s / 1e9 for k, s in out.items()}


def onnx_encoder(tmp: Path, encoder: Encoder, int8: bool):
    """An ONNX Runtime session of the encoder's last_hidden_state (mask kept), fp32 or dynamically quantized."""
    import onnxruntime

    from mealwatch.export.onnx import quantize_onnx, write_graph

    class Hidden(torch.nn.Module):
        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.encoder(input_ids, attention_mask, token_type_ids).last_hidden_state

    path = tmp / "encoder.onnx"
    if not path.exists():
        ids = torch.randint(1000, 30000, (2, 16))
        mask = torch.ones(2, 16, dtype=torch.long)
        mask[1, 9:] = 0
        inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": torch.zeros_like(ids)}
        write_graph(Hidden(encoder).eval(), inputs, path, 512, "last_hidden_state")
    if int8:
        quantize_onnx(path, tmp / "encoder.int8.onnx")
        path = tmp / "encoder.int8.onnx"
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def run(ids, mask, types):
        feeds = {"input_ids": ids.numpy(), "attention_mask": mask.numpy(), "token_type_ids": types.numpy()}
        return torch.from_numpy(session.run(None, feeds)[0])

    return run


def contenders(args, ours: Encoder, tmp: Path) -> dict:
    hf = transformers.BertModel.from_pretrained(bundled_model_dir()).eval()

    def hf_bf16(ids, mask, types):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return hf(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state

    runs = {
        "HF fp32": lambda ids, mask, types: hf(input_ids=ids, attention_mask=mask, token_type_ids=types)[0],
        "HF bf16 autocast": hf_bf16,
    }
    modes = [Mode("fp32")] + ([Mode("fp32", onednn=True)] if onednn_available() else [])
    modes += [Mode(p) for p in supported_precisions() if p != "fp32"]
    if args.compile:
        modes += [Mode(m.precision, compiled=True) for m in modes if not m.onednn]
    for mode in modes:
        built = build(ours, mode, copy_model=True)
        runs[f"ours {mode.name}"] = lambda ids, mask, types, f=built.forward: f(ids, mask, types).last_hidden_state
    try:
        runs["ORT fp32"] = onnx_encoder(tmp, ours, int8=False)
        runs["ORT int8"] = onnx_encoder(tmp, ours, int8=True)
    except ImportError:
        print("onnxruntime is not installed: the ONNX Runtime columns are skipped (pip install 'mealwatch[export]')")
    return runs


@torch.inference_mode()
def time_shapes(runs: dict, ours: Encoder, repeats: int) -> None:
    names = list(runs)
    print("| contender | " + " | ".join(f"{B} x {T} ms (ratio to HF fp32, GFLOP/s)" for B, T in SHAPES) + " |")
    print("|---|" + "---|" * len(SHAPES))
    table = {name: [] for name in names}
    gaps = {name: [] for name in names}
    for B, T in SHAPES:
        g = torch.Generator().manual_seed(0)
        ids = torch.randint(1000, 30000, (B, T), generator=g)
        mask = torch.ones(B, T, dtype=torch.long)
        mask[B // 2 :, T * 3 // 4 :] = 0 if B > 1 else 1  # half the batch padded by a quarter
        types = torch.zeros(B, T, dtype=torch.long)
        reference = runs["HF fp32"](ids, mask, types)
        real = mask.bool()[..., None]
        for name in names:  # warm up (compiles here) and check each against HF fp32
            for _ in range(2):
                out = runs[name](ids, mask, types)
            gaps[name].append(((out.float() - reference) * real).abs().max().item())
        times = {name: [] for name in names}
        for _ in range(repeats):  # alternate call by call
            for name in names:
                started = time.perf_counter()
                runs[name](ids, mask, types)
                times[name].append(time.perf_counter() - started)
        flops = encoder_flops(ours.config, B, T)
        base = statistics.median(times["HF fp32"])
        for name in names:
            m = statistics.median(times[name])
            table[name].append(f"{m * 1e3:.1f} ({m / base:.2f}, {flops / m / 1e9:.0f})")
    for name in names:
        print(f"| {name} | " + " | ".join(table[name]) + " |")
    print("\nlargest |x - HF fp32| in last_hidden_state over real tokens (1 x 32, 32 x 64, 16 x 128):")
    for name in names:
        print(f"  {name}: " + ", ".join(f"{g:.1e}" for g in gaps[name]))


def decision_quality(model: str, compile: bool) -> None:
    """Agreement with fp32's decisions and macro-F1 change per mode on the bundled test split."""
    from mealwatch.data import bundled_data_dir, read_dataset
    from mealwatch.decisions import as_targets
    from mealwatch.learning.evaluation import evaluate_predictions
    from mealwatch.pipeline import Pipeline

    precisions = supported_precisions()
    print(f"\ndecisions on the bundled test split, model {model}:")
    print("| mode | texts decided as fp32 | macro-F1 | change (points) | texts/s |")
    print("|---|---|---|---|---|")
    reference = None
    for precision in precisions:
        pipeline = Pipeline.from_folder(model, precision=precision, compile=compile and precision != "int8")
        test = read_dataset(
            bundled_data_dir() / "test.csv", label_set=pipeline.labels, multi_label=pipeline.multi_label
        )
        pipeline.probabilities(test.texts[:64])  # warm up
        started = time.perf_counter()
        decided = pipeline.decide(pipeline.probabilities(test.texts))
        rate = len(test) / (time.perf_counter() - started)
        f1 = evaluate_predictions(test.targets(), as_targets(decided, pipeline.multi_label), pipeline.labels,
                                  pipeline.multi_label, bootstrap=0).macro_f1  # fmt: skip
        if reference is None:
            reference = (decided, f1)
        agree = (decided == reference[0]).all(axis=1).mean()
        print(f"| {pipeline.mode} | {agree:.1%} | {f1:.4f} | {(f1 - reference[1]) * 100:+.2f} | {rate:.0f} |")


LOAD_SCRIPT = """
import json, sys, time, torch
torch.set_num_threads(int(sys.argv[3]))
started = time.perf_counter()
if sys.argv[1]:
    from mealwatch.pipeline import Pipeline
    p = Pipeline.from_folder(sys.argv[1], precision=sys.argv[2])
    p.predict(["worms in the khichdi and two children vomited"])
else:
    from mealwatch import Encoder, Tokenizer
    from mealwatch.inference.modes import Mode, build
    e = build(Encoder.from_pretrained(), Mode(sys.argv[2]))
    e.forward(**Tokenizer.from_pretrained()(["worms in the khichdi"]).model_inputs())
seconds = time.perf_counter() - started
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))  # this process's own peak
print(json.dumps({"seconds": seconds, "peak_mb": int(peak.split()[1]) / 1024}))
"""


def load_costs(model: str | None, threads: int) -> None:
    what = "model load + one prediction" if model else "bundled encoder load + one forward pass"
    print(f"\n{what}, each precision in a fresh process:")
    print("| precision | seconds | peak RSS MB |")
    print("|---|---|---|")
    src = str(Path(__file__).resolve().parents[1] / "src")
    for precision in supported_precisions():
        command = [sys.executable, "-c", LOAD_SCRIPT, model or "", precision, str(threads)]
        env = {**os.environ, "PYTHONPATH": src}
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            print(f"| {precision} | failed: {result.stderr.strip().splitlines()[-1]} | |")
            continue
        d = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"| {precision} | {d['seconds']:.2f} | {d['peak_mb']:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--repeats", type=int, default=15, help="timed calls per contender and shape")
    parser.add_argument("--compile", action="store_true", help="also time our modes compiled (slow to start)")
    parser.add_argument("--model", help="a trained model folder: decision agreement and macro-F1 per mode")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"CPU: {cpu_name()}; torch {torch.__version__}, transformers {transformers.__version__}, "
          f"{args.threads} threads; precisions here: {', '.join(supported_precisions())}")  # fmt: skip
    verdict = "faster here: timed as ours fp32-onednn" if onednn_available() else "not faster here (probe): not used"
    print(f"oneDNN fp32 linears: {verdict}")
    print("plain 1024 x 1024 matmul GFLOP/s: " + ", ".join(f"{k} {v:.0f}" for k, v in matmul_gflops().items()))
    print()
    ours = Encoder.from_pretrained().eval()
    with tempfile.TemporaryDirectory() as tmp:
        runs = contenders(args, ours, Path(tmp))
        time_shapes(runs, ours, args.repeats)
    if args.model:
        decision_quality(args.model, args.compile)
    else:
        print("\nno --model given: decision agreement and macro-F1 per mode need a trained model (skipped)")
    load_costs(args.model, args.threads)


if __name__ == "__main__":
    main()
