"""Conformance and leak tests over every registered game (OpenSpiel's games_sim_test).

Seeded random playouts (random actor among those who may act, random legal
action) run each game under its default options (one whole game to the end,
then games cut at a step budget), at its fewest and most seats, and under
every non-default choice of each option (flags flipped), checking at every step:

- `actors()` is empty exactly when the game is over; every actor has legal
  actions and every other seat has none;
- `conservation()` (cards, chips, koobs), when the state offers it, never changes;
- an action that draws on the state's generator emits a chance event (the
  undo policy and the replay logs depend on it);

and at sampled steps:

- every legal action is accepted (on a clone, which must be independent);
- probes outside `legal_actions` raise `IllegalAction` and change nothing;
- `from_json(to_json())` gives the same JSON and an identical continuation;
- `determinize(seat)` leaves `observation(seat)` and the public view unchanged
  (the generic leak test) and actually re-deals for hidden-information games;
- an event a seat may see tells it nothing its observation does not: taking the
  same action in the seat's determinized world yields the same visible events
  whenever the seat's observation ends up the same.

Sessions replay identically from their JSON record, and undo never crosses
another seat's action, a chance event or hidden information.

A game whose module does not exist yet is skipped with the reason; that is
only for the days the games are being written.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from controller.errors import IllegalAction
from controller.games import GAME_IDS, get_game
from controller.games.base import Action, Game, GameEvent, GameState, RandomBot, Session
from controller.rng import Rng

# Games with cards hidden from some seat; determinize must vary hidden state for them.
HIDDEN_INFORMATION = {"manni", "pukk", "rommy", "knuff"}

STEP_BUDGET = 800  # steps of checked play per game under its default options
VARIANT_BUDGET = 200  # the same for each non-default option choice
HEAVY_EVERY = 8  # heavy checks (clones, probes, determinize) on one step in this many
MAX_STEPS = 200_000  # a playout longer than this is taken as a game that never ends
SHADOW_STEPS = 12  # steps a JSON round-tripped copy is played in lockstep


def load(game_id: str) -> Game:
    """The registered game, or a skip while its module is still being written."""
    try:
        return get_game(game_id)
    except ModuleNotFoundError as exc:
        if exc.name == f"controller.games.{GAME_IDS[game_id]}":
            pytest.skip(f"controller/games/{GAME_IDS[game_id]}.py does not exist yet")
        raise


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


def events_json(events: list[GameEvent]) -> list[dict[str, Any]]:
    return [e.to_json() for e in events]


def frozen(state: GameState) -> bytes:
    """A snapshot of the state's full JSON, for exact before/after comparisons.

    marshal (not json.dumps) because it is several times faster; both copy, so
    a `to_json` that hands out the state's own lists cannot hide a change.
    Format version 0 has no object sharing, so equal content gives equal bytes.
    """
    return marshal.dumps(state.to_json(), 0)


def snapshot(state: GameState) -> Any:
    """A deep copy of the state's JSON, compared with == (key order does not matter)."""
    return json.loads(json.dumps(state.to_json()))


def conservation(state: GameState) -> Any:
    fn = getattr(state, "conservation", None)
    return fn() if callable(fn) else None


def choose(state: GameState, rng: Rng) -> tuple[int, Action]:
    """A random actor (out-of-turn seats included) and a random legal action."""
    seat = rng.choice(sorted(state.actors()))
    return seat, rng.choice(state.legal_actions(seat))


@dataclass
class Shadow:
    """A JSON round-tripped copy that must play on exactly like the original."""

    state: GameState
    steps_left: int


@dataclass
class Report:
    """What a game's playouts saw, for the checks that need the whole run."""

    steps: int = 0
    playouts: int = 0
    determinize_varied: bool = False
    determinize_checks: int = 0
    leak_checks: int = 0
    errors: list[str] = field(default_factory=list)


def check_step_invariants(game: Game, state: GameState, where: str) -> None:
    actors = state.actors()
    terminal = state.is_terminal()
    assert (not actors) == terminal, (
        f"{where}: actors()={sorted(actors)} but is_terminal()={terminal}")
    for seat in range(state.num_seats):
        legal = state.legal_actions(seat)
        if seat in actors:
            assert legal, f"{where}: seat {seat} is an actor but has no legal action"
            assert len(set(legal)) == len(legal), f"{where}: duplicate legal actions for {seat}"
        else:
            assert not legal, (f"{where}: seat {seat} is not an actor but has legal actions "
                               f"{[str(a) for a in legal[:5]]}")
    if terminal:
        returns = state.returns()
        assert len(returns) == state.num_seats, f"{where}: returns() has wrong length"
    _ = game


