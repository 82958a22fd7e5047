"""`knapp config check FILE`: validate a table configuration file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.config import load_config
from controller.errors import ConfigError


def register(sub: Any) -> None:
    """Add the `config` command."""
    p: argparse.ArgumentParser = sub.add_parser("config", help="table configuration files")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION")
    csub.required = True
    check = csub.add_parser("check", help="validate a table configuration file")
    check.add_argument("file", nargs="+", help="TOML file(s) to check")
    check.set_defaults(func=_check)


def _check(args: argparse.Namespace) -> int:
    status = 0
    for path in args.file:
        try:
            cfg = load_config(path)
        except ConfigError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
            continue
        rules = cfg.rules
        target = f"first to {rules.target} cards" if rules.target else "until the deck is used up"
        print(f"{path}: ok: table {cfg.name!r}, {len(cfg.seats)} seats "
              f"({', '.join(cfg.seats)}), {rules.variant.value} rules, {target}")
    return status
