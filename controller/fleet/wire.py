"""What travels over the broker: topics, the record message, and how a record is checked.

One MQTT message carries one stored record with its place in its chain
(`stream`, `seq`, `prev`, `hash`, and the body the hash covers) and its
place in the table's outbox (`source`, `pos`, and `after`, the position the
table published before it from the same source). The café checks the chain
(`check_link`) before a record counts, and the outbox positions tell it
whether it has everything the table sent, in order, so it can confirm up to
there (`Acks`).

Every record is signed with the table's Ed25519 key (`signed_bytes`: every
field but the table's clock stamp `sent`), so the café can tell the table's
own records from records forged by someone who only has its broker
password (docs/fleet.md, "Trust"). A record whose stream still hides
something travels sealed (`controller.fleet.seal`): its body without the
hidden fields, its hash still over the full body.

Streams: ``match/<id>`` (a match's events, `controller.store`),
``room/<id>`` (a game room's records, `controller.rooms.persist`) and
``health`` (the table's health changes, kept by the fleet itself). Each
starts from its own genesis hash, so a record cannot be moved to another
stream or another table's health without breaking its chain.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, replace
from typing import Any, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.fleet.seal import SEALED_KEY, hides
from controller.rooms.persist import room_genesis
from controller.store import canonical_json, chain_hash, genesis_hash

PROTOCOL = 2  # 2: signed records, sealed bodies, the reveals source
SIGNED_FORMAT = "knapp-fleet-record/2"
ROOT = "knapp"
CAFE_STATUS_TOPIC = f"{ROOT}/cafe/status"
RECORDS_SUBSCRIPTION = f"{ROOT}/tables/+/records"
STATUS_SUBSCRIPTION = f"{ROOT}/tables/+/status"
# The outbox's sources: the table's two logs, its health, and the full copies of sealed
# records published once their stream is over.
SOURCES = ("events", "room_events", "health", "reveals")
EPOCH_RE = re.compile(r"[0-9a-f]{8,32}")
MAX_BODY = 256 * 1024
# A table says it is online (retained) this often; the café calls a table silent after
# three missed beats (a Will can be lost with a broker that crashed).
HEARTBEAT_S = 30.0
SILENT_AFTER_S = 3 * HEARTBEAT_S  # a record body bigger than this is no record the table writes


def records_topic(table: str) -> str:
    """Where a table publishes its records."""
    return f"{ROOT}/tables/{table}/records"


def status_topic(table: str) -> str:
    """A table's retained online/offline status (its Last Will says offline)."""
    return f"{ROOT}/tables/{table}/status"


def acks_topic(table: str) -> str:
    """Where the café confirms, retained, how far it holds a table's outbox."""
    return f"{ROOT}/cafe/acks/{table}"


def table_of(topic: str) -> str | None:
    """The table id in a table topic (`knapp/tables/<id>/...`), or None."""
    parts = topic.split("/")
    if len(parts) == 4 and parts[0] == ROOT and parts[1] == "tables" and parts[2]:
        return parts[2]
    return None


def health_genesis(table: str) -> str:
    """The 'previous hash' of a table's first health record."""
    return hashlib.sha256(f"knapp-health:{table}".encode()).hexdigest()


def stream_genesis(table: str, stream: str) -> str | None:
    """The genesis hash of `stream` of `table`, or None for a stream name that is none."""
    kind, _, ident = stream.partition("/")
    if kind == "match" and ident:
        return genesis_hash(ident)
    if kind == "room" and ident:
        return room_genesis(ident)
    if stream == "health":
        return health_genesis(table)
    return None


class BadMessage(ValueError):
    """A message that is no record (its reason says what is wrong)."""


class RecordSigner(Protocol):
    """The table's key as the fleet uses it (`controller.evidence.signing.TableKey`)."""

    @property
    def public_raw(self) -> bytes:
        """The raw 32-byte Ed25519 public key."""

    def sign_bytes(self, data: bytes) -> bytes:
        """An Ed25519 signature over `data`."""


def key_fingerprint(public_raw: bytes) -> str:
    """A key's fingerprint, ``SHA256:`` and unpadded base64, as `knapp verify` prints it.

    The same form as `controller.evidence.signing.fingerprint` (a test holds the
    two equal); the import contract keeps the fleet off the evidence package.
    """
    digest = base64.b64encode(hashlib.sha256(public_raw).digest()).decode().rstrip("=")
    return f"SHA256:{digest}"


