"""KNUFF: a Norwegian choir-weekend shedding game with letters, as in GRIS.

The seed (house rules, Norwegian) is terse; every reading below is marked in
docs/rules/knuff.md. In short:

- One 52-card pack (option: two), no jokers. Ace is high (14). Seats are
  numbered clockwise; play and "left" go to ``seat + 1``.
- Every active seat is dealt its hand minimum (4, plus one per time it has
  become KNUFF). On the first deal seat 0 asks another seat whether it wants to
  begin; if not, seat 0 begins. Later deals are begun by the next active seat.
- The playing rule: on an empty pile anything goes; otherwise a picture card or
  ace (J, Q, K, A) may always be played, any card of the top card's rank may be
  played, and otherwise a card of the top's suit with the same or a lower rank.
  The played card's suit becomes the suit to follow.
- Draw phase: a seat may draw up to five cards a turn (option ``max_draws``)
  and may pass only after drawing at least one; after every play it draws back
  up to its hand minimum while the stock lasts.
- Knuff (a picture card or ace on the same rank): the next seat is skipped.
  Personal knuff (a pair of picture cards or aces, laid in the order the player
  chooses, so either card may lie on top): the player may lay one more card that
  fits on the top card, or pass.
- Hel-knuff (the 4th consecutive card of one rank, on one's turn): the four
  leave the deal; every other card off the hands is reshuffled and the other
  seats get 4 cards each (fewer, equally, if short); the no-draw phase begins.
- Parknuff: when three equal cards lie on top, "Fare for HELKNUFF!" opens a
  sealed reaction window for the seats not on turn; a seat holding the fourth
  may sneak it in. Claims are sealed; when every invited seat has answered,
  the first claimant in playing order from the seat on turn wins (fair and
  deterministic; only possible with two packs). The other seats, apart from
  the 3rd- and 4th-card players, get 4 cards each.
- Sengeknuff (Q+K+A of one suit, no-draw phase only): every hand moves one
  seat left or right, as the player chooses.
- Going out wins the deal; every other active seat gets a letter of K-N-U-F-F,
  and so does every seat that sat out the whole deal. Five letters make a seat
  KNUFF: its hand minimum grows by one and it starts again at K.
- Seats come and go at any time, as the seed says: the seat on turn may leave
  (its hand stays face down at its chair until it returns), and in the draw
  phase every seat away from the table may join (a new player takes the letters
  and KNUFF count of the player with the most) or return, besides the seat on
  turn. Nobody joins or returns in the no-draw phase.
- By default the game is ten deals, long enough that a seat always becomes
  KNUFF and plays on with the larger hand (option ``end``: also the first
  KNUFF, a number of letters, or whichever of rounds and first KNUFF comes first).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

from controller.errors import IllegalAction, MalformedCard
from controller.games import cards
from controller.games.base import (
    Action,
    Bot,
    Game,
    GameEvent,
    GameState,
    Option,
    RandomBot,
    Seat,
    copy_rng,
)
from controller.games.cards import CARD_OF, CARD_TEXT, DECK_SIZE, SUITS, card_text, sort_cards
from controller.games.search import SearchBot, lead_utilities
from controller.rng import Rng

# --- cards -------------------------------------------------------------------
# Cards are `controller.games.cards` ints (ace high). Two packs are a multiset
# of the same 52 ints; the two copies of a card play identically.

# The text of a rank index (``card % 13``), 2 .. A.
RANK_TEXT: tuple[str, ...] = cards.RANK_TEXT[2:]
_PICTURE = 9  # rank index of the jack: J, Q, K and A are "picture cards incl. ace"
LETTERS = "KNUFF"
BASE_HAND = 4
HELKNUFF_DEAL = 4
NO_CARD = -1

# Phases.
ASK = "ask"          # seat 0 asks another seat whether it will begin
ANSWER = "answer"    # the asked seat says yes or no
PLAY = "play"        # a seat's turn
WINDOW = "window"    # "Fare for HELKNUFF!": sealed parknuff claims
OVER = "over"

# Seat status.
ACTIVE = "active"
AWAY = "away"        # left the table after playing
NEW = "new"          # an empty chair: nobody has played there yet

DRAW = Action("draw")
PASS = Action("pass")
DECLINE = Action("decline")
YES = Action("yes")
NO = Action("no")
LEAVE = Action("leave")
JOIN = Action("join")
_PLAY: tuple[Action, ...] = tuple(Action("play", (t,)) for t in CARD_TEXT[:DECK_SIZE])
_CARD_OF_PLAY: dict[Action, int] = {a: c for c, a in enumerate(_PLAY)}
# A pair is laid in the order written: `pair:KH,KS` puts KS on top.
_PAIR: dict[tuple[int, int], Action] = {
    (a, b): Action("pair", (CARD_TEXT[a], CARD_TEXT[b]))
    for a in range(DECK_SIZE) for b in range(DECK_SIZE) if a % 13 == b % 13 and a % 13 >= 9}
# `apply` asks for the actors on every step; the one-seat sets are made once.
_ONE_SEAT: tuple[frozenset[Seat], ...] = tuple(frozenset((s,)) for s in range(8))
_SENGE: dict[tuple[int, str], Action] = {
    (su, d): Action("senge", (SUITS[su], d)) for su in range(4) for d in ("left", "right")}


def parse_card(text: object) -> int:
    """Parse a card's text form (case-insensitive); raise `IllegalAction` if malformed."""
    try:
        card = cards.parse_card(str(text))
    except MalformedCard:
        card = -1
    if not 0 <= card < DECK_SIZE:
        raise IllegalAction("syntax", f"{text!r} is not a card (write e.g. QH, 10S, AC)")
    return card


def is_picture(card: int) -> bool:
    """J, Q, K or A: playable on anything, and the cards that knuff."""
    return card % 13 >= _PICTURE


