"""`knapp solve [--json] CARD...`: the correct figure for each card."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.errors import InvalidCard, MalformedCard
from controller.knapp.cards import Card, solve


def register(sub: Any) -> None:
    """Add the `solve` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "solve", help="name the correct figure for cards",
        description="Print the correct figure for each card, or why it has none. "
                    "Cards are written FIGURE:PAINT/BG1+BG2, e.g. ship:yellow/red+green.",
    )
    p.add_argument("cards", nargs="+", metavar="CARD")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=run)


def solve_one(text: str) -> dict[str, Any]:
    """The `--json` object for one card text."""
    try:
        card = Card.parse(text)
    except MalformedCard as exc:
        return {"card": text, "answer": None, "explanation": None,
                "error": {"kind": "malformed", "reason": str(exc)}}
    try:
        sol = solve(card)
    except InvalidCard as exc:
        return {"card": str(card), "answer": None, "explanation": None,
                "error": {"kind": "ambiguous", "reason": str(exc)}}
    return {"card": str(card), "answer": sol.answer.value, "explanation": sol.explanation,
            "error": None}


def run(args: argparse.Namespace) -> int:
    """Solve every card; exit 1 when any is malformed or has no unique answer."""
    status = 0
    for text in args.cards:
        result = solve_one(text)
        if result["error"] is not None:
            status = 1
        if args.json:
            print(json.dumps(result, ensure_ascii=False))
        elif result["error"] is None:
            print(f"{result['card']}: {result['answer']}  ({result['explanation']})")
        else:
            err = result["error"]
            print(f"{result['card']}: {err['kind']}: {err['reason']}", file=sys.stderr)
    return status
