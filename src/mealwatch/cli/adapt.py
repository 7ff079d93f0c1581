"""``mealwatch adapt``: teach the bundled English encoder Hindi and save it as an encoder folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "adapt",
        help="teach the encoder Hindi (vocabulary extension + distillation) and save an encoder folder",
        description="Extend the encoder's WordPiece vocabulary with pieces learned on the Hindi training texts, "
        "then distil the English sentence vectors into the Hindi and romanised renderings of parallel "
        "complaints (and of everyday sentences with --sentences). The folder it writes is what `mealwatch train "
        "--encoder` takes; `mealwatch train` builds the same folder by itself (cached) when its data has Hindi "
        "in it.",
    )
    p.add_argument("--out", type=Path, required=True, help="the encoder folder to write (new or empty)")
    p.add_argument("--data", type=Path, help="training data (a folder or a file, as for train); default: the "
                   "bundled complaints' train split")  # fmt: skip
    p.add_argument("--parallel", type=Path, help="parallel renderings CSV (english,labels,devanagari,romanised); "
                   "default: the bundled parallel.csv")  # fmt: skip
    p.add_argument("--sentences", type=Path, help="everyday parallel sentences CSV (english,devanagari,romanised) to "
                   "distil beside the complaints, e.g. data/hindi_parallel/everyday.csv (default: none)")  # fmt: skip
    p.add_argument("--encoder", type=Path, help="the encoder to adapt (default: the bundled all-MiniLM-L6-v2)")
    p.add_argument("--pieces", type=int, help="size of the Hindi WordPiece vocabulary to learn (default: 6000)")
    p.add_argument("--mlm-epochs", type=int, help="masked-LM pre-training epochs on the Hindi texts (default: 0)")
    p.add_argument("--distill-epochs", type=int, help="distillation epochs (default: the recipe's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's choice)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError

    for name in ("data", "parallel", "sentences", "encoder"):
        path = getattr(args, name)
        if path is not None and not path.exists():
            raise UserError(f"--{name} {path}: no such file or folder")
    for name in ("pieces", "mlm_epochs", "distill_epochs"):
        value = getattr(args, name)
        if value is not None and value < 0:
            raise UserError(f"--{name.replace('_', '-')} must be 0 or more, not {value}")

    from mealwatch.adapt.recipe import AdaptArguments, AdaptationData, adapt_encoder
    from mealwatch.cli import use_threads
    from mealwatch.data import read_parallel, read_parallel_sentences, read_splits

    use_threads(args.threads)
    chosen = {"pieces": args.pieces, "mlm_epochs": args.mlm_epochs, "distill_epochs": args.distill_epochs}
    recipe = AdaptArguments(seed=args.seed, **{k: v for k, v in chosen.items() if v is not None})
    train = read_splits(args.data)["train"]
    parallel = read_parallel(args.parallel)
    data = AdaptationData.of(train, parallel, read_parallel_sentences(args.sentences) if args.sentences else [])
    if not data.texts and not data.pairs:
        raise UserError("no Hindi texts in the training data and no parallel renderings: nothing to adapt to")
    print(f"adapting on {len(data.texts)} Hindi training texts and {len(data.pairs)} parallel pairs", file=sys.stderr)
    out = adapt_encoder(args.out, data.texts, data.pairs, base=args.encoder, args=recipe, progress=True)
    print(f"wrote {out}: train with `mealwatch train --encoder {out}`")
    return 0
