"""``mealwatch embed``: context-aware sentence embeddings for texts or a file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

OUTPUT_SUFFIXES = (".npy", ".jsonl")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "embed",
        help="sentence embeddings (mean-pooled or [CLS]) for texts or a CSV/JSONL/TXT file",
        description="Encode texts with the BERT encoder and write one vector per text.",
    )
    p.add_argument("texts", nargs="*", metavar="TEXT", help="texts to embed (or use --input)")
    p.add_argument("--input", type=Path, help="a .csv, .jsonl or .txt file of texts")
    p.add_argument("--text-column", default="text", help="column/field holding the text (default: text)")
    p.add_argument("--output", type=Path, help="a .npy (N, H) array or a .jsonl file; default: JSONL on stdout")
    p.add_argument("--model", help="a Hugging Face BERT folder (default: the bundled all-MiniLM-L6-v2)")
    p.add_argument("--pooling", choices=["mean", "cls"], default="mean", help="mean of tokens (default) or [CLS]")
    p.add_argument("--normalize", action="store_true", help="scale every vector to unit length")
    p.add_argument("--batch-size", type=int, default=64)
    from mealwatch.cli import add_speed_arguments

    add_speed_arguments(p, auto=False)  # auto checks label decisions, which an encoder alone does not make
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError, texts_from_args

    if args.output and args.output.suffix.lower() not in OUTPUT_SUFFIXES:
        raise UserError(f"--output {args.output}: expected a file ending in {' or '.join(OUTPUT_SUFFIXES)}")
    if args.batch_size < 1:
        raise UserError("--batch-size must be at least 1")
    texts = texts_from_args(args)

    import numpy as np

    from mealwatch.atomic import write_text_atomically
    from mealwatch.pipeline import EncoderOnly

    encoder = EncoderOnly.load(args.model, args.precision, args.compile)
    vectors = encoder.embed(texts, args.pooling, args.batch_size, args.normalize)
    if args.output and args.output.suffix.lower() == ".npy":
        np.save(args.output, vectors)
    else:
        lines = (json.dumps({"text": t, "embedding": [round(float(x), 6) for x in v]}) for t, v in zip(texts, vectors))
        if args.output:
            write_text_atomically(args.output, "".join(line + "\n" for line in lines))
        else:
            sys.stdout.writelines(line + "\n" for line in lines)
    if args.output:
        print(
            f"wrote {len(texts)} embeddings of size {vectors.shape[1]} ({args.pooling} pooling) to {args.output}",
            file=sys.stderr,
        )
    return 0
