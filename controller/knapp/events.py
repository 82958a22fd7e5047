"""The events of one match: the only input to the match referee.

Each event is a small frozen value with a JSON form. A match's state is derived
only by replaying its events in order (`Match.replay`); corrections are new
events, never edits of old ones.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from controller.errors import IllegalEvent


class Variant(enum.Enum):
    """Rule variants from the rule book."""

    STANDARD = "standard"
    UNRULY = "unruly"  # a wrong grab also returns one won card to the box


class TieRule(enum.Enum):
    """How the table settles two correct claims too close to call."""

    REDEAL = "redeal"  # the card goes back on top of the pile and is shown again
    BOX = "box"  # nobody gets the card
    EARLIER = "earlier"  # the earlier timestamp wins anyway, flagged as too close


class RevealMeasure(enum.IntEnum):
    """How well a reveal time was measured; a higher value is a better measure."""

    SHOWN = 0  # the service sent the card to the display
    PAINT = 1  # the display reported the frame it painted the card in
    PHOTON = 2  # a light sensor on the display saw the card appear

    @property
    def label(self) -> str:
        """Lower-case name for JSON and screens."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> RevealMeasure:
        """Parse 'shown', 'paint' or 'photon'."""
        try:
            return cls[text.upper()]
        except KeyError:
            raise IllegalEvent(f"unknown reveal measure {text!r} "
                               "(expected shown, paint or photon)") from None


@dataclass(frozen=True, slots=True)
class MatchRules:
    """The rules a match is played by; recorded in its first event.

    Args:
        variant: standard or unruly.
        target: cards to win; 0 plays until the deck is used up (most cards wins).
        anticipation_ns: grabs sooner than this after the reveal are flagged.
        anticipation_is_wrong: count a flagged grab as a wrong grab.
        tie_min_ns: the smallest tie band, whatever the sensors claim.
        tie_rule: how a too-close-to-call pair of claims is settled.
        collection_window_ns: how long after the first correct claim others count.
        card_timeout_ns: a card nobody takes goes to the box after this.
    """

    variant: Variant = Variant.STANDARD
    target: int = 5
    anticipation_ns: int = 250_000_000
    anticipation_is_wrong: bool = False
    tie_min_ns: int = 2_000_000
    tie_rule: TieRule = TieRule.REDEAL
    collection_window_ns: int = 300_000_000
    card_timeout_ns: int = 10_000_000_000

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        d = asdict(self)
        d["variant"] = self.variant.value
        d["tie_rule"] = self.tie_rule.value
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchRules:
        """Parse the JSON form."""
        d = dict(data)
        d["variant"] = Variant(d["variant"])
        d["tie_rule"] = TieRule(d["tie_rule"])
        return cls(**d)


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all match events."""

    kind: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        """JSON form with a `kind` key."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, MatchRules):
                value = value.to_json()
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class Started(Event):
    """A match begins: who plays, by which rules, with which deck order."""

    kind: ClassVar[str] = "started"
    seats: tuple[str, ...]
    rules: MatchRules
    deck: tuple[str, ...]
    first_turner: int = 0
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class Revealed(Event):
    """The top card of the pile was shown at `t_ns` (measured as `measure`)."""

    kind: ClassVar[str] = "revealed"
    card: str
    t_ns: int
    uncertainty_ns: int = 0
    measure: str = "shown"


@dataclass(frozen=True, slots=True)
class RevealTimed(Event):
    """A better measure of when round `round` became visible."""

    kind: ClassVar[str] = "reveal_timed"
    round: int
    t_ns: int
    uncertainty_ns: int = 0
    measure: str = "paint"


