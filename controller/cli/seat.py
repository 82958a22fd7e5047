"""`knapp simulate --live --seat NAME`: a person takes a seat at the keyboard, bots the rest.

The card is printed; the person types the key of the figure they grab (s v c
t d). The reaction time runs from the moment the card has been printed, on
the injected clock, and the grab goes to the real referee (`Match`) and store
as any grab would, with the keyboard's timing uncertainty. The bots grab at
their planned times on the same clock, so whoever is faster wins the card.
Verdicts print as the table screen says them: who won, who came second and by
how much, wrong grabs, then the scores.

The key source and the clock are injected (`Keys`, `Clock`), so the whole
flow is tested without a terminal; `TerminalKeys` is the real one (single
keys in cbreak mode, timed when they arrive).
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TextIO

from controller.clock import NS_PER_MS, NS_PER_S, Clock
from controller.knapp.cards import Card, Colour, Figure, background_name
from controller.knapp.match import Match, Phase, Round, Verdict
from controller.rng import Rng
from controller.sim.bots import PlannedGrab, make_profiles, plan_round
from controller.sim.driver import COUNTDOWN_NS, RETURN_NS, match_rng, start_match
from controller.store import EventStore

FIGURE_KEYS = {"s": Figure.SHIP, "v": Figure.VIKING, "c": Figure.CHILD, "t": Figure.CHEST,
               "d": Figure.DOG}
QUIT_KEY = "q"
# A key's arrival time: a USB keyboard is polled every 8 ms (125 Hz), the
# terminal and the scheduler add a little (estimate).
KEY_UNCERTAINTY_NS = 10 * NS_PER_MS
KEY_HELP = "keys: s ship, v viking, c child, t chest, d dog; q quits"


class Keys(Protocol):
    """Where the person's key presses come from, timed on the table's clock."""

    def begin_card(self) -> None:
        """A card has just been shown: keys typed before it must not count."""
        ...

    def wait(self, until_ns: int) -> tuple[str, int] | None:
        """Return the next key and when it arrived, or None once the clock reaches `until_ns`."""
        ...


class TerminalKeys:
    """Single key presses from a terminal (or a pipe), timed as they arrive.

    Args:
        fd: the file descriptor to read (standard input).
        clock: the clock the keys are timed on.
    """

    def __init__(self, fd: int, *, clock: Clock) -> None:
        self.fd = fd
        self.clock = clock

    @contextmanager
    def cbreak(self) -> Iterator[TerminalKeys]:
        """Read keys one at a time without Enter while inside; restore the terminal after."""
        if not os.isatty(self.fd):
            yield self
            return
        import termios
        import tty

        saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        try:
            yield self
        finally:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, saved)

    def begin_card(self) -> None:
        """Drop whatever was typed ahead of the card."""
        if os.isatty(self.fd):
            import termios

            termios.tcflush(self.fd, termios.TCIFLUSH)

    def wait(self, until_ns: int) -> tuple[str, int] | None:
        """Block until a key arrives (its time taken at once) or until `until_ns`."""
        while True:
            left = until_ns - self.clock.now_ns()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left / NS_PER_S)
            if ready:
                t = self.clock.now_ns()
                data = os.read(self.fd, 1)
                # the end of the input is leaving the table
                return (data.decode("latin-1") if data else QUIT_KEY), t


_ANSI_BG = {Colour.BLUE: "44", Colour.RED: "41", Colour.GREEN: "42", Colour.YELLOW: "43",
            Colour.WHITE: "47"}
_ANSI_FG = {Colour.BLUE: "94", Colour.RED: "91", Colour.GREEN: "92", Colour.YELLOW: "93",
            Colour.WHITE: "97"}


def card_lines(card: Card, colour: bool) -> list[str]:
    """A three-line terminal picture of a card."""
    top, bottom = card.background

    def band(c: Colour, text: str) -> str:
        body = f" {text:<34}"
        return f"\x1b[{_ANSI_BG[c]};30m{body}\x1b[0m" if colour else f"[{body}]"

    fig = f"{card.paint.value.upper()} {card.figure.value.upper()}"
    mid = (f"\x1b[1;{_ANSI_FG[card.paint]};40m  {fig:<33}\x1b[0m" if colour
           else f"[  {fig:<33}]")
    return [band(top, background_name(top)), mid, band(bottom, background_name(bottom))]


def verdict_lines(match: Match, v: Verdict) -> list[str]:
    """The settled verdict as the table screen says it, then the scores."""
    rnd = match.rounds[v.round]
    if v.outcome == "won":
        lines = [f"=> {v.winner} wins the card: the {rnd.answer.title}"]
        lines.append("   " + _runner_up(rnd, v))
        if rnd.too_close:
            lines.append("   " + rnd.reason)
    elif v.outcome == "redeal":
        lines = ["=> Too close to call: the card is dealt again", "   " + rnd.reason]
    elif v.outcome == "boxed":
        lines = ["=> Nobody wins it: the card goes to the box", f"   ({rnd.reason})"]
    else:
        lines = [f"=> {v.reason}"]
    wrong = [c for c in rnd.claims if not c.correct]
    if wrong:
        lines.append("   wrong: " + ", ".join(f"{c.seat} took the {c.figure.title}"
                                              for c in wrong))
    lines.append("   " + rnd.explanation)
    lines.append("   score: " + "   ".join(f"{s} {n}" + (" " + "●" * n if n else "")
                                          for s, n in match.scores().items()))
    return lines


def _runner_up(rnd: Round, v: Verdict) -> str:
    if v.margin_ns is None:
        return "nobody else grabbed in time"
    first = next(c for c in rnd.claims if c.seat == v.winner and c.correct)
    later = sorted((c for c in rnd.claims if c is not first and c.ranked_ns >= first.ranked_ns),
                   key=lambda c: c.ranked_ns)
    nxt = later[0]
    what = "" if nxt.correct else f" (who took the {nxt.figure.title})"
    return (f"ahead of {nxt.seat}{what} by {v.margin_ns / NS_PER_S:.2f} s "
            f"(± {(v.uncertainty_ns or 0) / NS_PER_MS:.1f} ms)")


class SeatTable:
    """One match with a person at `seat` and bots at the other seats.

    Args:
        match: the match, opened from the store.
        seat: the person's seat.
        seed: the run's seed (the bots and their plans fork from it).
        keys: the person's key presses.
        clock: the clock everything is timed on.
        out: where the table is printed.
        colour: print the cards in ANSI colour.
    """

    def __init__(self, match: Match, seat: str, seed: int, *, keys: Keys, clock: Clock,
                 out: TextIO, colour: bool) -> None:
        self.match, self.seat, self.rng = match, seat, match_rng(seed, 0)
        self.keys, self.clock, self.out, self.colour = keys, clock, out, colour
        # the same bots as in a watched match of this seed (profiles fork by name)
        bots = [s for s in match.seats if s != seat]
        self.profiles = make_profiles(bots, Rng(seed).fork("players"))
        self.quit = False

    def say(self, *lines: str) -> None:
        """Print lines and flush them to the screen at once."""
        for line in lines:
            print(line, file=self.out)
        self.out.flush()

    def run(self) -> int:
        """Play until the match ends or the person quits; return the exit status."""
        m = self.match
        bots = ", ".join(p.name for p in self.profiles)
        self.say(f"Knapp daneben: you are {self.seat}; bots at {bots} "
                 f"(first to {m.rules.target or 'the end'}).", f"({KEY_HELP})")
        next_at = self.clock.now_ns() + COUNTDOWN_NS
        while not self.quit and m.phase is not Phase.ENDED:
            if m.phase is Phase.READY:
                if self._pause_until(next_at):
                    self._reveal()
            elif m.phase is Phase.OPEN:
                self._play_open_round()
            else:  # clearing: the figures go back
                back = self.clock.now_ns() + RETURN_NS
                if self._pause_until(back):
                    m.figures_home(self.clock.now_ns())
                    next_at = self.clock.now_ns() + COUNTDOWN_NS
        if self.quit:
            m.abandon("the person at the terminal left")
            self.say("", "You left the table. Score: "
                     + ", ".join(f"{s} {n}" for s, n in m.scores().items()))
            return 0
        self.say("", f"*** {' and '.join(m.winners)} won the match: "
                 f"{', '.join(f'{s} {n}' for s, n in m.scores().items())} ***")
        return 0

    def _pause_until(self, t_ns: int) -> bool:
        """Wait, ignoring keys but q; False if the person quit."""
        while (got := self.keys.wait(t_ns)) is not None:
            if got[0].lower() == QUIT_KEY:
                self.quit = True
                return False
        return True

    def _reveal(self) -> None:
        m = self.match
        card = m.next_card
        assert card is not None
        # Keys typed ahead are dropped before the card is shown, not after: dropped
        # after, a key pressed the moment the card appeared (or while this process
        # waited for a core between printing and dropping) was lost.
        self.keys.begin_card()
        self.say("", f"Card {len(m.rounds) + 1} (turned by {m.turner}):",
                 *("  " + line for line in card_lines(card, self.colour)),
                 "  your grab? s v c t d")
        # the card is on the screen now: the reaction time runs from here
        m.reveal(card, self.clock.now_ns())

    def _play_open_round(self) -> None:
        m = self.match
        rnd = m.current
        assert rnd is not None
        plans = sorted(plan_round(rnd.card, self.profiles, self.rng.fork(f"round:{rnd.index}")))
        while m.current is rnd and not self.quit:
            due = m.due_ns()
            assert due is not None
            bot = self._next_bot(rnd, plans, due)
            got = self.keys.wait(due if bot is None else rnd.reveal_ns + bot.delay_ns)
            if got is None:
                if bot is not None:
                    self._bot_grab(rnd, bot)
                else:
                    self._show_verdicts(m.advance(due))
                continue
            key, t = got
            self._catch_up(rnd, plans, t)
            if m.current is not rnd:
                self.say("  (too late: the card was already settled)")
            else:
                self._key(rnd, key.lower(), t)

    def _next_bot(self, rnd: Round, plans: list[PlannedGrab], due: int) -> PlannedGrab | None:
        done = {c.seat for c in rnd.claims} | rnd.locked
        for p in plans:
            if rnd.reveal_ns + p.delay_ns >= due:
                return None
            if p.seat not in done:
                return p
        return None

    def _catch_up(self, rnd: Round, plans: list[PlannedGrab], t: int) -> None:
        """Apply every bot grab and the settling that happened before the key at `t`."""
        m = self.match
        while m.current is rnd:
            due = m.due_ns()
            assert due is not None
            bot = self._next_bot(rnd, plans, due)
            if bot is not None and rnd.reveal_ns + bot.delay_ns <= t:
                self._bot_grab(rnd, bot)
            elif due <= t:
                self._show_verdicts(m.advance(due))
            else:
                return

    def _bot_grab(self, rnd: Round, bot: PlannedGrab) -> None:
        self._show_verdicts(self.match.grab(bot.seat, bot.figure, rnd.reveal_ns + bot.delay_ns,
                                            0, "sim"))
        self._show_claim(rnd.claims[-1].seat, rnd)

    def _key(self, rnd: Round, key: str, t: int) -> None:
        if key == QUIT_KEY:
            self.quit = True
            return
        figure = FIGURE_KEYS.get(key)
        if figure is None:
            if key.strip():
                self.say(f"  ({key!r} is no figure; {KEY_HELP})")
            return
        if self.seat in rnd.locked or any(c.seat == self.seat for c in rnd.claims):
            self.say("  (you have grabbed on this card already)")
            return
        self._show_verdicts(self.match.grab(self.seat, figure, t, KEY_UNCERTAINTY_NS,
                                            "keyboard"))
        self._show_claim(self.seat, rnd)

    def _show_claim(self, seat: str, rnd: Round) -> None:
        c = next(c for c in reversed(rnd.claims) if c.seat == seat)
        ok = "correct" if c.correct else "WRONG, out for this card"
        flag = " (jumped the gun?)" if c.anticipation else ""
        who = f"you ({seat}) take" if seat == self.seat else f"{seat} takes"
        self.say(f"  {c.reaction_ns / NS_PER_MS:7.0f} ms  {who} the {c.figure.title} "
                 f"({ok}){flag}")

    def _show_verdicts(self, verdicts: list[Verdict]) -> None:
        for v in verdicts:
            if not v.provisional:
                self.say(*verdict_lines(self.match, v))


def play_seat(store: EventStore, seats: tuple[str, ...], rules: Any, seed: int, seat: str, *,
              keys: Keys, clock: Clock, out: TextIO | None = None, first_turner: int = 0,
              colour: bool | None = None) -> int:
    """Play one match in the terminal with a person at `seat`; return the exit status."""
    out = out or sys.stdout
    mid, _ = start_match(store, seats, rules, seed, 0, first_turner=first_turner)
    table = SeatTable(store.open_match(mid), seat, seed, keys=keys, clock=clock, out=out,
                      colour=out.isatty() if colour is None else colour)
    return table.run()
