"""``mealwatch export-training``: the complaints officers corrected, as a ``text,labels`` training file."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export-training",
        help="write the corrected complaints of a complaint log as a text,labels training file",
        description="Write every complaint whose labels an officer corrected (never the model's own guesses) as "
        "a text,labels CSV, labels joined by ';' as in data/complaints/*.csv; `mealwatch train --add FILE` "
        "folds it into the training data.",
    )
    p.add_argument(
        "--db",
        help="the complaint log: a SQLite file or a PostgreSQL URL (default: the one `mealwatch serve` uses without "
        "--db, $MEALWATCH_HOME/complaints.db)",
    )
    p.add_argument("--out", type=Path, required=True, help="the CSV file to write (replaced atomically)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError
    from mealwatch.learning.corrections import corrected_complaints, write_training_file
    from mealwatch.log import redact
    from mealwatch.runs import default_log_path

    args.db = args.db or str(default_log_path())
    if "://" not in args.db and not Path(args.db).is_file():
        raise UserError(f"--db {args.db}: no such file; pass the complaint log `mealwatch serve --db` uses")
    if args.out.suffix.lower() != ".csv":
        raise UserError(f"--out {args.out}: expected a .csv file name")
    corrected = corrected_complaints(args.db)
    if not corrected:
        raise UserError(f"{redact(args.db)} holds no corrected complaints: correct labels on the page first")
    write_training_file(corrected, args.out)
    print(f"wrote {len(corrected)} corrected complaints to {args.out}")
    return 0
