"""500 / Rommy: the Danish rummy played to 500 points (seed: www.mander.dk).

Each deal: seven cards each, the rest as a face-down stock with its top card
turned up beside it. On a turn a player draws (the stock's top card, the face-up
top card, or the whole face-up pile), may lay down melds (three or more cards:
a set of one value, or a run of one suit with the K-A-2 "ring") and lay cards
off onto any meld on the table (they count for whoever lays them), and ends by
discarding. Discarding the last card closes the deal; a player who melds out
without a last card makes play continue one more round. Melded cards count
plus (2-9: 5, 10-K: 10, A: 15, joker: 25), cards in hand minus, and taking the
whole pile without melding in the same turn costs 50. Deals go on until a seat
reaches 500.

Every interpretation and option is documented in docs/rules/rommy.md.

Cards are `controller.games.cards` ints: two decks' naturals (the second deck's
copy named with a prime, "QH'") and jokers ("JK1"...).
Actions: ``draw`` (stock), ``take`` (the face-up top card), ``pile`` (the whole
face-up pile), ``meld:5H,6H,JK1`` (cards in run order, so a joker's place is
explicit), ``layoff:QC,2,hi`` (card, meld number, end for runs), ``discard:7S``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
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
from controller.games.cards import (
    ACE,
    CARD_OF,
    JOKER,
    NUM_CARDS,
    RANK,
    RANK_TEXT,
    SUIT,
    SUITS,
    deck,
    sort_cards,
    sort_order,
)
from controller.games.search import SearchBot, lead_utilities
from controller.rng import Rng

# --- Cards -------------------------------------------------------------------------------

JOKER_BASE = JOKER
HAND_SIZE = 7
# Seeded deals replay only if the pack is built in the order it always was;
# hands are shown in the same order: clubs, diamonds, hearts, spades, each
# from the ace up to the king, then the jokers.
PACK_SUITS = "CDHS"
PACK_RANKS = (ACE, *range(2, ACE))
_ORDER = sort_order(PACK_SUITS, ace_low=True)
# `apply` asks for the actors on every step; the sets are made once.
_NOBODY: frozenset[Seat] = frozenset()
_ONE_SEAT: tuple[frozenset[Seat], ...] = tuple(frozenset((s,)) for s in range(8))

#: Every card's text, by card id.
NAMES: tuple[str, ...] = cards.CARD_TEXT


def card_name(card: int) -> str:
    """Canonical text of a card id.

    >>> pack = deck(PACK_SUITS, PACK_RANKS, copies=2, jokers=1)
    >>> [card_name(pack[i]) for i in (0, 1, 51, 52, 104)]
    ['AC', '2C', 'KS', "AC'", 'JK1']
    """
    return NAMES[card]


def parse_card(text: Any) -> int:
    """Card id of a canonical card text; raises `IllegalAction` if there is none.

    >>> card_name(parse_card("10h")), card_name(parse_card("qh'"))
    ('10H', "QH'")
    """
    try:
        return cards.parse_card(str(text))
    except MalformedCard:
        raise IllegalAction("cards", f"{text!r} is not a card (e.g. 'QH', '10S', \"QH'\", "
                            "'JK1')") from None


def hand_value(card: int) -> int:
    """Points of a card (seed: 2-9 five, 10-K ten, ace fifteen, joker 25)."""
    if card >= JOKER:
        return 25
    r = RANK[card]
    return 15 if r == ACE else 10 if r >= 10 else 5


# 500 counts a run's positions from the ace up (1 .. 13, 14 the high ace) and
# keeps suits in pack order; these tables give each card id its place there.
_VALUE = [hand_value(c) for c in range(NUM_CARDS)]
#: 1 (ace) .. 13 (king); 0 for a joker.
_RANK = [0 if c >= JOKER else 1 if RANK[c] == ACE else RANK[c] for c in range(NUM_CARDS)]
#: 0..3 in `PACK_SUITS` order; -1 for a joker.
_SUIT = [-1 if c >= JOKER else PACK_SUITS.index(SUITS[SUIT[c]]) for c in range(NUM_CARDS)]
#: suit * 13 + rank - 1 in those terms: the card whichever deck it is from.
_FACE = [-1 if c >= JOKER else _SUIT[c] * 13 + _RANK[c] - 1 for c in range(NUM_CARDS)]


def rank_at(pos: int) -> int:
    """The rank at a run position; positions 1..13 are A..K and 14 is the high ace.
    On the ring, positions continue (15 is 2 again)."""
    return (pos - 1) % 13 + 1


# Ace position option -> (lowest, highest) run position; None means the ring.
_ACE_BOUNDS: dict[str, tuple[int, int] | None] = {
    "ring": None, "low": (1, 13), "high": (2, 14), "both": (1, 14),
}


class Meld:
    """A meld on the table: a set (one rank) or a run (one suit from `start`).

    `cards[i]` was laid by `owners[i]`; for a run, `cards` are in position order
    starting at position `start`, so a joker's stand-in is its position.
    """

    __slots__ = ("cards", "key", "kind", "owners", "start")

    def __init__(self, kind: str, key: int, start: int, cards: list[int],
                 owners: list[Seat]) -> None:
        self.kind = kind  # "set" or "run"
        self.key = key  # the rank of a set, the suit of a run
        self.start = start
        self.cards = cards
        self.owners = owners

    def copy(self) -> Meld:
        """An independent copy."""
        return Meld(self.kind, self.key, self.start, list(self.cards), list(self.owners))

    def to_json(self) -> dict[str, Any]:
        """JSON form (all public)."""
        return {"kind": self.kind, "key": self.key, "start": self.start,
                "cards": [NAMES[c] for c in self.cards], "owners": list(self.owners)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Meld:
        """Rebuild from `to_json`."""
        return cls(data["kind"], int(data["key"]), int(data["start"]),
                   [CARD_OF[c] for c in data["cards"]], [int(o) for o in data["owners"]])

    def text(self) -> str:
        """Human-readable form, e.g. "run 9C 10C JC" with the owners of lay-offs."""
        return f"{self.kind} " + " ".join(NAMES[c] for c in self.cards)


# --- The game ----------------------------------------------------------------------------


class RommyGame(Game):
    """500 / Rommy: melds, lay-offs, the whole pile, and deals to 500."""

    id = "rommy"
    name = "500 / Rommy"
    min_seats = 2
    max_seats = 6
    default_seats = 3
    summary = "Danish rummy to 500: sets and runs round the K-A-2 ring, take the whole pile."
    options_schema: ClassVar[dict[str, Option]] = {
        "target": Option(500, "points that end the game (da.wikipedia: 500)"),
        "jokers": Option(3, "jokers in the pack (da.wikipedia: normally three; "
                         "spilbyen.dk: 2-3)", (0, 1, 2, 3, 4)),
        "decks": Option(1, "52-card decks in the pack; two decks give each card a "
                        "primed twin, QH and QH'", (1, 2)),
        "penalty": Option(50, "points lost for taking the whole pile without melding "
                          "that turn (seed 50; casinospelsverige.se 100)", (50, 100)),
        "pile_rule": Option("penalty", "taking the whole pile: 'penalty' (seed: allowed, "
                            "lose the penalty unless you meld that turn), 'must_meld' (only "
                            "when a meld is possible, and you must meld before discarding), "
                            "'must_meld_pile_card' (that meld must use a taken card, "
                            "basta-casinon.se)",
                            ("penalty", "must_meld", "must_meld_pile_card")),
        "take_pile": Option("any", "who may take the whole pile: 'any' (seed) or "
                            "'after_meld' (only after an earlier meld, norske-kortspill.no)",
                            ("any", "after_meld")),
        "first_turn": Option("free", "'no_meld': no melding or laying off on your first "
                             "turn of a deal (spilbyen.dk)", ("free", "no_meld")),
        "ace_position": Option("ring", "aces in runs: 'ring' (seed: K-A-2, all 13 values "
                               "in a ring), 'low' (A-2-3), 'high' (Q-K-A), 'both' (either "
                               "end, no wrap)", ("ring", "low", "high", "both")),
        "ace_value": Option("15", "'15' (seed) or 'low5': an ace used low in a run "
                            "(A-2-3) scores 5 (norske-kortspill.no)", ("15", "low5")),
        "lay_off": Option("any", "'any' (seed: onto any meld, counted as your own) or "
                          "'after_meld' (onto others' melds only after your own first meld, "
                          "reglerna.nu)", ("any", "after_meld")),
        "reshuffles": Option(1, "times per deal the face-up pile (but its top card) is "
                             "reshuffled into an empty stock before the deal ends",
                             (0, 1, 2, 3)),
        "set_limit": Option("naturals", "how full a set may get: 'naturals' (seed: 'mindst tre "
                            "(men gerne flere)'; every natural card of the value, 4 per deck, "
                            "plus any jokers) or 'cards' (norske-kortspill.no 'tre eller fire "
                            "kort', basta-casinon.se 'tretal/fyrtal': at most 4 cards per deck, "
                            "jokers included)", ("naturals", "cards")),
        "max_deals": Option(30, "safety limit: the game also ends after this many deals "
                            "(0: no limit)"),
    }

    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> RommyState:
        """Shuffle and deal the first deal (dealer seat 0; seat 1 starts)."""
        self.check_seats(seats)
        if options["target"] < 1 or options["max_deals"] < 0:
            raise IllegalAction("options", "target must be at least 1 and max_deals at least 0, "
                                f"got {options['target']} and {options['max_deals']}")
        total = 52 * options["decks"] + options["jokers"]
        needed = seats * HAND_SIZE + 2
        if total < needed:
            raise IllegalAction("options", f"{total} cards are too few for {seats} seats")
        state = RommyState(seats, options, rng)
        opening: list[GameEvent] = []
        state._deal(opening)
        state.opening_events = opening
        return state

    def state_from_json(self, data: dict[str, Any]) -> RommyState:
        """Rebuild a state from JSON."""
        return RommyState.from_json(data)


class RommyState(GameState):
    """One position of a 500 game: the current deal and the running totals."""

    game_id = "rommy"

    def __init__(self, seats: int, options: dict[str, Any], rng: Rng) -> None:
        self.num_seats = seats
        self.options = dict(options)
        self.rng = rng
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.stock: list[int] = []  # top is the end
        self.pile: list[int] = []  # face-up, top is the end
        self.melds: list[Meld] = []
        self.known: list[set[int]] = [set() for _ in range(seats)]  # hand cards all have seen
        self.dealer = seats - 1  # _deal advances it: the first deal is dealt by seat 0
        self.turn = 0
        self.phase = "draw"  # draw | play | over
        self.took_pile: list[int] = []  # cards taken with the whole pile this turn
        self.melded_this_turn = False
        self.melded_pile_card = False
        self.turns_taken = [0] * seats
        self.has_melded = [False] * seats
        self.penalties = [0] * seats
        self.totals = [0] * seats
        self.history: list[list[int]] = []
        self.deal_no = 0
        self.reshuffled = 0
        self._bounds = _ACE_BOUNDS[options["ace_position"]]

    # --- GameState API -------------------------------------------------------------------

    def actors(self) -> frozenset[Seat]:
        """The seat whose turn it is (nobody once the game is over)."""
        return _NOBODY if self.phase == "over" else _ONE_SEAT[self.turn]

    def is_terminal(self) -> bool:
        """True once a seat has reached the target (or the deal limit)."""
        return self.phase == "over"

    def returns(self) -> list[float]:
        """Each seat's running total."""
        return [float(t) for t in self.totals]

    def evaluate(self) -> list[float]:
        """Totals plus the current deal as if it were closed now (for cut playouts)."""
        deal = self._deal_scores()[0]
        return [float(t + d) for t, d in zip(self.totals, deal, strict=True)]

    def conservation(self) -> dict[str, int]:
        """Card counts that never change: every card is in a hand, the stock, the pile
        or a meld, exactly once."""
        everywhere = [c for h in self.hands for c in h] + self.stock + self.pile + [
            c for m in self.melds for c in m.cards]
        return {"cards": len(everywhere), "distinct": len(set(everywhere))}

    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every action `seat` may take now. Melds are listed as three-card melds
        (longer melds are those plus lay-offs; `apply` accepts them directly too),
        using one representative of interchangeable cards (the lowest joker, the
        first of twin cards)."""
        if self.phase == "over" or seat != self.turn:
            return []
        hand = self.hands[seat]
        if self.phase == "draw":
            if not hand or not self.pile:
                return [_DRAW]
            if self._may_take_pile(seat):
                return [_DRAW, _TAKE, _PILE]
            return [_DRAW, _TAKE]
        actions: list[Action] = []
        if self._may_meld(seat):
            actions.extend(_meld_action(m) for m in _meld_options(hand, self._bounds, True))
            actions.extend(_layoff_action(card, index, end)
                           for card, index, end in self._layoff_options(seat, hand))
        if self._may_discard(seat):
            actions.extend(_DISCARD[c] for c in dict.fromkeys(hand))
        return actions

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Apply `seat`'s action after checking every rule it touches."""
        self.check_actor(seat)
        kind = action.kind
        if self.phase == "draw":
            if kind == "draw":
                return self._do_draw(seat, action)
            if kind == "take":
                return self._do_take(seat, action)
            if kind == "pile":
                return self._do_pile(seat, action)
            raise IllegalAction("turn-start", f"seat {seat} must first draw, take the top "
                                f"card or take the whole pile, not {action}")
        if kind == "meld":
            return self._do_meld(seat, action)
        if kind == "layoff":
            return self._do_layoff(seat, action)
        if kind == "discard":
            return self._do_discard(seat, action)
        raise IllegalAction("turn-end", f"seat {seat} has drawn; now meld, lay off or "
                            f"discard, not {action}")

    def turn_message(self, seat: Seat) -> str:
        """Name the seat whose turn it is."""
        return f"it is seat {self.turn}'s turn, not seat {seat}'s"

    def observation(self, seat: Seat | None) -> dict[str, Any]:
        """The table as `seat` sees it: the whole face-up pile, all melds, hand sizes,
        the cards everyone saw go into a hand (taken from the pile), and only
        `seat`'s own hand. None: the public table screen."""
        obs: dict[str, Any] = {
            "game": "rommy", "seat": seat, "seats": self.num_seats,
            "deal": self.deal_no, "dealer": self.dealer, "turn": self.turn,
            "phase": self.phase, "stock": len(self.stock),
            "pile": [NAMES[c] for c in self.pile],
            "melds": [m.to_json() for m in self.melds],
            "hand_sizes": [len(h) for h in self.hands],
            "known_in_hand": [sorted(NAMES[c] for c in k) for k in self.known],
            "took_pile": [NAMES[c] for c in self.took_pile],
            "melded_this_turn": self.melded_this_turn,
            "turns_taken": list(self.turns_taken), "has_melded": list(self.has_melded),
            "penalties": list(self.penalties), "totals": list(self.totals),
            "history": [list(h) for h in self.history], "reshuffled": self.reshuffled,
            "options": dict(self.options),
        }
        if seat is not None:
            obs["hand"] = [NAMES[c] for c in sort_cards(self.hands[seat], _ORDER)]
        return obs

    def to_json(self) -> dict[str, Any]:
        """The full state, hidden cards and the generator included."""
        return {
            "game": "rommy", "seats": self.num_seats, "options": dict(self.options),
            "rng": self.rng.to_json(),
            "hands": [[NAMES[c] for c in h] for h in self.hands],
            "stock": [NAMES[c] for c in self.stock], "pile": [NAMES[c] for c in self.pile],
            "melds": [m.to_json() for m in self.melds],
            "known": [sorted(NAMES[c] for c in k) for k in self.known],
            "dealer": self.dealer, "turn": self.turn, "phase": self.phase,
            "took_pile": [NAMES[c] for c in self.took_pile],
            "melded_this_turn": self.melded_this_turn,
            "melded_pile_card": self.melded_pile_card,
            "turns_taken": list(self.turns_taken), "has_melded": list(self.has_melded),
            "penalties": list(self.penalties), "totals": list(self.totals),
            "history": [list(h) for h in self.history], "deal_no": self.deal_no,
            "reshuffled": self.reshuffled,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RommyState:
        """Rebuild a state from `to_json` output."""
        try:
            state = cls(int(data["seats"]), dict(data["options"]), Rng.from_json(data["rng"]))
            state.hands = [[CARD_OF[c] for c in h] for h in data["hands"]]
            state.stock = [CARD_OF[c] for c in data["stock"]]
            state.pile = [CARD_OF[c] for c in data["pile"]]
            state.melds = [Meld.from_json(m) for m in data["melds"]]
            state.known = [{CARD_OF[c] for c in k} for k in data["known"]]
            state.dealer = int(data["dealer"])
            state.turn = int(data["turn"])
            state.phase = str(data["phase"])
            state.took_pile = [CARD_OF[c] for c in data["took_pile"]]
            state.melded_this_turn = bool(data["melded_this_turn"])
            state.melded_pile_card = bool(data["melded_pile_card"])
            state.turns_taken = [int(x) for x in data["turns_taken"]]
            state.has_melded = [bool(x) for x in data["has_melded"]]
            state.penalties = [int(x) for x in data["penalties"]]
            state.totals = [int(x) for x in data["totals"]]
            state.history = [[int(x) for x in h] for h in data["history"]]
            state.deal_no = int(data["deal_no"])
            state.reshuffled = int(data["reshuffled"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalAction("state", f"not a saved 500 / Rommy state: {exc!r}") from exc
        return state

    def clone(self) -> RommyState:  # a view subclass (search) stays that subclass
        """A fast independent copy (no JSON round trip)."""
        new = type(self).__new__(type(self))
        new.num_seats = self.num_seats
        new.options = dict(self.options)
        new.rng = copy_rng(self.rng)
        new.hands = [list(h) for h in self.hands]
        new.stock = list(self.stock)
        new.pile = list(self.pile)
        new.melds = [m.copy() for m in self.melds]
        new.known = [set(k) for k in self.known]
        new.dealer = self.dealer
        new.turn = self.turn
        new.phase = self.phase
        new.took_pile = list(self.took_pile)
        new.melded_this_turn = self.melded_this_turn
        new.melded_pile_card = self.melded_pile_card
        new.turns_taken = list(self.turns_taken)
        new.has_melded = list(self.has_melded)
        new.penalties = list(self.penalties)
        new.totals = list(self.totals)
        new.history = [list(h) for h in self.history]
        new.deal_no = self.deal_no
        new.reshuffled = self.reshuffled
        new._bounds = self._bounds
        return new

    def determinize(self, seat: Seat, rng: Rng) -> RommyState:
        """A copy in which the cards hidden from `seat` (the other hands, except the
        cards everyone saw them take, and the stock) are re-dealt at random.
        The copy gets a fresh generator, so future reshuffles are not the real ones."""
        sim = self.clone()
        sim.rng = rng.fork(f"det:{rng.next_u64()}")
        pool = list(self.stock)
        hidden_counts: list[tuple[Seat, list[int]]] = []
        for other in range(self.num_seats):
            if other == seat:
                continue
            known = self.known[other]
            keep = sort_cards((c for c in self.hands[other] if c in known), _ORDER)
            pool.extend(c for c in self.hands[other] if c not in known)
            hidden_counts.append((other, keep))
        # Sorted first, so the sample depends on what `seat` saw and `rng`, never on
        # where the hidden cards really are.
        pool.sort(key=_ORDER.__getitem__)
        rng.shuffle(pool)
        for other, keep in hidden_counts:
            need = len(self.hands[other]) - len(keep)
            sim.hands[other] = keep + pool[:need]
            del pool[:need]
        sim.stock = pool
        return sim

    # --- Rules ---------------------------------------------------------------------------

    def _may_take_pile(self, seat: Seat) -> bool:
        if len(self.pile) < 2:  # one face-up card is "one card" (rules.md §6, decided)
            return False
        if self.options["take_pile"] == "after_meld" and not self.has_melded[seat]:
            return False
        if self.options["first_turn"] == "no_meld" and self.turns_taken[seat] == 0:
            return False
        rule = self.options["pile_rule"]
        if rule == "penalty":
            return True
        return self._pile_meld_possible(self.hands[seat] + self.pile, self.pile)

    def _pile_meld_possible(self, pool: list[int], taken: list[int]) -> bool:
        need_pile = self.options["pile_rule"] == "must_meld_pile_card"
        taken_set = set(taken)
        for meld in _meld_options(pool, self._bounds, dedupe=not need_pile):
            if not need_pile or taken_set.intersection(meld):
                return True
        return False

    def _may_meld(self, seat: Seat) -> bool:
        return not (self.options["first_turn"] == "no_meld" and self.turns_taken[seat] == 0)

    def _may_discard(self, seat: Seat) -> bool:
        if not self.hands[seat]:
            return False
        if (self.took_pile and self.options["pile_rule"] != "penalty"
                and not self._pile_obligation_met()):
            # Must meld first, as long as a qualifying meld is still possible
            # (so a player who squandered it is not stuck: they pay the penalty).
            return not self._pile_meld_possible(self.hands[seat], self.took_pile)
        return True

    def _pile_obligation_met(self) -> bool:
        if self.options["pile_rule"] == "must_meld_pile_card":
            return self.melded_pile_card
        return self.melded_this_turn

    def _layoff_options(self, seat: Seat, hand: list[int]) -> list[tuple[int, int, str]]:
        """(card, meld index, end) for every lay-off; end is "" for sets."""
        by_key: dict[tuple[int, int], int] = {}
        joker = -1
        for c in hand:
            if c >= JOKER_BASE:
                if joker < 0 or c < joker:
                    joker = c
            else:
                by_key.setdefault((_SUIT[c], _RANK[c]), c)
        out: list[tuple[int, int, str]] = []
        others_ok = self.options["lay_off"] == "any" or self.has_melded[seat]
        for index, meld in enumerate(self.melds):
            if not others_ok and seat not in meld.owners:
                continue
            if meld.kind == "set":
                if self._set_has_room(meld, natural=True):
                    for s in range(4):
                        fit = by_key.get((s, meld.key))
                        if fit is not None:
                            out.append((fit, index, ""))
                if joker >= 0 and self._set_has_room(meld, natural=False):
                    out.append((joker, index, ""))
                continue
            for end, pos in self._run_ends(meld):
                fit = by_key.get((meld.key, rank_at(pos)))
                if fit is not None:
                    out.append((fit, index, end))
                if joker >= 0:
                    out.append((joker, index, end))
        return out

    def _set_cap(self) -> int | None:
        """The most cards a new set may have (None: no limit but the naturals')."""
        return 4 * self.options["decks"] if self.options["set_limit"] == "cards" else None

    def _set_has_room(self, meld: Meld, *, natural: bool) -> bool:
        """May one more card (a natural one, or a joker) join the set `meld`?

        With ``set_limit=naturals`` (the seed) jokers never fill a set: it takes
        every natural card of its value and any jokers; with ``cards`` (regional)
        it holds at most four cards per deck, jokers included.
        """
        cap: int = 4 * self.options["decks"]
        if self.options["set_limit"] == "cards":
            return len(meld.cards) < cap
        if not natural:
            return True
        return sum(1 for c in meld.cards if c < JOKER_BASE) < cap

    def _run_ends(self, meld: Meld) -> list[tuple[str, int]]:
        """The ends a run can grow at, with the position a card there would take."""
        length = len(meld.cards)
        if length >= 13:
            return []
        lo, hi = meld.start - 1, meld.start + length
        if self._bounds is None:
            # On the ring a 12-card run's two ends are the same card: offer it once.
            return [("lo", lo), ("hi", hi)] if length < 12 else [("hi", hi)]
        low, high = self._bounds
        ends = []
        if lo >= low:
            ends.append(("lo", lo))
        if hi <= high:
            ends.append(("hi", hi))
        return ends

    def _take_out(self, seat: Seat, cards: Iterable[int]) -> None:
        hand = self.hands[seat]
        known = self.known[seat]
        for c in cards:
            hand.remove(c)
            known.discard(c)

    def _held(self, seat: Seat, names: Iterable[Any], rule: str) -> list[int]:
        cards = [parse_card(n) for n in names]
        hand = self.hands[seat]
        if len(set(cards)) != len(cards):
            raise IllegalAction(rule, "the same card is named twice")
        missing = [NAMES[c] for c in cards if c not in hand]
        if missing:
            raise IllegalAction(rule, f"seat {seat} does not hold {', '.join(missing)}")
        return cards

    def _do_draw(self, seat: Seat, action: Action) -> list[GameEvent]:
        if action.args:
            raise IllegalAction("draw", "'draw' takes no arguments")
        card = self.stock.pop()  # _start_turn guarantees a card
        self.hands[seat].append(card)
        self.phase = "play"
        return [GameEvent("drew", {"seat": seat, "stock": len(self.stock)}, chance=True),
                GameEvent("drew_card", {"seat": seat, "card": NAMES[card]},
                          visible_to=frozenset((seat,)), chance=True)]

    def _do_take(self, seat: Seat, action: Action) -> list[GameEvent]:
        if action.args:
            raise IllegalAction("take", "'take' takes no arguments")
        if not self.pile:
            raise IllegalAction("take", "the face-up pile is empty")
        if not self.hands[seat]:
            raise IllegalAction("one-more-round", "a player without cards draws from the "
                                "face-down stock")
        card = self.pile.pop()
        self.hands[seat].append(card)
        self.known[seat].add(card)
        self.phase = "play"
        return [GameEvent("took", {"seat": seat, "card": NAMES[card]})]

    def _do_pile(self, seat: Seat, action: Action) -> list[GameEvent]:
        if action.args:
            raise IllegalAction("pile", "'pile' takes no arguments")
        if not self.hands[seat]:
            raise IllegalAction("one-more-round", "a player without cards draws from the "
                                "face-down stock")
        if len(self.pile) < 2:
            raise IllegalAction("pile", "the whole pile needs two or more cards; take the "
                                "one face-up card with 'take'")
        if not self._may_take_pile(seat):
            raise IllegalAction("pile", self._pile_refusal(seat))
        cards = self.pile
        self.pile = []
        self.hands[seat].extend(cards)
        self.known[seat].update(cards)
        self.took_pile = list(cards)
        self.phase = "play"
        return [GameEvent("took_pile", {"seat": seat, "cards": [NAMES[c] for c in cards]})]

    def _pile_refusal(self, seat: Seat) -> str:
        if self.options["take_pile"] == "after_meld" and not self.has_melded[seat]:
            return "option take_pile=after_meld: only a player who has already melded may " \
                   "take the whole pile"
        if self.options["first_turn"] == "no_meld" and self.turns_taken[seat] == 0:
            return "option first_turn=no_meld: no taking the pile on your first turn"
        return f"option pile_rule={self.options['pile_rule']}: no meld is possible with " \
               "the pile"

    def _do_meld(self, seat: Seat, action: Action) -> list[GameEvent]:
        if not self._may_meld(seat):
            raise IllegalAction("first-turn", "option first_turn=no_meld: no melding on "
                                "your first turn")
        if len(action.args) < 3:
            raise IllegalAction("meld", "a meld is at least three cards")
        cards = self._held(seat, action.args, "meld")
        meld = _make_meld(cards, self._bounds, self._set_cap())
        if meld is None:
            raise IllegalAction("meld", f"{' '.join(NAMES[c] for c in cards)} is neither a "
                                "set of one value nor a run of one suit in order (with at "
                                "least two natural cards)")
        meld.owners = [seat] * len(cards)
        self._take_out(seat, cards)
        self.melds.append(meld)
        self.melded_this_turn = True
        self.has_melded[seat] = True
        if self.took_pile and set(self.took_pile).intersection(cards):
            self.melded_pile_card = True
        events = [GameEvent("melded", {"seat": seat, "meld": len(self.melds) - 1,
                                       "kind": meld.kind,
                                       "cards": [NAMES[c] for c in meld.cards]})]
        if not self.hands[seat]:
            self._end_turn(seat, events)
        return events

    def _do_layoff(self, seat: Seat, action: Action) -> list[GameEvent]:
        if not self._may_meld(seat):
            raise IllegalAction("first-turn", "option first_turn=no_meld: no laying off on "
                                "your first turn")
        args = action.args
        if len(args) not in (2, 3) or not isinstance(args[1], int):
            raise IllegalAction("layoff", "lay off as layoff:CARD,MELD[,lo|hi]")
        card = self._held(seat, args[:1], "layoff")[0]
        index = args[1]
        if not 0 <= index < len(self.melds):
            raise IllegalAction("layoff", f"there is no meld {index}")
        meld = self.melds[index]
        if (self.options["lay_off"] == "after_meld" and not self.has_melded[seat]
                and seat not in meld.owners):
            raise IllegalAction("layoff", "option lay_off=after_meld: meld yourself before "
                                "laying off on others' melds")
        end = str(args[2]) if len(args) == 3 else ""
        if meld.kind == "set":
            if end:
                raise IllegalAction("layoff", "a set has no ends; lay off as layoff:CARD,MELD")
            if not self._set_has_room(meld, natural=card < JOKER_BASE):
                limit = ("cards" if self.options["set_limit"] == "cards"
                         else "natural cards")
                raise IllegalAction("layoff", f"the set of {RANK_TEXT[meld.key]}s is full "
                                    f"(at most {4 * self.options['decks']} {limit}; option "
                                    f"set_limit={self.options['set_limit']})")
            if card < JOKER_BASE and _RANK[card] != meld.key:
                raise IllegalAction("layoff", f"{NAMES[card]} does not fit the set of "
                                    f"{RANK_TEXT[meld.key]}s")
            meld.cards.append(card)
            meld.owners.append(seat)
        else:
            ends = dict(self._run_ends(meld))
            if not end:
                end = next((e for e, p in sorted(ends.items())
                            if card >= JOKER_BASE or (_SUIT[card] == meld.key
                                                      and _RANK[card] == rank_at(p))), "hi")
            if end not in ("lo", "hi"):
                raise IllegalAction("layoff", f"a run's end is 'lo' or 'hi', not {end!r}")
            if end not in ends:
                raise IllegalAction("layoff", f"the run cannot grow at its {end} end")
            pos = ends[end]
            if card < JOKER_BASE and (_SUIT[card] != meld.key or _RANK[card] != rank_at(pos)):
                raise IllegalAction("layoff", f"{NAMES[card]} does not fit the {end} end of "
                                    f"meld {index}")
            if end == "lo":
                meld.cards.insert(0, card)
                meld.owners.insert(0, seat)
                meld.start = pos if self._bounds is not None else rank_at(pos)
            else:
                meld.cards.append(card)
                meld.owners.append(seat)
        self._take_out(seat, (card,))
        data: dict[str, Any] = {"seat": seat, "card": NAMES[card], "meld": index}
        if meld.kind == "run":
            data["end"] = end
        events = [GameEvent("laid_off", data)]
        if not self.hands[seat]:
            self._end_turn(seat, events)
        return events

    def _do_discard(self, seat: Seat, action: Action) -> list[GameEvent]:
        if len(action.args) != 1:
            raise IllegalAction("discard", "discard exactly one card")
        card = self._held(seat, action.args, "discard")[0]
        if not self._may_discard(seat):
            raise IllegalAction("pile", f"option pile_rule={self.options['pile_rule']}: "
                                "meld (with the pile) before discarding")
        self._take_out(seat, (card,))
        self.pile.append(card)
        events = [GameEvent("discarded", {"seat": seat, "card": NAMES[card]})]
        self._end_turn(seat, events, discarded=True)
        return events

    def _end_turn(self, seat: Seat, events: list[GameEvent], *, discarded: bool = False) -> None:
        if self.took_pile and not self._pile_obligation_met():
            self.penalties[seat] += 1
            events.append(GameEvent("penalty", {"seat": seat,
                                                "points": -self.options["penalty"]}))
        self.turns_taken[seat] += 1
        if not self.hands[seat]:
            if discarded:
                events.append(GameEvent("closed", {"seat": seat}))
                self._end_deal(events, closer=seat)
                return
            events.append(GameEvent("no_last_card", {"seat": seat}))
        self._start_turn((seat + 1) % self.num_seats, events)

    def _start_turn(self, seat: Seat, events: list[GameEvent]) -> None:
        self.turn = seat
        self.phase = "draw"
        self.took_pile = []
        self.melded_this_turn = False
        self.melded_pile_card = False
        if self.stock:
            return
        if self.reshuffled < self.options["reshuffles"] and len(self.pile) >= 2:
            top = self.pile.pop()
            self.stock = self.pile
            self.pile = [top]
            self.rng.shuffle(self.stock)
            self.reshuffled += 1
            events.append(GameEvent("reshuffled", {"stock": len(self.stock)}, chance=True))
            return
        events.append(GameEvent("stock_exhausted", {}))
        self._end_deal(events, closer=None)

    def _meld_points(self, meld: Meld) -> list[tuple[Seat, int]]:
        out = []
        low5 = self.options["ace_value"] == "low5"
        for i, (c, owner) in enumerate(zip(meld.cards, meld.owners, strict=True)):
            v = _VALUE[c]
            if (low5 and meld.kind == "run" and _RANK[c] == 1 and i == 0
                    and rank_at(meld.start + 1) == 2):
                v = 5
            out.append((owner, v))
        return out

    def _deal_scores(self) -> tuple[list[int], list[int], list[int]]:
        """(deal score, melded points, hand points) per seat."""
        melded = [0] * self.num_seats
        for meld in self.melds:
            for owner, v in self._meld_points(meld):
                melded[owner] += v
        in_hand = [sum(_VALUE[c] for c in h) for h in self.hands]
        pen = self.options["penalty"]
        score = [melded[s] - in_hand[s] - pen * self.penalties[s] for s in range(self.num_seats)]
        return score, melded, in_hand

    def _end_deal(self, events: list[GameEvent], closer: Seat | None) -> None:
        score, melded, in_hand = self._deal_scores()
        for s in range(self.num_seats):
            self.totals[s] += score[s]
        self.history.append(score)
        # Hand *values* only: the cards go back into the pack for the next deal.
        events.append(GameEvent("deal_scored", {
            "deal": self.deal_no, "closer": closer, "scores": score, "melded": melded,
            "in_hand": in_hand, "penalties": list(self.penalties),
            "totals": list(self.totals)}))
        best = max(self.totals)
        leaders = [s for s, t in enumerate(self.totals) if t == best]
        limit = self.options["max_deals"]
        if (best >= self.options["target"] and len(leaders) == 1) or (
                limit > 0 and len(self.history) >= limit):
            self.phase = "over"
            events.append(GameEvent("game_over", {"totals": list(self.totals),
                                                  "winners": leaders}))
            return
        self.deal_no += 1
        self._deal(events)

    def _deal(self, events: list[GameEvent]) -> None:
        n = self.num_seats
        self.dealer = (self.dealer + 1) % n
        pack = deck(PACK_SUITS, PACK_RANKS, copies=self.options["decks"],
                          jokers=self.options["jokers"])
        self.rng.shuffle(pack)
        self.hands = [pack[s * HAND_SIZE:(s + 1) * HAND_SIZE] for s in range(n)]
        rest = pack[n * HAND_SIZE:]
        self.pile = [rest.pop()]
        self.stock = rest
        self.melds = []
        self.known = [set() for _ in range(n)]
        self.turns_taken = [0] * n
        self.has_melded = [False] * n
        self.penalties = [0] * n
        self.reshuffled = 0
        events.append(GameEvent("dealt", {"deal": self.deal_no, "dealer": self.dealer,
                                          "up": NAMES[self.pile[0]],
                                          "stock": len(self.stock)}, chance=True))
        for s in range(n):
            events.append(GameEvent("hand", {"seat": s,
                                             "cards": [NAMES[c] for c in
                                                       sort_cards(self.hands[s], _ORDER)]},
                                    visible_to=frozenset((s,)), chance=True))
        self._start_turn((self.dealer + 1) % n, events)


# --- Action values (cached: legal_actions builds many of them) ---------------------------

_DRAW = Action("draw")
_TAKE = Action("take")
_PILE = Action("pile")
_DISCARD = [Action("discard", (NAMES[c],)) for c in range(len(NAMES))]
_MELD_CACHE: dict[tuple[int, ...], Action] = {}
_LAYOFF_CACHE: dict[tuple[int, int, str], Action] = {}


def _meld_action(meld: tuple[int, ...]) -> Action:
    action = _MELD_CACHE.get(meld)
    if action is None:
        action = _MELD_CACHE[meld] = Action("meld", tuple(NAMES[c] for c in meld))
    return action


def _layoff_action(card: int, index: int, end: str) -> Action:
    key = (card, index, end)
    action = _LAYOFF_CACHE.get(key)
    if action is None:
        args: tuple[int | str, ...] = (NAMES[card], index) if end == "" else (
            NAMES[card], index, end)
        action = _LAYOFF_CACHE[key] = Action("layoff", args)
    return action


# --- Meld helpers ------------------------------------------------------------------------


def _make_meld(cards: list[int], bounds: tuple[int, int] | None,
               set_cap: int | None) -> Meld | None:
    """The meld `cards` (in run order) form, or None. At least two natural cards."""
    naturals = [c for c in cards if c < JOKER_BASE]
    if len(naturals) < 2 or len(cards) < 3:
        return None
    ranks = {_RANK[c] for c in naturals}
    if len(ranks) == 1:
        if set_cap is not None and len(cards) > set_cap:
            return None
        jokers = [c for c in cards if c >= JOKER_BASE]
        ordered = sorted(naturals, key=_SET_ORDER.__getitem__) + sorted(jokers)
        return Meld("set", _RANK[naturals[0]], 0, ordered, [])
    suit = _SUIT[naturals[0]]
    if any(_SUIT[c] != suit for c in naturals) or len(cards) > 13:
        return None
    first = next(i for i, c in enumerate(cards) if c < JOKER_BASE)
    r = _RANK[cards[first]]
    for start in _run_starts(r - first, len(cards), bounds):
        if all(c >= JOKER_BASE or _RANK[c] == rank_at(start + i) for i, c in enumerate(cards)):
            return Meld("run", suit, start, list(cards), [])
    return None


def _run_starts(start_rank: int, length: int, bounds: tuple[int, int] | None) -> list[int]:
    """Positions where a run whose first card has rank `start_rank` (possibly out of
    1..13 before wrapping) may start."""
    if bounds is None:
        return [rank_at(start_rank)]
    low, high = bounds
    out = []
    for start in (rank_at(start_rank), rank_at(start_rank) + 13):
        if low <= start and start + length - 1 <= high:
            out.append(start)
    return out


_POP3 = (0, 1, 1, 2, 1, 2, 2, 3)
_SET_ORDER = [(_SUIT[c], _ORDER[c]) for c in range(JOKER)]  # sets list cards by suit


def _meld_options(hand: list[int], bounds: tuple[int, int] | None,
                  dedupe: bool) -> list[tuple[int, ...]]:
    """Every three-card meld in `hand` (runs in order, sets sorted).

    With `dedupe`, interchangeable cards (jokers, twin cards) are represented once
    and a joker only stands in for a card the hand lacks.
    """
    jokers = sorted(c for c in hand if c >= JOKER_BASE)
    if dedupe:
        jokers = jokers[:1]
    slots: dict[int, list[int]] = {}  # `_FACE` -> the copies held
    by_rank: dict[int, list[int]] = {}
    masks = [0, 0, 0, 0]  # per suit, bit rank-1
    for c in hand:
        if c < JOKER_BASE:
            k = _FACE[c]
            got = slots.get(k)
            if got is None:
                slots[k] = [c]
                masks[k // 13] |= 1 << (k % 13)
                if dedupe:
                    by_rank.setdefault(k % 13, []).append(c)
            else:
                got.append(c)
            if not dedupe:
                by_rank.setdefault(k % 13, []).append(c)
    out: list[tuple[int, ...]] = []
    # Sets.
    for r in sorted(by_rank):
        copies = by_rank[r]
        n = len(copies)
        if n < 2 or n + len(jokers) < 3:
            continue
        if n > 2:
            copies.sort(key=_SET_ORDER.__getitem__)
            out.extend(itertools.combinations(copies, 3))
        elif _SET_ORDER[copies[0]] > _SET_ORDER[copies[1]]:
            copies.reverse()
        if dedupe:
            if n == 2:
                out.append((copies[0], copies[1], jokers[0]))
            continue
        for pair in itertools.combinations(copies, 2):
            for j in jokers:
                out.append((*pair, j))
    # Runs: three consecutive positions, found with bit masks.
    need = 2 if jokers else 3
    if bounds is None:
        first, last = 0, 12  # window start bit; the ring wraps
    else:
        first, last = bounds[0] - 1, bounds[1] - 3
    for suit in range(4):
        m = masks[suit]
        if not m:
            continue
        ext = m | (m << 13) if bounds is None else m | ((m & 1) << 13)
        base = suit * 13
        for start in range(first, last + 1):
            w = (ext >> start) & 7
            if _POP3[w] < need:
                continue
            keys = [base + (start + i) % 13 for i in range(3)]
            if dedupe:
                out.append(tuple(slots[k][0] if w >> i & 1 else jokers[0]
                                 for i, k in enumerate(keys)))
                continue
            cands = [slots.get(k, []) + jokers for k in keys]
            for combo in itertools.product(*cands):
                if sum(1 for c in combo if c >= JOKER_BASE) <= 1:
                    out.append(combo)
    return out


# --- Bots --------------------------------------------------------------------------------


class RuleBot(Bot):
    """A greedy 500 player: takes a face-up card only when it melds or lays off,
    takes the whole pile only when it can meld with it at once, lays down
    everything it can (most points first) while keeping a last card to close with,
    and discards its highest-value card that belongs to no pair or run draw,
    never a joker."""

    name = "rule"

    def choose(self, state: GameState) -> Action:
        """Pick an action for `self.seat`."""
        assert isinstance(state, RommyState)
        legal = state.legal_actions(self.seat)
        if len(legal) == 1:
            return legal[0]
        if state.phase == "draw":
            return self.draw_choice(state, self.seat, legal)
        greedy = _greedy_play(state, self.seat, legal)
        if greedy is not None:
            return greedy
        if not any(a.kind == "discard" for a in legal):
            return legal[0]
        return _DISCARD[_worst_card(state.hands[self.seat], state._bounds)]

    @staticmethod
    def draw_choice(state: RommyState, seat: Seat, legal: list[Action]) -> Action:
        """The rule player's draw for `seat` among `legal`."""
        hand = state.hands[seat]
        kinds = {a.kind for a in legal}
        if "pile" in kinds and len(state.pile) <= 6:
            pool = hand + state.pile
            if any(_completes(c, pool, state._bounds) for c in state.pile if c < JOKER_BASE):
                return _PILE
        if "take" in kinds:
            top = state.pile[-1]
            if top >= JOKER_BASE:
                return _TAKE
            pool = [*hand, top]
            if _completes(top, pool, state._bounds):
                return _TAKE
            if any(c == top for c, _i, _e in state._layoff_options(seat, pool)):
                return _TAKE
        return _DRAW


def _greedy_play(state: RommyState, seat: Seat, legal: list[Action]) -> Action | None:
    """The rule player's meld or lay-off, if it would make one: its most valuable meld,
    else its most valuable lay-off while it keeps a last card to close with."""
    best: Action | None = None
    best_key: tuple[int, str] = (-1, "")
    for a in legal:
        if a.kind == "meld":
            key = (_action_value(a), str(a))
            if best is None or best.kind != "meld" or key > best_key:
                best, best_key = a, key
        elif a.kind == "layoff" and (best is None or best.kind == "layoff"):
            key = (_action_value(a), str(a))
            if key > best_key:
                best, best_key = a, key
    if best is not None and best.kind == "layoff" and len(state.hands[seat]) <= 1 and any(
            a.kind == "discard" for a in legal):
        return None  # discard the last card instead: that closes the deal
    return best


def _completes(card: int, pool: list[int], bounds: tuple[int, int] | None) -> bool:
    """Does natural `card` (in `pool`) belong to some three-card meld from `pool`?"""
    r, suit = _RANK[card], _SUIT[card]
    near = [c for c in pool if c >= JOKER_BASE or _RANK[c] == r or (
        _SUIT[c] == suit and (_RANK[c] - r) % 13 in (1, 2, 11, 12))]
    return any(card in m for m in _meld_options(near, bounds, False))


def _action_value(action: Action) -> int:
    if action.kind == "meld":
        return sum(_VALUE[CARD_OF[str(n)]] for n in action.args)
    return _VALUE[CARD_OF[str(action.args[0])]]


def _worst_card(hand: list[int], bounds: tuple[int, int] | None) -> int:
    """The card to discard: highest value among cards with no partner (same rank,
    or same suit within two ranks), never a joker when anything else will do."""
    return _discard_ranking(hand, bounds)[0]


def _discard_ranking(hand: list[int], bounds: tuple[int, int] | None) -> list[int]:
    """Distinct hand cards, best discard first: loose cards before partnered ones,
    higher values first, jokers last."""
    naturals = [c for c in hand if c < JOKER_BASE]

    def partnered(c: int) -> bool:
        for d in naturals:
            if d == c:
                continue
            if _RANK[d] == _RANK[c]:
                return True
            if _SUIT[d] == _SUIT[c]:
                gap = (_RANK[d] - _RANK[c]) % 13
                if bounds is None and gap in (1, 2, 11, 12):
                    return True
                if bounds is not None and abs(_RANK[d] - _RANK[c]) in (1, 2):
                    return True
        return False

    ranked = sorted(set(naturals), key=lambda c: (partnered(c), -_VALUE[c], -_ORDER[c]))
    return ranked + sorted(c for c in set(hand) if c >= JOKER_BASE)


class _SearchView(RommyState):
    """The state as the search player explores it. The other seats play as the rule
    player would (on the cards `determinize` dealt them); the searching seat melds
    and lays off greedily too, so its tree branches only where choices matter
    most: the draw (stock, face-up card, whole pile) and the discard (among the
    rule player's `DISCARD_CANDIDATES` best)."""

    DISCARD_CANDIDATES = 3
    searcher: Seat = -1

    def clone(self) -> RommyState:
        """A copy that keeps the searching seat."""
        new = super().clone()
        assert isinstance(new, _SearchView)
        new.searcher = self.searcher
        return new

    def legal_actions(self, seat: Seat) -> list[Action]:
        """The pruned choices described above."""
        actions = super().legal_actions(seat)
        if len(actions) <= 1:
            return actions
        if self.phase == "draw":
            if seat == self.searcher:
                return actions
            return [RuleBot.draw_choice(self, seat, actions)]
        greedy = _greedy_play(self, seat, actions)
        if greedy is not None:
            return [greedy]
        if not any(a.kind == "discard" for a in actions):
            return actions
        ranking = _discard_ranking(self.hands[seat], self._bounds)
        keep = 1 if seat != self.searcher else self.DISCARD_CANDIDATES
        return [_DISCARD[c] for c in ranking[:keep]]


class RommySearchBot(SearchBot):
    """Information-set MCTS (`SearchBot`) over the search view of the table: it
    samples hidden cards with `determinize`, plays out with the rule player and
    values cut playouts with `evaluate`, anchored on the rule player's choice."""

    def choose(self, state: GameState) -> Action:
        """Search from `state` as `self.seat` sees it."""
        assert isinstance(state, RommyState)
        view = state.clone()
        view.__class__ = _SearchView
        assert isinstance(view, _SearchView)
        view.searcher = self.seat
        return super().choose(view)


def _search_bot(seat: Seat, rng: Rng) -> Bot:
    return RommySearchBot(seat, rng, time_budget_s=0.4, max_iterations=400,
                          max_rollout_steps=15, rollout=RuleBot, exploration=0.7,
                          anchor=RuleBot, margin=0.02, utility=_LEAD)


# Points behind or ahead of the best other seat; a deal's swing (about 80
# points) is what matters.
_LEAD = lead_utilities(80.0)


BOTS: dict[str, Callable[[Seat, Rng], Bot]] = {
    "random": RandomBot,
    "rule": RuleBot,
    "search": _search_bot,
}

GAME = RommyGame()
