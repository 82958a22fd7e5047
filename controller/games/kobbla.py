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
from controller.games.base import (
    Action,
    Bot,
    Game,
    GameEvent,
    GameState,
    Option,
    RandomBot,
    Seat,
    action_key,
    copy_rng,
)
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

_FULL = (1 << NUM_SQUARES) - 1
_NOT_FILE_A = sum(1 << sq for sq in range(NUM_SQUARES) if sq % COLS != 0)
_NOT_FILE_F = sum(1 << sq for sq in range(NUM_SQUARES) if sq % COLS != COLS - 1)
_RANK_MASK = tuple(((1 << COLS) - 1) << (r * COLS) for r in range(ROWS))


def _spread(x: int) -> int:
    """The orthogonal neighbours of a set of squares (as bits)."""
    return ((x << COLS) | (x >> COLS) | ((x << 1) & _NOT_FILE_A)
            | ((x >> 1) & _NOT_FILE_F)) & _FULL


def _closure(seed: int, passable: int) -> int:
    """`seed` grown through orthogonally adjacent squares of `passable`."""
    while True:
        grown = seed | (_spread(seed) & passable)
        if grown == seed:
            return seed
        seed = grown


STAY = Action("stay")
SKIP = Action("skip")
_WHITE_ACTIONS = {(a, b): Action("white", (SQUARE_NAMES[a], SQUARE_NAMES[b]))
                  for a in range(NUM_SQUARES) for b in range(NUM_SQUARES) if a != b}
_KOBB_ACTIONS = tuple(Action("kobb", (n,)) for n in SQUARE_NAMES)
_EXIT_ACTIONS = tuple(Action("exit", (n,)) for n in SQUARE_NAMES)
_PLACE_ACTIONS = tuple(Action("place", (n,)) for n in SQUARE_NAMES)

# Canonical order of every action, computed once: sorting Actions by their dataclass
# order on every call was half the cost of a random playout.
_ACTION_RANK: dict[Action, int] = {a: i for i, a in enumerate(sorted(
    [STAY, SKIP, *_WHITE_ACTIONS.values(), *_KOBB_ACTIONS, *_EXIT_ACTIONS, *_PLACE_ACTIONS],
    key=action_key))}

# Internal moves for search: (kind, square, square), no Action objects, no events.
Move = tuple[int, int, int]
M_PLACE, M_WHITE, M_SKIP, M_STAY, M_KOBB, M_EXIT = range(6)
_MOVE_KINDS = {"place": M_PLACE, "white": M_WHITE, "skip": M_SKIP, "stay": M_STAY,
               "kobb": M_KOBB, "exit": M_EXIT}


