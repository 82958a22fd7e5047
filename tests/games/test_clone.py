"""`clone()` is a structural copy that is interchangeable with a JSON round trip.

Search bots clone on every step, so no game's clone goes through JSON; these
seeded playouts show, for every registered game under each of its option
variants, that at many points:

- a clone has the same `to_json()` as `from_json(to_json())`, looks the same to
  every seat, and plays on exactly like it (same events, same states);
- the clone shares nothing mutable with the original: after the clone has
  been played on and every list, dict and set reachable from it scribbled on,
  the original is unchanged in every attribute, not only in its JSON;
- playing the original on leaves an earlier clone unchanged.

Each game's own `clone` is checked, and so is the generic structural copy of
`GameState.clone` on the same states.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from controller.errors import IllegalAction
from controller.games import GAME_IDS, get_game
from controller.games.base import Game, GameState
from controller.rng import Rng

STEPS = 160  # steps per playout
EVERY = 6  # check at one step in this many
LOCKSTEP = 6  # steps a clone and a JSON copy are played side by side


def variants(game: Game) -> list[dict[str, Any]]:
    """Default options, then each non-default choice of each option on its own."""
    out: list[dict[str, Any]] = [{}]
    for name, opt in game.options_schema.items():
        choices = opt.choices
        if choices is None and isinstance(opt.default, bool):
            choices = (False, True)
        for choice in choices or ():
            if choice != opt.default or type(choice) is not type(opt.default):
                out.append({name: choice})
    return out


def as_json(state: GameState) -> Any:
    return json.loads(json.dumps(state.to_json()))


def views(state: GameState) -> Any:
    seats = range(state.num_seats)
    return json.loads(json.dumps({
        "actors": sorted(state.actors()), "terminal": state.is_terminal(),
        "returns": state.returns(),
        "observations": [state.observation(None)] + [state.observation(s) for s in seats],
        "legal": [[str(a) for a in state.legal_actions(s)] for s in seats],
    }))


def attributes(obj: object) -> list[tuple[str, Any]]:
    out = sorted(getattr(obj, "__dict__", {}).items())
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                out.append((name, getattr(obj, name)))
    return out


ATOMS = (int, float, bool, str, bytes, type(None))


def fingerprint(value: Any, active: set[int] | None = None) -> Any:
    """Everything reachable from `value`, as nested tuples (compares by content)."""
    active = set() if active is None else active
    if isinstance(value, ATOMS):
        return value
    if id(value) in active:
        return ("cycle",)
    active.add(id(value))
    try:
        if isinstance(value, list | tuple):
            return (type(value).__name__, tuple(fingerprint(v, active) for v in value))
        if isinstance(value, dict):
            return ("dict", tuple((repr(k), fingerprint(v, active)) for k, v in value.items()))
        if isinstance(value, set | frozenset):
            return ("set", tuple(sorted(repr(fingerprint(v, active)) for v in value)))
        if callable(value) or isinstance(value, type):
            return ("ref", repr(value))
        return (type(value).__qualname__,
                tuple((name, fingerprint(v, active)) for name, v in attributes(value)))
    finally:
        active.discard(id(value))


class Scribble:
    """A value no state holds; written into every container a clone can reach."""


def scribble(value: Any, seen: set[int]) -> None:
    """Append, insert or add a `Scribble` in every list, dict and set reachable from `value`."""
    if isinstance(value, ATOMS) or id(value) in seen or callable(value):
        return
    seen.add(id(value))
    if isinstance(value, list | tuple | set | frozenset):
        for v in list(value):
            scribble(v, seen)
    elif isinstance(value, dict):
        for v in list(value.values()):
            scribble(v, seen)
    else:
        for _name, v in attributes(value):
            scribble(v, seen)
    if isinstance(value, list):
        value.append(Scribble())
    elif isinstance(value, dict):
        value[Scribble()] = Scribble()
    elif isinstance(value, set):
        value.add(Scribble())


def step(state: GameState, rng: Rng) -> list[Any]:
    seat = rng.choice(sorted(state.actors()))
    action = rng.choice(state.legal_actions(seat))
    return [e.to_json() for e in state.apply(seat, action)]


Cloner = Callable[[GameState], GameState]
CLONERS: dict[str, Cloner] = {
    "own": lambda state: state.clone(),
    "generic": GameState.clone,  # the base class's copy, whatever the game overrides
}


def check_clone(game: Game, state: GameState, seed: int, where: str, cloner: Cloner) -> None:
    twin = game.state_from_json(as_json(state))
    clone = cloner(state)
    assert type(clone) is type(state), where
    assert as_json(clone) == as_json(twin), f"{where}: clone() differs from a JSON round trip"
    assert views(clone) == views(twin), f"{where}: clone() looks different from a JSON copy"
    original = fingerprint(attributes(state))
    original_json = as_json(state)
    rng_a, rng_b = Rng(seed).fork("lockstep"), Rng(seed).fork("lockstep")
    for k in range(LOCKSTEP):
        if clone.is_terminal():
            break
        assert step(clone, rng_a) == step(twin, rng_b), f"{where}: step {k} differs"
        assert as_json(clone) == as_json(twin), f"{where}: step {k} leaves different states"
    scribble(attributes(clone), set())
    assert fingerprint(attributes(state)) == original, f"{where}: the clone shares state"
    assert as_json(state) == original_json, where


@pytest.mark.parametrize("how", list(CLONERS))
@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_clone_equals_a_json_round_trip_and_shares_nothing(game_id: str, how: str) -> None:
    game = get_game(game_id)
    cloner = CLONERS[how]
    checks = 0
    for v, options in enumerate(variants(game)):
        seats = (game.min_seats, game.default_seats, game.max_seats)[v % 3]
        try:
            state = game.new_state(seats, game.resolve_options(options), Rng(v).fork("game"))
        except IllegalAction:
            continue  # an option that needs another table size
        rng = Rng(v).fork("playout")
        for t in range(STEPS):
            if state.is_terminal():
                break
            if t % EVERY == 0:
                check_clone(game, state, v * 1000 + t, f"{game_id} {options} step {t}", cloner)
                checks += 1
                # A clone taken now must not follow the original as it plays on.
                before = cloner(state)
                frozen = as_json(before)
                step(state, rng)
                assert as_json(before) == frozen, f"{game_id} step {t}: the original leaks"
                continue
            step(state, rng)
        check_clone(game, state, v, f"{game_id} {options} end", cloner)
        checks += 1
    assert checks >= 20