_KEYS: dict[bytes, Ed25519PublicKey] = {}


@dataclass(frozen=True, slots=True)
class WireRecord:
    """One record as published: its chain position and its outbox position.

    Args:
        table: the table id.
        epoch: the table's outbox identity (new when its database was replaced).
        source: the outbox source it was read from (`events`, `room_events`, `health`).
        pos: its position there (the SQLite rowid).
        after: the position the table published before it from that source (0: none).
        stream: ``match/<id>``, ``room/<id>`` or ``health``.
        seq: its index in the stream (0 first).
        kind: the record's kind (`started`, `grabbed`, `created`, `health`, ...).
        body: the canonical JSON the hash covers.
        prev: the hash of the record before it in the stream (the genesis for seq 0).
        hash: ``sha256(prev + "\\n" + body)``.
        sent: the table's wall clock when it published (seconds; only to flag a bad clock).
        sealed: `body` is the sealed body (hidden fields out); `hash` is over the full one.
        key: the table's public key (raw, base64).
        sig: the table's Ed25519 signature over `signed_bytes()` (base64).
    """

    table: str
    epoch: str
    source: str
    pos: int
    after: int
    stream: str
    seq: int
    kind: str
    body: str
    prev: str
    hash: str
    sent: float
    sealed: bool = False
    key: str = ""
    sig: str = ""

    def signed_bytes(self) -> bytes:
        """What the table's signature covers: every field but `sent`, `key` and `sig`."""
        return canonical_json({"format": SIGNED_FORMAT, "table": self.table,
                               "epoch": self.epoch, "source": self.source, "pos": self.pos,
                               "after": self.after, "stream": self.stream, "seq": self.seq,
                               "kind": self.kind, "body": self.body, "prev": self.prev,
                               "hash": self.hash, "sealed": self.sealed}).encode()

    def signed_by(self, signer: RecordSigner) -> WireRecord:
        """This record with the table's key and signature."""
        return replace(self, key=base64.b64encode(signer.public_raw).decode(),
                       sig=base64.b64encode(signer.sign_bytes(self.signed_bytes())).decode())

    def public_key(self) -> bytes:
        """The raw public key the record names (b"" when it is no key)."""
        try:
            raw = base64.b64decode(self.key, validate=True)
        except (binascii.Error, ValueError):
            return b""
        return raw if len(raw) == 32 else b""

    def signature_holds(self, public_raw: bytes) -> bool:
        """True when `sig` is `public_raw`'s signature over this record."""
        try:
            signature = base64.b64decode(self.sig, validate=True)
            key = _KEYS.get(public_raw)
            if key is None:
                key = Ed25519PublicKey.from_public_bytes(public_raw)
                if len(_KEYS) < 4096:  # one per table; a bound against a flood of keys
                    _KEYS[public_raw] = key
            key.verify(signature, self.signed_bytes())
        except (binascii.Error, ValueError, InvalidSignature):
            return False
        return True

    def encode(self) -> bytes:
        """The message payload."""
        return canonical_json({"v": PROTOCOL, "table": self.table, "epoch": self.epoch,
                               "source": self.source,
                               "pos": self.pos, "after": self.after, "stream": self.stream,
                               "seq": self.seq, "kind": self.kind, "body": self.body,
                               "prev": self.prev, "hash": self.hash,
                               "sent": self.sent, "sealed": self.sealed, "key": self.key,
                               "sig": self.sig}).encode()

    @classmethod
    def decode(cls, payload: bytes, topic_table: str) -> WireRecord:
        """Read a payload published under `topic_table`'s topic.

        Raises:
            BadMessage: not a record, or a record that claims another table.
        """
        try:
            data = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadMessage(f"not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise BadMessage("not a JSON object")
        if data.get("v") != PROTOCOL:
            raise BadMessage(f"protocol {data.get('v')!r}, this café reads {PROTOCOL}")
        want: dict[str, type | tuple[type, ...]] = {
            "table": str, "epoch": str, "source": str, "pos": int, "after": int,
            "stream": str, "seq": int, "kind": str, "body": str, "prev": str, "hash": str,
            "sent": (int, float), "sealed": bool, "key": str, "sig": str}
        for key, kind in want.items():
            value = data.get(key)
            if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
                raise BadMessage(f"field {key!r} is missing or of the wrong type")
        if data["table"] != topic_table:
            raise BadMessage(f"published under table {topic_table!r} but claims "
                             f"table {data['table']!r}")
        if not EPOCH_RE.fullmatch(data["epoch"]):
            raise BadMessage(f"bad outbox epoch {data['epoch']!r}")
        if data["source"] not in SOURCES:
            raise BadMessage(f"unknown source {data['source']!r}")
        if data["seq"] < 0 or data["pos"] < 1 or not 0 <= data["after"] < data["pos"]:
            raise BadMessage("impossible positions (seq, pos, after)")
        if any("\x00" in data[k] for k in want if isinstance(data[k], str)):
            raise BadMessage("a NUL character (JSON escapes it; no table sends one)")
        if len(data["body"]) > MAX_BODY:
            raise BadMessage(f"a body of {len(data['body'])} characters")
        return cls(**{k: data[k] for k in want})


def check_link(rec: WireRecord, before: str | None) -> str | None:
    """Why `rec` cannot follow `before` in its stream (None: it follows).

    Args:
        rec: the record.
        before: the hash of the stream's record `rec.seq - 1` as already counted
            (ignored for `seq` 0, which must follow the stream's genesis).
    """
    genesis = stream_genesis(rec.table, rec.stream)
    if genesis is None:
        return f"{rec.stream!r} is no stream name"
    if rec.sealed and not hides(rec.stream, rec.kind):
        return f"{rec.stream} record {rec.seq}: a {rec.kind!r} record hides nothing to seal"
    # A sealed body is not what the hash covers; its place in the chain still is, and the
    # full record, published when the stream is over, must give the same hash.
    if not rec.sealed and chain_hash(rec.prev, rec.body) != rec.hash:
        return (f"{rec.stream} record {rec.seq} was altered (its hash does not match "
                "its content)")
    expected = genesis if rec.seq == 0 else before
    if rec.prev != expected:
        return (f"{rec.stream} record {rec.seq} does not follow record {rec.seq - 1} "
                "(chain broken)")
    try:
        body = json.loads(rec.body)
    except json.JSONDecodeError:
        return f"{rec.stream} record {rec.seq}: the body is not JSON"
    if not isinstance(body, dict) or body.get("kind") != rec.kind:
        return f"{rec.stream} record {rec.seq}: the body's kind is not {rec.kind!r}"
    if rec.sealed != (SEALED_KEY in body):
        return f"{rec.stream} record {rec.seq}: sealed and the body disagree"
    if canonical_json(body) != rec.body:
        return f"{rec.stream} record {rec.seq}: the body is not in canonical form"
    return None


class Acks:
    """How far the café holds each source of one table's outbox, in order.

    A record confirms its position only when the café already holds the one
    the table published before it (`after`); positions that arrive early wait
    here until the gap before them fills. The table publishes again from the
    confirmed position, so a position lost anywhere is sent again.

    Args:
        epoch: the table's outbox identity these positions belong to.
        upto: the confirmed position per source (from the café's database).
    """

    def __init__(self, epoch: str, upto: dict[str, int] | None = None) -> None:
        self.epoch = epoch
        self.upto: dict[str, int] = dict.fromkeys(SOURCES, 0) | (upto or {})
        self._early: dict[str, dict[int, int]] = {s: {} for s in SOURCES}

    def add(self, source: str, pos: int, after: int) -> bool:
        """Note that the café holds `pos`; True when the confirmed position moved."""
        have = self.upto[source]
        if pos <= have:
            return False
        if after > have:
            self._early[source][after] = max(pos, self._early[source].get(after, 0))
            return False
        moved = pos  # `after` at or below what is held: it follows on
        early = self._early[source]
        while moved in early:
            moved = early.pop(moved)
        for a in [a for a in early if a < moved]:
            del early[a]
        self.upto[source] = moved
        return True

    def copy(self) -> Acks:
        """An independent copy (a batch works on one and keeps it only if it commits)."""
        out = Acks(self.epoch, dict(self.upto))
        out._early = {s: dict(e) for s, e in self._early.items()}
        return out

    def waiting(self) -> int:
        """Positions held that wait for a gap before them."""
        return sum(len(e) for e in self._early.values())

    def to_json(self) -> dict[str, Any]:
        """The confirmation the café publishes."""
        return {"v": PROTOCOL, "epoch": self.epoch, "upto": dict(self.upto)}
