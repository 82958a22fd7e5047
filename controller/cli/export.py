"""`knapp export`: write a match, or one disputed round, as a bundle `knapp verify` checks."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.config import default_config, load_config
from controller.errors import KnappError


def register(sub: Any) -> None:
    """Add the `export` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "export", help="export a match or a disputed round for checking anywhere",
        description="Write the match's hash-chained event records and its photo-finish "
                    "bundles (all, or one round's) into OUT, signed with the table's key "
                    "(record count and head hash); `knapp verify OUT` checks it.")
    p.add_argument("match_id", help="the match (see the review page or `knapp export --list`)",
                   nargs="?")
    p.add_argument("out", nargs="?", help="directory to write")
    p.add_argument("--round", type=card_number, metavar="CARD",
                   help="only this card's evidence: its number as the pages show it "
                        "(Card 1 is the first card dealt)")
    p.add_argument("--config", metavar="FILE",
                   help="table configuration file (TOML): its [kiosk] data_dir")
    p.add_argument("--data-dir", help="the service's data directory (default: the "
                                      "configuration's, else per-user)")
    p.add_argument("--list", action="store_true", help="list the stored matches")
    p.set_defaults(func=run)


def card_number(text: str) -> int:
    """argparse type of `--round`: a card number as people see it, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a card number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"cards are numbered from 1 (Card 1 is the first "
                                         f"dealt), got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Export, or list the matches."""
    from controller.store import EventStore

    if args.data_dir:
        data = Path(args.data_dir)
    else:  # a bad --config raises ConfigError: main() prints it as one line
        data = (load_config(args.config) if args.config else default_config()).kiosk.data_path
    db = data / "knapp.db"
    if not db.is_file():
        print(f"knapp export: no event store at {db}", file=sys.stderr)
        return 2
    with EventStore(db) as store:
        if args.list or not args.match_id:
            for m in store.matches():
                print(f"{m.id}  {m.created_utc}  {m.events:4d} events  {m.label}")
            return 0
        if not args.out:
            print("knapp export: say where to write the bundle (OUT)", file=sys.stderr)
            return 2
        if not store.has_match(args.match_id):
            print(f"knapp export: no match {args.match_id!r}", file=sys.stderr)
            return 2
        records = store.records(args.match_id)
        dealt = sum(r.kind == "revealed" for r in records)
        if args.round is not None and args.round > dealt:
            cards = f"cards 1 to {dealt}" if dealt else "no card was dealt yet"
            print(f"knapp export: --round {args.round}: match {args.match_id} has no card "
                  f"{args.round} ({cards})", file=sys.stderr)
            return 2
        bundles = []
        for r in records:
            if r.kind != "evidenced":
                continue
            body = json.loads(r.body)
            # The log counts rounds from 0; people (and --round) count cards from 1.
            if args.round is not None and body.get("round") != args.round - 1:
                continue
            ref = data / "evidence" / str(body.get("ref", ""))
            if ref.is_dir():
                bundles.append(ref)
            else:
                print(f"knapp export: evidence {ref.name} is no longer kept "
                      "(retention); exporting the log without it", file=sys.stderr)
        try:
            from controller.evidence.disputes import export_dispute
            from controller.evidence.signing import TableKey

            key = TableKey.load(data)
            out = export_dispute(store, args.match_id, bundles, args.out, key=key)
        except KnappError as exc:
            print(f"knapp export: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"knapp export: cannot write {args.out}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 1
    print(f"wrote {out} ({len(bundles)} evidence bundle(s)), signed by table key "
          f"{key.fingerprint}; check it with: knapp verify {out}")
    return 0