def move_action(move: Move) -> Action:
    """The canonical `Action` of an internal move."""
    kind, a, b = move
    if kind == M_WHITE:
        return _WHITE_ACTIONS[(a, b)]
    if kind == M_KOBB:
        return _KOBB_ACTIONS[a]
    if kind == M_EXIT:
        return _EXIT_ACTIONS[a]
    if kind == M_PLACE:
        return _PLACE_ACTIONS[a]
    return STAY if kind == M_STAY else SKIP


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
        "white_jump": Option("bent", "white hops: 'bent' = onto an adjacent stone, then onto "
                             "any empty square next to it; 'straight' = over the adjacent "
                             "stone to the square beyond; 'straight-line' = straight jumps "
                             "all in one direction", ("bent", "straight", "straight-line")),
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

    __slots__ = ("_legal", "_legal_set", "bits", "board", "exits", "kobb", "num_seats", "options",
                 "phase", "rng", "to_move", "turn")

    def __init__(self, board: list[int], kobb: list[int], *, to_move: Seat, phase: str,
                 exits: list[tuple[Seat, int]], turn: int, options: dict[str, Any],
                 rng: Rng) -> None:
        self.num_seats = 2
        self.board = board  # 48 ints: 1 = a white stone (with or without a Kobb on it)
        self.bits = sum(1 << sq for sq in range(NUM_SQUARES) if board[sq])  # the same, as bits
        self.kobb = kobb  # per seat: square, UNPLACED or OUT
        self.to_move = to_move
        self.phase = phase
        self.exits = exits  # (seat, tail length) in the order the Kobbs left
        self.turn = turn  # completed turns
        self.options = options
        self.rng = rng
        self._legal: tuple[Action, ...] | None = None
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
            self._legal = tuple(sorted((move_action(m) for m in self.moves()),
                                       key=_ACTION_RANK.__getitem__))
            self._legal_set = frozenset(self._legal)
        return list(self._legal)

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Apply one half of a turn; raise `IllegalAction` naming the rule if not allowed."""
        self._check(seat, action)
        kind = _MOVE_KINDS[action.kind]
        squares = [square_index(str(x)) for x in action.args] + [0, 0]
        events: list[GameEvent] = []
        self.play((kind, squares[0], squares[1]), events)
        return events

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
        """A fast independent copy (the cached legal moves are immutable, so shared)."""
        new = KobblaState.__new__(KobblaState)
        new.num_seats = 2
        new.board = self.board[:]
        new.bits = self.bits
        new.kobb = self.kobb[:]
        new.to_move = self.to_move
        new.phase = self.phase
        new.exits = self.exits[:]
        new.turn = self.turn
        new.options = dict(self.options)
        new.rng = copy_rng(self.rng)
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

    def moves(self) -> list[Move]:
        """The side to move's legal moves in internal form (unsorted; search uses these)."""
        seat = self.to_move
        if self.phase == PHASE_WHITE:
            whites = [(M_WHITE, a, b) for a, b in self.white_moves()]
            return whites or [(M_SKIP, 0, 0)]
        if self.phase == PHASE_KOBB:
            dests, exits = self.kobb_moves(seat)
            return ([(M_STAY, 0, 0)] + [(M_KOBB, sq, 0) for sq in dests]
                    + [(M_EXIT, sq, 0) for sq in exits])
        if self.phase == PHASE_PLACE:
            home = HOME_ROW[seat] * COLS
            other = self.kobb[1 - seat]
            return [(M_PLACE, sq, 0) for sq in range(home, home + COLS)
                    if self.board[sq] and sq != other]
        return []

    def white_moves(self) -> list[tuple[int, int]]:
        """Every (from, to) a white stone can reach by a jump chain."""
        return [(hop[0], hop[1]) for hop in self._white_chains()]

    def _white_chains(self, only_from: int = -1) -> list[tuple[int, int, int, int]]:
        """Every first arrival (start, landing, previous landing, stone used) of a chain."""
        board = self.board
        k0, k1 = self.kobb
        mode = self.options["white_jump"]
        out: list[tuple[int, int, int, int]] = []
        squares = range(NUM_SQUARES) if only_from < 0 else (only_from,)
        for start in squares:
            # A stone carrying a Kobb stays put: moving it would move the Kobb.
            if not board[start] or start in (k0, k1):
                continue
            # The start square is empty once the stone has left it, so it is never
            # jumped over; a chain never lands twice on a square, nor on its start.
            seen = {start}
            queue = [start]
            if mode == "bent":
                for cur in queue:
                    for via in _STEP[cur]:
                        if via < 0 or not board[via] or via == start:
                            continue
                        for land in _STEP[via]:
                            if land >= 0 and not board[land] and land not in seen:
                                seen.add(land)
                                queue.append(land)
                                out.append((start, land, cur, via))
            elif mode == "straight":
                for cur in queue:
                    for _d, via, land in _JUMPS[cur]:
                        if board[via] and via != start and not board[land] \
                                and land not in seen:
                            seen.add(land)
                            queue.append(land)
                            out.append((start, land, cur, via))
            else:  # "straight-line": every jump of the chain in the same direction
                for d, via, land in _JUMPS[start]:
                    prev = start
                    while board[via] and via != start and not board[land]:
                        out.append((start, land, prev, via))
                        prev = land
                        via = _STEP[land][d]
                        land = _STEP[via][d] if via >= 0 else -1
                        if land < 0:
                            break
        return out

    def white_path(self, start: int, end: int) -> list[int]:
        """A shortest chain from `start` to `end`: start, stone, landing, stone, landing..."""
        parent: dict[int, tuple[int, int]] = {}
        for _a, land, prev, via in self._white_chains(start):
            parent.setdefault(land, (prev, via))
        if end not in parent:
            return []
        path = [end]
        while path[-1] != start:
            prev, via = parent[path[-1]]
            path += [via, prev]
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
            back = 1 if FORWARD[seat] > 0 else 0  # direction index pointing home
            out = []
            cur = exit_sq
            while cur >= 0 and board[cur] and cur != blocker:
                out.append(cur)
                cur = _STEP[cur][back]
            return out
        return _longest_line(board, exit_sq, blocker)

    # -- applying actions --------------------------------------------------------

    def turn_message(self, seat: Seat) -> str:
        """Name the seat to move."""
        return f"it is {SEAT_NAMES[self.to_move]}'s turn, not seat {seat}'s"

    def _check(self, seat: Seat, action: Action) -> None:
        self.check_actor(seat)
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

    def play(self, move: Move, events: list[GameEvent] | None = None) -> None:
        """Make a legal move without checking it (search), appending events if given."""
        kind, a, _b = move
        seat = self.to_move
        self._legal = None
        if kind == M_WHITE:
            if events is not None:
                path = [SQUARE_NAMES[sq] for sq in self.white_path(a, _b)]
                events.append(GameEvent("white-moved", {"seat": seat, "from": SQUARE_NAMES[a],
                                                        "to": SQUARE_NAMES[_b], "path": path}))
            self.board[a] = 0
            self.board[_b] = 1
            self.bits ^= (1 << a) | (1 << _b)
            self._after_white(seat, events)
        elif kind == M_KOBB:
            if events is not None:
                events.append(GameEvent("kobb-moved", {"seat": seat,
                                                       "from": SQUARE_NAMES[self.kobb[seat]],
                                                       "to": SQUARE_NAMES[a]}))
            self.kobb[seat] = a
            self._end_turn(events)
        elif kind == M_STAY:
            if events is not None:
                events.append(GameEvent("kobb-stayed", {"seat": seat}))
            self._end_turn(events)
        elif kind == M_EXIT:
            here = self.kobb[seat]
            self.kobb[seat] = a  # it runs to the exit square first
            tail = self.tail_squares(seat, a)
            for sq in tail:
                self.board[sq] = 0
                self.bits &= ~(1 << sq)
            self.kobb[seat] = OUT
            self.exits.append((seat, len(tail)))
            if events is not None:
                events.append(GameEvent("kobb-out", {
                    "seat": seat, "from": SQUARE_NAMES[here], "exit": SQUARE_NAMES[a],
                    "tail": len(tail), "stones": [SQUARE_NAMES[sq] for sq in tail]}))
            self._end_turn(events)
        elif kind == M_SKIP:
            if events is not None:
                events.append(GameEvent("no-white-move", {"seat": seat}))
            self._after_white(seat, events)
        else:
            self.kobb[seat] = a
            if events is not None:
                events.append(GameEvent("kobb-placed", {"seat": seat,
                                                        "square": SQUARE_NAMES[a]}))
            self._begin_turn_or_placement()

    def _begin_turn_or_placement(self) -> None:
        """After set-up or a placement: next seat to place, else seat 0's first turn."""
        self._legal = None
        for seat in (0, 1):
            if self.kobb[seat] == UNPLACED:
                self.to_move = seat
                self.phase = PHASE_PLACE
                return
        self.to_move = 0
        self.phase = PHASE_WHITE

    def _after_white(self, seat: Seat, events: list[GameEvent] | None) -> None:
        if self.kobb[seat] < 0:  # already out: a white move is the whole turn
            self._end_turn(events)
            return
        dests, exits = self.kobb_moves(seat)
        if not dests and not exits:
            self._end_turn(events)
            return
        self.phase = PHASE_KOBB

    def _end_turn(self, events: list[GameEvent] | None) -> None:
        self.turn += 1
        on_board = [s for s in (0, 1) if self.kobb[s] >= 0]
        if not on_board or self.turn >= self.options["max_turns"]:
            self.phase = PHASE_OVER
            if events is not None:
                reason = "both-out" if not on_board else "turn-limit"
                events.append(GameEvent("game-over", {"reason": reason, "tails": self.tails(),
                                                      "returns": self.returns()}))
            return
        nxt = 1 - self.to_move
        if self.options["after_exit"] == "solo" and self.kobb[nxt] == OUT:
            nxt = self.to_move
        self.to_move = nxt
        self.phase = PHASE_WHITE


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
                # Refuse, never cut: a cut rank would silently drop a stone or a Kobb.
                raise IllegalAction("notation", f"rank {row + 1} ({rank!r}) covers more "
                                    f"than {COLS} squares")
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


