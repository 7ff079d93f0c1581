"""``mealwatch explain``: why a fine-tuned classifier predicts its labels for a text —
per-word integrated gradients and attention rollout."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    from mealwatch.cli import add_speed_arguments

    p = sub.add_parser(
        "explain",
        help="which words pushed a trained classifier toward (or against) its predicted labels",
        description=(
            "Explain a prediction: integrated gradients of each predicted label's probability on the word "
            "embeddings (baseline: the [PAD] embedding), summed per word, with attention rollout beside it."
        ),
    )
    p.add_argument("text", metavar="TEXT", help="the complaint to explain")
    p.add_argument(
        "--model", help="a model folder from `mealwatch train` (default: $MEALWATCH_MODEL, else the newest run)"
    )
    p.add_argument("--json", action="store_true", help="print the explanation as one JSON object")
    p.add_argument("--html", type=Path, metavar="FILE", help="write the interactive page with the explanation")
    p.add_argument("--steps", type=int, default=50, help="integration steps (default 50; more is more exact)")
    add_speed_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError
    from mealwatch.cli.attention import check_outputs

    if not args.text.strip():
        raise UserError("TEXT is empty: give a complaint to explain")
    check_outputs(args)

    from mealwatch.explain import explain, write_page
    from mealwatch.explain.terminal import print_explanation
    from mealwatch.cli import speed_options
    from mealwatch.pipeline import Pipeline

    pipeline = Pipeline.load(args.model, **speed_options(args))
    explanation = explain(pipeline, args.text, steps=args.steps)
    if args.html:
        write_page(args.html, pipeline.word_attention(args.text), explanation, model=pipeline.name)
        print(f"wrote {args.html}", file=sys.stderr)
    if args.json:
        print(json.dumps(explanation.to_dict(), ensure_ascii=False))
    else:
        print_explanation(explanation)
    return 0
