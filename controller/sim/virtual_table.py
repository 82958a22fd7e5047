"""A whole table's pads in simulation: the virtual board plus the real serial driver.

`VirtualTable` couples a `VirtualBoard` (firmware logic behind a pty) with a
`SerialPads` driver on one simulated clock. `play_round` takes the lifts the
simulated players intend (seat, figure, true time), performs them on the
simulated pads, and returns what the driver measured: the board's times on the
host clock, with their uncertainties. The simulation knows who lifted; it hands
these measured times to the referee instead of the true ones
(`knapp simulate --pads virtual-board`, via `virtual_board_measure`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.clock import FakeClock
from controller.knapp.cards import Figure, solve
from controller.pads.events import Item, PadError, PadEvent, PadStatus
from controller.pads.serial_link import SerialPads
from controller.rng import Rng
from controller.sim.bots import PlannedGrab
from controller.sim.driver import MeasuredGrab
from controller.sim.virtual_board import USB_JITTER, UsbJitter, VirtualBoard

if TYPE_CHECKING:
    from controller.knapp.events import MatchRules
    from controller.knapp.match import Round

SYNC_TIMEOUT_NS = 5_000_000_000
DETECT_MARGIN_NS = 60_000_000  # run this long past the last lift so it is surely reported
RETURN_AFTER_NS = 1_000_000_000
HOST_POLL_NS = 4_937_000  # figures go back this long after the round's last lift


@dataclass(frozen=True)
class PlannedLift:
    """A simulated player's lift: `figure` leaves its pad at true host time `t_ns`."""

    seat: str
    figure: Figure
    t_ns: int


@dataclass(frozen=True)
class MeasuredLift:
    """A lift as the pad board measured it, with the truth for comparison."""

    seat: str
    figure: Figure
    t_ns: int
    uncertainty_ns: int
    true_t_ns: int


@dataclass
class RoundResult:
    """What the pads saw of one round's lifts.

    Args:
        lifts: measured lifts, in measured time order.
        blocked: planned lifts of a figure already in someone's hand.
        missed: planned lifts the board did not report (should stay empty).
        statuses: link statuses seen during the round.
    """

    lifts: list[MeasuredLift] = field(default_factory=list)
    blocked: list[PlannedLift] = field(default_factory=list)
    missed: list[PlannedLift] = field(default_factory=list)
    statuses: list[PadStatus] = field(default_factory=list)


