"""Dispute bundles: a match's hash-chained records plus its photo-finish bundles.

`export_dispute` writes a directory with `dispute.json`, the match's records
(`match.jsonl`) and copies of the round's photo-finish bundles;
`verify_dispute` checks the chain, every file against its manifest, and that
each bundle's hash is the one the log recorded, so the bundle can be checked
on any machine without the event store.

`dispute.json` also holds the record count and head hash, signed with the
table's key (`controller.evidence.signing`): a chain is still a chain when
records are cut from its end, the signature is not. An unsigned bundle
(format 1, from before) is refused: it cannot prove it is whole.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.errors import StoreError
from controller.evidence.bundles import EvidenceError, verify_bundle
from controller.evidence.signing import TableKey, check_signed
from controller.store import EventStore, Record, canonical_json, verify_records

DISPUTE_FORMAT = "knapp-dispute/2"
UNSIGNED_FORMAT = "knapp-dispute/1"


def export_dispute(store: EventStore, match_id: str, bundles: Sequence[str | Path],
                   directory: str | Path, *, key: TableKey) -> Path:
    """Write a dispute bundle: the match's chained records plus photo-finish bundles.

    Args:
        key: the table's key; it signs the match id, record count and head hash.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    records = store.records(match_id)
    head = verify_records(match_id, records)
    with (out / "match.jsonl").open("w", encoding="utf-8") as f:
        for r in records:
            f.write(canonical_json({"match_id": r.match_id, "seq": r.seq, "kind": r.kind,
                                    "body": r.body, "prev": r.prev, "hash": r.hash}) + "\n")
    names = []
    for b in bundles:
        src = Path(b)
        shutil.copytree(src, out / src.name, dirs_exist_ok=True)
        names.append(src.name)
    (out / "dispute.json").write_text(canonical_json(
        {"format": DISPUTE_FORMAT, "match_id": match_id, "bundles": names,
         "records": len(records), "head": head,
         "signed": key.sign(match_id, len(records), head)}), encoding="utf-8")
    return out


def read_records(path: Path) -> list[Record]:
    """Read the records of an exported `match.jsonl`, one JSON object a line.

    Raises:
        EvidenceError: naming the file, and the line that is not a record.
    """
    records = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvidenceError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    for n, line in enumerate(lines, 1):
        try:
            d: dict[str, Any] = json.loads(line)
            records.append(Record(str(d["match_id"]), int(d["seq"]), str(d["kind"]),
                                  str(d["body"]), str(d["prev"]), str(d["hash"])))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise EvidenceError(f"{path}: line {n} is not a record ({exc})") from exc
    return records


def logged_evidence(records: Sequence[Record]) -> dict[str, str]:
    """Return sha256 -> ref of every `evidenced` event in `records`."""
    out = {}
    for r in records:
        if r.kind == "evidenced":
            body = json.loads(r.body)
            out[str(body.get("sha256"))] = str(body.get("ref", ""))
    return out


def verify_dispute(directory: str | Path, *, table_key: str | None = None) -> list[str]:
    """Check a dispute bundle; return what was verified, one line each.

    Args:
        table_key: the fingerprint the signing key must have (`SHA256:...`), if known.

    Raises:
        EvidenceError, SigningError or StoreError: naming the first thing that does not hold.
    """
    d = Path(directory)
    try:
        meta = json.loads((d / "dispute.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EvidenceError(f"{d}: no readable dispute.json ({exc})") from exc
    if not isinstance(meta, dict):
        raise EvidenceError(f"{d}: not a dispute bundle")
    if meta.get("format") == UNSIGNED_FORMAT:
        raise EvidenceError(f"{d}: an unsigned export (format 1): its chain cannot show "
                            "that no records were cut from its end; export it again")
    if meta.get("format") != DISPUTE_FORMAT:
        raise EvidenceError(f"{d}: not a dispute bundle")
    match_id = str(meta["match_id"])
    records = read_records(d / "match.jsonl")
    if any(r.match_id != match_id for r in records):
        raise StoreError(f"{d}: match.jsonl mixes records of other matches")
    head = verify_records(match_id, records)
    signer = check_signed(meta.get("signed"), match_id, len(records), head)
    if table_key is not None and signer != table_key:
        raise EvidenceError(f"{d}: signed by table key {signer}, not by {table_key}")
    lines = [f"match {match_id}: {len(records)} records, hash chain intact, head {head[:16]}",
             f"signed by table key {signer}: all {len(records)} records, nothing cut "
             "from the end"]
    logged = logged_evidence(records)
    for name in meta.get("bundles", []):
        digest = verify_bundle(d / name)
        if digest not in logged:
            raise EvidenceError(f"{d / name}: its hash {digest[:16]} is not in the match log "
                                "(bundle replaced or from another match)")
        lines.append(f"bundle {name}: files intact, hash {digest[:16]} recorded in the log")
    return lines
