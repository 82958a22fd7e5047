"""`knapp games list|options|play`: the companion games in the terminal.

`list` shows every registered game on one line (id, name, seats, computer
players); `options GAME` lists one game's options in full. `play` runs one game between
computer players, or with people at the terminal entering their moves: a
person sees a compact table (Kobbla's labelled board, a hand and table line for
the card games) drawn only from their own seat's observation, and the events
their seat may see, never the others' cards or the seed.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from controller.errors import IllegalAction, KnappError
from controller.games import GAME_IDS, get_game
from controller.games.base import Action, Bot, Game, GameEvent, RandomBot, Seat, Session, canonical
from controller.rng import Rng

BOT_KINDS = ("random", "rule", "search")
MAX_LISTED_ACTIONS = 30  # a Koob toss has 802 legal entries; list a sample and the count


class CliError(KnappError, ValueError):
    """A `knapp games` argument that cannot be used."""


def register(sub: Any) -> None:
    """Add the `games` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "games", help="companion games: list them, play against computer players")
    gsub = p.add_subparsers(dest="games_command", metavar="ACTION")
    gsub.required = True

    lst = gsub.add_parser("list", help="the registered games, one line each: id, name, seats")
    lst.add_argument("--json", action="store_true", help="one JSON object per game")
    lst.set_defaults(func=_list)

    opts = gsub.add_parser("options", help="one game's variant options in full",
                           description="List GAME's options: name, default, the values "
                                       "allowed and what each does.")
    opts.add_argument("game", choices=list(GAME_IDS), metavar="GAME",
                      help=f"game id: {', '.join(GAME_IDS)}")
    opts.add_argument("--json", action="store_true", help="the options as one JSON object")
    opts.set_defaults(func=_options)

    play = gsub.add_parser(
        "play", help="play a game between computer players, or against them",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play GAME between computer players, showing the moves; with --human "
                    "a person at this terminal plays a seat.",
        # Names only: building the parser must not import every game's rules.
        epilog=HUMAN_HELP + "\n\nEvery game's options in full: `knapp games options GAME`.")
    play.add_argument("game", choices=list(GAME_IDS), metavar="GAME",
                      help=f"game id: {', '.join(GAME_IDS)}")
    play.add_argument("--seats", type=int, help="number of seats (default: the game's usual)")
    play.add_argument("--bots", default=None,
                      help="computer players, comma separated, one for all or one per "
                           "computer seat in seat order: random, rule, search "
                           "(default: rule, or random where a game has no rule player)")
    play.add_argument("--human", type=int, action="append", default=[], metavar="SEAT",
                      help="a person plays SEAT at this terminal (repeatable; games without "
                           "computer players, such as Koob, default to people at every seat)")
    play.add_argument("--seed", default=None,
                      help="chance seed (int or text) for tests and replays: same seed and "
                           "moves replay the same game (default: a fresh seed from the OS, "
                           "never shown while a person plays)")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="a variant option (see `knapp games options GAME`); repeatable")
    play.add_argument("--json", action="store_true",
                      help="print the public log as JSON lines, the result last")
    play.add_argument("--max-steps", type=int, default=100_000,
                      help="stop an unfinished game after this many moves")
    play.set_defaults(func=_play)


# -- list ---------------------------------------------------------------------


def _list(args: argparse.Namespace) -> int:
    for game in _games():
        if args.json:
            print(json.dumps(_game_info(game)))
            continue
        seats = (f"{game.default_seats} seats" if game.min_seats == game.max_seats
                 else f"{game.min_seats}-{game.max_seats} seats (default {game.default_seats})")
        bots = ", ".join(_bot_table(game)) or "none (scorekeeper)"
        print(f"{game.id:8} {game.name}: {seats}; computer players: {bots}")
    if not args.json:
        # Every option of every game is sixty lines: one game's are a command away.
        print("\nA game's options: knapp games options GAME")
    return 0


def _games() -> list[Game]:
    return [get_game(g) for g in GAME_IDS]


