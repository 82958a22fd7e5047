"""The `knapp` command.

Each sub-command lives in its own module under `controller.cli` and exposes
`register(subparsers)`, which adds its parser and sets `func` to a function
taking the parsed arguments and returning the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from controller import __version__
from controller.errors import KnappError

# One entry per sub-command module, in the order `knapp --help` lists them.
COMMAND_MODULES = [
    "controller.cli.solve",
    "controller.cli.deck",
    "controller.cli.simulate",
    "controller.cli.config",
    "controller.cli.calibrate",
    "controller.cli.vision",
    "controller.cli.verify",
    "controller.cli.pads",
    "controller.cli.games",
    "controller.cli.serve",
    "controller.cli.export",
    "controller.cli.fleet",
]


def seed_arg(text: str) -> int:
    """argparse type of every `--seed`: a whole number, 0 or more (as in the table file)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """Return the full argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="knapp",
        description="Referee for the HABA reaction game Knapp daneben.",
    )
    parser.add_argument("--version", action="version", version=f"knapp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `knapp` command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except KnappError as exc:
        print(f"knapp {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
