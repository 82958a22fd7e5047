"""`knapp verify`: show that a stored match or an exported dispute bundle is unaltered."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.errors import KnappError


def register(sub: Any) -> None:
    """Add the `verify` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "verify",
        help="check the hash chains of a store's matches and game rooms, or an exported "
             "dispute bundle",
        description="PATH is an event store (SQLite file): every match's and every game "
                    "room's hash chain is recomputed (or only --match's or --room's); with "
                    "--evidence DIR each photo-finish bundle the log names is checked "
                    "against its recorded SHA-256. PATH may "
                    "also be an exported dispute bundle directory: its table signature "
                    "(record count and head hash) is checked and the signing key's "
                    "fingerprint printed, to compare with the table's (review page).")
    p.add_argument("path", help="event store file or dispute bundle directory")
    p.add_argument("--match", help="only this match id")
    p.add_argument("--room", help="only this game room id")
    p.add_argument("--evidence", help="directory holding the photo-finish bundles")
    p.add_argument("--table-key", metavar="FINGERPRINT",
                   help="require a dispute bundle signed by this table key (SHA256:...)")
    p.set_defaults(func=_verify)


def _verify(args: argparse.Namespace) -> int:
    from controller.evidence.disputes import verify_dispute
    from controller.store import EventStore

    path = Path(args.path)
    if path.is_dir():
        try:
            for line in verify_dispute(path, table_key=args.table_key):
                print(f"ok: {line}")
        except KnappError as exc:
            print(f"ALTERED: {exc}", file=sys.stderr)
            return 1
        return 0
    if not path.is_file():
        print(f"knapp verify: {path}: no such file or directory", file=sys.stderr)
        return 2
    status = 0
    with EventStore(path, durable=False) as store:
        ids = [args.match] if args.match else [] if args.room else [m.id for m in store.matches()]
        for mid in ids:
            try:
                head = store.verify(mid)
            except KnappError as exc:
                print(f"ALTERED: {exc}", file=sys.stderr)
                status = 1
                continue
            records = store.records(mid)
            print(f"ok: match {mid}: {len(records)} records, hash chain intact, "
                  f"head {head[:16]}")
            if args.evidence:
                status |= _check_evidence(Path(args.evidence), records)
    if not args.match:
        status |= _verify_rooms(path, args.room)
    return status


def _verify_rooms(path: Path, only: str | None) -> int:
    """Recompute the game rooms' hash chains (they live in the same file as the matches)."""
    from controller.rooms.persist import RoomStore

    status = 0
    store = RoomStore(path, durable=False)
    try:
        ids = [only] if only else [r.id for r in store.rooms()]
        for rid in ids:
            try:
                head = store.verify(rid)
            except KnappError as exc:
                print(f"ALTERED: {exc}", file=sys.stderr)
                status = 1
                continue
            print(f"ok: room {rid}: {len(store.records(rid))} records, hash chain intact, "
                  f"head {head[:16]}")
    finally:
        store.close()
    return status


def _check_evidence(root: Path, records: list[Any]) -> int:
    from controller.evidence.bundles import verify_bundle
    from controller.evidence.disputes import logged_evidence

    status = 0
    for digest, ref in logged_evidence(records).items():
        where = root / ref
        try:
            actual = verify_bundle(where)
        except KnappError as exc:
            print(f"ALTERED: {exc}", file=sys.stderr)
            status = 1
            continue
        if actual != digest:
            print(f"ALTERED: {where}: bundle hash {actual[:16]} differs from the log's "
                  f"{digest[:16]}", file=sys.stderr)
            status = 1
        else:
            print(f"ok: bundle {ref}: hash {digest[:16]} matches the log")
    return status