class VirtualTable:
    """The virtual board and the serial driver on one simulated clock.

    Args:
        seed: seeds the board (noise, jitter, clock offset, boot id).
        clock: the simulated host clock (a new one at 0 by default).
        figures: pad order.
        jitter: USB latency model.
        drift_ppm: the board crystal's error.
        tick0: the board's tick at boot (default: random).
        scan_us: the firmware's scan period.
    """

    def __init__(self, *, seed: int | str = 0, clock: FakeClock | None = None,
                 figures: Sequence[Figure] = tuple(Figure), jitter: UsbJitter = USB_JITTER,
                 drift_ppm: float = 35.0, tick0: int | None = None,
                 scan_us: int = 250) -> None:
        self.clock = clock or FakeClock()
        self.board = VirtualBoard(clock=self.clock, rng=Rng(seed).fork("board"),
                                  figures=figures, jitter=jitter, drift_ppm=drift_ppm,
                                  tick0=tick0, scan_us=scan_us)
        self.pads = SerialPads(self.board.port, clock=self.clock, figures=figures)
        self.items: list[Item] = []

    def _host(self) -> None:
        self.items.extend(self.pads.poll())

    def run_until(self, t_ns: int) -> list[Item]:
        """Advance to `t_ns`; return what the driver reported on the way."""
        start = len(self.items)
        # The host polls on its own cadence, not locked to the 1 ms USB frames.
        self.board.run_until(t_ns, self._host, host_poll_ns=HOST_POLL_NS,
                             counters=lambda: (self.pads.rx_bytes, self.pads.tx_bytes))
        return self.items[start:]

    def start(self) -> None:
        """Run until the driver has synchronised its clock with the board.

        Raises:
            PadError: no sync within 5 s of simulated time.
        """
        deadline = self.clock.now_ns() + SYNC_TIMEOUT_NS
        while not self.pads.synced:
            if self.clock.now_ns() >= deadline:
                raise PadError("virtual board: no clock sync within 5 s: "
                               f"{[i for i in self.items if isinstance(i, PadStatus)]}")
            self.run_until(self.clock.now_ns() + 50_000_000)

    def play_round(self, lifts: Sequence[PlannedLift]) -> RoundResult:
        """Perform `lifts` on the pads and return what the driver measured.

        Every lifted figure goes back on its pad a second after the round's last
        lift. A lift of a figure that is already off its pad (someone else
        holds it) is `blocked`: it cannot happen on a real table either.

        Raises:
            ValueError: a lift lies in the simulated past.
        """
        if not self.pads.synced:
            self.start()
        now = self.clock.now_ns()
        result = RoundResult()
        done: list[PlannedLift] = []
        for p in sorted(lifts, key=lambda p: p.t_ns):
            if p.t_ns < now:
                raise ValueError(f"lift of {p.figure} by {p.seat} at {p.t_ns} ns is before the "
                                 f"virtual table's clock ({now} ns)")
            if not self.board.placed_at(p.figure, p.t_ns):
                result.blocked.append(p)
                continue
            self.board.lift(p.figure, p.t_ns)
            done.append(p)
        if not done:
            return result
        last = done[-1].t_ns
        for i, p in enumerate(done):
            self.board.place(p.figure, last + RETURN_AFTER_NS + i * 150_000_000)
        start = len(self.items)
        self.run_until(last + DETECT_MARGIN_NS)
        seen = self.items[start:]
        result.statuses = [i for i in seen if isinstance(i, PadStatus)]
        events = [e for e in seen if isinstance(e, PadEvent) and e.kind == "lift"]
        for p in done:
            match = next((e for e in events if e.figure == p.figure), None)
            if match is None:
                result.missed.append(p)
                continue
            events.remove(match)
            result.lifts.append(MeasuredLift(p.seat, p.figure, match.t_ns,
                                             match.uncertainty_ns, p.t_ns))
        result.lifts.sort(key=lambda m: m.t_ns)
        return result

    def close(self) -> None:
        """Close the driver and the board."""
        self.pads.close()
        self.board.close()

    def __enter__(self) -> VirtualTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class VirtualBoardMeasure:
    """The simulation driver's `measure` hook, timing grabs on the virtual board.

    Called once per round with the players' planned grabs; returns the grabs
    the pads measured (board times on the host clock, with uncertainties).
    Grabs planned after the round is decided (the first correct lift plus the
    collection window) are not performed: players see the verdict. A second
    grab of a figure someone already holds cannot lift it and is dropped.
    When the simulated time starts over (the next match), a freshly booted
    table is used. Call `close()` at the end.

    Args:
        seed: seeds the virtual boards.
        rules: the match rules (collection window, card timeout).
        jitter: USB latency model.
    """

    def __init__(self, seed: int | str, rules: MatchRules, *,
                 jitter: UsbJitter = USB_JITTER) -> None:
        self.seed = seed
        self.rules = rules
        self.jitter = jitter
        self.table: VirtualTable | None = None
        self.tables = 0
        self.rounds = 0
        self.grabs = 0
        self.blocked = 0
        self.missed = 0
        self.max_error_ns = 0
        self.max_uncertainty_ns = 0

    def __call__(self, rnd: Round, plans: list[PlannedGrab]) -> list[MeasuredGrab]:
        answer = solve(rnd.card).answer
        correct = [rnd.reveal_ns + p.delay_ns for p in plans if p.figure == answer]
        close_ns = (min(correct) + self.rules.collection_window_ns if correct
                    else rnd.reveal_ns + self.rules.card_timeout_ns)
        lifts = [PlannedLift(p.seat, p.figure, rnd.reveal_ns + p.delay_ns) for p in plans
                 if rnd.reveal_ns + p.delay_ns <= close_ns]
        if self.table is None or (lifts and min(p.t_ns for p in lifts)
                                  < self.table.clock.now_ns()):
            if self.table is not None:
                self.table.close()
            self.tables += 1
            self.table = VirtualTable(seed=f"{self.seed}:{self.tables}", jitter=self.jitter)
        res = self.table.play_round(lifts)
        self.rounds += 1
        self.grabs += len(res.lifts)
        self.blocked += len(res.blocked)
        self.missed += len(res.missed)
        for m in res.lifts:
            self.max_error_ns = max(self.max_error_ns, abs(m.t_ns - m.true_t_ns))
            self.max_uncertainty_ns = max(self.max_uncertainty_ns, m.uncertainty_ns)
        return [MeasuredGrab(m.seat, m.figure.value, m.t_ns, m.uncertainty_ns, "serial")
                for m in res.lifts]

    def summary(self) -> str:
        """One line for the simulation's report."""
        return (f"virtual pad board: {self.grabs} grabs timed in {self.rounds} rounds, "
                f"largest error {self.max_error_ns / 1e6:.3f} ms, largest uncertainty "
                f"{self.max_uncertainty_ns / 1e6:.3f} ms, {self.blocked} grabs of a held "
                f"figure, {self.missed} missed")

    def close(self) -> None:
        """Close the current virtual table."""
        if self.table is not None:
            self.table.close()
            self.table = None


def virtual_board_measure(seed: int | str, rules: MatchRules, *,
                          jitter: UsbJitter = USB_JITTER) -> VirtualBoardMeasure:
    """Return a `measure` for `controller.sim.driver.simulate` timing grabs on the virtual board."""
    return VirtualBoardMeasure(seed, rules, jitter=jitter)
