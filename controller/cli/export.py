"""`knapp export`: write a match, or one disputed round, as a bundle `knapp verify` checks."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

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
    p.add_argument("--round", type=int, help="only this round's evidence (0-based)")
    p.add_argument("--data-dir", help="the service's data directory (default: per-user)")
    p.add_argument("--list", action="store_true", help="list the stored matches")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export, or list the matches."""
    from controller.kiosk import default_data_dir
    from controller.store import EventStore

    data = Path(args.data_dir) if args.data_dir else default_data_dir()
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
        bundles = []
        for r in store.records(args.match_id):
            if r.kind != "evidenced":
                continue
            body = json.loads(r.body)
            if args.round is not None and body.get("round") != args.round:
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
