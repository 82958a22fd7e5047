"""A table's match lifecycle: resume the newest unfinished match, or deal a new one."""

from __future__ import annotations

import secrets
from collections.abc import MutableSequence

from controller.config import TableConfig
from controller.errors import KnappError
from controller.knapp.deck import shuffled_deck
from controller.knapp.match import Match, Phase
from controller.store import EventStore


def resume_match(store: EventStore, seats: tuple[str, ...],
                 messages: MutableSequence[str]) -> tuple[str, Match] | None:
    """The newest stored match, replayed, if it is unfinished and for these seats."""
    for info in store.matches():
        if info.events == 0:
            continue
        try:
            match = store.open_match(info.id)
        except KnappError as exc:
            messages.append(f"match {info.id} cannot be resumed: {exc}")
            continue
        if match.phase is not Phase.ENDED and match.seats == seats:
            messages.append(f"resumed match {info.id}")
            return info.id, match
        break  # only the newest match is a candidate for resuming
    return None


def new_match(store: EventStore, config: TableConfig, seed: int | None) -> tuple[str, Match]:
    """Deal and store a new match; its deck comes from `seed` (or OS entropy) and its number."""
    seed = seed if seed is not None else secrets.randbelow(2**31)
    index = len(store.matches())
    deck = shuffled_deck(f"{seed}:{index}")
    return store.new_match(config.seats, deck, rules=config.rules,
                           first_turner=config.first_turner, seed=seed, label=config.name)
