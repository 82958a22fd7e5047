"""What of a record is hidden while its match or room runs, and when it may be shown.

The product's rule: hidden information (a deck order, a hand) never reaches
another player's screen, log or replay. The café is no player, but its
database, its staff pages and anyone who can read its broker account are
further from the table than the table's own disk, so a record that holds
hidden information travels **sealed** while its stream runs: the hidden
fields are taken out (`seal`), the record keeps its `hash` (over the full
body) and `prev`, so the café still checks where it sits in the chain and
the table's signature over it. When the stream is over (a match ended or
abandoned, a room finished or closed) the table publishes the full record
again; the café checks that its hash is the sealed one's and that sealing
it gives the body it held (`is_sealing_of`), and keeps the full body from
then on.

Hidden per record kind:

- a match's ``started``: the deck order (``deck``) and the shuffle's seed
  (``seed``); the sealed body keeps the number of cards (``deck_size``);
- a room's ``created``: the chance ``seed`` (it deals every hand);
- a room's ``action``: the move itself (``action``; in some games a move is a
  card passed or discarded face down). Who moved, and when, stay visible.

The sealed hash is a commitment to the hidden part only as strong as that
part is hard to guess: a room's seed has 128 random bits and a shuffled deck
has more orders than can be tried; a table run with a fixed ``--seed`` (a
test bench) can be guessed.
"""

from __future__ import annotations

import json
from typing import Any

from controller.store import canonical_json

SEALED_KEY = "sealed"  # the sealed body lists the fields taken out under this key

# (stream kind, record kind) -> the fields hidden while the stream runs
HIDDEN: dict[tuple[str, str], tuple[str, ...]] = {
    ("match", "started"): ("deck", "seed"),
    ("room", "created"): ("seed",),
    ("room", "action"): ("action",),
}
ROOM_END_KINDS = frozenset({"finished", "closed"})


def stream_kind(stream: str) -> str:
    """``match``, ``room`` or ``health`` of a stream name."""
    return stream.partition("/")[0]


def hides(stream: str, kind: str) -> bool:
    """True when records of `kind` in `stream` hold hidden information."""
    return (stream_kind(stream), kind) in HIDDEN


def seal(stream: str, kind: str, body: str) -> str | None:
    """The sealed form of a record's canonical body (None: it hides nothing)."""
    fields = HIDDEN.get((stream_kind(stream), kind))
    if fields is None:
        return None
    data = json.loads(body)
    out: dict[str, Any] = {k: v for k, v in data.items() if k not in fields}
    if "deck" in fields and isinstance(data.get("deck"), list):
        out["deck_size"] = len(data["deck"])
    out[SEALED_KEY] = list(fields)
    return canonical_json(out)


def is_sealing_of(sealed_body: str, full_body: str, stream: str, kind: str) -> bool:
    """True when `sealed_body` is exactly what `seal` makes of `full_body`."""
    try:
        return seal(stream, kind, full_body) == sealed_body
    except (json.JSONDecodeError, AttributeError):
        return False