@dataclass(frozen=True, slots=True)
class Grabbed(Event):
    """Seat `seat` took `figure` at `t_ns` (± `uncertainty_ns`), as told by `source`.

    `t_ns` is the measured time. A table handicap (e.g. adults against
    children) is its own field, `handicap_ns`, added only when claims are ranked,
    so the log keeps what the sensors measured.
    """

    kind: ClassVar[str] = "grabbed"
    seat: str
    figure: str
    t_ns: int
    uncertainty_ns: int = 0
    source: str = "sim"
    handicap_ns: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON form; `handicap_ns` only when there is one, so plain grabs read as before."""
        out = Event.to_json(self)
        if not self.handicap_ns:
            del out["handicap_ns"]
        return out


@dataclass(frozen=True, slots=True)
class Settled(Event):
    """Time reached `t_ns`: the collection window or the card timeout ran out."""

    kind: ClassVar[str] = "settled"
    t_ns: int


@dataclass(frozen=True, slots=True)
class FiguresHome(Event):
    """Every figure stands on its pad again at `t_ns`."""

    kind: ClassVar[str] = "figures_home"
    t_ns: int


@dataclass(frozen=True, slots=True)
class Undone(Event):
    """Referee correction: take back the last verdict; the card is dealt again.

    `round` names the round whose verdict is taken back; it must be the last
    verdict's (logs from before it was recorded have None).
    """

    kind: ClassVar[str] = "undone"
    reason: str
    round: int | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form; `round` only when named, so older undo records read as before."""
        out = Event.to_json(self)
        if self.round is None:
            del out["round"]
        return out


@dataclass(frozen=True, slots=True)
class Awarded(Event):
    """Referee correction: round `round`'s card goes to `seat`."""

    kind: ClassVar[str] = "awarded"
    round: int
    seat: str
    reason: str


@dataclass(frozen=True, slots=True)
class Voided(Event):
    """Referee correction: round `round` does not count; its card goes to the box."""

    kind: ClassVar[str] = "voided"
    round: int
    reason: str


@dataclass(frozen=True, slots=True)
class Evidenced(Event):
    """Evidence for round `round` was saved: its SHA-256 enters the hash-chained log.

    Args:
        round: the round the evidence belongs to.
        sha256: hex digest of the evidence file or bundle.
        name: what it is ("photo-finish", "pad-trace", ...), for screens.
        ref: where it is kept, relative to the evidence directory.
    """

    kind: ClassVar[str] = "evidenced"
    round: int
    sha256: str
    name: str
    ref: str = ""


@dataclass(frozen=True, slots=True)
class Abandoned(Event):
    """The table stopped the match before anyone won; it is kept, never resumed."""

    kind: ClassVar[str] = "abandoned"
    reason: str


@dataclass(frozen=True, slots=True)
class Booted(Event):
    """The table came back on a new boot: its clock started again, and reads `t_ns` now.

    CLOCK_MONOTONIC restarts near zero at every boot, so times are compared
    only within a boot: later events are ordered after this one, not after
    the times before it. A card that was open is interrupted and dealt again.

    Args:
        boot: the new boot's id (Linux `boot_id`; '' where unknown).
        t_ns: the new boot's clock when the table resumed the match.
    """

    kind: ClassVar[str] = "booted"
    boot: str
    t_ns: int


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (Started, Revealed, RevealTimed, Grabbed, Settled, FiguresHome,
                Undone, Awarded, Voided, Evidenced, Abandoned, Booted)
}


def event_from_json(data: dict[str, Any]) -> Event:
    """Rebuild an event from its JSON form; raise `IllegalEvent` naming what is wrong."""
    if not isinstance(data, dict):
        raise IllegalEvent(f"an event is a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise IllegalEvent(f"unknown event kind {kind!r}")
    names = {f.name: f for f in fields(cls)}
    args = {k: v for k, v in data.items() if k != "kind"}
    unknown = set(args) - set(names)
    if unknown:
        raise IllegalEvent(f"{kind}: unknown field(s) {sorted(unknown)}")
    try:
        if cls is Started:
            args["seats"] = tuple(args["seats"])
            args["deck"] = tuple(args["deck"])
            args["rules"] = MatchRules.from_json(args["rules"])
        event = cls(**args)
    except (TypeError, KeyError, ValueError) as exc:
        raise IllegalEvent(f"{kind}: bad fields: {exc}") from exc
    for name, f in names.items():
        value = getattr(event, name)
        if f.type == "int" and (not isinstance(value, int) or isinstance(value, bool)):
            raise IllegalEvent(f"{kind}.{name} must be an integer, got {value!r}")
        if f.type == "str" and not isinstance(value, str):
            raise IllegalEvent(f"{kind}.{name} must be a string, got {value!r}")
    return event