def far_runs(state: KobblaState, seat: Seat, skip_first: bool = False) -> list[int]:
    """Per file, the stones in a straight run back from `seat`'s far rank (from the
    rank behind it when `skip_first`); the other Kobb's stone ends a run."""
    blocker = state.kobb[1 - seat]
    stones = state.bits & ~(1 << blocker if blocker >= 0 else 0)
    row = FAR_ROW[seat]
    step = -FORWARD[seat]
    if skip_first:
        row += step
    runs = [0] * COLS
    level = 0
    cur = stones & _RANK_MASK[row]
    while cur:
        level += 1
        files = cur >> (row * COLS)
        for c in range(COLS):
            if files >> c & 1:
                runs[c] = level
        row += step
        if not 0 <= row < ROWS:
            break
        cur = (cur << COLS if step > 0 else cur >> COLS) & stones
    return runs


def far_run(state: KobblaState, seat: Seat, col: int) -> int:
    """Stones in a straight run back from the far-rank square of file `col`."""
    return far_runs(state, seat)[col]


def far_gaps(state: KobblaState, seat: Seat) -> list[int]:
    """Per file, the fewest empty squares that must be filled for `seat`'s Kobb to reach
    the far-rank square of that file (filling it too if empty); -1 if cut off."""
    gaps = [-1] * COLS
    here = state.kobb[seat]
    if here < 0:
        return gaps
    blocker = state.kobb[1 - seat]
    blk = 1 << blocker if blocker >= 0 else 0
    stones = state.bits & ~blk
    far_shift = FAR_ROW[seat] * COLS
    layer = _closure(1 << here, stones)
    seen = layer
    d = 0
    todo = COLS
    while layer:
        files = (layer >> far_shift) & ((1 << COLS) - 1)
        if files:
            for c in range(COLS):
                if files >> c & 1 and gaps[c] < 0:
                    gaps[c] = d
                    todo -= 1
            if not todo:
                break
        # Step onto one more empty square, then on along stones again.
        empties = _spread(layer) & ~state.bits & ~seen
        layer = _closure(empties, stones & ~seen) & ~seen
        seen |= layer
        d += 1
    return gaps