def check_rejections(game: Game, state: GameState, rng: Rng, where: str,
                     seen: list[Action] | None = None) -> None:
    """Probes outside legal_actions raise IllegalAction and change nothing.

    The probes: an unknown kind, a legal action with an extra or a nonsense
    argument, another seat's legal action, a seat that does not exist, and
    actions that were legal earlier in the game (`seen`) but are not now.
    """
    before = frozen(state)
    actors = sorted(state.actors())
    probes: list[tuple[int, Action]] = []
    for seat in actors:
        legal = state.legal_actions(seat)
        legal_set = set(legal)
        probes.append((seat, Action("__not_a_move__")))
        stale = [a for a in seen or () if a not in legal_set]
        probes += [(seat, a) for a in (rng.sample(stale, 4) if len(stale) > 4 else stale)]
        sample = rng.choice(legal)
        padded = Action(sample.kind, (*sample.args, "x"))
        if padded not in legal_set:
            probes.append((seat, padded))
        if sample.args:
            # Same kind with an argument nobody could hold.
            odd = Action(sample.kind, (*sample.args[:-1], "zz9"))
            if odd not in legal_set:
                probes.append((seat, odd))
    for seat in range(state.num_seats):
        if seat in actors:
            continue
        for other in actors:
            action = state.legal_actions(other)[0]
            probes.append((seat, action))
    probes.append((state.num_seats, Action("__not_a_move__")))
    if state.is_terminal():
        probes.append((0, Action("__not_a_move__")))
    for seat, action in probes:
        try:
            state.apply(seat, action)
        except IllegalAction:
            pass
        except Exception as exc:
            pytest.fail(f"{where}: apply({seat}, {action}) raised {type(exc).__name__}: {exc} "
                        "instead of IllegalAction")
        else:
            pytest.fail(f"{where}: apply({seat}, {action}) was accepted although it is not "
                        "in legal_actions")
        assert frozen(state) == before, (
            f"{where}: rejected apply({seat}, {action}) changed the state")


def check_legal_accepted(game: Game, state: GameState, rng: Rng, where: str) -> None:
    """Every legal action (a sample of at most 12 per actor) is accepted on a clone."""
    before = frozen(state)
    for seat in sorted(state.actors()):
        legal = state.legal_actions(seat)
        sample = legal if len(legal) <= 12 else rng.sample(legal, 12)
        for action in sample:
            clone = state.clone()
            try:
                clone.apply(seat, action)
            except IllegalAction as exc:
                pytest.fail(f"{where}: legal action {action} of seat {seat} rejected: {exc}")
    assert frozen(state) == before, f"{where}: applying to clone() changed the original"
    _ = game


def check_round_trip(game: Game, state: GameState, where: str) -> GameState:
    data = state.to_json()
    text = json.dumps(data)
    again = game.state_from_json(json.loads(text))
    assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(json.loads(text),
                                                                       sort_keys=True), (
        f"{where}: from_json(to_json()) gives a different to_json()")
    return again


def check_determinize(game_id: str, state: GameState, actor: int, action: Action,
                      rng: Rng, report: Report, where: str) -> None:
    """observation(seat) survives determinize(seat); visible events say no more than it."""
    before = frozen(state)
    public = state.observation(None)
    json.dumps(public)
    for seat in range(state.num_seats):
        obs = state.observation(seat)
        json.dumps(obs)
        world = state.determinize(seat, rng.fork(f"det:{seat}"))
        assert frozen(state) == before, f"{where}: determinize({seat}) changed the state"
        report.determinize_checks += 1
        assert world.observation(seat) == obs, (
            f"{where}: observation({seat}) changed under determinize({seat}): the seat's "
            "observation depends on cards it cannot see, or determinize breaks what it saw")
        assert world.observation(None) == public, (
            f"{where}: the public observation changed under determinize({seat})")
        assert world.actors() == state.actors(), (
            f"{where}: determinize({seat}) changed who may act")
        assert set(world.legal_actions(seat)) == set(state.legal_actions(seat)), (
            f"{where}: determinize({seat}) changed seat {seat}'s own legal actions")
        if world.to_json() != state.to_json():
            report.determinize_varied = True
            assert game_id in HIDDEN_INFORMATION, (
                f"{where}: determinize changed a perfect-information game's state")
        if action not in world.legal_actions(actor):
            continue
        real, sampled = state.clone(), world.clone()
        real_events = real.apply(actor, action)
        sampled_events = sampled.apply(actor, action)
        if real.observation(seat) != sampled.observation(seat):
            continue  # the action revealed something to `seat`; events may show it
        report.leak_checks += 1
        assert frozen(state) == before, f"{where}: playing in determinize({seat}) changed the state"
        seen_real = [e.to_json() for e in real_events if e.visible(seat)]
        seen_sampled = [e.to_json() for e in sampled_events if e.visible(seat)]
        assert seen_real == seen_sampled, (
            f"{where}: seat {seat} sees events that depend on cards hidden from it "
            f"(after {actor}:{action}): {seen_real} vs {seen_sampled} in a world it cannot "
            "tell apart")


