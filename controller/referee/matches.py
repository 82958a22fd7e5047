"""A table's match lifecycle: resume the newest unfinished match, or deal a new one.

What the table itself must remember across a restart lives in the store's
`table_state`: the setup made on the page (players, target, variant) and
whether the live match is paused. The setup holds until the configuration
file's own seats, target or variant change (then the file wins).

Time across boots: events keep the raw CLOCK_MONOTONIC ns of the boot they
were measured in. A match resumed on a new boot (another Linux boot id, or a
clock that reads less than the match's last event) gets a `booted` event
first; an open card is interrupted and dealt again, and later times are
ordered after that event only. `boot_offsets` puts every event of a match on
one time line for the review (the time the table was off counts as nothing).
"""

from __future__ import annotations

import secrets
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.config import TableConfig, with_setup
from controller.errors import KnappError, StoreUnavailable
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import Booted, Event
from controller.knapp.match import Match, Phase, Round, Verdict
from controller.store import EventStore

SETUP_KEY = "setup"
PAUSED_KEY = "paused"


@dataclass
class Resumed:
    """A match the table takes up again, with what it remembered about it.

    Args:
        match_id: the match.
        match: the match, replayed (its `booted` event already applied, if logged).
        paused: the match was paused when the table stopped.
        boot: when the match is on an earlier boot: (this boot's id, its clock now);
            `booted` writes the event.
        verdicts: what the `booted` event decided (an interrupted card).
        notice: what the pages say about the restart.
    """

    match_id: str
    match: Match
    paused: bool = False
    boot: tuple[str, int] | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    notice: dict[str, Any] | None = None

    def booted(self) -> None:
        """Log the `booted` event, if one is due (again after a failed write).

        Raises:
            StoreUnavailable: the disk refused it; the match is unchanged.
        """
        if self.boot is None:
            return
        boot, now = self.boot
        interrupted = self.match.current
        self.verdicts = self.match.booted(boot, now)
        self.boot = None
        text = "the table restarted after a power cut or reboot"
        if interrupted is not None:
            text += f"; card {interrupted.index + 1} was open and is dealt again"
        self.notice = {"kind": "new-boot", "round": None if interrupted is None
                       else interrupted.index, "message": text}


def table_config(store: EventStore, config: TableConfig,
                 messages: MutableSequence[str]) -> TableConfig:
    """The configuration in force: the file's, with the page's setup when it still holds."""
    setup = store.table_state().get(SETUP_KEY)
    if not isinstance(setup, dict):
        return config
    if setup.get("base") != _base(config):
        messages.append("the configuration file changed since the last setup: using the file")
        return config
    try:
        return with_setup(config, list(setup["seats"]), int(setup["target"]),
                          str(setup["variant"]))
    except (KnappError, KeyError, TypeError, ValueError) as exc:
        messages.append(f"the stored setup is not usable ({exc}); using the file")
        return config


def remember_setup(store: EventStore, file_config: TableConfig, seats: Sequence[str],
                   target: int, variant: str) -> None:
    """Keep the page's setup across restarts, with the file settings it overrides."""
    store.set_table_state(SETUP_KEY, {"seats": list(seats), "target": target,
                                      "variant": variant, "base": _base(file_config)})


def _base(config: TableConfig) -> dict[str, Any]:
    return {"seats": list(config.seats), "target": config.rules.target,
            "variant": config.rules.variant.value}


def resume_match(store: EventStore, config: TableConfig, messages: MutableSequence[str], *,
                 boot: str, now_ns: int) -> Resumed | None:
    """The newest stored match, replayed, if it is unfinished and for these seats.

    Args:
        config: the configuration in force (`table_config`).
        boot: this boot's id ('' when unknown).
        now_ns: the clock now (this boot's CLOCK_MONOTONIC).
    """
    for info in store.matches():
        if info.events == 0:
            continue
        try:
            match = store.open_match(info.id)
        except KnappError as exc:
            messages.append(f"match {info.id} cannot be resumed: {exc}")
            continue
        if match.phase is Phase.ENDED or match.seats != config.seats:
            break  # only the newest match is a candidate for resuming
        messages.append(f"resumed match {info.id}")
        paused = store.table_state().get(PAUSED_KEY) == info.id
        resumed = Resumed(info.id, match, paused=paused)
        if _on_earlier_boot(store, info.id, match, boot, now_ns):
            resumed.boot = (boot, now_ns)
        return resumed
    return None


def _on_earlier_boot(store: EventStore, match_id: str, match: Match, boot: str,
                     now_ns: int) -> bool:
    """True when the match's times come from another boot than this one."""
    logged = store.match_boot(match_id)
    if boot and logged and boot != logged:
        return True
    # Without both ids, a clock behind the last event is the one sure sign.
    return match.last_t_ns is not None and now_ns < match.last_t_ns


def new_match(store: EventStore, config: TableConfig, seed: int | None, *,
              boot: str = "") -> tuple[str, Match]:
    """Deal and store a new match; its deck comes from `seed` (or OS entropy) and its number."""
    seed = seed if seed is not None else secrets.randbelow(2**31)
    index = len(store.matches())
    deck = shuffled_deck(f"{seed}:{index}")
    return store.new_match(config.seats, deck, rules=config.rules,
                           first_turner=config.first_turner, seed=seed, label=config.name,
                           boot=boot)


def remember_pause(store: EventStore, match_id: str, paused: bool,
                   messages: MutableSequence[str]) -> None:
    """Keep whether the live match is paused across restarts (a full disk only warns)."""
    try:
        store.set_table_state(PAUSED_KEY, match_id if paused else None)
    except StoreUnavailable as exc:
        messages.append(f"pause not remembered across a restart: {exc}")


def last_verdict(match: Match) -> Verdict | None:
    """The verdict the table showed last: the last round's, provisional while it is open."""
    if not match.rounds:
        return None
    rnd: Round = match.rounds[-1]
    if rnd.outcome is None:
        first = rnd.first_correct()
        if first is None:
            return None
        return Verdict(rnd.index, str(rnd.card), rnd.answer.value, None, first.seat, True,
                       None, first.uncertainty_ns, f"{first.seat} took the {rnd.answer.title}")
    return Verdict(rnd.index, str(rnd.card), rnd.answer.value, rnd.outcome.value, rnd.winner,
                   False, rnd.margin_ns, rnd.uncertainty_ns, rnd.reason)


def boot_offsets(events: Sequence[Event]) -> list[int]:
    """Per event, what to add to its `t_ns` to put it on the match's one time line.

    Within a boot the offset is constant, so differences stay exact; a
    `booted` event continues the line at the last time before it.
    """
    offsets = []
    offset = 0
    last = 0
    for ev in events:
        t = getattr(ev, "t_ns", None)
        if isinstance(ev, Booted):
            offset = last - ev.t_ns
        if isinstance(t, int):
            last = max(last, t + offset)
        offsets.append(offset)
    return offsets


def one_time_line(timeline: list[dict[str, Any]], events: Sequence[Event]) -> None:
    """Give a review timeline's `ms` on one time line when the match spans boots."""
    if not any(isinstance(ev, Booted) for ev in events):
        return
    offsets = boot_offsets(events)
    first = next((i for i, row in enumerate(timeline) if row.get("kind") == "revealed"), None)
    if first is None:
        return
    origin = timeline[first]["t_ns"] + offsets[first]
    for row, offset in zip(timeline, offsets, strict=True):
        if isinstance(row.get("t_ns"), int):
            row["ms"] = round((row["t_ns"] + offset - origin) / 1e6, 3)