def potential(state: KobblaState, seat: Seat) -> float:
    """Heuristic tail value of `seat`: its tail once out; else the tail it can take now,
    or the best tail in reach less the gaps its bridge still needs; plus a little
    for Kobb progress."""
    for s, t in state.exits:
        if s == seat:
            return float(t)
    here = state.kobb[seat]
    if here < 0:
        return 0.0
    gaps = far_gaps(state, seat)
    runs = far_runs(state, seat)
    behind = far_runs(state, seat, skip_first=True)
    far = FAR_ROW[seat] * COLS
    exit_now = 0
    best = -99.0
    min_gap = 99
    for c in range(COLS):
        d = gaps[c]
        if d < 0:
            continue
        run = runs[c] if state.board[far + c] else 1 + behind[c]
        min_gap = min(min_gap, d)
        if d == 0:
            exit_now = max(exit_now, run)
        best = max(best, run - 1.1 * d)
    turns_left = state.options["max_turns"] - state.turn
    extra = 0.05 * (_row(here) - HOME_ROW[seat]) * FORWARD[seat]
    if exit_now:
        # Waiting may lengthen the tail, but near the limit only leaving counts.
        growth = 0.3 * max(0.0, best - exit_now) if turns_left > 6 else 0.0
        return exit_now + growth + extra
    if min_gap == 99 or 2 * min_gap >= turns_left:
        return extra - 1.0
    if state.options["after_exit"] == "play-on" and state.kobb[1 - seat] == OUT:
        # The player already out spends every move spoiling this bridge.
        return 0.5 * best - 1.0 + extra
    return best - 0.5 + extra


def _score(state: KobblaState, seat: Seat, spoil: float = 1.0) -> float:
    """`seat`'s view of a position: +-100 for a finished game, else its potential less
    `spoil` times the opponent's."""
    if state.phase == PHASE_OVER:
        r = state.returns()[seat]
        tails = state.tails()
        return (r - 0.5) * 200.0 + 0.01 * (tails[seat] - tails[1 - seat])
    return potential(state, seat) - spoil * potential(state, 1 - seat)


