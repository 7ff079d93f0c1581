"""The ``mealwatch`` command: argument parsing only; each sub-command lives in its own module.

A command module defines ``register(subparsers)``, which adds its parser and sets
``func`` to a function taking the parsed arguments and returning an exit code. Modules
import heavy libraries (torch) inside that function, so ``mealwatch --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

#: sub-command modules, in the order ``--help`` lists them
COMMANDS = ["embed", "import_encoder", "train", "evaluate", "predict", "compare", "attention", "explain", "serve",
            "export", "export_training", "users", "tokens", "search"]  # fmt: skip

#: ``--precision`` values (mealwatch.inference.PRECISION_CHOICES, kept here so ``--help`` does not import torch)
PRECISION_CHOICES = ("auto", "fp32", "bf16", "int8")


class UserError(Exception):
    """A mistake in the user's input; printed as one clear line, without a stack trace."""


def texts_from_args(args: argparse.Namespace) -> list[str]:
    """The texts of a command that takes ``TEXT...`` or ``--input FILE`` (with ``--text-column``), checked.

    Exactly one of the two must be given; an empty TEXT argument is an error, and a file's
    errors (``mealwatch.textfile.read_texts``) name its line.
    """
    if bool(args.texts) == bool(args.input):
        raise UserError("give either TEXT arguments or --input FILE (not both, not neither)")
    if args.texts:
        for i, text in enumerate(args.texts, start=1):
            if not text.strip():
                raise UserError(f"TEXT argument {i} is empty")
        return list(args.texts)
    from mealwatch.textfile import read_texts

    return read_texts(args.input, args.text_column)


def add_speed_arguments(p: argparse.ArgumentParser, auto: bool = True) -> None:
    """``--precision`` and ``--compile`` (and ``--validation`` for ``auto``) on a command that runs a model."""
    choices = PRECISION_CHOICES if auto else PRECISION_CHOICES[1:]
    p.add_argument(
        "--precision",
        choices=choices,
        default="fp32",
        help="numbers the encoder multiplies in: fp32 (default), bf16, int8 (per-channel weights), "
        + (
            "or auto: the fastest on this machine whose decisions agree with fp32's on the validation split "
            "(measured once, then stored)"
            if auto
            else ""
        ),  # fmt: skip
    )
    p.add_argument(
        "--compile",
        action="store_true",
        help="compile the encoder with torch.compile (slower start; falls back to eager with a warning if "
        "compiling fails; with --precision auto, used only if it pays)",
    )
    if auto:
        p.add_argument("--validation", type=Path, help="labelled file --precision auto checks decisions on "
                       "(default: the bundled validation split, for models with the complaint labels)")  # fmt: skip
    p.add_argument("--threads", type=int, help="CPU threads the model's arithmetic uses (default: every core; "
                   "on a server, fewer leave a core for answering requests)")  # fmt: skip


def checked_threads(threads: int | None) -> int | None:
    """``--threads`` as given (None: not given), or UserError when it is no usable thread count."""
    if threads is not None and not 1 <= threads <= 1024:
        raise UserError(f"--threads must be a whole number from 1 to the number of cores, not {threads}")
    return threads


def use_threads(threads: int | None) -> None:
    """Set torch's CPU threads to ``--threads`` (checked); None leaves torch's choice."""
    if checked_threads(threads) is not None:
        import torch

        torch.set_num_threads(threads)


def speed_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of ``Pipeline.load``/``from_folder`` for ``add_speed_arguments``'s flags; ``--threads``
    is applied to torch here (it is the process's, not the model's)."""
    use_threads(getattr(args, "threads", None))
    return {
        "precision": args.precision,
        "compile": args.compile,
        "validation": getattr(args, "validation", None),
        "log": lambda message: print(message, file=sys.stderr),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mealwatch", description="Sort school-meal complaints with a BERT encoder.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"mealwatch.cli.{name}").register(sub)
    return parser


def user_errors() -> tuple[type[BaseException], ...]:
    """The errors that describe the user's input or files (each names what is wrong); anything else is a bug
    and keeps its traceback."""
    from mealwatch.log import StoreError
    from mealwatch.rowfile import FileError  # data.DataError, textfile.TextFileError
    from mealwatch.runs import NoModelError
    from mealwatch.transformer import CheckpointError

    return (UserError, FileNotFoundError, FileError, CheckpointError, NoModelError, StoreError)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mealwatch`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except Exception as e:
        if not isinstance(e, user_errors()):
            raise
        print(f"mealwatch {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
