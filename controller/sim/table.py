"""Simulated people at a table service: bots that grab, hands that put figures back.

The simulation plays the table's physical world through the same seams as the
real one: a grab lifts a figure on the simulated pads (`SimPads`), and who took
it arrives as an attribution, as a camera would report it; a second hand on a
figure already off its pad is a contact claim. The service cannot tell a
simulated grab from a real one, so simulation mode exercises the product's own
path from lift to verdict.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.clock import Clock
from controller.config import TableConfig
from controller.errors import IllegalEvent
from controller.knapp.cards import Figure
from controller.knapp.match import Phase, Round
from controller.pads.sim import SimPads
from controller.referee.fusion import Attribution
from controller.referee.service import TableService
from controller.rng import Rng
from controller.sim.bots import PlayerProfile, make_profiles, plan_round
from controller.store import EventStore

# A second hand on a figure already off its pad is timed like one camera frame.
CONTACT_UNCERTAINTY_NS = 8_000_000


@dataclass(frozen=True, slots=True)
class _PlannedLift:
    delay_ns: int  # after the card was shown
    seat: str
    figure: Figure


class SimulatedTable:
    """Simulated players in the last `bots` seats, and figures put back after each card.

    Args:
        service: the table they play at.
        pads: the service's simulated pads.
        bots: how many seats simulated players take (the last ones).
        wait_for_people: deal no card until someone starts (`start`, or a grab
            before the first card) while a seat is a person's; a table of bots
            only plays by itself.
    """

    def __init__(self, service: TableService, pads: SimPads, *, bots: int,
                 wait_for_people: bool = False) -> None:
        self.service = service
        self.pads = pads
        self.bots = bots
        self._wait_for_people = wait_for_people
        self._started = not wait_for_people
        self._planned_round: int | None = None
        self._lifts: list[_PlannedLift] = []

    @property
    def seats(self) -> tuple[str, ...]:
        """The seats simulated players take."""
        seats = self.service.config.seats
        return tuple(seats[len(seats) - self.bots:]) if self.bots else ()

    @property
    def profiles(self) -> list[PlayerProfile]:
        """The simulated players' profiles (seeded by the match)."""
        seed = self.service.match.seed or 0
        return make_profiles(self.seats, Rng(seed).fork("players"))

    @property
    def waiting(self) -> bool:
        """True while nobody started and a seat is a person's (so a person could play)."""
        return not self._started and self.bots < len(self.service.config.seats)

    def start(self) -> None:
        """Someone is at the table: deal."""
        self._started = True

    def reseat(self, seats: tuple[str, ...]) -> None:
        """Keep the number of simulated players within the new seats, and wait again.

        A new setup is made on the setup page, often away from the table: the new
        match waits for Start like the first one, so its people do not miss its cards.
        """
        self.bots = min(self.bots, len(seats))
        if self._wait_for_people:
            self._started = False

    def act(self, now_ns: int) -> None:
        """Grab what the bots planned to grab by now; put figures back once a card is settled."""
        rnd = self.service.match.current
        if rnd is not None:
            self._bots_grab(rnd, now_ns)
        self._put_back(now_ns)

    def grab(self, seat: str, figure: Figure, t_ns: int) -> None:
        """`seat` grabs `figure` at `t_ns`: a pad lift and who took it, or a second hand."""
        service = self.service
        rnd = service.match.current
        if rnd is None and self.waiting:
            self.start()  # a hand reaching for the figures before the first card: go
            return
        if rnd is None:
            raise IllegalEvent("no card is open")
        if seat in rnd.locked or any(c.seat == seat for c in rnd.claims):
            raise IllegalEvent(f"{seat} already grabbed on this card")
        if figure in service.fusion.off_pad or not self._lift(figure, t_ns):
            service.contact(seat, figure, t_ns, CONTACT_UNCERTAINTY_NS, "sim contact")
            return
        # The lift is queued on the pads and drained after this step, so who took it
        # reaches the fusion first: the camera's decision before its pad lift, the
        # order the fusion must handle anyway.
        service.attribute(figure, [Attribution(figure, seat, 1.0, t_ns, 0, "sim")])

    def _lift(self, figure: Figure, t_ns: int) -> bool:
        """Lift `figure` on the pads; False when an earlier grab not yet drained lifted it."""
        try:
            self.pads.lift(figure, t_ns)
        except ValueError:
            return False
        return True

    def _bots_grab(self, rnd: Round, now_ns: int) -> None:
        if self._planned_round != rnd.index:
            self._planned_round = rnd.index
            self._lifts = []
            if self.bots:
                rng = Rng(self.service.match.seed or 0).fork(f"kiosk-round:{rnd.index}")
                self._lifts = [_PlannedLift(g.delay_ns, g.seat, g.figure)
                               for g in plan_round(rnd.card, self.profiles, rng)]
        # Delays count from the best reveal time known now: a simulated player
        # cannot react before the display actually painted the card.
        while self._lifts and rnd.reveal_ns + self._lifts[0].delay_ns <= now_ns:
            lift = self._lifts.pop(0)
            if lift.seat not in rnd.locked and all(c.seat != lift.seat for c in rnd.claims):
                self.grab(lift.seat, lift.figure, rnd.reveal_ns + lift.delay_ns)

    def _put_back(self, now_ns: int) -> None:
        m = self.service.match
        off = self.service.fusion.off_pad
        stray = [f for f, on in self.pads.placed().items() if on is False and f not in off]
        if m.phase is Phase.READY and stray:
            # Figures still off from a match that ended or was replaced (a rematch):
            # the people put them back before the next card.
            for fig in sorted(stray, key=lambda f: f.value):
                self.pads.place(fig, now_ns)
            return
        if m.phase is not Phase.CLEARING and not (m.phase is Phase.ENDED and off):
            return
        settled = m.rounds[-1].settled_ns if m.rounds else None
        if settled is None or now_ns < settled + self.service.kiosk.sim_return_ns:
            return
        for fig in sorted(off, key=lambda f: f.value):
            if self.pads.placed().get(fig) is False:
                self.pads.place(fig, now_ns)


def simulated_service(config: TableConfig, *, store: EventStore, clock: Clock | None = None,
                      bots: int | None = None, seed: int | None = None,
                      wall: Callable[[], float] = time.time,
                      wait_for_people: bool = False) -> TableService:
    """A table service on simulated pads with simulated players (the kiosk's simulation mode).

    Args:
        bots: seats taken by simulated players (the last ones); None takes `[kiosk] bots`.
        wait_for_people: no card until someone starts, while a seat is a person's
            (`knapp serve --sim`; see `SimulatedTable`).
    """
    service = TableService(config, store=store, clock=clock, seed=seed, wall=wall)
    assert isinstance(service.pads, SimPads)
    n = config.kiosk.bots if bots is None else bots
    service.simulate(SimulatedTable(service, service.pads, bots=n,
                                    wait_for_people=wait_for_people))
    return service
