"""`knapp simulate`: whole matches between simulated players.

Matches go through the same referee (`Match`) and store (`EventStore`) that
the hardware uses. `--live` plays one match in real time in the terminal;
with `--seat NAME` a person plays that seat from the keyboard (`cli/seat.py`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from controller.cli import seed_arg
from controller.cli.seat import TerminalKeys, card_lines, play_seat, verdict_lines
from controller.clock import NS_PER_S, MonotonicClock
from controller.config import default_config, load_config
from controller.knapp.cards import Card
from controller.knapp.events import Grabbed, Revealed
from controller.knapp.match import Match, Verdict
from controller.progress import Progress
from controller.rng import Rng
from controller.settings import SeatsError, validate_seats
from controller.sim.bots import make_profiles
from controller.sim.driver import (
    SEAT_NAMES,
    Driver,
    exact_measure,
    match_rng,
    play_match,
    simulate,
    start_match,
)
from controller.store import EventStore

if TYPE_CHECKING:
    from controller.sim.virtual_table import VirtualBoardMeasure


def register(sub: Any) -> None:
    """Add the `simulate` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "simulate", help="play matches between simulated players",
        description="Play whole matches between simulated players through the real referee "
                    "and event store, and print a summary.",
    )
    p.add_argument("--players", type=int, default=None,
                   help="number of players, 2-8 (default: the configuration's seats, or 3)")
    p.add_argument("--matches", type=int, default=1, help="matches to play (default 1)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the run (default 0)")
    p.add_argument("--config", metavar="FILE", help="table configuration file (TOML)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--live", action="store_true",
                   help="play one match in real time with cards and verdicts in the terminal")
    p.add_argument("--seat", metavar="NAME",
                   help="with --live: you play this seat from the keyboard (s v c t d), bots "
                        "the others; a name that is not a seat takes the first seat")
    p.add_argument("--speed", type=float, default=1.0,
                   help="with --live: time factor (2 = twice as fast)")
    p.add_argument("--db", metavar="FILE",
                   help="SQLite event store to write (default: in memory)")
    p.add_argument("--match-id", metavar="ID",
                   help="with --db and one match: the match's id; an existing match resumes")
    p.add_argument("--pads", choices=("sim", "virtual-board"), default="sim",
                   help="time grabs exactly as planned (sim), or through the virtual pad "
                        "board: firmware logic, pty, serial driver and clock sync")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the simulation; exit 2 on bad arguments."""
    cfg = load_config(args.config) if args.config else default_config()
    seats = cfg.seats
    if args.players is not None:
        if not 2 <= args.players <= 8:
            print("knapp simulate: --players must be between 2 and 8", file=sys.stderr)
            return 2
        seats = cfg.seats if len(cfg.seats) == args.players and args.config \
            else SEAT_NAMES[: args.players]
    if args.matches < 1:
        print("knapp simulate: --matches must be at least 1", file=sys.stderr)
        return 2
    if args.speed <= 0:
        print("knapp simulate: --speed must be positive", file=sys.stderr)
        return 2
    if args.live and (args.matches != 1 or args.json or args.match_id):
        print("knapp simulate: --live plays one match in the terminal; it takes no --matches, "
              "--json or --match-id", file=sys.stderr)
        return 2
    if args.seat is not None and (not args.live or args.speed != 1.0):
        print("knapp simulate: --seat needs --live and plays in real time (no --speed)",
              file=sys.stderr)
        return 2
    if args.pads != "sim" and (args.live or args.match_id):
        print("knapp simulate: --pads virtual-board works without --live and --match-id",
              file=sys.stderr)
        return 2
    if args.match_id and (not args.db or args.matches != 1):
        print("knapp simulate: --match-id needs --db and --matches 1", file=sys.stderr)
        return 2
    store = EventStore(args.db, durable=True) if args.db else EventStore(":memory:",
                                                                         durable=False)
    board: VirtualBoardMeasure | None = None
    try:
        if args.live and args.seat is not None:
            return _play_seat(store, tuple(seats), args, cfg)
        if args.live:
            return _live(store, tuple(seats), cfg.rules, args.seed, args.speed,
                         first_turner=cfg.first_turner)
        if args.match_id:
            return _one_resumable(store, args, tuple(seats), cfg)
        if args.pads == "virtual-board":
            from controller.sim.virtual_table import virtual_board_measure

            board = virtual_board_measure(args.seed, cfg.rules)
        bar = Progress(args.matches, "simulating")
        try:
            summary = simulate(len(seats), args.matches, args.seed, store=store,
                               rules=cfg.rules, seats=tuple(seats),
                               progress=lambda done, _total: bar.update(done),
                               measure=board if board is not None else exact_measure)
        finally:
            if board is not None:
                board.close()
        bar.close()
    finally:
        store.close()
    data = summary.to_json()
    if board is not None:
        data["pads"] = board.summary()
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"{summary.matches} match(es), seed {summary.seed}, {len(seats)} players")
    for p in summary.players:
        share = data["win_share"][p["name"]]
        print(f"  {p['name']:<6} won {share * 100:5.1f} %   median reaction "
              f"{p['direct_median_s']:.2f} s true-colour, {p['indirect_median_s']:.2f} s "
              f"wrong-colour, {p['error_rate'] * 100:.1f} % wrong")
    print(f"  cards per match {data['cards_per_match']:.2f}, boxed per match "
          f"{data['boxed_per_match']:.2f} ({summary.boxed_cards} in all), too close to call "
          f"{summary.ties}, shared wins {summary.shared_wins}, anticipation flags "
          f"{summary.anticipation_flags}, wrong grabs {summary.wrong_grabs}")
    if board is not None:
        print(f"  {data['pads']}")
    return 0


def _one_resumable(store: EventStore, args: argparse.Namespace, seats: tuple[str, ...],
                   cfg: Any) -> int:
    """Play (or resume) one stored match; used by the kill-and-resume test."""
    if not store.has_match(args.match_id):
        start_match(store, seats, cfg.rules, args.seed, 0, match_id=args.match_id,
                    first_turner=cfg.first_turner)
    profiles = make_profiles(seats, Rng(args.seed).fork("players"))
    ms = play_match(store, args.match_id, profiles, match_rng(args.seed, 0))
    out = {"match_id": ms.match_id, "winners": ms.winners, "scores": ms.scores,
           "cards_shown": ms.cards_shown}
    print(json.dumps(out) if args.json else f"match {ms.match_id}: won by "
          f"{', '.join(ms.winners)} {ms.scores}")
    return 0


def _play_seat(store: EventStore, seats: tuple[str, ...], args: argparse.Namespace,
               cfg: Any) -> int:
    """A person at the terminal takes `--seat` (or the first seat, under that name)."""
    name = args.seat.strip()
    if name not in seats:
        seats = (name, *seats[1:])
        try:
            seats = validate_seats(list(seats))
        except SeatsError as exc:
            print(f"knapp simulate: --seat {args.seat!r}: {exc}", file=sys.stderr)
            return 2
    keys = TerminalKeys(sys.stdin.fileno(), clock=MonotonicClock())
    with keys.cbreak():
        return play_seat(store, seats, cfg.rules, args.seed, name, keys=keys,
                         clock=keys.clock, first_turner=cfg.first_turner)


def _live(store: EventStore, seats: tuple[str, ...], rules: Any, seed: int, speed: float,
          *, first_turner: int = 0, out: TextIO | None = None,
          sleep: Callable[[float], None] = time.sleep) -> int:
    out = out or sys.stdout
    colour = out.isatty()
    mid, _ = start_match(store, seats, rules, seed, 0, first_turner=first_turner)
    match = store.open_match(mid)
    profiles = make_profiles(seats, Rng(seed).fork("players"))
    driver = Driver(match, profiles, match_rng(seed, 0))
    print(f"Knapp daneben, simulated: {', '.join(seats)} (first to {rules.target or 'the end'})",
          file=out)
    last_t: int | None = None
    while match.winners == ():
        before = len(match.events)
        verdicts = driver.step()
        event = match.events[before] if len(match.events) > before else None
        t = match.last_t_ns
        if last_t is not None and t is not None and t > last_t:
            sleep((t - last_t) / NS_PER_S / speed)
        last_t = t
        _show(match, event, verdicts, out, colour)
        out.flush()
    print(f"\n*** {' and '.join(match.winners)} won the match: "
          f"{', '.join(f'{s} {n}' for s, n in match.scores().items())} ***", file=out)
    return 0


def _show(match: Match, event: Any, verdicts: list[Verdict], out: TextIO, colour: bool) -> None:
    if isinstance(event, Revealed):
        card = Card.parse(event.card)
        rnd = match.rounds[-1]
        print(f"\nCard {rnd.index + 1} (turned by {rnd.turner}):", file=out)
        for line in card_lines(card, colour):
            print("  " + line, file=out)
    elif isinstance(event, Grabbed):
        rnd = match.rounds[-1]
        ms = (event.t_ns - rnd.reveal_ns) / 1e6
        ok = "correct" if event.figure == rnd.answer.value else "WRONG, locked out"
        print(f"  {ms:7.0f} ms  {event.seat} grabs the {event.figure} ({ok})", file=out)
    for v in verdicts:
        if not v.provisional:
            for line in verdict_lines(match, v):
                print("  " + line, file=out)
