"""Koob (Kubb): scorekeeper and referee assistant for the lawn game.

Koob is thrown on grass, not played on the screen: the teams enter what
happened and this state machine keeps the count and refuses entries the rules
do not allow. A seat is a team (seat 0 and seat 1); each team's entries are
its own tosses and batons, its throw-ins of the koobs it lost, and the
placement of the opponent's missed throw-ins.

Entries (canonical text form, parsed by `Action.parse`):

- ``toss:D`` / ``toss:king``: the opening toss at the king, D centimetres from
  it (0-800), or the toss toppled the king (disqualified).
- ``baton:F,B,K``: one baton: F field koobs and B baseline koobs knocked in the
  opponent's half, K = 1 if the king fell.
- ``koob:in`` / ``koob:out``: a throw-in attempt landed in the opponent's half
  or missed (two attempts per koob).
- ``place:clear`` / ``place:near``: where the opponent placed a koob that
  missed twice: at least one baton length from the king and the corner pegs,
  or nearer (refused under the World Championship placement option).

The seed text is the specification; completions and interpretations are in
docs/rules/koob.md, each marked there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from controller.errors import IllegalAction
from controller.games.base import Action, Bot, Game, GameEvent, GameState, Option, Seat, copy_rng
from controller.rng import Rng

KOOBS_PER_TEAM = 5  # seed: "Both teams then randomly place five blocks (koobs) on their baseline."
BATONS_PER_TURN = 6  # seed: "tossing the six batons"
THROW_IN_ATTEMPTS = 2  # seed: "You get two attempts to land each downed koob"
MAX_TOSS_CM = 800  # a 5 x 7 yd pitch: no honest toss lands farther than 8 m from the king
OPENING_246 = (2, 4)  # World Championship 2-4-6 opening: batons in the first two turns

TEAM_NAMES = ("team 1", "team 2")  # seats 0 and 1, counted from 1 as the room log and screen do

_TOSS_ACTIONS: tuple[Action, ...] = (
    *(Action("toss", (d,)) for d in range(MAX_TOSS_CM + 1)),
    Action("toss", ("king",)),
)
_THROW_IN_ACTIONS: tuple[Action, ...] = (Action("koob", ("in",)), Action("koob", ("out",)))
_PLACE_ACTIONS: dict[str, tuple[Action, ...]] = {
    "anywhere": (Action("place", ("clear",)), Action("place", ("near",))),
    "baton_length": (Action("place", ("clear",)),),
}


class KoobGame(Game):
    """Koob for two teams of one to six players."""

    id = "koob"
    name = "Koob"
    min_seats = 2
    max_seats = 2
    default_seats = 2
    has_bots = False
    summary = "Scorekeeper for the Viking lawn game: knock the opposing koobs, then the king"
    options_schema: ClassVar[dict[str, Option]] = {
        "players": Option(2, "players on the pitch, split into two even teams (seed: 2-12)",
                          (2, 4, 6, 8, 10, 12)),
        "opening": Option("standard", "standard: six batons every turn; 2-4-6: the first "
                          "two turns throw two and four batons (World Championship)",
                          ("standard", "2-4-6")),
        "placement": Option("anywhere", "where a koob that missed twice may be placed: "
                            "anywhere in the half (seed) or at least one baton length from "
                            "the king and the pegs (baton_length, World Championship)",
                            ("anywhere", "baton_length")),
        "king_with_last": Option("loses", "the king falling on the same baton as the last "
                                 "koob: that team loses (king must be last) or wins",
                                 ("loses", "wins")),
        "best_of": Option(1, "sets in a match: one game (seed) or best of three",
                          (1, 3)),
    }

    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> KoobState:
        """A match at the opening toss."""
        self.check_seats(seats)
        return KoobState(options, rng)

    def state_from_json(self, data: dict[str, Any]) -> KoobState:
        """Rebuild a state from `KoobState.to_json` output."""
        return KoobState.from_json(data)


class KoobState(GameState):
    """A Koob match as entered by the teams.

    Halves are numbered by the team that defends them: half T holds team T's
    baseline koobs and the field koobs thrown into T's half, which the other
    team must knock down.
    """

    game_id = "koob"
    seat_rule = "teams"

    def __init__(self, options: dict[str, Any], rng: Rng) -> None:
        self.num_seats = 2
        self.options = dict(options)
        self.rng = rng  # Koob has no chance; kept for the common state format
        self.phase = "toss"
        self.tosses: list[int | str | None] = [None, None]
        self.attacker = 0
        self.base = [KOOBS_PER_TEAM, KOOBS_PER_TEAM]
        self.field = [0, 0]
        self.knocked = 0  # koobs knocked this turn, waiting to be thrown in
        self.batons_left = 0
        self.turn = 0  # turns thrown in this set
        self.attempt = 1
        self.set_no = 1
        self.sets_won = [0, 0]
        self.set_starter: int | None = None
        self.winner: int | None = None

    # -- queries -----------------------------------------------------------

    def actors(self) -> frozenset[Seat]:
        """Who enters next: both teams at the toss, else one team."""
        if self.phase == "toss":
            return frozenset(t for t in (0, 1) if self.tosses[t] is None)
        if self.phase == "throw":
            return frozenset((self.attacker,))
        if self.phase == "throw_in":
            return frozenset((1 - self.attacker,))
        if self.phase == "place":
            return frozenset((self.attacker,))
        return frozenset()

    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every entry `seat` may make now."""
        if seat not in self.actors():
            return []
        if self.phase == "toss":
            return list(_TOSS_ACTIONS)
        if self.phase == "throw":
            d = 1 - self.attacker
            return [Action("baton", (f, b, k))
                    for f in range(self.field[d] + 1)
                    for b in range(self.base[d] + 1)
                    for k in (0, 1)]
        if self.phase == "throw_in":
            return list(_THROW_IN_ACTIONS)
        return list(_PLACE_ACTIONS[self.options["placement"]])

    def is_terminal(self) -> bool:
        """True once a team has won the match."""
        return self.phase == "over"

    def returns(self) -> list[float]:
        """1 for the team that won the match, 0 for the other (0, 0 while playing)."""
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if t == self.winner else 0.0 for t in (0, 1)]

    def conservation(self) -> dict[str, int]:
        """Koobs are never created or lost: standing, knocked and in flight sum to ten."""
        return {"koobs": sum(self.base) + sum(self.field) + self.knocked}

    def batons_for_turn(self) -> int:
        """Batons for the turn about to start (2-4-6 opening aware)."""
        if self.options["opening"] == "2-4-6" and self.turn < len(OPENING_246):
            return OPENING_246[self.turn]
        return BATONS_PER_TURN

    def observation(self, seat: Seat | None) -> dict[str, Any]:
        """The score sheet; Koob has no hidden information, so every seat sees it all."""
        return {
            "game": "koob",
            "seat": seat,
            "phase": self.phase,
            "players_per_team": self.options["players"] // 2,
            "set": self.set_no,
            "best_of": self.options["best_of"],
            "sets_won": list(self.sets_won),
            "set_starter": self.set_starter,
            "tosses": list(self.tosses),
            "attacker": self.attacker if self.phase != "toss" else None,
            "batons_left": self.batons_left,
            "halves": [{"baseline": self.base[t], "field": self.field[t]} for t in (0, 1)],
            "knocked": self.knocked,
            "attempt": self.attempt if self.phase == "throw_in" else None,
            "winner": self.winner,
        }

    # -- entries -----------------------------------------------------------

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Record one entry; refuse (changing nothing) what the rules do not allow."""
        self.check_actor(seat)
        handler = {"toss": self._toss, "throw": self._baton,
                   "throw_in": self._throw_in, "place": self._place}[self.phase]
        return handler(seat, action)

    def no_seat_message(self, seat: Seat) -> str:
        """There are two teams, not seats."""
        return f"there are two teams (seats 0 and 1: team 1 and team 2), got seat {seat}"

    def game_over_message(self) -> str:
        """Name the winning team."""
        return f"the match is over: {TEAM_NAMES[self.winner or 0]} won"

    def turn_message(self, seat: Seat) -> str:
        """Name the team(s) and the entries being waited for."""
        return f"{TEAM_NAMES[seat]} may not enter now: waiting for {_waiting_for(self)}"

    def _toss(self, seat: Seat, action: Action) -> list[GameEvent]:
        if action.kind != "toss" or len(action.args) != 1:
            raise IllegalAction("opening-toss", "each team first tosses one baton at the king: "
                                f"enter toss:CM or toss:king, got {action}")
        (arg,) = action.args
        if arg != "king" and not (isinstance(arg, int) and 0 <= arg <= MAX_TOSS_CM):
            raise IllegalAction("opening-toss", f"a toss lands 0-{MAX_TOSS_CM} cm from the king "
                                f"(or topples it: toss:king), got {arg!r}")
        self.tosses[seat] = arg
        events = [GameEvent("tossed", {"team": seat, "result": arg})]
        if self.tosses[0] is None or self.tosses[1] is None:
            return events
        first = _toss_winner(self.tosses[0], self.tosses[1])
        if first is None:
            events.append(GameEvent("retoss", {"tosses": list(self.tosses),
                                               "reason": "tie or both toppled the king"}))
            self.tosses = [None, None]
            return events
        self.set_starter = first
        events.append(self._start_turn(first))
        return events

    def _baton(self, seat: Seat, action: Action) -> list[GameEvent]:
        d = 1 - seat
        args = action.args
        if action.kind != "baton" or len(args) != 3 or not all(isinstance(a, int) for a in args):
            raise IllegalAction("batons", f"{TEAM_NAMES[seat]} is throwing batons: enter "
                                f"baton:FIELD,BASELINE,KING, got {action}")
        f, b, k = (int(a) for a in args)
        if not 0 <= f <= self.field[d]:
            raise IllegalAction("koob-count", f"{f} field koobs knocked, but {self.field[d]} "
                                f"stand in {TEAM_NAMES[d]}'s half")
        if not 0 <= b <= self.base[d]:
            raise IllegalAction("koob-count", f"{b} baseline koobs knocked, but {self.base[d]} "
                                f"stand on {TEAM_NAMES[d]}'s baseline")
        if k not in (0, 1):
            raise IllegalAction("koob-count", f"the king falls (1) or stands (0), got {k}")
        was_clear = self.field[d] == 0 and self.base[d] == 0
        # Seed: "Any koobs ... thrown back onto their side ... must be knocked down
        # first ... If a koob on the baseline is knocked down before a field koob,
        # then it is set back up again." A baton that fells the last field koob
        # together with baseline koobs knocked nothing *before* a field koob, so
        # those count (interpretation, docs/rules/koob.md).
        counted_b = b if f == self.field[d] else 0
        stood_up = b - counted_b
        self.field[d] -= f
        self.base[d] -= counted_b
        self.knocked += f + counted_b
        self.batons_left -= 1
        events = [GameEvent("baton", {"team": seat, "field": f, "baseline": counted_b,
                                      "king": k, "batons_left": self.batons_left})]
        if stood_up:
            events.append(GameEvent("stood_up", {"team": d, "baseline": stood_up,
                                                 "reason": "field koobs must fall first"}))
        if k:
            clear_now = self.field[d] == 0 and self.base[d] == 0
            wins = was_clear or (clear_now and self.options["king_with_last"] == "wins")
            reason = ("king after every koob" if was_clear else
                      "king with the last koob" if clear_now else "king before every koob fell")
            events.append(GameEvent("king", {"team": seat, "wins": wins, "reason": reason}))
            events.extend(self._end_set(seat if wins else d))
            return events
        if self.batons_left == 0:
            events.append(GameEvent("turn_over", {"team": seat, "knocked": self.knocked}))
            if self.knocked:
                self.phase = "throw_in"
                self.attempt = 1
            else:
                events.append(self._start_turn(d))
        return events

    def _throw_in(self, seat: Seat, action: Action) -> list[GameEvent]:
        if action not in _THROW_IN_ACTIONS:
            raise IllegalAction("throw-in", f"{TEAM_NAMES[seat]} throws its knocked koobs into "
                                f"{TEAM_NAMES[1 - seat]}'s half: enter koob:in or koob:out, "
                                f"got {action}")
        a = self.attacker
        if action.args[0] == "in":
            self.knocked -= 1
            self.field[a] += 1
            events = [GameEvent("koob_landed", {"team": seat, "half": a,
                                                "attempt": self.attempt})]
            return events + self._next_throw_in()
        if self.attempt < THROW_IN_ATTEMPTS:
            self.attempt += 1
            return [GameEvent("koob_missed", {"team": seat, "attempt": self.attempt - 1})]
        self.phase = "place"
        return [GameEvent("koob_missed", {"team": seat, "attempt": self.attempt}),
                GameEvent("punishment_koob", {"placed_by": a, "half": a})]

    def _place(self, seat: Seat, action: Action) -> list[GameEvent]:
        allowed = _PLACE_ACTIONS[self.options["placement"]]
        if action not in allowed:
            if action == Action("place", ("near",)):
                raise IllegalAction("punishment-placement", "a koob that missed twice must "
                                    "stand at least one baton length from the king and the "
                                    "corner pegs (placement=baton_length)")
            raise IllegalAction("punishment-placement", f"{TEAM_NAMES[seat]} places the koob "
                                f"that missed twice: enter "
                                f"{' or '.join(str(x) for x in allowed)}, got {action}")
        self.knocked -= 1
        self.field[seat] += 1
        events = [GameEvent("placed", {"team": seat, "where": action.args[0]})]
        return events + self._next_throw_in()

    # -- helpers -----------------------------------------------------------

    def _next_throw_in(self) -> list[GameEvent]:
        if self.knocked:
            self.phase = "throw_in"
            self.attempt = 1
            return []
        return [self._start_turn(1 - self.attacker)]

    def _start_turn(self, team: int) -> GameEvent:
        self.phase = "throw"
        self.attacker = team
        self.batons_left = self.batons_for_turn()
        self.turn += 1
        return GameEvent("turn", {"team": team, "batons": self.batons_left, "set": self.set_no})

    def _end_set(self, winner: int) -> list[GameEvent]:
        self.sets_won[winner] += 1
        events = [GameEvent("set_won", {"team": winner, "set": self.set_no,
                                        "sets_won": list(self.sets_won)})]
        if self.sets_won[winner] * 2 > self.options["best_of"]:
            self.winner = winner
            self.phase = "over"
            self.batons_left = 0
            events.append(GameEvent("won", {"team": winner, "sets_won": list(self.sets_won)}))
            return events
        # Interpretation (docs/rules/koob.md): the team that lost the set starts the next.
        loser = 1 - winner
        self.set_no += 1
        self.base = [KOOBS_PER_TEAM, KOOBS_PER_TEAM]
        self.field = [0, 0]
        self.knocked = 0
        self.turn = 0
        self.set_starter = loser
        events.append(self._start_turn(loser))
        return events

    # -- JSON --------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The full state as JSON-able data."""
        return {
            "game": "koob", "options": dict(self.options), "rng": self.rng.to_json(),
            "phase": self.phase, "tosses": list(self.tosses), "attacker": self.attacker,
            "base": list(self.base), "field": list(self.field), "knocked": self.knocked,
            "batons_left": self.batons_left, "turn": self.turn, "attempt": self.attempt,
            "set_no": self.set_no, "sets_won": list(self.sets_won),
            "set_starter": self.set_starter, "winner": self.winner,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KoobState:
        """Rebuild a state from `to_json` output."""
        state = cls(dict(data["options"]), Rng.from_json(data["rng"]))
        state.phase = data["phase"]
        state.tosses = list(data["tosses"])
        state.attacker = int(data["attacker"])
        state.base = [int(x) for x in data["base"]]
        state.field = [int(x) for x in data["field"]]
        state.knocked = int(data["knocked"])
        state.batons_left = int(data["batons_left"])
        state.turn = int(data["turn"])
        state.attempt = int(data["attempt"])
        state.set_no = int(data["set_no"])
        state.sets_won = [int(x) for x in data["sets_won"]]
        state.set_starter = data["set_starter"]
        state.winner = data["winner"]
        return state

    def clone(self) -> KoobState:
        """An independent copy: the lists copied, everything else is a number or a string."""
        new = KoobState.__new__(KoobState)
        new.__dict__.update(self.__dict__)
        new.opening_events = ()
        new.options = dict(self.options)
        new.rng = copy_rng(self.rng)
        new.tosses = list(self.tosses)
        new.base = list(self.base)
        new.field = list(self.field)
        new.sets_won = list(self.sets_won)
        return new


def _toss_winner(a: int | str | None, b: int | str | None) -> int | None:
    """The team whose toss is closer without toppling the king; None: toss again."""
    a_ok, b_ok = isinstance(a, int), isinstance(b, int)
    if a_ok and b_ok:
        assert isinstance(a, int) and isinstance(b, int)
        return None if a == b else (0 if a < b else 1)
    if a_ok:
        return 0
    if b_ok:
        return 1
    return None


def _waiting_for(state: KoobState) -> str:
    teams = " and ".join(TEAM_NAMES[t] for t in sorted(state.actors()))
    what = {"toss": "the opening toss", "throw": "batons", "throw_in": "throw-ins",
            "place": "placing a koob that missed twice"}.get(state.phase, "nothing")
    return f"{teams} ({what})"


GAME = KoobGame()
BOTS: dict[str, Callable[[Seat, Rng], Bot]] = {}  # a physical game: no computer players
