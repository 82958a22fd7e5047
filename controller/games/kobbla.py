"""Kobbla: jump white stones into a bridge, run your Kobb across it and out.

The seed rule text is the whole specification; every reading of it is listed in
docs/rules/kobbla.md and the contested ones are options. In short:

* A 6 x 8 board: files a-f, ranks 1-8. Seat 0 is South (home rank 1, leaves
  over rank 8), seat 1 is North (home rank 8, leaves over rank 1).
* Wilderness set-up: each home rank full of white stones, plus a shared pair on
  c4 and c5. Each Kobb stands on a stone of its owner's home rank.
* A turn is two actions by the same seat: first a compulsory white move (one
  action with the chain's start and end, ``white:c4,c6``), then an optional Kobb
  move (``kobb:d1``, ``exit:c8`` or ``stay``). `actors()` stays the same seat
  until the turn ends. The Kobb phase is skipped when the Kobb has no move.
* The tail is the straight run of stones behind the exit square; the longest
  tail wins once both Kobbs are out (or at the turn limit, where a Kobb still on
  the board scores 0).

Positions have a one-line notation (KFN), in the spirit of chess FEN::

    wwwwww/6/6/2w3/2w3/6/6/wwwwww S p - 0

ranks 8 to 1 (``w`` stone, ``S``/``N`` a stone carrying South's/North's Kobb,
digits are runs of empty squares), the side to move, the phase (``p`` place
Kobbs, ``w`` white move, ``k`` Kobb move, ``x`` over), the exits so far in order
(``S3,N5``: seat and tail length, ``-`` for none) and the turns played.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from controller.errors import IllegalAction
from controller.games.base import Action, Bot, Game, GameEvent, GameState, Option, RandomBot, Seat
from controller.rng import Rng

# ---------------------------------------------------------------------------
# Board geometry and move encoding
# ---------------------------------------------------------------------------

FILES = "abcdef"
COLS = 6
ROWS = 8
NUM_SQUARES = COLS * ROWS
SEAT_LETTERS = "SN"
SEAT_NAMES = ("South", "North")
HOME_ROW = (0, ROWS - 1)
FAR_ROW = (ROWS - 1, 0)
FORWARD = (1, -1)  # row step towards the far edge, per seat
WHITE_STONES = 14

UNPLACED = -1  # a Kobb not yet put on the board (kobb_start="choose")
OUT = -2  # a Kobb that has jumped out

WILDERNESS = "wwwwww/6/6/2w3/2w3/6/6/wwwwww"

SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[i % COLS]}{i // COLS + 1}"
                                      for i in range(NUM_SQUARES))
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}

PHASE_PLACE, PHASE_WHITE, PHASE_KOBB, PHASE_OVER = "p", "w", "k", "x"
_PHASES = (PHASE_PLACE, PHASE_WHITE, PHASE_KOBB, PHASE_OVER)


def _row(sq: int) -> int:
    return sq // COLS


def _col(sq: int) -> int:
    return sq % COLS


def _build_geometry() -> tuple[tuple[tuple[int, ...], ...],
                               tuple[tuple[tuple[int, int, int], ...], ...]]:
    steps: list[tuple[int, ...]] = []
    jumps: list[tuple[tuple[int, int, int], ...]] = []
    deltas = ((1, 0), (-1, 0), (0, 1), (0, -1))
    for sq in range(NUM_SQUARES):
        r, c = _row(sq), _col(sq)
        near: list[int] = []
        jmp: list[tuple[int, int, int]] = []
        for d, (dr, dc) in enumerate(deltas):
            r1, c1, r2, c2 = r + dr, c + dc, r + 2 * dr, c + 2 * dc
            near.append(r1 * COLS + c1 if 0 <= r1 < ROWS and 0 <= c1 < COLS else -1)
            if 0 <= r2 < ROWS and 0 <= c2 < COLS:
                jmp.append((d, r1 * COLS + c1, r2 * COLS + c2))
        steps.append(tuple(near))
        jumps.append(tuple(jmp))
    return tuple(steps), tuple(jumps)


# _STEP[sq][d]: the neighbour in direction d (0 up, 1 down, 2 right, 3 left) or -1.
# _JUMPS[sq]: (direction, square jumped over, landing square) for every jump on the board.
_STEP, _JUMPS = _build_geometry()

STAY = Action("stay")
SKIP = Action("skip")
_WHITE_ACTIONS = {(a, b): Action("white", (SQUARE_NAMES[a], SQUARE_NAMES[b]))
                  for a in range(NUM_SQUARES) for b in range(NUM_SQUARES) if a != b}
_KOBB_ACTIONS = tuple(Action("kobb", (n,)) for n in SQUARE_NAMES)
_EXIT_ACTIONS = tuple(Action("exit", (n,)) for n in SQUARE_NAMES)
_PLACE_ACTIONS = tuple(Action("place", (n,)) for n in SQUARE_NAMES)


def square_index(name: str) -> int:
    """The index (0-47, a1=0, f8=47) of a square named like "c4".

    >>> square_index("a1"), square_index("f8")
    (0, 47)
    """
    try:
        return _SQUARE_INDEX[name]
    except (KeyError, TypeError):
        raise IllegalAction("notation", f"{name!r} is not a square (a1 to f8)") from None


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class KobblaGame(Game):
    """Kobbla for two players (the seed's only player count)."""

    id = "kobbla"
    name = "Kobbla"
    min_seats = 2
    max_seats = 2
    default_seats = 2
    summary = "Jump white stones into a bridge, run your Kobb across and out with the longest tail"
    options_schema: ClassVar[dict[str, Option]] = {
        "setup": Option("wilderness", "start position: 'wilderness' or a KFN board field "
                        "(ranks 8..1, w/S/N, digits for empty runs)"),
        "kobb_start": Option("choose", "where the Kobbs start: each player chooses a stone of "
                             "their home rank, or a fixed file (mirrored)",
                             ("choose", *FILES)),
        "chain_turns": Option(True, "a white jump chain may change direction between jumps"),
        "kobb_moves": Option("path", "Kobb moves: 'path' = any stone reachable over adjacent "
                             "stones (may turn); 'straight' = one direction per turn",
                             ("path", "straight")),
        "tail": Option("straight", "tail: 'straight' run back from the exit square, or "
                       "'bent' = longest single line that may turn", ("straight", "bent")),
        "after_exit": Option("play-on", "after leaving, a player keeps moving white stones "
                             "('play-on') or sits out while the other plays alone ('solo')",
                             ("play-on", "solo")),
        "tie": Option("draw", "equal tails: a draw, or the player who left first wins",
                      ("draw", "first-out")),
        "max_turns": Option(200, "turn limit (both players' turns); then Kobbs still on the "
                            "board score a tail of 0"),
    }

    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> KobblaState:
        """The Wilderness (or custom) set-up; seat 0 (the youngest player) starts."""
        self.check_seats(seats)
        opts = self.resolve_options(options)
        if opts["max_turns"] < 1:
            raise IllegalAction("options", f"max_turns must be at least 1, got {opts['max_turns']}")
        board_text = WILDERNESS if opts["setup"] == "wilderness" else opts["setup"]
        board, kobb = _parse_board(board_text)
        if kobb[0] == OUT or kobb[1] == OUT:  # pragma: no cover - _parse_board never yields OUT
            raise IllegalAction("notation", "a set-up cannot have a Kobb already out")
        for seat in (0, 1):
            if kobb[seat] != UNPLACED:
                continue
            if opts["kobb_start"] != "choose":
                sq = HOME_ROW[seat] * COLS + FILES.index(opts["kobb_start"])
                if not board[sq]:
                    raise IllegalAction("setup", f"kobb_start {opts['kobb_start']!r}: "
                                        f"{SQUARE_NAMES[sq]} holds no white stone for the Kobb")
                kobb[seat] = sq
        state = KobblaState(board, kobb, to_move=0, phase=PHASE_PLACE, exits=[], turn=0,
                            options=opts, rng=rng)
        state._begin_turn_or_placement()
        if state.phase == PHASE_PLACE and not state.legal_actions(state.to_move):
            raise IllegalAction("setup", f"{SEAT_NAMES[state.to_move]}'s home rank has no "
                                "stone to put the Kobb on")
        return state

    def state_from_json(self, data: dict[str, Any]) -> KobblaState:
        """Rebuild a state from `KobblaState.to_json` output."""
        return KobblaState.from_json(data)

    def from_kfn(self, text: str, options: dict[str, Any] | None = None,
                 rng: Rng | None = None) -> KobblaState:
        """A position from its one-line notation (options default as in a new game).

        >>> GAME.from_kfn("wwwwNw/6/6/2w3/2w3/6/6/wSwwww S w - 0").kfn()
        'wwwwNw/6/6/2w3/2w3/6/6/wSwwww S w - 0'
        """
        return KobblaState.from_kfn(text, self.resolve_options(options),
                                    rng if rng is not None else Rng(0))


# ---------------------------------------------------------------------------
# The state
# ---------------------------------------------------------------------------


class KobblaState(GameState):
    """A Kobbla position: the stones, the Kobbs, whose turn, and the phase of the turn."""

    game_id = "kobbla"

    __slots__ = ("_legal", "_legal_set", "board", "exits", "kobb", "num_seats", "options",
                 "phase", "rng", "to_move", "turn")

    def __init__(self, board: list[int], kobb: list[int], *, to_move: Seat, phase: str,
                 exits: list[tuple[Seat, int]], turn: int, options: dict[str, Any],
                 rng: Rng) -> None:
        self.num_seats = 2
        self.board = board  # 48 ints: 1 = a white stone (with or without a Kobb on it)
        self.kobb = kobb  # per seat: square, UNPLACED or OUT
        self.to_move = to_move
        self.phase = phase
        self.exits = exits  # (seat, tail length) in the order the Kobbs left
        self.turn = turn  # completed turns
        self.options = options
        self.rng = rng
        self._legal: list[Action] | None = None
        self._legal_set: frozenset[Action] = frozenset()

    # -- the GameState API -------------------------------------------------

    def actors(self) -> frozenset[Seat]:
        """The seat to move (the same seat for both halves of a turn)."""
        return frozenset() if self.phase == PHASE_OVER else frozenset((self.to_move,))

    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every action `seat` may take now, in canonical order."""
        if self.phase == PHASE_OVER or seat != self.to_move:
            return []
        if self._legal is None:
            self._legal = sorted(self._generate())
            self._legal_set = frozenset(self._legal)
        return list(self._legal)

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Apply one half of a turn; raise `IllegalAction` naming the rule if not allowed."""
        self._check(seat, action)
        if action.kind == "place":
            return self._do_place(seat, square_index(str(action.args[0])))
        if action.kind == "white":
            return self._do_white(seat, square_index(str(action.args[0])),
                                  square_index(str(action.args[1])))
        if action.kind == "skip":
            events = [GameEvent("no-white-move", {"seat": seat})]
            return events + self._after_white(seat)
        if action.kind == "stay":
            return self._end_turn([GameEvent("kobb-stayed", {"seat": seat})])
        if action.kind == "kobb":
            return self._do_kobb(seat, square_index(str(action.args[0])))
        return self._do_exit(seat, square_index(str(action.args[0])))

    def observation(self, seat: Seat | None) -> dict[str, Any]:
        """The whole position (perfect information: every seat sees the same)."""
        _ = seat
        return {
            "kfn": self.kfn(),
            "board": self.rows_text(),
            "to_move": self.to_move,
            "phase": self.phase,
            "kobbs": [None if k < 0 else SQUARE_NAMES[k] for k in self.kobb],
            "out": [s for s, _t in self.exits],
            "tails": self.tails(),
            "turn": self.turn,
            "max_turns": self.options["max_turns"],
        }

    def is_terminal(self) -> bool:
        """True once both Kobbs are out or the turn limit is reached."""
        return self.phase == PHASE_OVER

    def returns(self) -> list[float]:
        """1 for the longer tail, 0 for the shorter, 0.5 each for a draw (so far, if not over)."""
        tails = self.tails()
        if tails[0] != tails[1]:
            return [1.0, 0.0] if tails[0] > tails[1] else [0.0, 1.0]
        if self.options["tie"] == "first-out" and self.exits:
            first = self.exits[0][0]
            return [1.0 if s == first else 0.0 for s in (0, 1)]
        return [0.5, 0.5]

    def to_json(self) -> dict[str, Any]:
        """The full state: position in KFN, options and the (unused) chance stream."""
        return {"game": "kobbla", "kfn": self.kfn(), "options": dict(self.options),
                "rng": self.rng.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KobblaState:
        """Rebuild a state from `to_json` output."""
        if not isinstance(data, dict) or data.get("game") != "kobbla":
            raise IllegalAction("notation", f"not a Kobbla state: {str(data)[:80]!r}")
        options = KobblaGame().resolve_options(data.get("options"))
        return cls.from_kfn(data["kfn"], options, Rng.from_json(data["rng"]))

    def clone(self) -> KobblaState:
        """A fast independent copy (the rng is never drawn from, so it is shared)."""
        new = KobblaState.__new__(KobblaState)
        new.num_seats = 2
        new.board = self.board[:]
        new.kobb = self.kobb[:]
        new.to_move = self.to_move
        new.phase = self.phase
        new.exits = self.exits[:]
        new.turn = self.turn
        new.options = self.options
        new.rng = self.rng
        new._legal = self._legal
        new._legal_set = self._legal_set
        return new

    def determinize(self, seat: Seat, rng: Rng) -> KobblaState:
        """Perfect information: a clone."""
        _ = seat, rng
        return self.clone()

    def evaluate(self) -> list[float]:
        """Per-seat heuristic: the tail each seat has or can expect (see `potential`)."""
        return [potential(self, 0), potential(self, 1)]

    def conservation(self) -> dict[str, int]:
        """Stones on the board plus stones carried out in tails, and Kobbs in play or out."""
        return {
            "white": sum(self.board) + sum(t for _s, t in self.exits),
            "kobbs": sum(1 for k in self.kobb if k >= 0 or k == UNPLACED) + len(self.exits),
        }

    # -- notation ------------------------------------------------------------

    def rows_text(self) -> list[str]:
        """The board as eight strings, rank 8 first (``.`` empty, ``w``/``S``/``N``)."""
        rows = []
        for r in range(ROWS - 1, -1, -1):
            rows.append("".join(self._square_char(r * COLS + c) for c in range(COLS)))
        return rows

    def _square_char(self, sq: int) -> str:
        if sq == self.kobb[0]:
            return "S"
        if sq == self.kobb[1]:
            return "N"
        return "w" if self.board[sq] else "."

    def kfn(self) -> str:
        """The position in one-line notation (see the module docstring)."""
        ranks = []
        for row in self.rows_text():
            out, run = "", 0
            for ch in row:
                if ch == ".":
                    run += 1
                    continue
                if run:
                    out += str(run)
                    run = 0
                out += ch
            ranks.append(out + (str(run) if run else ""))
        exits = ",".join(f"{SEAT_LETTERS[s]}{t}" for s, t in self.exits) or "-"
        return f"{'/'.join(ranks)} {SEAT_LETTERS[self.to_move]} {self.phase} {exits} {self.turn}"

    @classmethod
    def from_kfn(cls, text: str, options: dict[str, Any], rng: Rng) -> KobblaState:
        """Parse the one-line notation; raise `IllegalAction` naming the bad field."""
        fields = text.split()
        if len(fields) != 5:
            raise IllegalAction("notation", f"KFN needs 5 fields (board side phase exits "
                                f"turn), got {len(fields)} in {text!r}")
        board, kobb = _parse_board(fields[0])
        if fields[1] not in ("S", "N"):
            raise IllegalAction("notation", f"side to move must be S or N, got {fields[1]!r}")
        if fields[2] not in _PHASES:
            raise IllegalAction("notation", f"phase must be one of p/w/k/x, got {fields[2]!r}")
        exits: list[tuple[Seat, int]] = []
        if fields[3] != "-":
            for part in fields[3].split(","):
                if len(part) < 2 or part[0] not in "SN" or not part[1:].isdigit():
                    raise IllegalAction("notation", f"an exit is a seat letter and a tail "
                                        f"length like 'S3', got {part!r}")
                seat = SEAT_LETTERS.index(part[0])
                if kobb[seat] != UNPLACED or any(s == seat for s, _ in exits):
                    raise IllegalAction("notation", f"{SEAT_NAMES[seat]}'s Kobb is both on "
                                        "the board and out, or out twice")
                kobb[seat] = OUT
                exits.append((seat, int(part[1:])))
        if not fields[4].isdigit():
            raise IllegalAction("notation", f"turn count must be a number, got {fields[4]!r}")
        phase = fields[2]
        side = SEAT_LETTERS.index(fields[1])
        if phase != PHASE_PLACE and UNPLACED in kobb:
            raise IllegalAction("notation", "a Kobb is missing from the board outside the "
                                "placing phase (phase p)")
        if phase == PHASE_PLACE and kobb[side] != UNPLACED:
            raise IllegalAction("notation", f"phase p, but {SEAT_NAMES[side]}'s Kobb is "
                                "already placed")
        if phase == PHASE_KOBB and kobb[side] < 0:
            raise IllegalAction("notation", f"phase k, but {SEAT_NAMES[side]}'s Kobb is "
                                "not on the board")
        return cls(board, kobb, to_move=side, phase=phase, exits=exits,
                   turn=int(fields[4]), options=options, rng=rng)

    def __str__(self) -> str:
        return "\n".join(f"{ROWS - i} {row}" for i, row in enumerate(self.rows_text())) + \
            "\n  " + FILES + f"\n{self.kfn()}"

    # -- results ---------------------------------------------------------------

    def tails(self) -> list[int]:
        """Tail length per seat; 0 for a Kobb that has not left."""
        tails = [0, 0]
        for seat, tail in self.exits:
            tails[seat] = tail
        return tails

    # -- move generation -------------------------------------------------------

    def _generate(self) -> list[Action]:
        seat = self.to_move
        if self.phase == PHASE_PLACE:
            home = HOME_ROW[seat] * COLS
            other = self.kobb[1 - seat]
            return [_PLACE_ACTIONS[sq] for sq in range(home, home + COLS)
                    if self.board[sq] and sq != other]
        if self.phase == PHASE_WHITE:
            moves = [_WHITE_ACTIONS[(a, b)] for a, b in self.white_moves()]
            return moves or [SKIP]
        dests, exits = self.kobb_moves(seat)
        return ([STAY] + [_KOBB_ACTIONS[sq] for sq in dests]
                + [_EXIT_ACTIONS[sq] for sq in exits])

    def white_moves(self) -> list[tuple[int, int]]:
        """Every (from, to) a white stone can reach by a jump chain."""
        return [(a, b) for a, b, _ in self._white_chains()]

    def _white_chains(self, only_from: int = -1) -> list[tuple[int, int, int]]:
        board = self.board
        k0, k1 = self.kobb
        turns = self.options["chain_turns"]
        out: list[tuple[int, int, int]] = []
        squares = range(NUM_SQUARES) if only_from < 0 else (only_from,)
        for start in squares:
            # A stone carrying a Kobb stays put: moving it would move the Kobb.
            if not board[start] or start in (k0, k1):
                continue
            if turns:
                parent = {start: -1}
                queue = [start]
                for cur in queue:
                    for _d, over, land in _JUMPS[cur]:
                        # The start square is empty once the stone has left it.
                        if board[over] and over != start and not board[land] \
                                and land not in parent:
                            parent[land] = cur
                            queue.append(land)
                            out.append((start, land, cur))
            else:
                for d, over, land in _JUMPS[start]:
                    prev = start
                    while board[over] and over != start and not board[land]:
                        out.append((start, land, prev))
                        prev = land
                        over = _STEP[land][d]
                        land = _STEP[over][d] if over >= 0 else -1
                        if land < 0:
                            break
        return out

    def white_path(self, start: int, end: int) -> list[int]:
        """A shortest jump chain from `start` to `end` (for events and display)."""
        parent: dict[int, int] = {}
        for a, b, via in self._white_chains(start):
            if a == start:
                parent.setdefault(b, via)
        if end not in parent:
            return []
        path = [end]
        while path[-1] != start:
            path.append(parent[path[-1]])
        return path[::-1]

    def kobb_moves(self, seat: Seat) -> tuple[list[int], list[int]]:
        """(squares the Kobb may move to, far-rank squares it may exit from)."""
        here = self.kobb[seat]
        if here < 0:
            return [], []
        board = self.board
        blocker = self.kobb[1 - seat]
        far = FAR_ROW[seat]
        if self.options["kobb_moves"] == "path":
            seen = {here}
            queue = [here]
            for cur in queue:
                for nxt in _STEP[cur]:
                    if nxt >= 0 and board[nxt] and nxt != blocker and nxt not in seen:
                        seen.add(nxt)
                        queue.append(nxt)
            dests = sorted(queue[1:])
            exits = sorted(sq for sq in queue if _row(sq) == far)
            return dests, exits
        dests = []
        exits = []
        fwd_dir = 0 if FORWARD[seat] > 0 else 1
        if _row(here) == far:
            exits.append(here)
        for d in range(4):
            cur = _STEP[here][d]
            while cur >= 0 and board[cur] and cur != blocker:
                dests.append(cur)
                if d == fwd_dir and _row(cur) == far:
                    exits.append(cur)
                cur = _STEP[cur][d]
        return sorted(dests), sorted(exits)

    def tail_squares(self, seat: Seat, exit_sq: int) -> list[int]:
        """The stones `seat` would take out when leaving from `exit_sq`."""
        blocker = self.kobb[1 - seat]
        board = self.board
        if self.options["tail"] == "straight":
            back = 1 if FORWARD[seat] < 0 else 0  # direction index pointing home
            out = []
            cur = exit_sq
            while cur >= 0 and board[cur] and cur != blocker:
                out.append(cur)
                cur = _STEP[cur][back]
            return out
        return _longest_line(board, exit_sq, blocker)

    # -- applying actions --------------------------------------------------------

    def _check(self, seat: Seat, action: Action) -> None:
        if not 0 <= seat < 2:
            raise IllegalAction("seats", f"there is no seat {seat}")
        if self.phase == PHASE_OVER:
            raise IllegalAction("game-over", "the game is over")
        if seat != self.to_move:
            raise IllegalAction("turn-order", f"it is {SEAT_NAMES[self.to_move]}'s turn, "
                                f"not seat {seat}'s")
        self.legal_actions(seat)
        if action in self._legal_set:
            return
        raise IllegalAction(*self._why_illegal(seat, action))

    def _why_illegal(self, seat: Seat, action: Action) -> tuple[str, str]:
        kind, args = action.kind, action.args
        expected = {PHASE_PLACE: ("place",), PHASE_WHITE: ("white", "skip"),
                    PHASE_KOBB: ("kobb", "exit", "stay")}[self.phase]
        if kind not in expected:
            if kind in ("kobb", "exit", "stay") and self.phase == PHASE_WHITE:
                return ("white-first", "a white stone must be moved first, before the Kobb")
            return ("phase", f"{action} is not possible now; expected one of {list(expected)}")
        want = {"place": 1, "white": 2, "kobb": 1, "exit": 1, "skip": 0, "stay": 0}[kind]
        if len(args) != want:
            return ("syntax", f"{kind} takes {want} square(s), got {len(args)}")
        squares = [square_index(str(a)) for a in args]
        if kind == "skip":
            return ("white-compulsory", "a white stone can be moved, so it must be")
        if kind == "place":
            return ("kobb-start", f"the Kobb starts on a white stone of "
                    f"{SEAT_NAMES[seat]}'s home rank {HOME_ROW[seat] + 1}")
        if kind == "white":
            a, b = squares
            if not self.board[a]:
                return ("white-move", f"there is no white stone on {SQUARE_NAMES[a]}")
            if a in self.kobb:
                return ("kobb-untouchable", f"the stone on {SQUARE_NAMES[a]} carries a Kobb")
            if self.board[b] or b in self.kobb:
                return ("white-lands-empty", f"{SQUARE_NAMES[b]} is not empty")
            return ("white-jump", f"no chain of single orthogonal jumps over adjacent stones "
                    f"leads from {SQUARE_NAMES[a]} to {SQUARE_NAMES[b]}")
        sq = squares[0]
        if kind == "kobb":
            if sq == self.kobb[1 - seat]:
                return ("kobb-opponent", "a Kobb may not land on or jump over the other Kobb")
            if not self.board[sq]:
                return ("kobb-on-white", f"a Kobb must land on a white stone; "
                        f"{SQUARE_NAMES[sq]} is empty")
            return ("kobb-path", f"the Kobb cannot reach {SQUARE_NAMES[sq]} over adjacent "
                    "white stones" + (" in a straight line"
                                      if self.options["kobb_moves"] == "straight" else ""))
        if _row(sq) != FAR_ROW[seat]:
            return ("exit-far-side", f"a Kobb leaves over the opposite side, rank "
                    f"{FAR_ROW[seat] + 1}")
        return ("exit-blocked", f"no way of white stones leads the Kobb out over "
                f"{SQUARE_NAMES[sq]} (or the other Kobb blocks it)")

    def _invalidate(self) -> None:
        self._legal = None

    def _do_place(self, seat: Seat, sq: int) -> list[GameEvent]:
        self.kobb[seat] = sq
        self._invalidate()
        events = [GameEvent("kobb-placed", {"seat": seat, "square": SQUARE_NAMES[sq]})]
        self._begin_turn_or_placement(seat)
        return events

    def _begin_turn_or_placement(self, placed: Seat = -1) -> None:
        """After set-up or a placement: next seat to place, else seat 0's first turn."""
        for seat in (0, 1):
            if self.kobb[seat] == UNPLACED:
                self.to_move = seat
                self.phase = PHASE_PLACE
                return
        _ = placed
        self.to_move = 0
        self.phase = PHASE_WHITE
        self._invalidate()

    def _do_white(self, seat: Seat, a: int, b: int) -> list[GameEvent]:
        path = self.white_path(a, b)
        self.board[a] = 0
        self.board[b] = 1
        self._invalidate()
        events = [GameEvent("white-moved", {"seat": seat, "from": SQUARE_NAMES[a],
                                            "to": SQUARE_NAMES[b],
                                            "path": [SQUARE_NAMES[s] for s in path]})]
        return events + self._after_white(seat)

    def _after_white(self, seat: Seat) -> list[GameEvent]:
        if self.kobb[seat] < 0:  # already out: a white move is the whole turn
            return self._end_turn([])
        dests, exits = self.kobb_moves(seat)
        if not dests and not exits:
            return self._end_turn([])
        self.phase = PHASE_KOBB
        self._invalidate()
        return []

    def _do_kobb(self, seat: Seat, sq: int) -> list[GameEvent]:
        here = self.kobb[seat]
        self.kobb[seat] = sq
        return self._end_turn([GameEvent("kobb-moved", {"seat": seat, "from": SQUARE_NAMES[here],
                                                        "to": SQUARE_NAMES[sq]})])

    def _do_exit(self, seat: Seat, sq: int) -> list[GameEvent]:
        here = self.kobb[seat]
        self.kobb[seat] = sq  # it runs to the exit square first
        tail = self.tail_squares(seat, sq)
        for t in tail:
            self.board[t] = 0
        self.kobb[seat] = OUT
        self.exits.append((seat, len(tail)))
        event = GameEvent("kobb-out", {"seat": seat, "from": SQUARE_NAMES[here],
                                       "exit": SQUARE_NAMES[sq], "tail": len(tail),
                                       "stones": [SQUARE_NAMES[t] for t in tail]})
        return self._end_turn([event])

    def _end_turn(self, events: list[GameEvent]) -> list[GameEvent]:
        self.turn += 1
        self._invalidate()
        on_board = [s for s in (0, 1) if self.kobb[s] >= 0]
        if not on_board or self.turn >= self.options["max_turns"]:
            self.phase = PHASE_OVER
            reason = "both-out" if not on_board else "turn-limit"
            events.append(GameEvent("game-over", {"reason": reason, "tails": self.tails(),
                                                  "returns": self.returns()}))
            return events
        nxt = 1 - self.to_move
        if self.options["after_exit"] == "solo" and self.kobb[nxt] == OUT:
            nxt = self.to_move
        self.to_move = nxt
        self.phase = PHASE_WHITE
        return events


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _parse_board(text: str) -> tuple[list[int], list[int]]:
    ranks = text.split("/")
    if len(ranks) != ROWS:
        raise IllegalAction("notation", f"a board has {ROWS} ranks separated by '/', "
                            f"got {len(ranks)} in {text!r}")
    board = [0] * NUM_SQUARES
    kobb = [UNPLACED, UNPLACED]
    for i, rank in enumerate(ranks):
        row = ROWS - 1 - i
        col = 0
        for ch in rank:
            if ch.isdigit():
                col += int(ch)
                continue
            if ch not in "wSN":
                raise IllegalAction("notation", f"rank {row + 1}: {ch!r} is not w, S, N "
                                    "or a digit")
            if col >= COLS:
                break
            sq = row * COLS + col
            board[sq] = 1
            if ch != "w":
                seat = SEAT_LETTERS.index(ch)
                if kobb[seat] != UNPLACED:
                    raise IllegalAction("notation", f"two {SEAT_NAMES[seat]} Kobbs on the board")
                kobb[seat] = sq
            col += 1
        if col != COLS:
            raise IllegalAction("notation", f"rank {row + 1} ({rank!r}) covers {col} "
                                f"squares, not {COLS}")
    return board, kobb


def _longest_line(board: list[int], start: int, blocker: int) -> list[int]:
    """The longest line of stones from `start` that may turn but not cross itself."""
    best: list[int] = []
    path = [start]
    on_path = {start}

    def extend(cur: int) -> None:
        nonlocal best
        if len(path) > len(best):
            best = path[:]
        for nxt in _STEP[cur]:
            if nxt >= 0 and board[nxt] and nxt != blocker and nxt not in on_path:
                path.append(nxt)
                on_path.add(nxt)
                extend(nxt)
                path.pop()
                on_path.discard(nxt)

    if board[start] and start != blocker:
        extend(start)
    return best


def far_run(state: KobblaState, seat: Seat, col: int) -> int:
    """Stones in a straight run back from the far-rank square of file `col`."""
    blocker = state.kobb[1 - seat]
    row, step = FAR_ROW[seat], -FORWARD[seat]
    board = state.board
    n = 0
    while 0 <= row < ROWS:
        sq = row * COLS + col
        if not board[sq] or sq == blocker:
            break
        n += 1
        row += step
    return n


def potential(state: KobblaState, seat: Seat) -> float:
    """Heuristic tail value of `seat`: its tail if out; else the tail it could take now,
    or its progress towards the far side, plus a little for Kobb mobility."""
    for s, t in state.exits:
        if s == seat:
            return float(t)
    here = state.kobb[seat]
    if here < 0:
        return 0.0
    board = state.board
    blocker = state.kobb[1 - seat]
    seen = {here}
    queue = [here]
    for cur in queue:
        for nxt in _STEP[cur]:
            if nxt >= 0 and board[nxt] and nxt != blocker and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    far, fwd, home = FAR_ROW[seat], FORWARD[seat], HOME_ROW[seat]
    runs = [far_run(state, seat, c) for c in range(COLS)]
    best_run = max(runs)
    exit_now = 0
    progress = 0
    for sq in queue:
        r = _row(sq)
        if r == far:
            exit_now = max(exit_now, runs[_col(sq)])
        progress = max(progress, (r - home) * fwd)
    mobility = 0.02 * len(queue)
    turns_left = state.options["max_turns"] - state.turn
    if exit_now:
        # Waiting may lengthen the tail, but near the limit only leaving counts.
        growth = 0.3 * (best_run - exit_now) if turns_left > 6 else 0.0
        return exit_now + growth + mobility
    if turns_left <= 4:
        return mobility
    return 0.35 * best_run + 0.45 * progress - 2.5 + mobility


# ---------------------------------------------------------------------------
# Bots
# ---------------------------------------------------------------------------


def _score(state: KobblaState, seat: Seat) -> float:
    """`seat`'s view of a position: +-100 for a finished game, else the potential gap."""
    if state.phase == PHASE_OVER:
        r = state.returns()[seat]
        tails = state.tails()
        return (r - 0.5) * 200.0 + 0.01 * (tails[seat] - tails[1 - seat])
    return potential(state, seat) - potential(state, 1 - seat)


class RuleBot(Bot):
    """A greedy player with explicit rules.

    * Kobb start: the home stone on the file of the shared middle pair (or nearest).
    * White move: the one that most improves (own potential - opponent's potential).
    * Kobb: leave when the tail on offer beats the opponent's finished tail, reaches
      `target`, or the turn limit is near; else run to the most advanced reachable
      stone (longest far run as tie-break).
    """

    name = "rule"

    def __init__(self, seat: Seat, rng: Rng, *, target: int = 4) -> None:
        super().__init__(seat, rng)
        self.target = target

    def choose(self, state: GameState) -> Action:
        """Pick an action for `self.seat` by the rules above."""
        assert isinstance(state, KobblaState)
        legal = state.legal_actions(self.seat)
        if len(legal) == 1:
            return legal[0]
        if state.phase == PHASE_PLACE:
            return min(legal, key=lambda a: (abs(_col(square_index(str(a.args[0]))) - 2.5),
                                             str(a)))
        if state.phase == PHASE_WHITE:
            return self._best(state, legal)
        return self._kobb(state, legal)

    def _best(self, state: KobblaState, legal: list[Action]) -> Action:
        best: list[Action] = []
        best_v = -1e9
        for action in legal:
            child = state.clone()
            child.apply(self.seat, action)
            v = _score(child, self.seat)
            if v > best_v + 1e-9:
                best, best_v = [action], v
            elif abs(v - best_v) <= 1e-9:
                best.append(action)
        return self.rng.choice(best)

    def _kobb(self, state: KobblaState, legal: list[Action]) -> Action:
        me = self.seat
        exits = [a for a in legal if a.kind == "exit"]
        if exits:
            tails = {a: len(state.tail_squares(me, square_index(str(a.args[0])))) for a in exits}
            best_exit = max(exits, key=lambda a: (tails[a], str(a)))
            t = tails[best_exit]
            opp_out = [tail for s, tail in state.exits if s != me]
            turns_left = state.options["max_turns"] - state.turn
            if (opp_out and t > opp_out[0]) or t >= self.target or turns_left <= 3:
                return best_exit
        moves = [a for a in legal if a.kind == "kobb"]
        if not moves:
            return STAY
        fwd, here = FORWARD[me], state.kobb[me]

        def advance(a: Action) -> tuple[int, int]:
            sq = square_index(str(a.args[0]))
            return (_row(sq) * fwd, far_run(state, me, _col(sq)))

        best = max(moves, key=lambda a: (advance(a), str(a)))
        here_key = (_row(here) * fwd, far_run(state, me, _col(here)))
        return best if advance(best) > here_key else STAY


class AlphaBetaBot(Bot):
    """Alpha-beta search with iterative deepening over half-turn plies, under a time budget.

    The evaluation is `potential` (tail on offer or progress, plus Kobb mobility) of
    the bot's seat minus the opponent's. Children are ordered by the previous
    iteration's principal variation, then by a shallow evaluation.

    Args:
        seat: the bot's seat.
        rng: its own generator (ties between equal moves).
        time_budget_s: wall-clock budget per move.
        max_depth: deepest iteration (deterministic play when the budget is ample).
        clock: the time source (seconds).
    """

    name = "search"

    def __init__(self, seat: Seat, rng: Rng, *, time_budget_s: float = 0.3,
                 max_depth: int = 8,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__(seat, rng)
        self.time_budget_s = time_budget_s
        self.max_depth = max_depth
        self.clock = clock
        self.last_depth = 0
        self.nodes = 0
        self._deadline = 0.0

    def choose(self, state: GameState) -> Action:
        """Search from `state` and return the best action found in the time budget."""
        assert isinstance(state, KobblaState)
        legal = state.legal_actions(self.seat)
        if len(legal) == 1:
            return legal[0]
        root = state.clone()
        self._deadline = self.clock() + self.time_budget_s
        self.nodes = 0
        order = self._order(root, legal, self.seat)
        best = order[0]
        self.last_depth = 0
        for depth in range(1, self.max_depth + 1):
            try:
                value, move = self._root(root, order, depth)
            except _Timeout:
                break
            best = move
            self.last_depth = depth
            order = [move] + [a for a in order if a != move]
            if abs(value) >= 99.0:  # a forced result: deeper search cannot change it
                break
        return best

    def _order(self, state: KobblaState, actions: list[Action], seat: Seat) -> list[Action]:
        scored = []
        for a in actions:
            child = state.clone()
            child.apply(seat, a)
            scored.append((-_score(child, seat), str(a), a))
        scored.sort(key=lambda x: (x[0], x[1]))
        return [a for _v, _s, a in scored]

    def _root(self, state: KobblaState, order: list[Action], depth: int) -> tuple[float, Action]:
        alpha, beta = -1e9, 1e9
        best_v, best = -1e9, order[0]
        ties: list[Action] = []
        for a in order:
            child = state.clone()
            child.apply(self.seat, a)
            v = self._search(child, depth - 1, alpha, beta)
            if v > best_v + 1e-9:
                best_v, best, ties = v, a, [a]
            elif abs(v - best_v) <= 1e-9:
                ties.append(a)
            alpha = max(alpha, best_v)
        if len(ties) > 1:
            best = self.rng.choice(ties)
        return best_v, best

    def _search(self, state: KobblaState, depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes & 255 == 0 and self.clock() > self._deadline:
            raise _Timeout
        if depth <= 0 or state.phase == PHASE_OVER:
            return _score(state, self.seat)
        actor = state.to_move
        actions = state.legal_actions(actor)
        if depth >= 2 and len(actions) > 1:
            actions = self._order(state, actions, actor)
        maximizing = actor == self.seat
        if maximizing:
            value = -1e9
            for a in actions:
                child = state.clone()
                child.apply(actor, a)
                value = max(value, self._search(child, depth - 1, alpha, beta))
                alpha = max(alpha, value)
                if alpha >= beta:
                    break
            return value
        value = 1e9
        for a in actions:
            child = state.clone()
            child.apply(actor, a)
            value = min(value, self._search(child, depth - 1, alpha, beta))
            beta = min(beta, value)
            if alpha >= beta:
                break
        return value


class _Timeout(Exception):
    """The search ran out of its time budget."""


BOTS: dict[str, Callable[[Seat, Rng], Bot]] = {
    "random": RandomBot,
    "rule": RuleBot,
    "search": AlphaBetaBot,
}

GAME = KobblaGame()