def _options(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    if args.json:
        print(json.dumps(_game_info(game)["options"]))
        return 0
    print(f"{game.name} ({game.id}) options; give each as --option NAME=VALUE:")
    if not game.options_schema:
        print("  none")
    for line in _option_lines(game.options_schema):
        print(line)
    return 0


def _option_lines(schema: Mapping[str, Any], chosen: Mapping[str, Any] | None = None
                  ) -> list[str]:
    """Every option in full: name, default (or the table's choice), allowed values, help."""
    lines = []
    for name, opt in schema.items():
        allowed = ("one of " + ", ".join(_fmt_value(c) for c in opt.choices) if opt.choices
                   else f"any {type(opt.default).__name__}")
        value = (f"now {_fmt_value(chosen[name])}, default {_fmt_value(opt.default)}"
                 if chosen is not None else f"default {_fmt_value(opt.default)}")
        lines.append(f"  {name} ({value}; {allowed})")
        lines.extend(textwrap.wrap(opt.help, width=76, initial_indent="      ",
                                   subsequent_indent="      "))
    return lines


def _game_info(game: Game) -> dict[str, Any]:
    return {
        "id": game.id, "name": game.name, "summary": game.summary,
        "seats": {"min": game.min_seats, "max": game.max_seats, "default": game.default_seats},
        "bots": list(_bot_table(game)),
        "options": {name: {"default": opt.default, "choices": list(opt.choices or []) or None,
                           "help": opt.help}
                    for name, opt in game.options_schema.items()},
    }


def _fmt_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# -- play ---------------------------------------------------------------------

BotFactory = Callable[[Seat, Rng], Bot]


def _bot_table(game: Game) -> dict[str, BotFactory]:
    module = sys.modules[type(game).__module__]
    table: dict[str, BotFactory] = dict(getattr(module, "BOTS", {}))
    return table


def _play(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    seats = game.default_seats if args.seats is None else args.seats
    game.check_seats(seats)
    # A fixed default seed would deal every game alike, and anyone could recompute every
    # hand from it; so the deal comes from OS entropy unless --seed asks for a replay.
    seed: int | str = (secrets.randbits(64) if args.seed is None
                       else int(args.seed) if _looks_int(args.seed) else args.seed)
    options = _parse_options(game, args.option)
    humans = set(args.human)
    for h in humans:
        if not 0 <= h < seats:
            raise CliError(f"--human {h}: seats are numbered 0 to {seats - 1}")
    table = _bot_table(game)
    if not table and args.bots is None and not humans:
        humans = set(range(seats))  # a scorekeeper: people enter every seat
    bots, kinds = _make_bots(game, table, seats, humans, spec=args.bots, seed=seed)

    session = Session(game, seats, seed=seed, options=options)
    viewer = min(humans) if len(humans) == 1 else None
    out = _Printer(sys.stdout, args.json, viewer)
    if not args.json:
        who = ", ".join(f"{s}={'human' if s in humans else kinds[s]}"
                        for s in range(seats))
        opts = ", ".join(f"{k}={_fmt_value(v)}" for k, v in session.options.items()) or "none"
        # A person at the terminal must not learn the seed: it recomputes every hand.
        shown = "" if humans else f" seed {seed};"
        print(f"{game.name}: {seats} seats ({who});{shown} options: {opts}")
    out.events(session.events)
    pick = Rng(seed).fork("cli:actor-order")
    steps = 0
    # A person who typed `wait` is not asked again while their choices stay the same.
    waiting: dict[Seat, frozenset[Action]] = {}
    while not session.state.is_terminal():
        if steps >= args.max_steps:
            print(f"stopped after {steps} moves: the game did not finish", file=sys.stderr)
            return 1
        actors = sorted(session.state.actors())
        ready = [s for s in actors if waiting.get(s) != frozenset(
            session.state.legal_actions(s))] or actors
        # Several seats may act at once (out-of-turn play): take them in a seeded
        # random order, so no seat is always first.
        seat = ready[0] if len(ready) == 1 else pick.choice(ready)
        if seat in humans:
            answer = _human_turn(session, seat, out, others=len(actors) > 1)
            if answer == "quit":
                print("game abandoned", file=sys.stderr)
                return 1
            if answer == "wait":
                waiting[seat] = frozenset(session.state.legal_actions(seat))
                continue
        else:
            action = bots[seat].choose(session.state)
            n_before = len(session.events)
            session.apply(seat, action)
            out.move(seat, action, kinds[seat])
            out.events(session.events[n_before:])
        steps += 1
    out.result(session)
    return 0


def _looks_int(text: str) -> bool:
    return text.lstrip("-").isdigit() and text not in ("", "-")


def _parse_options(game: Game, items: Sequence[str]) -> dict[str, Any]:
    """Parse KEY=VALUE pairs by the type of each option's default."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CliError(f"--option {item!r}: expected KEY=VALUE")
        opt = game.options_schema.get(key)
        if opt is None:
            raise CliError(f"--option {key}: {game.name} has no such option "
                           f"(options: {', '.join(game.options_schema) or 'none'})")
        default = opt.default
        value: Any
        try:
            if isinstance(default, bool):
                low = text.strip().lower()
                if low not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                    raise ValueError(text)
                value = low in ("true", "yes", "1", "on")
            elif isinstance(default, int):
                value = int(text)
            elif isinstance(default, float):
                value = float(text)
            else:
                value = text.strip()
        except ValueError:
            raise CliError(f"--option {key}={text}: expected a "
                           f"{type(default).__name__}") from None
        options[key] = value
    game.resolve_options(options)  # names the bad choice, before anything starts
    return options


def _make_bots(game: Game, table: dict[str, BotFactory], seats: int, humans: set[int], *,
               spec: str | None, seed: int | str) -> tuple[dict[Seat, Bot], dict[Seat, str]]:
    """One bot per computer seat, each with its own generator forked from the seed."""
    computer = [s for s in range(seats) if s not in humans]
    default = "rule" if "rule" in table else "random"
    kinds = [k.strip() for k in (spec or default).split(",") if k.strip()]
    if len(kinds) == 1:
        kinds *= len(computer)
    elif len(kinds) == seats and len(computer) != seats:
        kinds = [kinds[s] for s in computer]
    if len(kinds) != len(computer):
        raise CliError(f"--bots {spec}: give one kind for every computer seat or "
                       f"{len(computer)} kinds (seats {computer}), got {len(kinds)}")
    bots: dict[Seat, Bot] = {}
    for seat, kind in zip(computer, kinds, strict=True):
        factory = table.get(kind)
        if factory is None and kind == "random":
            factory = RandomBot  # every game can be played at random, Koob included
        if factory is None:
            available = sorted(set(table) | {"random"})
            raise CliError(f"--bots: {game.name} has no {kind!r} player "
                           f"(available: {', '.join(available)})")
        bots[seat] = factory(seat, Rng(seed).fork(f"cli:bot:{seat}:{kind}"))
    return bots, dict(zip(computer, kinds, strict=True))


HUMAN_HELP = """At your prompt (seat N>):
  ACTION       an action as listed, e.g. play:QH, jump:c1,c3 or keep
  NUMBER       the action with that number in the list
  ?            show the table and your legal actions again (also an empty line)
  undo         take back your moves of this turn, where the rules allow
  wait         let the other seats that may act now go first (when several may)
  options      the options this table plays with
  help         this text
  quit         abandon the game (exit status 1, the same as Ctrl-D)"""


def _human_turn(session: Session, seat: Seat, out: _Printer, *, others: bool = False) -> str:
    """Ask the person at `seat` for an action until one is legal.

    Returns "done", "wait" (let another seat that may act go first) or "quit"
    (quit, exit or the end of input, which all end the game the same way).
    """
    out.prompt_state(session, seat)
    while True:
        try:
            text = out.ask(f"seat {seat}> ").strip()
        except EOFError:
            return "quit"
        if text in ("quit", "exit"):
            return "quit"
        if text in ("?", ""):
            out.prompt_state(session, seat)
            continue
        if text == "help":
            out.say(HUMAN_HELP)
            continue
        if text == "options":
            for line in _option_lines(session.game.options_schema, session.options) or [
                    "  none"]:
                out.say(line)
            continue
        if text == "wait":
            if others:
                return "wait"
            out.say("nobody else may act now: choose an action")
            continue
        if text == "undo":
            if session.can_undo(seat):
                session.undo(seat)
                out.say("undone")
                out.prompt_state(session, seat)
            else:
                out.say("nothing to undo (undo never crosses another player's action, "
                        "hidden information shown or a random event)")
            continue
        legal = canonical(session.state.legal_actions(seat))
        try:
            if text.isdigit() and 1 <= int(text) <= len(legal):
                action = legal[int(text) - 1]
            else:
                action = Action.parse(text)
            events = session.apply(seat, action)
        except IllegalAction as exc:
            out.say(f"not allowed: {exc}")
            continue
        out.events(events)
        return "done"


class _Printer:
    """Writes the game as text for people, or the public log as JSON lines."""

    def __init__(self, stream: TextIO, as_json: bool, viewer: Seat | None) -> None:
        self.stream = stream
        self.as_json = as_json
        self.viewer = viewer  # whose events a person at the terminal may see

    def say(self, text: str) -> None:
        """A line for the person at the terminal (stderr under --json, so the log stays JSON)."""
        print(text, file=sys.stderr if self.as_json else self.stream)

    def ask(self, prompt: str) -> str:
        """Read one line of input after `prompt`; raises EOFError at the end of input."""
        if not self.as_json:
            return input(prompt)  # line editing on a terminal
        sys.stderr.write(prompt)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    def events(self, events: Sequence[GameEvent]) -> None:
        for e in events:
            # JSON is the public log: only what the table may see.
            if self.as_json:
                if e.visible(None):
                    print(json.dumps(e.to_json()), file=self.stream)
            elif e.visible(self.viewer):
                print(f"  {e.kind}{_fmt_data(e.data)}", file=self.stream)

    def move(self, seat: Seat, action: Action, bot: str) -> None:
        # Bots' actions can name hidden cards (a discard face down), so text
        # mode shows what the events tell the viewer, and names the move only
        # when no person is watching a seat.
        if not self.as_json and self.viewer is None:
            print(f"seat {seat} ({bot}): {action}", file=self.stream)

    def prompt_state(self, session: Session, seat: Seat) -> None:
        obs = session.state.observation(seat)
        self.say(f"-- seat {seat} to play --")
        for line in table_lines(session.game.id, obs):
            self.say(f"  {line}")
        legal = canonical(session.state.legal_actions(seat))
        shown = legal[:MAX_LISTED_ACTIONS]
        listing = "  ".join(f"{i}) {a}" for i, a in enumerate(shown, 1))
        more = f"  ... and {len(legal) - len(shown)} more" if len(legal) > len(shown) else ""
        self.say(f"  legal: {listing}{more}")

    def result(self, session: Session) -> None:
        state = session.state
        returns = state.returns()
        winners = state.winners()
        if self.as_json:
            print(json.dumps({"kind": "result", "returns": returns, "winners": winners,
                              "moves": len(session.log)}), file=self.stream)
            return
        scores = ", ".join(f"seat {s}: {_fmt_num(r)}" for s, r in enumerate(returns))
        won = " and ".join(f"seat {s}" for s in winners)
        print(f"result after {len(session.log)} moves: {scores}; winner: {won}",
              file=self.stream)


def _fmt_data(data: Any) -> str:
    if not data:
        return ""
    return ": " + ", ".join(f"{k}={_fmt_compact(v)}" for k, v in dict(data).items())


def _fmt_compact(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(_fmt_compact(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + " ".join(f"{k}={_fmt_compact(v)}" for k, v in value.items()) + "}"
    return _fmt_value(value)


def _fmt_num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# -- the table for a person ------------------------------------------------------
# Drawn from `observation(seat)` alone, so a seat's screen can hold nothing its
# observation does not.


def table_lines(game_id: str, obs: Mapping[str, Any]) -> list[str]:
    """A compact picture of the table as one seat sees it."""
    draw = _TABLES.get(game_id, _generic_table)
    return draw(obs)


def _cards(items: Sequence[Any]) -> str:
    return " ".join(str(c) for c in items) or "-"


def _per_seat(values: Sequence[Any]) -> str:
    return " ".join(f"{s}:{_fmt_compact(v) if v not in ('', None) else '-'}"
                    for s, v in enumerate(values))


def _kobbla_table(obs: Mapping[str, Any]) -> list[str]:
    # The same labelled board as KobblaState.__str__ (ranks 8..1, files a-f), from
    # the observation's rows.
    rows = list(obs["board"])
    lines = [f"{len(rows) - i} {row}" for i, row in enumerate(rows)]
    lines.append("  " + "abcdefgh"[:len(rows[0])])
    seats = "SN"
    kobbs = ", ".join(f"{seats[s]} {k or 'not placed'}" for s, k in enumerate(obs["kobbs"]))
    lines.append(f"{seats[obs['to_move']]} to move, phase {obs['phase']}, turn {obs['turn']}"
                 f"/{obs['max_turns']}; Kobbs: {kobbs}; tails {_per_seat(obs['tails'])}")
    return lines


def _knuff_table(obs: Mapping[str, Any]) -> list[str]:
    top = obs["top"] or "empty"
    phase = "no-draw phase" if obs["no_draw_phase"] else "draw phase"
    lines = [f"deal {obs['round']}, {phase}, {obs['phase']}; top {top} (run {obs['run']}); "
             f"stock {obs['stock']}; seat {obs['turn']} on turn",
             f"cards {_per_seat(obs['hand_counts'])}; letters {_per_seat(obs['letters'])}; "
             f"minimum {_per_seat(obs['hand_minimum'])}"]
    away = [s for s, st in enumerate(obs["status"]) if st != "active"]
    if away:
        lines.append(f"away: {' '.join(map(str, away))}; may join now: "
                     f"{' '.join(map(str, obs['joinable'])) or '-'}")
    if obs.get("window"):
        w = obs["window"]
        lines.append(f"Fare for HELKNUFF! three {w['rank']}s on top; invited "
                     f"{' '.join(map(str, w['invited']))}, answered "
                     f"{' '.join(map(str, w['answered'])) or '-'}")
    if obs.get("extra_lay"):
        lines.append("personlig knuff: lay one more card that fits, or pass")
    if "hand" in obs:
        lines.append(f"hand: {_cards(obs['hand'])}")
    return lines


def _manni_table(obs: Mapping[str, Any]) -> list[str]:
    trick = " ".join(f"{s}:{c}" for s, c in obs["trick"]) if obs["trick"] else "-"
    lines = [f"deal {obs['deal']}, {obs['variant']}, contract {obs['contract']}, trump "
             f"{obs['trump'] or '-'}, phase {obs['phase']}; dealer {obs['dealer']}, seat "
             f"{obs['turn']} on turn",
             f"trick {trick}; tricks {_per_seat(obs['tricks'])}; scores "
             f"{_per_seat(obs['scores'])}; cards {_per_seat(obs['hand_sizes'])}"]
    if "hand" in obs:
        lines.append(f"hand: {_cards(obs['hand'])}")
    return lines


def _pukk_table(obs: Mapping[str, Any]) -> list[str]:
    pools = " ".join(f"{k} {v}" for k, v in obs["pools"].items())
    run = "-" if obs["run"] is None else f"{obs['run'][0]} {obs['run'][1]}-{obs['run'][2]}"
    lines = [f"deal {obs['deal']}/{obs['deals'] or '-'}, phase {obs['phase']}, trump "
             f"{obs['trump'] or '-'} (turned {obs['turned'] or '-'}), dealer {obs['dealer']}; "
             f"Púkk {obs['pukk']}; pools {pools}",
             f"chips {_per_seat(obs['stacks'])}; cards {_per_seat(obs['hand_sizes'])}; "
             f"run {run}"]
    shown = [f"{s}:{_cards(c)}" for s, c in enumerate(obs["shown"]) if c]
    if shown:
        lines.append(f"shown: {' '.join(shown)}")
    if "hand" in obs:
        lines.append(f"hand: {_cards(obs['hand'])}")
    return lines


def _rommy_table(obs: Mapping[str, Any]) -> list[str]:
    pile = obs["pile"]
    lines = [f"deal {obs['deal']}, phase {obs['phase']}, seat {obs['turn']} on turn; stock "
             f"{obs['stock']}; face-up pile {_cards(pile)}",
             f"totals {_per_seat(obs['totals'])}; cards {_per_seat(obs['hand_sizes'])}"]
    for i, meld in enumerate(obs["melds"]):
        owners = sorted(set(meld.get("owners", [])))
        by = f" (seat {' '.join(map(str, owners))})" if owners else ""
        lines.append(f"meld {i}: {meld.get('kind', '')} {_cards(meld.get('cards', []))}{by}")
    if "hand" in obs:
        lines.append(f"hand: {_cards(obs['hand'])}")
    return lines


def _koob_table(obs: Mapping[str, Any]) -> list[str]:
    halves = " | ".join(f"team {t}: baseline {h['baseline']}, field {h['field']}"
                        for t, h in enumerate(obs["halves"]))
    attacker = "-" if obs["attacker"] is None else f"team {obs['attacker']}"
    return [f"set {obs['set']} of best {obs['best_of']}, phase {obs['phase']}; sets won "
            f"{_per_seat(obs['sets_won'])}; attacker {attacker}, batons left "
            f"{obs['batons_left']}, knocked {obs['knocked']}",
            f"koobs standing: {halves}"]


def _generic_table(obs: Mapping[str, Any]) -> list[str]:
    return [", ".join(f"{k}={_fmt_compact(v)}" for k, v in obs.items() if k != "seat")]


_TABLES: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "kobbla": _kobbla_table, "knuff": _knuff_table, "manni": _manni_table,
    "pukk": _pukk_table, "rommy": _rommy_table, "koob": _koob_table,
}
