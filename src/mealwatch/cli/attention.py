"""``mealwatch attention``: which words the model looks at, per layer and head, as text,
JSON, pictures or an interactive page."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "attention",
        help="attention per word for any layer and head: terminal report, JSON, PNG/SVG, HTML page",
        description=(
            "Show which words each word attends to. Attention is merged from WordPiece tokens to words "
            "(a word's row: mean over its pieces; its column: sum over its pieces), so every row sums to 1. "
            "Layers and heads count from 0."
        ),
    )
    p.add_argument("text", metavar="TEXT", help="the text to look at")
    p.add_argument(
        "--model",
        help="a model folder from `mealwatch train` or a Hugging Face BERT folder (default: your model — "
        "$MEALWATCH_MODEL, else the newest trained run — else the bundled pre-trained all-MiniLM-L6-v2)",
    )
    p.add_argument(
        "--word",
        help="report where this word looks; a repeated word by WORD@N, its N-th occurrence "
        "(from 1); matching ignores case",
    )
    p.add_argument(
        "--candidates",
        help="comma-separated words to compare for --word, e.g. dal,meal (default: the three words it attends to most)",
    )
    p.add_argument("--layer", type=int, help="one layer (from 0)")
    p.add_argument("--head", type=int, help="one head of --layer (from 0)")
    p.add_argument(
        "--json", action="store_true", help="print one JSON object: words, attention[layer][head][query][key]"
    )
    p.add_argument(
        "--png", type=Path, metavar="FILE", help="write a picture: one head with --layer/--head, else the grid"
    )
    p.add_argument("--svg", type=Path, metavar="FILE", help="the same picture as SVG")
    p.add_argument("--html", type=Path, metavar="FILE", help="write the interactive page (one self-contained file)")
    p.add_argument("--no-special", action="store_true", help="leave out [CLS] and [SEP] (rows rescaled to sum to 1)")
    p.add_argument(
        "--steps", type=int, default=50, help="integrated-gradient steps for a classifier's page (default 50)"
    )
    p.set_defaults(func=run)


def check_outputs(args: argparse.Namespace) -> None:
    """Fail on bad output paths before any model work."""
    from mealwatch.cli import UserError

    for flag, suffixes in (("png", (".png",)), ("svg", (".svg",)), ("html", (".html", ".htm"))):
        path = getattr(args, flag, None)
        if path is None:
            continue
        if path.suffix.lower() not in suffixes:
            raise UserError(f"--{flag} {path}: expected a file ending in {' or '.join(suffixes)}")
        if not path.parent.is_dir():
            raise UserError(f"--{flag} {path}: the folder {path.parent} does not exist")
    if getattr(args, "steps", 1) < 1:
        raise UserError(f"--steps must be at least 1, not {args.steps}")


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError

    if not args.text.strip():
        raise UserError('TEXT is empty: give a sentence to look at, e.g. "The dal was cold."')
    if args.head is not None and args.layer is None:
        raise UserError("--head needs --layer (heads are numbered within a layer)")
    check_outputs(args)

    from mealwatch.explain import explain, focus, save_grid, save_head, write_page
    from mealwatch.pipeline import Pipeline, open_model
    from mealwatch.explain.terminal import print_focus, print_summary
    from mealwatch.explain.word_attention import check_layer_head

    model = open_model(args.model or users_model())
    wa = model.word_attention(args.text, not args.no_special)
    try:
        check_layer_head(wa.layers, wa.heads, args.layer, args.head)
    except ValueError as e:
        raise UserError(str(e)) from None
    candidates = [c for c in args.candidates.split(",") if c.strip()] if args.candidates else None
    if candidates and not args.word:
        raise UserError("--candidates compares words for --word: give --word too")
    try:
        report = focus(wa, args.word, candidates, layer=args.layer, head=args.head) if args.word else None
    except ValueError as e:  # a --word or --candidates that is not a word of the text
        raise UserError(str(e)) from None

    for path in (args.png, args.svg):
        if path is None:
            continue
        if args.layer is None:
            save_grid(wa, path)
        else:
            save_head(wa, path, args.layer, args.head)
        print(f"wrote {path}", file=sys.stderr)
    if args.html:
        explanation = explain(model, args.text, steps=args.steps) if isinstance(model, Pipeline) else None
        initial = {}
        if args.layer is not None:
            initial["layer"] = args.layer
            if args.head is not None:
                initial["heads"] = [args.head]
        if report is not None:
            initial["focus"] = report.index
        write_page(args.html, wa, explanation, model=model.name, initial=initial)
        print(f"wrote {args.html}", file=sys.stderr)

    if args.json:
        out = {"model": model.name, **wa.to_dict(decimals=4)}
        if wa.renormalised:
            out["note"] = "[CLS] and [SEP] were left out and each row rescaled to sum to 1"
        if report is not None:
            out["focus"] = report.to_dict()
        print(json.dumps(out, ensure_ascii=False))
    elif report is not None:
        print_focus(report, wa, args.layer)
    else:
        print_summary(wa, args.layer, args.head)
    return 0


def users_model() -> str | None:
    """The model `predict` and `serve` use without --model (``runs.resolve_model``), said on standard error; None
    (the bundled pre-trained encoder) when there is no trained model yet."""
    import sys

    from mealwatch.runs import NoModelError, resolve_model

    try:
        folder = resolve_model(None)
    except NoModelError:
        print("no trained model found: showing the bundled pre-trained all-MiniLM-L6-v2 (give --model to choose)",
              file=sys.stderr)  # fmt: skip
        return None
    print(f"model: {folder} (give --model to choose another)", file=sys.stderr)
    return str(folder)