class RuleBot(Bot):
    """A greedy player with explicit rules.

    * Kobb start: the home stone on the file of the shared middle pair (or nearest).
    * White move: the one that most improves its own potential, less a quarter of the
      opponent's; a board it has already produced with an earlier white move counts
      half a stone less per repeat, so it does not loop.
    * Kobb: leave when the tail on offer beats the opponent's finished tail, reaches
      `target`, or the turn limit is near; else run to the most advanced reachable
      stone (longest far run as tie-break).
    """

    name = "rule"

    def __init__(self, seat: Seat, rng: Rng, *, target: int = 4, spoil: float = 0.25) -> None:
        super().__init__(seat, rng)
        self.target = target
        self.spoil = spoil
        # Boards it has produced with its white moves: it does not go back to one.
        self._made: dict[tuple[int, int, int], int] = {}

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
            child.play(_action_move(action))
            # A builder: its own bridge first; the opponent's only as a tie-break
            # (full-weight spoiling makes two greedy players undo each other forever).
            v = potential(child, self.seat) - self.spoil * potential(child, 1 - self.seat)
            v -= 0.5 * self._made.get(_position_key(child), 0)
            if v > best_v + 1e-9:
                best, best_v = [action], v
            elif abs(v - best_v) <= 1e-9:
                best.append(action)
        choice = self.rng.choice(best)
        child = state.clone()
        child.play(_action_move(choice))
        key = _position_key(child)
        self._made[key] = self._made.get(key, 0) + 1
        return choice

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
    """Alpha-beta search with iterative deepening under a time budget.

    Depth counts whole turns (a white move and its Kobb move), so leaves are always
    at the start of a turn. The evaluation is `potential` (tail on offer, or the best
    tail in reach less the gaps the bridge still needs, plus Kobb progress) of the
    bot's seat minus the opponent's. Ordering: the previous iteration's best move,
    a shallow evaluation in the first turn, killer moves deeper; Kobb halves are
    pruned to stay, exits and the three most advanced stones. Returning to a board
    the bot has already left behind costs a little, so it does not loop.

    Args:
        seat: the bot's seat.
        rng: its own generator (ties between equal moves).
        time_budget_s: wall-clock budget per move.
        max_depth: deepest iteration in whole turns (deterministic when the budget is ample).
            1 by default. Against the rule bot (`bench/strength.py --games kobbla
            --pairings search --count N --search-depth D`, seeds from 0) depth 1 scored
            0.75 (32 games), depth 2 0.44-0.50, depth 4 0.47, and depth 3 anywhere from
            0.50 to 0.78 with the machine's load (the time budget cuts its deepening;
            16 games each). `potential` misjudges positions after the opponent's
            reply, so looking further does not pay until the evaluation learns that.
        spoil: weight of the opponent's potential in the evaluation (0.5 won 18.5 of 22
            games against the rule bot, 1.0 only 6.5 of 10: spoiling is often undone).
        clock: the time source (seconds).
    """

    name = "search"

    def __init__(self, seat: Seat, rng: Rng, *, time_budget_s: float = 0.4,
                 max_depth: int = 1, spoil: float = 0.5,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__(seat, rng)
        self.spoil = spoil
        self.time_budget_s = time_budget_s
        self.max_depth = max_depth
        self.clock = clock
        self.last_depth = 0
        self.nodes = 0
        self._deadline = 0.0
        self._root_turn = 0
        # Positions this bot has left behind after its own turns: going back to one
        # costs a little, so two players undoing each other's moves do not loop.
        self._history: dict[tuple[int, int, int], int] = {}
        self._cache: dict[tuple[int, int, int, int, int], float] = {}
        self._killers: dict[tuple[Seat, int], Move] = {}

    def choose(self, state: GameState) -> Action:
        """Search from `state` and return the best action found in the time budget."""
        assert isinstance(state, KobblaState)
        legal = state.legal_actions(self.seat)
        if len(legal) == 1:
            return legal[0]
        root = state.clone()
        self._deadline = self.clock() + self.time_budget_s
        self.nodes = 0
        self._root_turn = root.turn
        self._cache = {}
        self._killers = {}
        order = self._order(root, sorted(root.moves()))
        best = order[0]
        self.last_depth = 0
        for depth in range(1, self.max_depth + 1):
            try:
                value, move = self._root(root, order, depth)
            except _Timeout:
                break
            best = move
            self.last_depth = depth
            order = [move] + [m for m in order if m != move]
            if abs(value) >= 99.0:  # a forced result: deeper search cannot change it
                break
        after = root.clone()
        after.play(best)
        if after.to_move == self.seat and after.phase == PHASE_KOBB:
            pass  # the turn continues; the position is recorded after the Kobb move
        else:
            key = _position_key(after)
            self._history[key] = self._history.get(key, 0) + 1
        return move_action(best)

    def _value(self, state: KobblaState) -> float:
        key = (state.bits, state.kobb[0], state.kobb[1], len(state.exits),
               min(state.options["max_turns"] - state.turn, 8))
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = _score(state, self.seat, self.spoil)
        return v

    def _order(self, state: KobblaState, moves: list[Move]) -> list[Move]:
        """Moves sorted best first for the side to move, by a shallow evaluation."""
        seat = state.to_move
        scored = []
        sign = 1.0 if seat == self.seat else -1.0
        for m in moves:
            child = state.clone()
            child.play(m)
            scored.append((-sign * self._value(child), m))
        scored.sort()
        return [m for _v, m in scored]

    def _root(self, state: KobblaState, order: list[Move], depth: int) -> tuple[float, Move]:
        alpha = -1e9
        best_v, best = -1e9, order[0]
        ties: list[Move] = []
        for m in order:
            child = state.clone()
            child.play(m)
            v = self._search(child, _next_depth(state, child, depth), alpha, 1e9)
            if v > best_v + 1e-9:
                best_v, best, ties = v, m, [m]
            elif abs(v - best_v) <= 1e-9:
                ties.append(m)
            alpha = max(alpha, best_v)
        if len(ties) > 1:
            best = self.rng.choice(sorted(ties))
        return best_v, best

    def _search(self, state: KobblaState, depth: int, alpha: float, beta: float) -> float:
        """Minimax value for the bot; `depth` counts whole turns, so leaves are always
        evaluated at the start of a turn (never between a white move and its Kobb move)."""
        self.nodes += 1
        if self.nodes & 63 == 0 and self.clock() > self._deadline:
            raise _Timeout
        penalty = 0.0
        if state.turn == self._root_turn + 1 and state.to_move != self.seat:
            penalty = -0.4 * self._history.get(_position_key(state), 0)
        if depth <= 0 or state.phase == PHASE_OVER:
            return self._value(state) + penalty
        moves = state.moves()
        if state.phase == PHASE_KOBB:
            moves = _kobb_candidates(state, moves)
        elif depth >= 2 and len(moves) > 1:
            moves = self._order(state, moves)
        else:
            # Killer heuristic: the move that refuted a sibling is tried first.
            killer = self._killers.get((state.to_move, state.turn))
            if killer is not None and killer in moves:
                moves = [killer] + [m for m in moves if m != killer]
        maximizing = state.to_move == self.seat
        value = -1e9 if maximizing else 1e9
        for m in moves:
            child = state.clone()
            child.play(m)
            v = self._search(child, _next_depth(state, child, depth), alpha, beta)
            if maximizing:
                value = max(value, v)
                alpha = max(alpha, value)
            else:
                value = min(value, v)
                beta = min(beta, value)
            if alpha >= beta:
                if state.phase == PHASE_WHITE:
                    self._killers[(state.to_move, state.turn)] = m
                break
        return value + penalty


def _position_key(state: KobblaState) -> tuple[int, int, int]:
    return (state.bits, state.kobb[0], state.kobb[1])


def _next_depth(parent: KobblaState, child: KobblaState, depth: int) -> int:
    return depth - 1 if child.turn != parent.turn or parent.phase == PHASE_PLACE else depth


def _kobb_candidates(state: KobblaState, moves: list[Move], keep: int = 3) -> list[Move]:
    """Stay, every exit, and the `keep` most advanced destinations (search pruning)."""
    seat = state.to_move
    fwd = FORWARD[seat]
    dests = [m for m in moves if m[0] == M_KOBB]
    if len(dests) > keep:
        dests.sort(key=lambda m: (-_row(m[1]) * fwd, -far_run(state, seat, _col(m[1])), m[1]))
        dests = dests[:keep]
    return [m for m in moves if m[0] != M_KOBB] + dests


class _Timeout(Exception):
    """The search ran out of its time budget."""


def _action_move(action: Action) -> Move:
    squares = [square_index(str(x)) for x in action.args] + [0, 0]
    return (_MOVE_KINDS[action.kind], squares[0], squares[1])


BOTS: dict[str, Callable[[Seat, Rng], Bot]] = {
    "random": RandomBot,
    "rule": RuleBot,
    "search": AlphaBetaBot,
}

GAME = KobblaGame()