def playable(card: int, top: int) -> bool:
    """May `card` be played on `top` (``NO_CARD``: an empty or closed pile)?

    >>> playable(parse_card("5H"), parse_card("9H")), playable(parse_card("9H"), parse_card("5H"))
    (True, False)
    >>> playable(parse_card("5S"), parse_card("5H")), playable(parse_card("JS"), parse_card("2H"))
    (True, True)
    """
    if top < 0:
        return True
    r = card % 13
    tr = top % 13
    return r >= _PICTURE or r == tr or (card // 13 == top // 13 and r <= tr)


def letters_text(letters: int) -> str:
    """The letters a seat holds, e.g. 2 -> ``"KN"``."""
    return LETTERS[:letters]


def _sorted_hand(hand: list[int]) -> list[int]:
    return sort_cards(hand)


# --- the game ----------------------------------------------------------------


class KnuffGame(Game):
    """KNUFF for 2 to 8 seats."""

    id: ClassVar[str] = "knuff"
    name: ClassVar[str] = "KNUFF"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 8
    default_seats: ClassVar[int] = 4
    summary: ClassVar[str] = ("Shed your hand with knuffs, hel-knuffs and parknuffs; "
                              "losers collect K-N-U-F-F")
    options_schema: ClassVar[dict[str, Option]] = {
        "end": Option("rounds", "when the game ends: after `rounds` deals (10 deals always "
                      "make a seat KNUFF and play on with its larger hand), at the end of "
                      "the deal where a seat first becomes KNUFF, when a seat holds "
                      "`letters` letters (a KNUFF counts five), or whichever of rounds and "
                      "first-knuff comes first",
                      ("rounds", "first-knuff", "letters", "either")),
        "rounds": Option(10, "number of deals when `end` is rounds or either"),
        "letters": Option(10, "letters (a KNUFF counts five) that end the game when `end` "
                          "is letters"),
        "players": Option(0, "seats occupied at the start (0: all); the others are empty "
                          "chairs whose players may join during the game"),
        "seat_changes": Option(True, "seats come and go during play: the seat on turn may "
                               "leave, a seat away may join or return in the draw phase"),
        "parknuff": Option(True, "open the 'Fare for HELKNUFF!' window for parknuff"),
        "max_draws": Option(5, "cards a seat may draw in one turn (the seed's '5*')"),
        "decks": Option(1, "number of 52-card packs", (1, 2)),
    }

    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> KnuffState:
        """Seat the players, deal the first hands and let seat 0 ask who begins."""
        self.check_seats(seats)
        opts = self.resolve_options(options)
        players = opts["players"] or seats
        if not 2 <= players <= seats:
            raise IllegalAction("options", f"option 'players' must be 0 or 2..{seats}, "
                                f"got {opts['players']}")
        if opts["max_draws"] < 1:
            raise IllegalAction("options", f"option 'max_draws' must be at least 1, "
                                f"got {opts['max_draws']}")
        if opts["rounds"] < 1:
            raise IllegalAction("options", f"option 'rounds' must be at least 1, "
                                f"got {opts['rounds']}")
        if opts["letters"] < 1:
            raise IllegalAction("options", f"option 'letters' must be at least 1, "
                                f"got {opts['letters']}")
        st = KnuffState(seats, opts, rng)
        st.status = [ACTIVE if s < players else NEW for s in range(seats)]
        st.events = []
        st._deal(first=True)
        st.opening_events = st.events
        st.events = []
        return st

    def state_from_json(self, data: dict[str, Any]) -> KnuffState:
        """Rebuild a state from `KnuffState.to_json` output."""
        return KnuffState.from_json(data)


class KnuffState(GameState):
    """One position of a KNUFF game (all seats, all deals)."""

    game_id: ClassVar[str] = "knuff"

    def __init__(self, num_seats: int, options: dict[str, Any], rng: Rng) -> None:
        n = num_seats
        self.num_seats = n
        self.options = options
        self.rng = rng
        self.status: list[str] = [ACTIVE] * n
        self.letters: list[int] = [0] * n
        self.knuffs: list[int] = [0] * n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.stock: list[int] = []       # top of the stock is the end of the list
        self.pile: list[int] = []
        self.dead: list[int] = []        # hel-knuffed cards, out until the next deal
        self.top = NO_CARD               # NO_CARD: empty or closed pile, anything goes
        self.run_len = 0                 # consecutive equal ranks on top of the pile
        self.run_seats: list[int] = []   # who played each card of that run
        self.phase = ASK
        self.nodraw = False
        self.turn = 0
        self.draws = 0
        self.passes = 0                  # consecutive passes without a draw
        self.asked = NO_CARD
        self.window_order: list[int] = []   # invited seats, in priority order
        self.window_answers: dict[int, int] = {}  # seat -> claimed card or NO_CARD
        self.window_third = NO_CARD
        self.round_no = 0
        self.rounds_done = 0
        self.starter = 0
        self.extra = False               # the personlig-knuff extra lay
        self.round_winners: list[int] = []
        self.first_knuff = NO_CARD
        # Private knowledge: known[o][p] lists cards observer o knows are in p's
        # hand (after a sengeknuff o knows the hand it passed on).
        self.known: list[list[list[int]]] = [[[] for _ in range(n)] for _ in range(n)]
        # Public inference: a seat that passed without drawing held nothing
        # playable on this card; cleared when the seat gains cards.
        self.blocked_on: list[int] = [NO_CARD] * n
        self.events: list[GameEvent] = []
        self._legal: tuple[Seat, list[Action]] | None = None

    # --- seats and turns ----------------------------------------------------

    def min_hand(self, seat: Seat) -> int:
        """The seat's hand minimum: 4, plus one per time it became KNUFF."""
        return BASE_HAND + self.knuffs[seat]

    def active_seats(self) -> list[Seat]:
        """Seats at the table, in seat order."""
        return [s for s in range(self.num_seats) if self.status[s] == ACTIVE]

    def _next_active(self, seat: Seat) -> Seat:
        n = self.num_seats
        for k in range(1, n + 1):
            s = (seat + k) % n
            if self.status[s] == ACTIVE:
                return s
        return seat

    def _prev_active(self, seat: Seat) -> Seat:
        n = self.num_seats
        for k in range(1, n + 1):
            s = (seat - k) % n
            if self.status[s] == ACTIVE:
                return s
        return seat

    def _order_from(self, seat: Seat) -> list[Seat]:
        """Active seats in playing order starting at `seat` (included if active)."""
        n = self.num_seats
        return [(seat + k) % n for k in range(n) if self.status[(seat + k) % n] == ACTIVE]

    # --- API ------------------------------------------------------------------

    def actors(self) -> frozenset[Seat]:
        """The seat on turn; in the parknuff window every invited seat yet to answer."""
        ph = self.phase
        if ph == PLAY:
            joiners = self._joinable()
            return _ONE_SEAT[self.turn] if not joiners else frozenset((self.turn, *joiners))
        if ph == WINDOW:
            return frozenset(s for s in self.window_order if s not in self.window_answers)
        if ph == ASK:
            return _ONE_SEAT[self.starter]
        if ph == ANSWER:
            return _ONE_SEAT[self.asked]
        return frozenset()

    def _joinable(self) -> list[Seat]:
        """Seats away from the table that may join or return now: in the draw phase,
        when there are cards for them (their own hand, or a full one from the stock)."""
        if not self.options["seat_changes"] or self.nodraw or self.phase != PLAY:
            return []
        out = []
        for s in range(self.num_seats):
            st = self.status[s]
            if st == ACTIVE:
                continue
            if self.hands[s] or len(self.stock) >= self._join_hand(s):
                out.append(s)
        return out

    def _join_hand(self, seat: Seat) -> int:
        """The hand a seat joining now is dealt: its minimum (a new player's after
        taking the KNUFF count of the player with the most)."""
        if self.status[seat] == NEW:
            return BASE_HAND + self.knuffs[self._most_letters()]
        return self.min_hand(seat)

    def _most_letters(self) -> Seat:
        played = [s for s in range(self.num_seats) if self.status[s] != NEW]
        return max(played, key=lambda s: (self.knuffs[s], self.letters[s]))

    def _may_leave(self, seat: Seat) -> bool:
        return (self.options["seat_changes"] and self.phase == PLAY and seat == self.turn
                and len(self.active_seats()) > 2)

    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every action `seat` may take now, in a fixed order."""
        ph = self.phase
        if ph == PLAY:
            if seat != self.turn:
                return [JOIN] if seat in self._joinable() else []
            acts = list(self._turn_actions(seat))
            if self._may_leave(seat):
                acts.append(LEAVE)
            return acts
        if ph == WINDOW:
            if seat not in self.window_order or seat in self.window_answers:
                return []
            acts = [DECLINE]
            seen: set[int] = set()
            for c in self.hands[seat]:
                if c % 13 == self.top % 13 and c not in seen:
                    seen.add(c)
                    acts.append(Action("parknuff", (CARD_TEXT[c],)))
            return acts
        if ph == ASK:
            if seat != self.starter:
                return []
            return [Action("ask", (s,)) for s in self.active_seats() if s != seat]
        if ph == ANSWER:
            return [YES, NO] if seat == self.asked else []
        return []

    def _turn_actions(self, seat: Seat) -> list[Action]:
        cached = self._legal
        if cached is not None and cached[0] == seat:
            return cached[1]
        hand = self.hands[seat]
        top = self.top
        seen = sorted(set(hand)) if self.options["decks"] > 1 else hand
        pics = [c for c in hand if c % 13 >= _PICTURE]
        if top < 0:
            acts = [_PLAY[c] for c in seen]
        else:
            tr = top % 13
            lo = top - tr
            acts = [_PLAY[c] for c in seen
                    if c % 13 >= _PICTURE or c % 13 == tr or lo <= c <= top]
        if self.extra:
            # The seed's extra after a pair: "legge på en gang til" - one more card that
            # fits on the top card, or none; no drawing, no second pair.
            acts.append(PASS)
            self._legal = (seat, acts)
            return acts
        can_play = bool(acts)
        if len(pics) > 1:
            pics.sort(key=lambda c: (c % 13, c))
            pairs: list[Action] = []
            for i, a in enumerate(pics):
                for b in pics[i + 1:]:
                    if a % 13 != b % 13:
                        break
                    # A pair onto a run of three would make five; one card makes the four.
                    if top >= 0 and tr == a % 13 and self.run_len >= 3:
                        continue
                    # Either card may lie on top: the player chooses the suit to follow.
                    for act in (_PAIR[a, b], _PAIR[b, a]):
                        if act not in pairs:
                            pairs.append(act)
            acts.extend(pairs)
        if self.nodraw and len(pics) > 2:
            for su in range(4):
                if su * 13 + 10 in pics and su * 13 + 11 in pics and su * 13 + 12 in pics:
                    acts.append(_SENGE[su, "left"])
                    acts.append(_SENGE[su, "right"])
        can_draw = self._can_draw()
        if can_draw:
            acts.append(DRAW)
        if self.draws > 0 or (not can_play and not can_draw):
            acts.append(PASS)
        self._legal = (seat, acts)
        return acts

    def _can_draw(self) -> bool:
        return (not self.nodraw and bool(self.stock)
                and self.draws < self.options["max_draws"])

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Apply `seat`'s action; raise `IllegalAction` (state unchanged) if not allowed."""
        self.check_actor(seat)
        if self.phase == PLAY and action.kind not in ("leave", "join"):
            ok = seat == self.turn and action in self._turn_actions(seat)
        else:
            ok = action in self.legal_actions(seat)
        if not ok:
            raise IllegalAction(self._rule_for(seat, action),
                                f"{action} is not allowed for seat {seat} now: "
                                f"{self._why(seat, action)}")
        self.events = []
        self._legal = None
        kind = action.kind
        if kind == "play":
            self._play(seat, [CARD_OF[str(action.args[0])]], "single")
        elif kind == "pair":
            self._play(seat, [parse_card(action.args[0]), parse_card(action.args[1])], "pair")
        elif kind == "senge":
            su = SUITS.index(str(action.args[0]))
            self._sengeknuff(seat, su, str(action.args[1]))
        elif kind == "draw":
            self._draw(seat, 1)
            self.draws += 1
            self.passes = 0
        elif kind == "pass":
            if self.extra:
                self._emit("passed", {"seat": seat, "drew": 0, "extra": True})
                self._next_turn(self._next_active(seat))
            else:
                self._pass(seat)
        elif kind in ("parknuff", "decline"):
            self._answer_window(seat, action)
        elif kind == "ask":
            self.asked = int(action.args[0])
            self.phase = ANSWER
            self._emit("asked", {"seat": seat, "asked": self.asked})
        elif kind in ("yes", "no"):
            self.starter = self.asked if kind == "yes" else self.starter
            self._emit("begins", {"seat": self.starter, "asked": self.asked, "answer": kind})
            self.phase = PLAY
            self.turn = self.starter
        else:
            self._seat_change(seat, kind)
        return self.events

    def _rule_for(self, seat: Seat, action: Action) -> str:
        kind = action.kind
        return {"play": "playing-rule", "pair": "personlig-knuff", "senge": "sengeknuff",
                "draw": "drawing", "pass": "passing", "parknuff": "parknuff",
                "decline": "parknuff", "ask": "who-begins", "yes": "who-begins",
                "no": "who-begins", "leave": "seat-changes",
                "join": "seat-changes"}.get(kind, "actions")

    def _why(self, seat: Seat, action: Action) -> str:
        kind = action.kind
        hand = self.hands[seat]
        try:
            cards = [parse_card(a) for a in action.args] if kind in (
                "play", "pair", "parknuff") else []
        except IllegalAction as exc:
            return str(exc)
        missing = [c for c in cards if hand.count(c) < cards.count(c)]
        if missing:
            return f"seat {seat} does not hold {', '.join(card_text(c) for c in missing)}"
        top = "an empty pile" if self.top < 0 else CARD_TEXT[self.top]
        if self.extra and kind in ("draw", "pair", "senge"):
            return ("after a personlig knuff you may lay one more card that fits on the "
                    "top card, or pass; no drawing")
        if kind == "play":
            return (f"{CARD_TEXT[cards[0]]} does not go on {top} (a picture card or ace, the "
                    "same rank, or the same suit with the same or a lower rank)")
        if kind == "pair":
            return "a personlig knuff is two picture cards or aces of one rank"
        if kind == "senge":
            return ("sengeknuff needs queen, king and ace of one suit, a direction "
                    "(left/right), and the no-draw phase")
        if kind == "draw":
            if self.nodraw:
                return "no cards may be drawn after a hel-knuff or parknuff"
            if not self.stock:
                return "the stock is empty"
            return f"at most {self.options['max_draws']} cards may be drawn in one turn"
        if kind == "pass":
            return ("you may pass only after drawing at least one card, or when you can "
                    "neither play nor draw")
        if kind == "parknuff":
            return "parknuff is the fourth card of the rank of the three on top"
        if kind == "leave":
            if not self.options["seat_changes"]:
                return "the table plays without seat changes (option seat_changes)"
            if seat != self.turn or self.phase != PLAY:
                return "a seat at the table leaves on its turn"
            return "at least two players must stay at the table"
        if kind == "join":
            if self.status[seat] == ACTIVE:
                return f"seat {seat} is already at the table"
            if self.nodraw:
                return ("nobody joins or returns once the no-draw phase has begun; wait "
                        "for the next deal")
            return "there are not enough cards in the stock for a hand; wait for the next deal"
        return f"actions now: {', '.join(str(a) for a in self.legal_actions(seat))}"

    def _emit(self, kind: str, data: dict[str, Any], visible_to: frozenset[Seat] | None = None,
              chance: bool = False) -> None:
        self.events.append(GameEvent(kind, data, visible_to, chance))

    # --- rules ------------------------------------------------------------------

    def _play(self, seat: Seat, cards: list[int], how: str) -> None:
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
            for obs in self.known:
                kn = obs[seat]
                if c in kn:
                    kn.remove(c)
        for c in cards:
            self._lay(seat, c)
        self.passes = 0
        self._emit("played", {"seat": seat, "cards": [CARD_TEXT[c] for c in cards],
                              "how": how, "left": len(hand)})
        if self.run_len >= 4:
            self._helknuff(seat, {seat})
            if not self.hands[seat]:
                self._end_round(seat)
                return
            self._next_turn(self._next_active(seat))
            return
        self._top_up(seat)
        if not hand:
            self._end_round(seat)
            return
        if how == "pair":
            self._emit("personlig-knuff", {"seat": seat})
            self._next_turn(seat, warn=True)
            self.extra = True
        elif is_picture(cards[0]) and self.run_len >= 2:
            skipped = self._next_active(seat)
            self._emit("knuff", {"seat": seat, "skipped": skipped})
            self._next_turn(self._next_active(skipped), warn=True)
        else:
            self._next_turn(self._next_active(seat), warn=True)

    def _lay(self, seat: Seat, card: int) -> None:
        if self.top >= 0 and card % 13 == self.top % 13 and self.run_len > 0:
            self.run_len += 1
            self.run_seats.append(seat)
        else:
            self.run_len = 1
            self.run_seats = [seat]
        self.pile.append(card)
        self.top = card

    def _next_turn(self, seat: Seat, *, warn: bool = False) -> None:
        """Hand the turn to `seat`; after a play (`warn`) that left three equal cards on
        top, open the parknuff window first."""
        self.turn = seat
        self.draws = 0
        self.extra = False
        self.phase = PLAY
        if warn and self.run_len == 3 and self.options["parknuff"]:
            third = self.run_seats[-1]
            rank = self.top % 13
            live = 4 * self.options["decks"] - sum(
                1 for c in self.pile if c % 13 == rank) - sum(
                1 for c in self.dead if c % 13 == rank)
            order = [s for s in self._order_from(seat) if s not in (seat, third)]
            if live > 0 and order:
                self.phase = WINDOW
                self.window_order = order
                self.window_answers = {}
                self.window_third = third
                self._emit("fare-for-helknuff", {"rank": RANK_TEXT[rank], "on_turn": seat,
                                                 "invited": order})

    def _answer_window(self, seat: Seat, action: Action) -> None:
        claim = parse_card(action.args[0]) if action.kind == "parknuff" else NO_CARD
        self.window_answers[seat] = claim
        self._emit("answered", {"seat": seat, "claim": action.kind == "parknuff"},
                   frozenset((seat,)))
        self._emit("answered", {"seat": seat})
        if len(self.window_answers) < len(self.window_order):
            return
        self.phase = PLAY
        # Sealed claims, resolved together: the first claimant in playing order
        # from the seat on turn sneaks the card in; other claims are void and
        # stay secret (their cards stay in hand).
        for s in self.window_order:
            card = self.window_answers[s]
            if card >= 0:
                self._parknuff(s, card)
                return
        self._emit("window-closed", {"parknuff": False})

    def _parknuff(self, seat: Seat, card: int) -> None:
        hand = self.hands[seat]
        hand.remove(card)
        for obs in self.known:
            if card in obs[seat]:
                obs[seat].remove(card)
        self._lay(seat, card)
        self._emit("parknuff", {"seat": seat, "card": CARD_TEXT[card], "third": self.window_third,
                                "left": len(hand)})
        self._helknuff(seat, {seat, self.window_third})
        if not hand:
            self._end_round(seat)
            return
        self.passes = 0
        self._next_turn(self.turn)

    def _helknuff(self, seat: Seat, spared: set[Seat]) -> None:
        four = self.pile[-4:]
        del self.pile[-4:]
        self.dead.extend(four)
        pool = self.pile + self.stock
        self.pile = []
        self.stock = []
        self.rng.shuffle(pool)
        self.top = NO_CARD
        self.run_len = 0
        self.run_seats = []
        self.nodraw = True
        self._emit("hel-knuff", {"seat": seat, "cards": [CARD_TEXT[c] for c in four],
                                 "reshuffled": len(pool)})
        takers = [s for s in self._order_from(self._next_active(seat)) if s not in spared]
        each = min(HELKNUFF_DEAL, len(pool) // len(takers)) if takers else 0
        for s in takers:
            got = pool[len(pool) - each:] if each else []
            del pool[len(pool) - each:]
            self.hands[s].extend(got)
            self.blocked_on[s] = NO_CARD
            self._emit("dealt", {"seat": s, "cards": [CARD_TEXT[c] for c in got]},
                       frozenset((s,)), chance=True)
        self.stock = pool
        self._emit("dealt-counts", {"each": each, "seats": takers, "set_aside": len(pool)},
                   chance=True)

    def _sengeknuff(self, seat: Seat, suit: int, direction: str) -> None:
        cards = [suit * 13 + 10, suit * 13 + 11, suit * 13 + 12]
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
            for obs in self.known:
                if c in obs[seat]:
                    obs[seat].remove(c)
            self._lay(seat, c)
        self.passes = 0
        self._emit("played", {"seat": seat, "cards": [CARD_TEXT[c] for c in cards],
                              "how": "sengeknuff", "left": len(hand)})
        if not hand:
            self._end_round(seat)
            return
        order = self.active_seats()
        step = 1 if direction == "left" else -1
        dest = {s: order[(i + step) % len(order)] for i, s in enumerate(order)}
        old = {s: self.hands[s] for s in order}
        for s in order:
            self.hands[dest[s]] = old[s]
        blocked = list(self.blocked_on)
        for s in order:
            self.blocked_on[dest[s]] = blocked[s]
        for o in range(self.num_seats):
            kn = self.known[o]
            moved = [list(k) for k in kn]
            for s in order:
                kn[dest[s]] = moved[s]
            if o in dest:
                kn[dest[o]] = list(old[o])
                kn[o] = []
        self._emit("sengeknuff", {"seat": seat, "direction": direction,
                                  "counts": [len(h) for h in self.hands]})
        for s in order:
            self._emit("hand", {"seat": s, "from": order[(order.index(s) - step) % len(order)],
                                "cards": [CARD_TEXT[c] for c in _sorted_hand(self.hands[s])]},
                       frozenset((s, order[(order.index(s) - step) % len(order)])))
        self._next_turn(self._next_active(seat))

    def _draw(self, seat: Seat, k: int) -> None:
        got = self.stock[len(self.stock) - k:]
        del self.stock[len(self.stock) - k:]
        self.hands[seat].extend(got)
        self.blocked_on[seat] = NO_CARD
        self._emit("drew", {"seat": seat, "cards": [CARD_TEXT[c] for c in got]},
                   frozenset((seat,)), chance=True)
        self._emit("drew-count", {"seat": seat, "count": len(got), "stock": len(self.stock)})

    def _top_up(self, seat: Seat) -> None:
        if self.nodraw:
            return
        need = min(self.min_hand(seat) - len(self.hands[seat]), len(self.stock))
        if need > 0:
            self._draw(seat, need)

    def _pass(self, seat: Seat) -> None:
        if self.draws == 0:
            self.passes += 1
            self.blocked_on[seat] = self.top
        else:
            self.passes = 0
        self._emit("passed", {"seat": seat, "drew": self.draws})
        if self.passes >= len(self.active_seats()):
            # Everyone is stuck and nobody can draw: close the pile, the next
            # seat leads anything (estimate; the seed has no rule for this).
            self.top = NO_CARD
            self.run_len = 0
            self.run_seats = []
            self.passes = 0
            self._emit("pile-closed", {})
        self._next_turn(self._next_active(seat))

    def _end_round(self, winner: Seat) -> None:
        self.round_winners.append(winner)
        self.rounds_done += 1
        self._emit("out", {"seat": winner, "round": self.round_no})
        became: list[int] = []
        for s in range(self.num_seats):
            if s == winner or self.status[s] == NEW:
                continue
            self.letters[s] += 1
            if self.letters[s] >= len(LETTERS):
                self.letters[s] = 0
                self.knuffs[s] += 1
                became.append(s)
        self._emit("letters", {"winner": winner, "letters": [letters_text(x) for x in self.letters],
                               "knuffs": list(self.knuffs)})
        for s in became:
            if self.first_knuff < 0:
                self.first_knuff = s
            self._emit("KNUFF", {"seat": s, "times": self.knuffs[s],
                                 "hand_minimum": self.min_hand(s)})
        end = self.options["end"]
        done = ((end in ("first-knuff", "either") and bool(became))
                or (end in ("rounds", "either") and self.rounds_done >= self.options["rounds"])
                or (end == "letters" and max(self.totals()) >= self.options["letters"]))
        if done:
            self.phase = OVER
            self._emit("game-over", {"returns": self.returns()})
            return
        self._deal(first=False)

    def _seat_change(self, seat: Seat, kind: str) -> None:
        if kind == "leave":
            # "spillet fortsetter uten dem": the hand stays face down at the chair.
            self.status[seat] = AWAY
            self._emit("left", {"seat": seat, "cards": len(self.hands[seat])})
            self._next_turn(self._next_active(seat))
            return
        if self.status[seat] == NEW:
            most = self._most_letters()
            self.letters[seat] = self.letters[most]
            self.knuffs[seat] = self.knuffs[most]
            word = "joined"
        else:
            word = "returned"
        self.status[seat] = ACTIVE
        dealt = 0
        if not self.hands[seat]:
            dealt = self.min_hand(seat)
            self._draw(seat, dealt)
            for obs in self.known:
                obs[seat] = []
        self._emit(word, {"seat": seat, "letters": letters_text(self.letters[seat]),
                          "knuffs": self.knuffs[seat], "dealt": dealt,
                          "cards": len(self.hands[seat])})

    def _deal(self, *, first: bool) -> None:
        n = self.num_seats
        deck = cards.deck() * self.options["decks"]
        self.rng.shuffle(deck)
        self.round_no += 1
        if not first:
            self.starter = self._next_active(self.starter)
        else:
            self.starter = self._order_from(0)[0]
        order = self._order_from(self.starter)
        want = [self.min_hand(s) for s in order]
        if sum(want) > len(deck):
            share = len(deck) // len(order)
            want = [min(w, share) for w in want]
        self.hands = [[] for _ in range(n)]
        for s, w in zip(order, want, strict=True):
            self.hands[s] = deck[len(deck) - w:]
            del deck[len(deck) - w:]
        self.stock = deck
        self.pile = []
        self.dead = []
        self.top = NO_CARD
        self.run_len = 0
        self.run_seats = []
        self.nodraw = False
        self.draws = 0
        self.passes = 0
        self.window_order = []
        self.window_answers = {}
        self.window_third = NO_CARD
        self.known = [[[] for _ in range(n)] for _ in range(n)]
        self.blocked_on = [NO_CARD] * n
        self._emit("deal", {"round": self.round_no, "starter": self.starter,
                            "counts": [len(h) for h in self.hands], "stock": len(self.stock)},
                   chance=True)
        for s in order:
            self._emit("dealt", {"seat": s, "cards": [CARD_TEXT[c] for c in
                                                      _sorted_hand(self.hands[s])]},
                       frozenset((s,)), chance=True)
        self.turn = self.starter
        self.phase = ASK if first else PLAY

    # --- results ------------------------------------------------------------------

    def is_terminal(self) -> bool:
        """True once the table's end condition has been met."""
        return self.phase == OVER

    def totals(self) -> list[int]:
        """Letters counted with each KNUFF as five; an empty chair counts as the most."""
        raw = [5 * self.knuffs[s] + self.letters[s] for s in range(self.num_seats)]
        played = [raw[s] for s in range(self.num_seats) if self.status[s] != NEW]
        most = max(played) if played else 0
        return [most if self.status[s] == NEW else raw[s] for s in range(self.num_seats)]

    def returns(self) -> list[float]:
        """Minus each seat's letters (a KNUFF counts five): fewest letters wins."""
        return [-float(t) for t in self.totals()]

    def evaluate(self) -> list[float]:
        """Letters so far plus the expected letter of the running deal.

        In a deal a seat's chance to go out first is taken as proportional to
        exp(-cards held / 2), a hand counting at least its minimum while the
        stock can still top it up; a seat away from the table will get its letter
        for sure.
        """
        totals = self.totals()
        n = self.num_seats
        active = [s for s in range(n) if self.status[s] == ACTIVE]
        if self.phase == OVER:
            return [-float(t) for t in totals]
        # While the stock lasts every hand is topped up to its minimum anyway.
        refill = not self.nodraw and bool(self.stock)
        weights = {s: math.exp(-(max(len(self.hands[s]), self.min_hand(s)) if refill
                                 else len(self.hands[s])) / 2.0) for s in active}
        norm = sum(weights.values()) or 1.0
        out = []
        for s in range(n):
            v = -float(totals[s])
            if self.status[s] == AWAY:
                v -= 1.0
            elif self.status[s] == ACTIVE:
                v -= 1.0 - weights[s] / norm
            out.append(v)
        return out

    def conservation(self) -> dict[str, int]:
        """Cards in hands, stock, pile and out of the deal: always the whole pack(s)."""
        every = [c for h in self.hands for c in h] + self.stock + self.pile + self.dead
        return {"cards": len(every), "card_sum": sum(every)}

    # --- views -------------------------------------------------------------------

    def observation(self, seat: Seat | None) -> dict[str, Any]:
        """The table as `seat` sees it (None: the public table screen)."""
        n = self.num_seats
        obs: dict[str, Any] = {
            "game": "knuff", "round": self.round_no, "rounds_done": self.rounds_done,
            "phase": self.phase, "no_draw_phase": self.nodraw, "turn": self.turn,
            "draws_this_turn": self.draws, "passes": self.passes,
            # Public options a screen joining late needs (the game's length, the draw limit).
            "end": self.options["end"], "rounds": self.options["rounds"],
            "letters_limit": self.options["letters"], "max_draws": self.options["max_draws"],
            "top": None if self.top < 0 else CARD_TEXT[self.top],
            "run": self.run_len, "run_seats": list(self.run_seats),
            "pile": [CARD_TEXT[c] for c in self.pile],
            "dead": [CARD_TEXT[c] for c in self.dead],
            "stock": len(self.stock),
            "hand_counts": [len(h) for h in self.hands],
            "status": list(self.status),
            "letters": [letters_text(x) for x in self.letters],
            "knuffs": list(self.knuffs),
            "hand_minimum": [self.min_hand(s) for s in range(n)],
            "starter": self.starter, "asked": self.asked if self.phase == ANSWER else None,
            "extra_lay": self.extra,
            "joinable": self._joinable(),
            "window": None if self.phase != WINDOW else {
                "rank": RANK_TEXT[self.top % 13], "invited": list(self.window_order),
                "answered": sorted(self.window_answers)},
            "blocked_on": [None if b < 0 else CARD_TEXT[b] for b in self.blocked_on],
            "round_winners": list(self.round_winners),
            "first_knuff": None if self.first_knuff < 0 else self.first_knuff,
            "actors": sorted(self.actors()),
        }
        if seat is not None:
            obs["seat"] = seat
            obs["hand"] = [CARD_TEXT[c] for c in _sorted_hand(self.hands[seat])]
            obs["known"] = {str(p): [CARD_TEXT[c] for c in sorted(k)]
                            for p, k in enumerate(self.known[seat]) if k}
            if self.phase == WINDOW and seat in self.window_answers:
                claim = self.window_answers[seat]
                obs["my_claim"] = None if claim < 0 else CARD_TEXT[claim]
        return obs

    # --- copies --------------------------------------------------------------------

    def clone(self) -> KnuffState:
        """A fast independent copy."""
        st = KnuffState.__new__(KnuffState)
        st.num_seats = self.num_seats
        st.options = dict(self.options)
        st.rng = copy_rng(self.rng)
        st.status = list(self.status)
        st.letters = list(self.letters)
        st.knuffs = list(self.knuffs)
        st.hands = [list(h) for h in self.hands]
        st.stock = list(self.stock)
        st.pile = list(self.pile)
        st.dead = list(self.dead)
        st.top = self.top
        st.run_len = self.run_len
        st.run_seats = list(self.run_seats)
        st.phase = self.phase
        st.nodraw = self.nodraw
        st.turn = self.turn
        st.draws = self.draws
        st.passes = self.passes
        st.asked = self.asked
        st.window_order = list(self.window_order)
        st.window_answers = dict(self.window_answers)
        st.window_third = self.window_third
        st.round_no = self.round_no
        st.rounds_done = self.rounds_done
        st.starter = self.starter
        st.extra = self.extra
        st.round_winners = list(self.round_winners)
        st.first_knuff = self.first_knuff
        st.known = [[list(k) for k in obs] for obs in self.known]
        st.blocked_on = list(self.blocked_on)
        st.events = []
        st._legal = None
        return st

    def determinize(self, seat: Seat, rng: Rng) -> KnuffState:
        """Re-deal every card `seat` cannot see: the other hands and the stock.

        Kept: hand sizes, the cards `seat` knows to be in a hand (it passed that
        hand on at a sengeknuff), and the public inference that a seat which
        passed without drawing holds nothing playable on that card.
        """
        st = self.clone()
        st.rng = Rng(rng.next_u64())
        n = self.num_seats
        others = [p for p in range(n) if p != seat and self.hands[p]]
        pool: list[int] = list(self.stock)
        mine = self.known[seat]
        for p in others:
            rest = list(self.hands[p])
            for c in mine[p]:
                rest.remove(c)
            pool.extend(rest)
        # Sorted first, so the sample depends only on what `seat` can see.
        pool.sort()
        for _attempt in range(8):
            rng.shuffle(pool)
            hands = _constrained_fill(pool, [len(self.hands[p]) - len(mine[p]) for p in others],
                                      [self.blocked_on[p] for p in others])
            if hands is not None:
                break
        else:
            rng.shuffle(pool)
            hands = _constrained_fill(pool, [len(self.hands[p]) - len(mine[p]) for p in others],
                                      [NO_CARD] * len(others))
        assert hands is not None
        used: list[int] = []
        for p, h in zip(others, hands, strict=True):
            st.hands[p] = list(mine[p]) + h
            used.extend(h)
        left = list(pool)
        for c in used:
            left.remove(c)
        st.stock = left
        # Other observers' private knowledge must stay true in the sample.
        for o in range(n):
            if o == seat:
                continue
            for p in range(n):
                kn = st.known[o][p]
                if kn:
                    have = list(st.hands[p])
                    keep = []
                    for c in kn:
                        if c in have:
                            have.remove(c)
                            keep.append(c)
                    st.known[o][p] = keep
        for p, claim in list(st.window_answers.items()):
            if p != seat and claim >= 0 and claim not in st.hands[p]:
                st.window_answers[p] = NO_CARD
        return st

    def to_json(self) -> dict[str, Any]:
        """The full state, hidden cards included."""
        return {
            "game": "knuff", "num_seats": self.num_seats, "options": dict(self.options),
            "rng": self.rng.to_json(), "status": list(self.status),
            "letters": list(self.letters), "knuffs": list(self.knuffs),
            "hands": [list(h) for h in self.hands], "stock": list(self.stock),
            "pile": list(self.pile), "dead": list(self.dead), "top": self.top,
            "run_len": self.run_len, "run_seats": list(self.run_seats), "phase": self.phase,
            "nodraw": self.nodraw, "turn": self.turn, "draws": self.draws,
            "passes": self.passes, "asked": self.asked, "window_order": list(self.window_order),
            "window_answers": [[s, c] for s, c in self.window_answers.items()],
            "window_third": self.window_third, "round_no": self.round_no,
            "rounds_done": self.rounds_done, "starter": self.starter,
            "extra": self.extra, "round_winners": list(self.round_winners),
            "first_knuff": self.first_knuff,
            "known": [[list(k) for k in obs] for obs in self.known],
            "blocked_on": list(self.blocked_on),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KnuffState:
        """Rebuild a state from `to_json` output."""
        try:
            st = cls(int(data["num_seats"]), dict(data["options"]), Rng.from_json(data["rng"]))
            for key in ("status", "letters", "knuffs", "stock", "pile", "dead", "run_seats",
                        "window_order", "round_winners", "blocked_on"):
                setattr(st, key, list(data[key]))
            st.hands = [list(h) for h in data["hands"]]
            st.known = [[list(k) for k in obs] for obs in data["known"]]
            st.window_answers = {int(s): int(c) for s, c in data["window_answers"]}
            for key in ("top", "run_len", "turn", "draws", "passes", "asked", "window_third",
                        "round_no", "rounds_done", "starter", "first_knuff"):
                setattr(st, key, int(data[key]))
            st.extra = bool(data["extra"])
            st.phase = str(data["phase"])
            st.nodraw = bool(data["nodraw"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalAction("state", f"not a KNUFF state: {exc!r}") from exc
        return st


# --- helpers -------------------------------------------------------------------


def _constrained_fill(pool: list[int], sizes: list[int],
                      blocked: list[int]) -> list[list[int]] | None:
    """Deal `sizes` cards from the shuffled `pool`, none playable on `blocked[i]`.

    Most constrained hands first; returns None when the greedy pass gets stuck.
    """
    order = sorted(range(len(sizes)), key=lambda i: blocked[i] < 0)
    taken = [False] * len(pool)
    out: list[list[int]] = [[] for _ in sizes]
    for i in order:
        b = blocked[i]
        need = sizes[i]
        got = out[i]
        for j, c in enumerate(pool):
            if need == 0:
                break
            if taken[j] or (b >= 0 and playable(c, b)):
                continue
            taken[j] = True
            got.append(c)
            need -= 1
        if need:
            return None
    return out


# --- bots ----------------------------------------------------------------------


class RuleBot(Bot):
    """A greedy KNUFF player (Board Game Arena's "level 2").

    It reads only public facts and its own hand: hel-knuff and parknuff
    whenever possible, sengeknuff when the hand it would get is smaller, knuff
    to skip, low cards of the suit to squeeze the next seat, and it keeps its
    picture cards and aces (they go on anything) for when nothing else fits.
    """

    name = "rule"
    wild_draws = 0      # draws tried before spending a picture card or ace
    stuck_draws = 1     # draws tried when nothing fits, before passing

    def choose(self, state: GameState) -> Action:
        """Pick the greedy action for `self.seat`."""
        assert isinstance(state, KnuffState)
        acts = state.legal_actions(self.seat)
        if not acts:
            raise IllegalAction("turn-order", f"seat {self.seat} has no legal action")
        if len(acts) == 1:
            return acts[0]
        ph = state.phase
        if ph == WINDOW:
            return acts[-1]          # claim the parknuff if we can
        if ph == ASK:
            return acts[0]
        if ph == ANSWER:
            return YES
        if ph == PLAY and self.seat != state.turn:
            return JOIN          # always come back to the table
        return self._turn(state, acts)

    def _turn(self, st: KnuffState, acts: list[Action]) -> Action:
        seat = self.seat
        hand = st.hands[seat]
        left_after = len(hand)
        best: Action | None = None
        best_score = -1e9
        only_wild = True
        nxt = st._next_active(seat)
        for a in acts:
            kind = a.kind
            if kind == "play":
                c = _CARD_OF_PLAY[a]
                r = c % 13
                same = st.top >= 0 and r == st.top % 13
                score = 0.0
                if left_after == 1 and (st.nodraw or not st.stock):
                    score = 1000.0
                elif same and st.run_len == 3:
                    score = 500.0                            # hel-knuff
                elif r >= _PICTURE:
                    score = 1.0 + (25.0 if same else 0.0)   # knuff skips the next seat
                    if same and st.run_len == 2:
                        score -= 5.0                         # hands the fourth to someone
                else:
                    only_wild = False
                    score = 20.0 - r
                    if same:
                        score -= 3.0
                        if st.run_len == 2:
                            score -= 10.0
                    if len(st.hands[nxt]) <= 2:
                        score += 6.0 - r                     # squeeze a seat about to go out
            elif kind == "pair":
                score = 40.0 if left_after <= 3 else 8.0
                if st.top >= 0 and st.top % 13 == CARD_OF[str(a.args[0])] % 13 and st.run_len == 2:
                    score = 500.0                            # pair completes a hel-knuff
                only_wild = False
            elif kind == "senge":
                mine = left_after - 3
                if mine == 0:
                    score = 1000.0
                else:
                    order = st.active_seats()
                    i = order.index(seat)
                    src = order[(i - 1) % len(order)] if a.args[1] == "left" else \
                        order[(i + 1) % len(order)]
                    gets = len(st.hands[src])
                    score = 60.0 + (mine - gets) * 10.0 if gets < mine else -1.0
                only_wild = False
            else:
                continue
            if score > best_score:
                best, best_score = a, score
        if (best is not None and only_wild and best_score < 20 and DRAW in acts
                and st.draws < self.wild_draws):
            return DRAW          # keep the wild cards while the stock can help
        if best is not None and best_score >= 0:
            return best
        if DRAW in acts and st.draws < self.stuck_draws:
            return DRAW
        if PASS in acts:
            return PASS
        return best if best is not None else acts[0]


def _search_bot(seat: Seat, rng: Rng) -> Bot:
    return SearchBot(seat, rng, time_budget_s=0.3, max_iterations=300, max_rollout_steps=20,
                     rollout=RuleBot, exploration=0.7, utility=_LEAD)


# Letters behind or ahead of the best other seat; about two letters saturate.
_LEAD = lead_utilities(2.0)


BOTS: dict[str, Callable[[Seat, Rng], Bot]] = {
    "random": RandomBot,
    "rule": RuleBot,
    "search": _search_bot,
}

GAME = KnuffGame()
