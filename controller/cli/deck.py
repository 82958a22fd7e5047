"""`knapp deck`: the shuffled 60-card deck, its checks and its pictures."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.cli import seed_arg
from controller.errors import KnappError
from controller.knapp.deck import deck_problems, deck_stats, shuffled_deck
from controller.knapp.render import card_svg
from controller.progress import Progress


def register(sub: Any) -> None:
    """Add the `deck` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "deck", help="print, check or draw the shuffled deck",
        description="The 60-card deck in deal order for a seed.",
    )
    p.add_argument("--seed", type=seed_arg, default=0, help="shuffle seed (default 0)")
    p.add_argument("--json", action="store_true", help="print a JSON array of card texts")
    p.add_argument("--render", metavar="DIR", help="write one SVG per card into DIR")
    p.add_argument("--colour-blind", action="store_true",
                   help="add a distinct pattern per colour to the pictures")
    p.add_argument("--check", action="store_true",
                   help="verify every deck property; exit 1 naming the first failure")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print, check and/or render the deck."""
    cards = shuffled_deck(args.seed)
    if args.check:
        problems = deck_problems(cards)
        if problems:
            print(f"deck check failed: {problems[0]}", file=sys.stderr)
            return 1
        stats = deck_stats(cards)
        kinds = stats["kind"]
        print(f"deck ok: {len(cards)} cards, {kinds['true_colour']} true-colour and "
              f"{kinds['wrong_colour']} wrong-colour; every figure the answer 12 times",
              file=sys.stderr if args.json else sys.stdout)
    if args.render:
        out = Path(args.render)
        bar = Progress(len(cards), "rendering cards")
        try:
            out.mkdir(parents=True, exist_ok=True)
            for i, card in enumerate(cards):
                name = f"{i + 1:02d}_{str(card).replace(':', '_').replace('/', '_')}.svg"
                (out / name).write_text(card_svg(card, colour_blind=args.colour_blind),
                                        encoding="utf-8")
                bar.update(i + 1)
        except OSError as exc:
            raise KnappError(f"cannot write the card pictures into {out}: "
                             f"{exc.strerror or exc}") from None
        finally:
            bar.close()
        print(f"wrote {len(cards)} SVG files to {out}",
              file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps([str(c) for c in cards]))
    elif not args.check and not args.render:
        for i, card in enumerate(cards):
            print(f"{i + 1:2d} {card}")
    return 0