def playout(game: Game, game_id: str, options: dict[str, Any], seed: int, budget: int,
            report: Report, *, heavy_every: int = HEAVY_EVERY, seats: int | None = None
            ) -> None:
    """One checked random playout (stops early when the step budget runs out).

    Heavy checks run on one step in `heavy_every` (0: never, for full-length games).
    """
    rng = Rng(seed).fork("conformance")
    seats = seats or game.default_seats
    state = game.new_state(seats, game.resolve_options(options), Rng(seed).fork("game"))
    conserved = conservation(state)
    shadows: list[Shadow] = []
    seen: list[Action] = []  # earlier legal actions, reused as probes
    step = 0
    while True:
        where = f"{game_id} seats={seats} options={options} seed={seed} step={step}"
        check_step_invariants(game, state, where)
        assert conservation(state) == conserved, (
            f"{where}: conservation() changed from {conserved} to {conservation(state)}")
        heavy = heavy_every > 0 and rng.randbelow(heavy_every) == 0
        if state.is_terminal():
            check_round_trip(game, state, where)
            check_rejections(game, state, rng, where, seen)
            for seat in range(state.num_seats):
                assert state.determinize(seat, rng).observation(seat) == \
                    state.observation(seat), f"{where}: terminal observation leaks"
            break
        if step >= budget or step >= MAX_STEPS:
            assert step < MAX_STEPS, f"{where}: no end after {MAX_STEPS} random steps"
            break
        actor, action = choose(state, rng)
        if len(seen) < 64 and action not in seen:
            seen.append(action)
        if heavy:
            check_rejections(game, state, rng, where, seen)
            check_legal_accepted(game, state, rng, where)
            shadows.append(Shadow(check_round_trip(game, state, where), SHADOW_STEPS))
            check_determinize(game_id, state, actor, action, rng, report, where)
        rng_before = marshal.dumps(state.rng.to_json(), 0)
        events = state.apply(actor, action)
        for e in events:
            assert e.visible_to is None or e.visible_to <= set(range(state.num_seats)), (
                f"{where}: event {e.kind} visible to unknown seats {e.visible_to}")
            json.dumps(e.to_json())
        if marshal.dumps(state.rng.to_json(), 0) != rng_before:
            assert any(e.chance for e in events), (
                f"{where}: {actor}:{action} drew on the random generator but emitted no "
                "chance event (undo could cross it)")
        for shadow in shadows:
            shadow_events = shadow.state.apply(actor, action)
            assert events_json(shadow_events) == events_json(events), (
                f"{where}: a JSON round-tripped copy emitted different events for {action}")
            shadow.steps_left -= 1
            if shadow.steps_left == 0 or state.is_terminal():
                assert shadow.state.to_json() == state.to_json(), (
                    f"{where}: a JSON round-tripped copy diverged within {SHADOW_STEPS} steps")
                shadow.steps_left = 0
        shadows = [s for s in shadows if s.steps_left > 0]
        step += 1
    report.steps += step
    report.playouts += 1


