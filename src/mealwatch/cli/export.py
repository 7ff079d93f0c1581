"""``mealwatch export``: a trained model as a Hugging Face ``transformers`` folder or an ONNX graph."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FORMATS = ("hf", "onnx")  # mealwatch.export.FORMATS, kept here so ``--help`` does not import torch


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write a trained model for transformers (--format hf) or ONNX Runtime (--format onnx)",
        description="Export a model written by `mealwatch train`. hf: a folder that transformers' "
        "AutoModelForSequenceClassification loads (trust_remote_code=True: mean pooling), with labels, thresholds "
        "and urgency in its config and a model card. onnx: model.onnx (dynamic batch and sequence, padding mask "
        "kept) and model.int8.onnx, run by `mealwatch predict --backend onnxruntime --model OUT`.",
    )
    p.add_argument(
        "--model", help="a model folder written by `mealwatch train` (default: $MEALWATCH_MODEL, else the newest run)"
    )
    p.add_argument("--format", choices=FORMATS, required=True, help="hf or onnx")
    p.add_argument("--out", type=Path, required=True, help="the folder to write (new, empty, or an earlier export)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError
    from mealwatch.pipeline import Pipeline
    from mealwatch.runs import resolve_model

    folder = resolve_model(args.model)
    if args.out.resolve() == folder.resolve():
        raise UserError("--out must not be the model's own folder: give a new folder")
    pipeline = Pipeline.from_folder(folder)
    if args.format == "hf":
        from mealwatch.export.hf import export_hf

        export_hf(pipeline, args.out, source=str(folder))
        print(f"wrote {args.out}: load it with AutoModelForSequenceClassification.from_pretrained("
              f"'{args.out}', trust_remote_code=True) (see its README.md)", file=sys.stderr)  # fmt: skip
    else:
        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            raise UserError("--format onnx needs onnx and onnxruntime: pip install 'mealwatch[export]'") from None
        from mealwatch.export.onnx import export_onnx

        export_onnx(pipeline, args.out)
        print(f"wrote {args.out} (model.onnx, model.int8.onnx): run it with `mealwatch predict --backend onnxruntime "
              f"--model {args.out}`", file=sys.stderr)  # fmt: skip
    return 0