def playouts(game_id: str, options: dict[str, Any], budget: int, min_games: int,
             max_games: int, seed0: int = 0, seats: int | None = None) -> Report:
    game = load(game_id)
    report = Report()
    seed = seed0
    while report.playouts < max_games and (report.steps < budget
                                           or report.playouts < min_games):
        remaining = max(budget - report.steps, budget // 4)
        playout(game, game_id, options, seed, remaining, report, seats=seats)
        seed += 1
    return report


def variant_params() -> Iterator[Any]:
    """Default options and seats; each non-default option choice; the fewest and most seats."""
    for game_id in GAME_IDS:
        try:
            game = get_game(game_id)
        except Exception:  # not written yet, or broken: the test itself reports it
            yield pytest.param(game_id, None, {}, id=f"{game_id}-default")
            continue
        yield pytest.param(game_id, None, {}, id=f"{game_id}-default")
        for seats in sorted({game.min_seats, game.max_seats} - {game.default_seats}):
            yield pytest.param(game_id, seats, {}, id=f"{game_id}-seats={seats}")
        for options in variants(game)[1:]:
            label = ",".join(f"{k}={v}" for k, v in options.items())
            yield pytest.param(game_id, None, options, id=f"{game_id}-{label}")


@pytest.mark.parametrize(("game_id", "seats", "options"), list(variant_params()))
def test_random_playouts(game_id: str, seats: int | None, options: dict[str, Any]) -> None:
    default = not options and seats is None
    budget = STEP_BUDGET if default else VARIANT_BUDGET
    min_games = 3 if default else 2
    report = playouts(game_id, options, budget, min_games=min_games, max_games=200,
                      seats=seats)
    assert report.playouts >= min_games
    if default:
        # One whole game to its end, with the cheap per-step checks only.
        end = Report()
        playout(load(game_id), game_id, options, 777, MAX_STEPS, end, heavy_every=0)
        assert end.playouts == 1
    assert report.determinize_checks > 0


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_determinize_varies_hidden_cards(game_id: str) -> None:
    """Hidden-information games re-deal unseen cards; perfect-information ones clone."""
    report = playouts(game_id, {}, 300, min_games=2, max_games=50, seed0=1000)
    if game_id in HIDDEN_INFORMATION:
        assert report.determinize_varied, (
            f"{game_id}: determinize never changed the hidden cards in {report.steps} steps")
        assert report.leak_checks > 0
    else:
        assert not report.determinize_varied


@pytest.mark.slow
@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_many_random_playouts(game_id: str) -> None:
    """Up to two hundred more seeded games per game (heavy checks on 1 step in 64)."""
    game = load(game_id)
    report = Report()
    seed = 10_000
    while report.playouts < 200 and report.steps < 15_000:
        playout(game, game_id, {}, seed, 15_000, report, heavy_every=64)
        seed += 1
    assert report.playouts >= 3  # a random 500 game is some 5,000 steps


def play_session(game: Game, seed: int, max_steps: int = 3000) -> Session:
    session = Session(game, game.default_seats, seed=seed)
    bots = [RandomBot(s, Rng(seed).fork(f"bot{s}")) for s in range(session.seats)]
    pick = Rng(seed).fork("actor")
    for _ in range(max_steps):
        if session.state.is_terminal():
            break
        seat = pick.choice(sorted(session.state.actors()))
        session.apply(seat, bots[seat].choose(session.state))
    return session


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_session_replays_identically(game_id: str) -> None:
    game = load(game_id)
    for seed in range(2):
        session = play_session(game, seed, max_steps=1500)
        record = json.loads(json.dumps(session.to_json()))
        again = Session.replay(game, record)
        assert snapshot(again.state) == snapshot(session.state), f"{game_id} seed={seed}"
        assert events_json(again.events) == events_json(session.events)
        for seat in [None, *range(session.seats)]:
            seen = session.events_for(seat)
            assert all(e.visible(seat) for e in seen)
            assert [e for e in session.events if e.visible(seat)] == seen


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_undo_policy(game_id: str) -> None:
    """Undo only for the seat that acted alone since, with nothing random or hidden shown."""
    game = load(game_id)
    undone = 0
    for seed in range(3):
        session = Session(game, game.default_seats, seed=100 + seed)
        rng = Rng(seed).fork("undo")
        # States before each action: (seat, state JSON, events of that action).
        history: list[tuple[int, Any, list[GameEvent], frozenset[int]]] = []
        for step in range(400):
            state = session.state
            if state.is_terminal():
                break
            seat, action = choose(state, rng)
            history.append((seat, snapshot(state), [], state.actors()))
            events = session.apply(seat, action)
            history[-1] = (history[-1][0], history[-1][1], events, history[-1][3])
            where = f"{game_id} seed={100 + seed} step={step}"
            # Where undo would take us: back over the trailing run of this seat's own
            # actions that were public and free of chance, taken while it was sole actor.
            run = 0
            for s, _, evs, actors in reversed(history):
                if s != seat or actors != {seat} or any(e.chance or e.visible_to is not None
                                                        for e in evs):
                    break
                run += 1
            expected = session.state.actors() == {seat} and run > 0
            assert session.can_undo(seat) == expected, (
                f"{where}: can_undo({seat}) is {session.can_undo(seat)}, policy says {expected}")
            for other in range(session.seats):
                if other != seat:
                    assert not session.can_undo(other), f"{where}: seat {other} may undo"
                    with pytest.raises(IllegalAction, match="undo"):
                        session.undo(other)
            if expected and rng.randbelow(3) == 0:
                target = history[-run][1]
                log_len = len(session.log) - run
                session.undo(seat)
                undone += 1
                assert snapshot(session.state) == target, f"{where}: undo restored another state"
                assert len(session.log) == log_len
                assert session.events[-1].kind == "undone"
                del history[-run:]
                assert not session.can_undo(seat)
    if game_id == "koob":
        # Batons are entered one by one within a turn, so the suite must have undone some.
        assert undone > 0
