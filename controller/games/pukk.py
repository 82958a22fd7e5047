"""Púkk: the Icelandic member of the Poch family, in three phases per deal.

1. *Dressing and honours* (pure chance): every player antes into the side
   compartments and the central Púkk; five cards each, a trump card is turned
   and the holder of the trump 7 (*bísefa*) may swap it for the turned card
   (every seat is asked in turn, so a keep does not show who holds it);
   the holders of the trump A, K, Q, J, 10 (and 9 where a Nía compartment
   exists) show them and take those compartments; the holder of Pamfíll (J♣)
   takes the Pamfíll compartment, and the Gosi compartment too when clubs are
   trump. Unclaimed compartments carry over and are dressed again on top.
2. *The Púkk* (Poker-like): players holding at least a pair (Pamfíll wild) bet
   on their best set; the others match or give up; the best set among those
   still in takes the Púkk.
3. *The play-out* (stops): forehand leads, whoever holds the next higher card
   of the suit must play it, the last player of a run leads the next, and the
   first player out is paid one chip per card left in each other hand (the
   holder of the card just above the winner's last card does not pay for it).

Chips carry over between deals; the game ends after a set number of deals or
when a player cannot pay the next dressing. The rules as implemented, with
every interpretation marked, are in docs/rules/pukk.md. Cards are
`controller.games.cards` ints (ranks 5..14, J=11 ... A=14), texts like "JC", "10H".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
    CARD_TEXT,
    CLUBS,
    DECK_SIZE,
    JACK,
    RANK,
    RANK_TEXT,
    SUIT,
    SUIT_NAMES,
    SUITS,
    card_text,
    make_card,
    sort_cards,
)
from controller.games.search import SearchBot, utilities
from controller.rng import Rng

# --- cards -----------------------------------------------------------------

LOW_RANK = 5  # the full Púkk pack is 5 to A
BISEFA_RANK = 7
PAMFILL = make_card(JACK, CLUBS)
# Seeded deals replay only if the pack is built in the order it always was
# (suit by suit in this order, 5 up to the ace); hands are shown that way too.
PACK_SUITS = "CDHS"
_ORDER = cards.sort_order(PACK_SUITS)

# Rank order of sets in the Púkk [1954]: the sixes (póstar) highest, then A
# down to 7; the 5s lowest (estimate).
SET_ORDER = {6: 10, 14: 9, 13: 8, 12: 7, 11: 6, 10: 5, 9: 4, 8: 3, 7: 2, 5: 1}

# Side compartments: key -> (display name, rank of the trump card that takes it;
# None for Pamfíll, taken by the jack of clubs whatever the trump).
POOLS: dict[str, tuple[str, int | None]] = {
    "as": ("Ás", 14), "kongur": ("Kóngur", 13), "drottning": ("Drottning", 12),
    "gosi": ("Gosi", 11), "tia": ("Tía", 10), "nia": ("Nía", 9), "pamfill": ("Pamfíll", None),
}
SEED_LAYOUT = ("as", "kongur", "drottning", "gosi", "tia", "pamfill")
# One compartment per player [1969]: five players have no Tía, seven add Nía.
PER_PLAYER_LAYOUT = {
    5: ("as", "kongur", "drottning", "gosi", "pamfill"),
    6: ("as", "kongur", "drottning", "gosi", "tia", "pamfill"),
    7: ("as", "kongur", "drottning", "gosi", "tia", "nia", "pamfill"),
}


def parse_card(text: str) -> int:
    """Parse a card text ("AS", "10h"); raise `IllegalAction` naming the problem.

    >>> card_text(parse_card("10h")), card_text(PAMFILL)
    ('10H', 'JC')
    """
    try:
        card = cards.parse_card(text)
    except MalformedCard:
        card = -1
    if not 0 <= card < DECK_SIZE or RANK[card] < LOW_RANK:
        raise IllegalAction("syntax", f"not a Púkk card: {text!r} (ranks 5-10, J, Q, K, A; "
                            "suits C, D, H, S)")
    return card


def pack_low_rank(seats: int, pack: str) -> int:
    """Lowest rank in the pack: 5, or with pack="by-players" 6 for six and 7 for
    five or fewer players [spilareglur.is]."""
    if pack == "by-players":
        return 5 if seats >= 7 else 6 if seats == 6 else 7
    return 5


def best_set(hand: Sequence[int], pamfill_above: bool = False) -> tuple[int, int, int] | None:
    """The best combination in a hand as a comparable key, or None without a pair.

    The key is (size, rank order, Pamfíll flag): bigger sets win [1969], then
    the rank (6s highest, 5s lowest) [1954], then a set holding Pamfíll beats a
    natural one [1954, as a tie-break (inferred)]. With `pamfill_above` a set
    holding Pamfíll beats every natural set of its size (the other reading).

    >>> best_set([parse_card(t) for t in ("AS", "AH", "6C", "6D", "9H")])
    (2, 10, 0)
    >>> best_set([parse_card(t) for t in ("JC", "AS", "KH", "8D", "9H")])
    (2, 9, 1)
    """
    counts: dict[int, int] = {}
    wild = 0
    for c in hand:
        if c == PAMFILL:
            wild = 1
        else:
            r = RANK[c]
            counts[r] = counts.get(r, 0) + 1
    best: tuple[int, int, int] | None = None
    for r, n in counts.items():
        size = n + wild
        if size < 2:
            continue
        key = (size, wild, SET_ORDER[r]) if pamfill_above else (size, SET_ORDER[r], wild)
        if best is None or key > best:
            best = key
    if best is not None and pamfill_above:
        best = (best[0], best[2], best[1])  # always report (size, order, flag)
    return best


def _set_beats(a: tuple[int, int, int], b: tuple[int, int, int], pamfill_above: bool) -> int:
    ka = (a[0], a[2], a[1]) if pamfill_above else a
    kb = (b[0], b[2], b[1]) if pamfill_above else b
    return (ka > kb) - (ka < kb)


def set_text(key: tuple[int, int, int] | None) -> str:
    """Human text of a set key, e.g. "three 6s with Pamfíll"."""
    if key is None:
        return "no pair"
    size, order, wild = key
    rank = next(r for r, o in SET_ORDER.items() if o == order)
    words = {2: "two", 3: "three", 4: "four", 5: "five"}
    return f"{words[size]} {RANK_TEXT[rank]}s" + (" with Pamfíll" if wild else "")


# --- the game ----------------------------------------------------------------

_BET, _PASS, _MATCH, _FOLD = Action("bet"), Action("pass"), Action("match"), Action("fold")
_KEEP, _SWAP = Action("keep"), Action("swap")
_PLAY = {c: Action("play", (card_text(c),))
         for c in cards.deck(PACK_SUITS, range(LOW_RANK, ACE + 1))}
_SINGLE = {s: frozenset((s,)) for s in range(8)} | {-1: frozenset()}

PHASE_BISEFA = "bisefa"
PHASE_BET = "bet"
PHASE_PLAY = "play"
PHASE_OVER = "over"


class PukkGame(Game):
    """Púkk for 2 to 7 players (best with 5 to 7)."""

    id: ClassVar[str] = "pukk"
    name: ClassVar[str] = "Púkk"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 7
    default_seats: ClassVar[int] = 5
    summary: ClassVar[str] = ("Icelandic Poch: honours and Pamfíll, betting on sets, "
                              "then a stops play-out; chips carried across deals")
    options_schema: ClassVar[dict[str, Option]] = {
        "layout": Option("seed", "side compartments: 'seed' = Ás, Kóngur, Drottning, Gosi, "
                         "Tía, Pamfíll for any table; 'per-player' = one per player as in "
                         "1969 (5-7 players: no Tía with 5, Nía added with 7)",
                         ("seed", "per-player")),
        "pack": Option("full", "'full' = 5 to A (40 cards); 'by-players' = drop the 5s with "
                       "6 players, the 5s and 6s with 5 or fewer [spilareglur.is]",
                       ("full", "by-players")),
        "chips": Option(100, "starting chips per player"),
        "deals": Option(0, "number of deals; 0 = one round (each seat deals once)"),
        "until_broke": Option(False, "ignore 'deals' and play until a player cannot "
                              "pay the dressing"),
        "bet_unit": Option(1, "chips per bet and per match in the Púkk"),
        "max_bets": Option(10, "bets per deal before the remaining players must show "
                           "(0 = no cap)"),
        "pamfill_set": Option("tiebreak", "'tiebreak' = a set with Pamfíll beats a natural "
                              "set of the same size and rank; 'above' = it beats every "
                              "natural set of its size", ("tiebreak", "above")),
        "outright_sixes": Option(False, "two 6s, or Pamfíll and a 6, take the Púkk outright "
                                 "before any betting [is.wikipedia]"),
        "downward": Option(False, "runs also extend downward (play the card below the run) "
                           "[is.wikipedia; spilareglur.is]"),
        "honours": Option("pools", "'pools' = honours take dressed compartments; 'owners' = "
                          "each seat owns an honour and pays its holder 1 chip, only the "
                          "Púkk is dressed [is.wikipedia]", ("pools", "owners")),
    }

    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> PukkState:
        """Dress the board and deal the first hand."""
        self.check_seats(seats)
        opts = self.resolve_options(options)
        if opts["layout"] == "per-player" and opts["honours"] == "owners":
            raise IllegalAction("options", "honours 'owners' replaces the compartments: "
                                "use it with layout 'seed'")
        if opts["layout"] == "per-player" and seats not in PER_PLAYER_LAYOUT:
            raise IllegalAction("options", "layout 'per-player' needs 5 to 7 players "
                                f"(one compartment each), got {seats}")
        for name, low in (("chips", 1), ("bet_unit", 1), ("deals", 0), ("max_bets", 0)):
            if opts[name] < low:
                raise IllegalAction("options", f"option {name!r} must be at least {low}, "
                                    f"got {opts[name]}")
        state = state_class(opts)(seats, opts, rng)
        if state.dressing_cost() > opts["chips"]:
            raise IllegalAction("options", f"{opts['chips']} starting chips cannot pay one "
                                f"dressing of {state.dressing_cost()}")
        state.start_deal()
        state.opening_events = state._events
        state._events = []
        return state

    def state_from_json(self, data: dict[str, Any]) -> PukkState:
        """Rebuild a state from `PukkState.to_json` output."""
        return PukkState.from_json(data)


class PukkState(GameState):
    """One Púkk table: chips, compartments, and the deal in progress."""

    game_id: ClassVar[str] = "pukk"

    def __init__(self, seats: int, options: dict[str, Any], rng: Rng) -> None:
        self.num_seats = seats
        self.options = dict(options)
        self.rng = rng
        self.low_rank = pack_low_rank(seats, options["pack"])
        self.pool_names: tuple[str, ...] = (PER_PLAYER_LAYOUT[seats]
                                            if options["layout"] == "per-player"
                                            else SEED_LAYOUT)
        self.start_chips: int = options["chips"]
        self.stacks = [self.start_chips] * seats
        self.pools = dict.fromkeys(self.pool_names, 0)
        self.pukk = 0
        self.deal_no = 0
        self.deals_total = options["deals"] or seats
        self.dealer = seats - 1  # start_deal passes the deal left: seat 0 deals first
        self.phase = PHASE_OVER
        self.end_reason = ""
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.stock: list[int] = []
        self.turned = -1
        self.trump = 0
        self.shown: list[list[int]] = [[] for _ in range(seats)]  # publicly known, still held
        self.known_stock: list[int] = []  # public deductions: these are in the stock
        self.plays: list[tuple[int, int]] = []  # (seat, card) in order, this deal
        self.bisefa_seat = -1  # hidden: who holds the trump 7 (public only after a swap)
        self.swapped_by = -1  # public: who swapped the bísefa this deal
        self.in_play = [True] * seats
        self.paired = [False] * seats  # bet or matched: the software checked a pair
        self.eligible = [False] * seats  # holds a pair (cached when betting starts)
        self.committed = [0] * seats
        self.queue: list[int] = []
        self.pending = False  # a bet is outstanding: the queue matches or folds
        self.opened = False
        self.bets_made = 0
        self.leader = -1
        self.run: tuple[int, int, int] | None = None  # suit, lowest, highest rank
        self.last_player = -1
        self.choice_seat = -1
        self.last_deal: dict[str, Any] = {}
        self.horizon = False  # search only: stop at the end of this deal
        self.base: list[int] = []  # search only: stacks when the search began
        self._events: list[GameEvent] = []
        # The first deal's events (dressing, deal, trump), made before any action.
        self.opening_events: list[GameEvent] = []
        self._actor: Seat = -1  # the seat whose action is being applied
        self._revealed = False  # that action revealed something about other hands

    # --- derived ------------------------------------------------------------

    @property
    def forehand(self) -> Seat:
        """The player left of the dealer: speaks, bets and leads first."""
        return (self.dealer + 1) % self.num_seats

    def dressing_cost(self) -> int:
        """Chips each player pays to dress the board: one per compartment and
        one for the Púkk."""
        return len(self.pool_names) + 1

    def order_from(self, first: Seat) -> list[Seat]:
        """Every seat, clockwise from `first`."""
        n = self.num_seats
        return [(first + k) % n for k in range(n)]

    def conservation(self) -> dict[str, int]:
        """Totals that never change: every chip and every card of the pack."""
        chips = sum(self.stacks) + sum(self.pools.values()) + self.pukk
        cards = (sum(len(h) for h in self.hands) + len(self.stock) + len(self.plays)
                 + (1 if self.turned >= 0 else 0))
        return {"chips": chips, "cards": cards}

    # --- the deal -----------------------------------------------------------

    def start_deal(self) -> None:
        """Pass the deal, dress the board, shuffle, deal 3 then 2, turn the trump."""
        n = self.num_seats
        self._dress()
        deck = cards.deck(PACK_SUITS, range(self.low_rank, ACE + 1))
        # Only the dealt cards and the trump card need a random order (the
        # stock is never drawn from), so a partial Fisher-Yates suffices.
        dealt = self.rng.sample(deck, 5 * n + 1)
        rest = set(dealt)
        deck = dealt + [c for c in deck if c not in rest]
        hands: list[list[int]] = [[] for _ in range(n)]
        pos = 0
        for packet in (3, 2):  # three each, then two each, from forehand [seed]
            for s in self.order_from(self.forehand):
                hands[s].extend(deck[pos:pos + packet])
                pos += packet
        self._begin(hands, deck[pos], deck[pos + 1:])

    def _dress(self) -> None:
        n = self.num_seats
        cost = self.dressing_cost()
        self.dealer = (self.dealer + 1) % n
        self.deal_no += 1
        for s in range(n):
            self.stacks[s] -= cost
        for name in self.pool_names:
            self.pools[name] += n
        self.pukk += n
        self._events.append(GameEvent("dressed", {
            "deal": self.deal_no, "dealer": self.dealer, "per_player": cost,
            "pools": dict(self.pools), "pukk": self.pukk}))

    def _begin(self, hands: list[list[int]], turned: int, stock: list[int]) -> None:
        """Take up the dealt hands, turn the trump card, then bísefa and honours."""
        ev = self._events
        n = self.num_seats
        self.hands = [sort_cards(h, _ORDER) for h in hands]
        self.turned = turned
        self.stock = list(stock)
        self.trump = SUIT[turned]
        self.shown = [[] for _ in range(n)]
        self.known_stock = []
        self.plays = []
        self.in_play = [True] * n
        self.paired = [False] * n
        self.committed = [0] * n
        self.queue = []
        self.pending = self.opened = False
        self.bets_made = 0
        self.run = None
        self.leader = self.last_player = self.choice_seat = -1
        for s in range(n):
            ev.append(GameEvent("dealt", {"seat": s, "hand": [CARD_TEXT[c] for c in self.hands[s]]},
                                visible_to=frozenset({s}), chance=True))
        ev.append(GameEvent("turned", {"card": CARD_TEXT[self.turned],
                                       "trump": SUIT_NAMES[self.trump]}, chance=True))
        seven = make_card(BISEFA_RANK, self.trump)
        self.bisefa_seat = self._holder(seven)
        self.swapped_by = -1
        if seven != self.turned and self.low_rank <= BISEFA_RANK:
            # The seed: the holder "may, if he wishes, exchange it"; nothing makes the
            # holder known unless it does. So every seat is asked in turn from
            # forehand and a seat without the 7 answers `keep` like one that keeps
            # it: the table learns who held it only from a swap.
            self.phase = PHASE_BISEFA
            self.queue = self.order_from(self.forehand)
            ev.append(GameEvent("bisefa", {"asking": list(self.queue)}))
        else:
            self._honours()

    def _holder(self, card: int) -> Seat:
        for s, hand in enumerate(self.hands):
            if card in hand:
                return s
        return -1

    def _show(self, seat: Seat, card: int) -> None:
        if card not in self.shown[seat]:
            self.shown[seat].append(card)
            if seat != self._actor:
                self._revealed = True

    def _know_stock(self, card: int) -> None:
        """The table has deduced that `card` lies in the stock."""
        if card != self.turned and card not in self.known_stock:
            self.known_stock.append(card)
            self._revealed = True

    def _honours(self) -> None:
        """Settle the honours, then open the betting."""
        self._claim_honours()
        self._start_betting()

    def _claim_honours(self) -> None:
        """Holders of the trump honours and of Pamfíll show them and take the
        compartments; unclaimed ones carry over [1954]."""
        ev = self._events
        for name in self.pool_names:
            rank = POOLS[name][1]
            card = PAMFILL if rank is None else make_card(rank, self.trump)
            # With clubs trump the trump jack is Pamfíll itself, so its holder
            # takes both Gosi and Pamfíll [is.wikipedia].
            holder = self._holder(card)
            if holder < 0:
                self._know_stock(card)
                ev.append(GameEvent("unclaimed", {"pool": name, "carried": self.pools[name]}))
                continue
            amount = self.pools[name]
            self.stacks[holder] += amount
            self.pools[name] = 0
            self._show(holder, card)
            ev.append(GameEvent("honour", {"seat": holder, "card": CARD_TEXT[card],
                                           "pool": name, "chips": amount}))

    def _start_betting(self) -> None:
        self.phase = PHASE_BET
        self.eligible = [best_set(h) is not None for h in self.hands]
        if self.options["outright_sixes"]:
            winners = []
            for s in self.order_from(self.forehand):
                key = best_set(self.hands[s])
                if key is not None and key[1] == SET_ORDER[6]:
                    winners.append(s)
                    for c in self.hands[s]:
                        if RANK[c] == 6 or c == PAMFILL:
                            self._show(s, c)
            if winners:
                self._award_pukk(winners, "outright")
                self._start_play()
                return
        self.queue = self.order_from(self.forehand)

    def _award_pukk(self, winners: list[Seat], how: str) -> None:
        share = self.pukk // len(winners)
        for s in winners:
            self.stacks[s] += share
        self.pukk -= share * len(winners)  # an odd chip stays in the Púkk (estimate)
        self._events.append(GameEvent("pukk_won", {"seats": winners, "chips": share,
                                                   "how": how, "left": self.pukk}))

    def _showdown(self) -> None:
        alive = [s for s in self.order_from(self.forehand) if self.in_play[s]]
        above = self.options["pamfill_set"] == "above"
        keys = {}
        for s in alive:
            keys[s] = best_set(self.hands[s], above)
            for c in self.hands[s]:
                self._show(s, c)
            self._events.append(GameEvent("showed", {
                "seat": s, "hand": [CARD_TEXT[c] for c in self.hands[s]],
                "set": set_text(keys[s])}))
        contenders = [s for s in alive if keys[s] is not None]
        if not contenders:  # cannot happen: betting needs a pair; kept for safety
            self._start_play()
            return
        best = contenders[0]
        for s in contenders[1:]:
            k, b = keys[s], keys[best]
            assert k is not None and b is not None
            if _set_beats(k, b, above) > 0:
                best = s
        kb = keys[best]
        assert kb is not None
        winners = []
        for s in contenders:
            ks = keys[s]
            assert ks is not None
            if _set_beats(ks, kb, above) == 0:
                winners.append(s)
        self._award_pukk(winners, "showdown")
        self._start_play()

    def _end_round(self) -> None:
        """The queue is empty: decide what the betting does next."""
        alive = [s for s in range(self.num_seats) if self.in_play[s]]
        if not self.opened:
            self._events.append(GameEvent("pukk_unopened", {"carried": self.pukk}))
            self._start_play()
        elif len(alive) == 1:
            # Everyone else gave up: the last bettor takes it unseen (as in Poch).
            self._award_pukk(alive, "uncontested")
            self._start_play()
        elif not self.pending or (self.options["max_bets"]
                                  and self.bets_made >= self.options["max_bets"]):
            self._showdown()
        else:
            # Anyone still in may bet again, always starting from forehand [1969].
            self.pending = False
            self.queue = [s for s in self.order_from(self.forehand) if self.in_play[s]]

    def _start_play(self) -> None:
        self.phase = PHASE_PLAY
        self.queue = []
        self.pending = False
        self.leader = self.forehand
        self.run = None

    def _play_card(self, seat: Seat, card: int) -> bool:
        """Move a card from hand to table; True when that emptied the hand."""
        self.hands[seat].remove(card)
        if card in self.shown[seat]:
            self.shown[seat].remove(card)
        self.plays.append((seat, card))
        self.last_player = seat
        if seat != self._actor:
            self._revealed = True
        self._events.append(GameEvent("played", {"seat": seat, "card": CARD_TEXT[card]}))
        if not self.hands[seat]:
            self._went_out(seat, card)
            return True
        return False

    def _continue_run(self) -> None:
        """Whoever holds the next card must play it, until the run stops."""
        downward = self.options["downward"]
        n = self.num_seats
        while self.run is not None:
            suit, lo, hi = self.run
            cands = []
            if hi < ACE:
                cands.append(make_card(hi + 1, suit))
            if downward and lo > self.low_rank:
                cands.append(make_card(lo - 1, suit))
            mover, held = -1, []
            hands = self.hands
            for k in range(n):
                s = (self.last_player + k) % n
                hand = hands[s]
                for c in cands:
                    if c in hand:
                        held.append(c)
                if held:
                    mover = s
                    break
            if mover < 0:
                for c in cands:
                    self._know_stock(c)
                self._events.append(GameEvent("stopped", {
                    "next": [CARD_TEXT[c] for c in cands], "leader": self.last_player}))
                self.run = None
                self.leader = self.last_player
                return
            if len(held) == 2:
                self.choice_seat = mover
                for c in held:
                    self._show(mover, c)
                return
            card = held[0]
            r = RANK[card]
            self.run = (suit, min(lo, r), max(hi, r))
            if self._play_card(mover, card):
                return

    def _went_out(self, winner: Seat, last: int) -> None:
        """The first player out is paid one chip per card left in each hand,
        except for the card just above the winner's last card [1969]."""
        exempt = make_card(RANK[last] + 1, SUIT[last]) if RANK[last] < ACE else -1
        payments: dict[str, int] = {}
        exempted = -1
        for s in self.order_from(winner)[1:]:
            owe = len(self.hands[s])
            if exempt in self.hands[s]:
                owe -= 1
                exempted = s
            pay = min(owe, self.stacks[s])  # nobody pays more than they have (estimate)
            self.stacks[s] -= pay
            self.stacks[winner] += pay
            payments[str(s)] = pay
        exempt_info = None if exempted < 0 else {"seat": exempted, "card": CARD_TEXT[exempt]}
        if exempted >= 0:
            # Not paying for it shows the card: the observation must say so too.
            self._show(exempted, exempt)
        self._events.append(GameEvent("went_out", {
            "seat": winner, "last": CARD_TEXT[last], "payments": payments,
            "exempt": exempt_info}))
        self.run = None
        self.choice_seat = -1
        self.leader = -1
        # The observation's account of the deal is the event's, word for word.
        self.last_deal = {"deal": self.deal_no, "winner": winner, "last": CARD_TEXT[last],
                          "payments": payments,
                          "exempt": None if exempt_info is None else dict(exempt_info),
                          "stacks": list(self.stacks)}
        self._after_deal()

    def _after_deal(self) -> None:
        if self.horizon:
            self.phase = PHASE_OVER
            self.end_reason = "horizon"
            return
        broke = [s for s in range(self.num_seats) if self.stacks[s] < self.dressing_cost()]
        if broke:
            self.end_reason = f"seat(s) {broke} cannot pay the next dressing"
        elif not self.options["until_broke"] and self.deal_no >= self.deals_total:
            self.end_reason = f"{self.deal_no} deals played"
        else:
            self.start_deal()
            return
        self.phase = PHASE_OVER
        self._events.append(GameEvent("game_over", {"reason": self.end_reason,
                                                    "stacks": list(self.stacks),
                                                    "returns": self.returns()}))

    # --- the API ------------------------------------------------------------

    def to_move(self) -> Seat:
        """The one seat to act now, or -1 when the game is over."""
        ph = self.phase
        if ph == PHASE_BET:
            return self.queue[0]
        if ph == PHASE_PLAY:
            return self.choice_seat if self.choice_seat >= 0 else self.leader
        if ph == PHASE_BISEFA:
            return self.queue[0]
        return -1

    def actors(self) -> frozenset[Seat]:
        """The one seat to act now (none when the game is over)."""
        return _SINGLE[self.to_move()]

    def can_bet(self, seat: Seat) -> bool:
        """May `seat` put chips in the Púkk: a pair or better and the chips [1954]."""
        return self.eligible[seat] and self.stacks[seat] >= self.options["bet_unit"]

    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every action `seat` may take now, in canonical order."""
        ph = self.phase
        if ph == PHASE_BET:
            if seat != self.queue[0]:
                return []
            ok = self.eligible[seat] and self.stacks[seat] >= self.options["bet_unit"]
            if self.pending:
                return [_FOLD, _MATCH] if ok else [_FOLD]
            return [_BET, _PASS] if ok else [_PASS]
        if ph == PHASE_PLAY:
            if self.choice_seat >= 0:
                if seat != self.choice_seat or self.run is None:
                    return []
                suit, lo, hi = self.run
                return [_PLAY[make_card(lo - 1, suit)], _PLAY[make_card(hi + 1, suit)]]
            if seat != self.leader:
                return []
            return [_PLAY[c] for c in self.hands[seat]]
        if ph == PHASE_BISEFA and seat == self.queue[0]:
            return [_KEEP, _SWAP] if seat == self.bisefa_seat else [_KEEP]
        return []

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Apply one action (validated first) and everything that follows
        automatically: honours, showdowns, compulsory run cards, payments, the
        next deal."""
        self.check_actor(seat)
        legal = self.legal_actions(seat)
        if action not in legal:
            raise IllegalAction(self._rule_for(action), f"{action} is not allowed for seat "
                                f"{seat} now (legal: {', '.join(map(str, legal))})")
        self._events = ev = []
        self._actor, self._revealed = seat, False
        kind = action.kind
        ph = self.phase
        if ph == PHASE_BISEFA:
            seven = make_card(BISEFA_RANK, self.trump)
            if kind == "swap":
                hand = self.hands[seat]
                hand.remove(seven)
                hand.append(self.turned)
                hand.sort(key=_ORDER.__getitem__)
                self._show(seat, self.turned)
                ev.append(GameEvent("swapped", {"seat": seat, "took": CARD_TEXT[self.turned],
                                                "gave": CARD_TEXT[seven]}))
                self.turned = seven
                self.swapped_by = seat
                self.queue = []
            else:
                # The same words from every seat: a keep says nothing about the 7.
                ev.append(GameEvent("kept", {"seat": seat}))
                self.queue.pop(0)
            if not self.queue:
                self._honours()
        elif ph == PHASE_BET:
            self.queue.pop(0)
            unit = self.options["bet_unit"]
            if kind in ("bet", "match"):
                self.stacks[seat] -= unit
                self.committed[seat] += unit
                self.pukk += unit
                self.paired[seat] = True
            ev.append(GameEvent(kind, {"seat": seat, "pukk": self.pukk}))
            if kind == "bet":
                self.opened = self.pending = True
                self.bets_made += 1
                self.queue = [s for s in self.order_from(self.forehand)
                              if s != seat and self.in_play[s]]
            elif kind == "fold":
                self.in_play[seat] = False
            elif kind == "pass" and self.opened and sum(self.in_play) == 2:
                # Two left and one will not go on: both show [1969].
                self.queue = []
            if not self.queue:
                self._end_round()
        else:
            card = CARD_OF[str(action.args[0])]
            if self.choice_seat >= 0:
                self.choice_seat = -1
            assert self.run is not None or seat == self.leader
            suit, r = SUIT[card], RANK[card]
            if self.run is None:
                self.run = (suit, r, r)
                ev.append(GameEvent("led", {"seat": seat, "card": CARD_TEXT[card]}))
            else:
                s0, lo, hi = self.run
                self.run = (s0, min(lo, r), max(hi, r))
            if not self._play_card(seat, card):
                self._continue_run()
        if self._revealed:
            # Something about other hands came out (their cards, or a card
            # known to be in the stock): Session must not undo across it.
            ev.append(GameEvent("revealed", {"by": seat},
                                visible_to=frozenset(range(self.num_seats))))
        return ev

    def turn_message(self, seat: Seat) -> str:
        """Name the one seat to act."""
        return f"seat {seat} may not act now (waiting for seat {self.to_move()})"

    def _rule_for(self, action: Action) -> str:
        if self.phase == PHASE_BET and action.kind in ("bet", "match"):
            return "pair-to-bet"
        if self.phase == PHASE_PLAY and action.kind == "play":
            return "follow-run" if self.choice_seat >= 0 else "lead-own-card"
        if self.phase == PHASE_BISEFA:
            return "bisefa"
        return "legal-actions"

    def is_terminal(self) -> bool:
        """True when the game (or, in search, the deal) is over."""
        return self.phase == PHASE_OVER

    def returns(self) -> list[float]:
        """Chips won or lost against the starting stack (in search: since the
        search began)."""
        if self.horizon:
            return [float(s - b) for s, b in zip(self.stacks, self.base, strict=True)]
        return [float(s - self.start_chips) for s in self.stacks]

    def evaluate(self) -> list[float]:
        """Heuristic for cut-off playouts: the chips now, plus the Púkk shared
        among those still in it."""
        vals = self.returns()
        if self.phase == PHASE_BET and self.opened:
            alive = [s for s in range(self.num_seats) if self.in_play[s]]
            for s in alive:
                vals[s] += self.pukk / len(alive)
        return vals

    def observation(self, seat: Seat | None) -> dict[str, Any]:
        """The table as `seat` sees it: its own hand plus everything public."""
        obs: dict[str, Any] = {
            "game": "pukk", "deal": self.deal_no, "deals": (None if self.options["until_broke"]
                                                            else self.deals_total),
            "dealer": self.dealer, "forehand": self.forehand, "phase": self.phase,
            "trump": SUIT_NAMES[self.trump] if self.turned >= 0 else None,
            "turned": CARD_TEXT[self.turned] if self.turned >= 0 else None,
            "stacks": list(self.stacks), "pools": dict(self.pools), "pukk": self.pukk,
            "hand_sizes": [len(h) for h in self.hands],
            "shown": [[CARD_TEXT[c] for c in sort_cards(cs, _ORDER)] for cs in self.shown],
            "known_in_stock": [CARD_TEXT[c] for c in sort_cards(self.known_stock, _ORDER)],
            "stock_size": len(self.stock),
            # Who held the bísefa is public only once it was swapped (then it is
            # the turned card); a keep leaves it as hidden as any other card.
            "bisefa": self.swapped_by if self.swapped_by >= 0 else None,
            "in_pukk": list(self.in_play), "committed": list(self.committed),
            "bet_pending": self.pending, "bets_made": self.bets_made,
            "plays": [[s, CARD_TEXT[c]] for s, c in self.plays],
            "run": (None if self.run is None else
                    [SUITS[self.run[0]], RANK_TEXT[self.run[1]], RANK_TEXT[self.run[2]]]),
            "to_act": sorted(self.actors()), "last_deal": self.last_deal,
            "end": self.end_reason or None,
        }
        if seat is not None:
            obs["seat"] = seat
            obs["hand"] = [CARD_TEXT[c] for c in self.hands[seat]]
        return obs

    # --- copies ---------------------------------------------------------------

    _SCALARS: ClassVar[tuple[str, ...]] = (
        "low_rank", "start_chips", "pukk", "deal_no", "deals_total", "dealer", "phase",
        "end_reason", "turned", "trump", "bisefa_seat", "swapped_by", "pending", "opened",
        "bets_made", "leader", "last_player", "choice_seat")

    def to_json(self) -> dict[str, Any]:
        """Full state, hidden cards included (for storage, never for a screen)."""
        data: dict[str, Any] = {k: getattr(self, k) for k in self._SCALARS}
        data.update({
            "num_seats": self.num_seats, "options": dict(self.options),
            "rng": self.rng.to_json(), "pool_names": list(self.pool_names),
            "stacks": list(self.stacks), "pools": dict(self.pools),
            "hands": [list(h) for h in self.hands], "stock": list(self.stock),
            "shown": [list(h) for h in self.shown], "known_stock": list(self.known_stock),
            "plays": [list(p) for p in self.plays], "in_play": list(self.in_play),
            "paired": list(self.paired), "eligible": list(self.eligible),
            "committed": list(self.committed),
            "queue": list(self.queue), "run": None if self.run is None else list(self.run),
            "last_deal": self.last_deal, "horizon": self.horizon, "base": list(self.base),
        })
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PukkState:
        """Rebuild a state from `to_json` output."""
        try:
            klass = state_class(data["options"])
            st = klass(int(data["num_seats"]), dict(data["options"]), Rng.from_json(data["rng"]))
            for k in cls._SCALARS:
                setattr(st, k, data[k])
            st.pool_names = tuple(data["pool_names"])
            st.stacks = [int(x) for x in data["stacks"]]
            st.pools = {str(k): int(v) for k, v in data["pools"].items()}
            st.hands = [[int(c) for c in h] for h in data["hands"]]
            st.stock = [int(c) for c in data["stock"]]
            st.shown = [[int(c) for c in h] for h in data["shown"]]
            st.known_stock = [int(c) for c in data["known_stock"]]
            st.plays = [(int(s), int(c)) for s, c in data["plays"]]
            st.in_play = [bool(x) for x in data["in_play"]]
            st.paired = [bool(x) for x in data["paired"]]
            st.eligible = [bool(x) for x in data["eligible"]]
            st.committed = [int(x) for x in data["committed"]]
            st.queue = [int(x) for x in data["queue"]]
            run = data["run"]
            st.run = None if run is None else (int(run[0]), int(run[1]), int(run[2]))
            st.last_deal = dict(data["last_deal"])
            st.horizon = bool(data.get("horizon", False))
            st.base = [int(x) for x in data.get("base", [])]
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise IllegalAction("state", f"not a Púkk state: {exc!r}") from exc
        return st

    def clone(self) -> PukkState:
        """A fast independent copy."""
        st = type(self).__new__(type(self))
        st.__dict__.update(self.__dict__)
        st.options = dict(self.options)
        st.rng = copy_rng(self.rng)
        st.stacks = list(self.stacks)
        st.pools = dict(self.pools)
        st.hands = [list(h) for h in self.hands]
        st.stock = list(self.stock)
        st.shown = [list(h) for h in self.shown]
        st.known_stock = list(self.known_stock)
        st.plays = list(self.plays)
        st.in_play = list(self.in_play)
        st.paired = list(self.paired)
        st.eligible = list(self.eligible)
        st.committed = list(self.committed)
        st.queue = list(self.queue)
        st.last_deal = _copy_last_deal(self.last_deal)
        st.base = list(self.base)
        st._events = []
        st.opening_events = []
        return st

    def determinize(self, seat: Seat, rng: Rng) -> PukkState:
        """Re-deal every card `seat` cannot know, keeping what it has seen: its own
        hand, shown cards, played cards, the face-up card, cards known to be in
        the stock, and a pair in every hand that bet or matched."""
        sim = self.clone()
        sim.rng = rng.fork(rng.next_u64())  # future deals must not be the real ones
        n = self.num_seats
        slots: list[tuple[int, int]] = []  # (owner, count); owner n = the stock
        pool: list[int] = []
        for s in range(n):
            if s == seat:
                continue
            free = [c for c in self.hands[s] if c not in self.shown[s]]
            pool.extend(free)
            slots.append((s, len(free)))
        free_stock = [c for c in self.stock if c not in self.known_stock]
        pool.extend(free_stock)
        slots.append((n, len(free_stock)))
        played_by: list[list[int]] = [[] for _ in range(n)]
        for s, c in self.plays:
            played_by[s].append(c)
        pool.sort(key=_ORDER.__getitem__)  # the order must not carry where the cards really are
        need_pair = [s for s in range(n) if s != seat and self.paired[s]]
        for _attempt in range(50):
            rng.shuffle(pool)
            pos = 0
            for owner, count in slots:
                part = pool[pos:pos + count]
                pos += count
                if owner == n:
                    sim.stock = [c for c in self.stock if c in self.known_stock] + part
                else:
                    sim.hands[owner] = sort_cards(self.shown[owner] + part, _ORDER)
            if all(best_set(sim.hands[s] + played_by[s]) is not None for s in need_pair):
                break
        if sim.phase == PHASE_BET:
            sim.eligible = [best_set(h) is not None for h in sim.hands]
        # A kept bísefa is hidden, so the sample may put the 7 in another hand.
        sim.bisefa_seat = sim._holder(make_card(BISEFA_RANK, sim.trump))
        return sim


def _copy_last_deal(last: dict[str, Any]) -> dict[str, Any]:
    """A copy of `PukkState.last_deal` (empty, or its payments and stacks with the deal)."""
    if not last:
        return {}
    exempt = last.get("exempt")
    return {**last, "payments": dict(last["payments"]), "stacks": list(last["stacks"]),
            "exempt": None if exempt is None else dict(exempt)}


class PukkOwnersState(PukkState):
    """The "honour owners" table [is.wikipedia]: seat i owns the i-th honour (Ás,
    Kóngur, Drottning, Gosi, Tía, Pamfíll); whoever holds the trump honour shows
    it and charges its owner 1 chip, and the holder of Pamfíll charges the
    Pamfíll owner whatever the trump. Only the Púkk is dressed, plus a
    compartment for each honour left without an owner at a small table."""

    def __init__(self, seats: int, options: dict[str, Any], rng: Rng) -> None:
        super().__init__(seats, options, rng)
        owned = SEED_LAYOUT[:seats]
        self.owners = {name: seat for seat, name in enumerate(owned)}
        self.pool_names = SEED_LAYOUT[seats:]
        self.pools = dict.fromkeys(self.pool_names, 0)

    def clone(self) -> PukkOwnersState:
        """A fast independent copy, owners included."""
        st = super().clone()
        assert isinstance(st, PukkOwnersState)
        st.owners = dict(self.owners)
        return st

    def _claim_honours(self) -> None:
        super()._claim_honours()
        for name, owner in self.owners.items():
            rank = POOLS[name][1]
            card = PAMFILL if rank is None else make_card(rank, self.trump)
            holder = self._holder(card)
            if holder < 0:
                self._know_stock(card)
                continue
            if holder == owner:
                continue  # nobody to charge: the card stays hidden
            pay = min(1, self.stacks[owner])
            self.stacks[owner] -= pay
            self.stacks[holder] += pay
            self._show(holder, card)
            self._events.append(GameEvent("honour", {"seat": holder, "card": CARD_TEXT[card],
                                                     "owner": owner, "chips": pay}))


def state_class(options: dict[str, Any]) -> type[PukkState]:
    """The state class for a table's options (the honours variant is a subclass)."""
    return PukkOwnersState if options.get("honours") == "owners" else PukkState


# --- positions ---

def position(seats: int, hands: Sequence[str], turned: str, *, dealer: Seat = 0,
             options: dict[str, Any] | None = None, stacks: Sequence[int] | None = None,
             pools: dict[str, int] | None = None, pukk: int = 0) -> PukkState:
    """A state dealt by hand, for tests and teaching: "AS KH 7D 6C JC" per seat.

    The board is dressed as usual on top of `pools`/`pukk`; cards not named
    form the stock.

    >>> st = position(2, ["6S 6H AH KS QS", "7C 8C 9C 10C 5D"], "5H")
    >>> st.phase, st.pools["as"], st.stacks
    ('bet', 0, [95, 93])
    """
    opts = GAME.resolve_options(options)
    st = state_class(opts)(seats, opts, Rng("position"))
    if stacks is not None:
        st.stacks = list(stacks)
    if pools is not None:
        st.pools.update(pools)
    st.pukk = pukk
    st.dealer = (dealer - 1) % seats
    dealt = [[parse_card(t) for t in h.split()] for h in hands]
    flat = [c for h in dealt for c in h] + [parse_card(turned)]
    if len(dealt) != seats or any(len(h) != 5 for h in dealt) or len(set(flat)) != len(flat):
        raise IllegalAction("deal", "a position needs five distinct cards for each seat")
    if any(RANK[c] < st.low_rank for c in flat):
        raise IllegalAction("deal", f"the pack starts at {RANK_TEXT[st.low_rank]}")
    stock = [c for c in cards.deck(PACK_SUITS, range(st.low_rank, ACE + 1)) if c not in flat]
    st._dress()
    st._begin(dealt, flat[-1], stock)
    # The seats asked before the bísefa's holder (all of them when it is not
    # dealt) say `keep`, so a position starts where the first choice lies.
    while st.phase == PHASE_BISEFA and st.queue[0] != st.bisefa_seat:
        st.apply(st.queue[0], _KEEP)
    st._events = []
    return st


# --- bots ----------------------------------------------------------------------

def _p_beaten_by_one(key: tuple[int, int, int] | None, has_pair: bool) -> float:
    """Rough chance that one other hand holds a better set than `key`.

    About 61 % of five-card hands from the 40-card pack hold a pair or better
    and about 9 % three of a kind or better (counted with Pamfíll wild); a
    hand known to hold a pair (it bet) is compared on that condition.
    """
    if key is None:
        return 1.0
    size, order, _ = key
    if size >= 4:
        p = 0.002
    elif size == 3:
        p = 0.01 + 0.07 * (10 - order) / 10
    else:
        p = 0.09 + 0.52 * (10 - order) / 10
    return min(1.0, p / 0.61) if has_pair else p


class PukkRuleBot(Bot):
    """A sensible player using only its own hand and the public table.

    Bísefa: swap unless it breaks a better set. Betting: bet or match when the
    estimated chance of the best set pays for the chip. Play-out: lead the card
    that starts the longest run of its own cards, preferring runs that reach
    the ace (a sure stop keeps the lead) and low cards (hard to get rid of).
    """

    name = "rule"

    def choose(self, state: GameState) -> Action:
        """Pick an action for `self.seat`."""
        assert isinstance(state, PukkState)
        legal = state.legal_actions(self.seat)
        if len(legal) == 1:
            return legal[0]
        hand = state.hands[self.seat]  # the bot's own hand only
        if state.phase == PHASE_BISEFA:
            seven = make_card(BISEFA_RANK, state.trump)
            after = [c for c in hand if c != seven] + [state.turned]
            before_key, after_key = best_set(hand), best_set(after)
            if before_key != after_key:
                better = before_key is None or (after_key is not None and after_key > before_key)
                return Action("swap") if better else Action("keep")
            # High cards end runs and keep the lead; low cards are hard to shed.
            return Action("swap") if RANK[state.turned] > BISEFA_RANK else Action("keep")
        if state.phase == PHASE_BET:
            return self._bet(state, hand, legal)
        return self._lead(state, hand, legal)

    def _bet(self, state: PukkState, hand: list[int], legal: list[Action]) -> Action:
        key = best_set(hand)
        others = [s for s in range(state.num_seats) if s != self.seat and state.in_play[s]]
        p_win = 1.0
        for s in others:
            p_win *= 1.0 - _p_beaten_by_one(key, state.paired[s])
        unit = state.options["bet_unit"]
        if state.pending:
            # Match when the expected share of the Púkk pays for the chip.
            return Action("match") if p_win * (state.pukk + unit) > unit else Action("fold")
        # Every bet the others matched makes their sets likelier to be strong.
        if Action("bet") in legal and p_win >= 0.55 + 0.1 * state.bets_made:
            return Action("bet")
        return Action("pass")

    def _lead(self, state: PukkState, hand: list[int], legal: list[Action]) -> Action:
        if state.choice_seat >= 0:
            # Downward choice: keep the run on the side that stays in own hand.
            return max(legal, key=lambda a: _chain(hand, CARD_OF[str(a.args[0])]))
        best, best_score = legal[0], -1e9
        for a in legal:
            c = CARD_OF[str(a.args[0])]
            length = _chain(hand, c)
            top = RANK[c] + length - 1
            score = 10.0 * length + (40.0 if top == ACE else 0.0) - RANK[c]
            if score > best_score:
                best, best_score = a, score
        return best


def _chain(hand: list[int], card: int) -> int:
    """How many of `hand`'s cards run upward from `card` without a gap."""
    n = 0
    while card in hand or n == 0:
        n += 1
        if RANK[card] == ACE:
            break
        card += 1  # the next higher card of the suit (see `cards`)
    return n


class _Node:
    __slots__ = ("avail", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


class PukkSearchBot(SearchBot):
    """Information-set MCTS over the bot's own decisions in the current deal.

    Each iteration re-deals the hidden cards (`determinize`), descends a tree
    of the bot's own choices by UCB, and lets every other seat act by the rule
    player on its sampled hand. Sharing one tree over the opponents' choices
    (plain SO-ISMCTS) would let them act on the average of all their possible
    hands, a poor model in the betting. Playouts end with the deal (chips are
    the utility and deals are independent), scored by each seat's chip change.
    """

    def choose(self, state: GameState) -> Action:
        """Search the rest of the deal as seen from `self.seat`."""
        assert isinstance(state, PukkState)
        legal = state.legal_actions(self.seat)
        if len(legal) == 1:
            return legal[0]
        view = state.clone()
        view.horizon = True
        view.base = list(view.stacks)
        root = _Node()
        deadline = self.clock() + self.time_budget_s
        iterations = 0
        while iterations < self.max_iterations and (iterations == 0
                                                    or self.clock() < deadline):
            self._descend(view, root)
            iterations += 1
        self.last_iterations = iterations
        best, best_visits = legal[0], -1
        for action in legal:
            child = root.children.get(action)
            if child is not None and child.visits > best_visits:
                best, best_visits = action, child.visits
        return best

    def _descend(self, view: PukkState, root: _Node) -> None:
        sim = view.determinize(self.seat, self.rng)
        models: dict[Seat, Bot] = {}
        node: _Node | None = root
        path: list[_Node] = []
        for _ in range(self.max_rollout_steps):
            if sim.is_terminal():
                break
            actor = min(sim.actors())
            actions = sim.legal_actions(actor)
            if actor != self.seat or node is None or len(actions) == 1:
                model = models.get(actor)
                if model is None:
                    model = models[actor] = self.rollout(actor, self.rng)
                sim.apply(actor, model.choose(sim))
                continue
            for a in actions:
                known = node.children.get(a)
                if known is not None:
                    known.avail += 1
            untried = [a for a in actions if a not in node.children]
            if untried:
                action = self.rng.choice(untried)
                child = node.children[action] = _Node()
                child.avail = 1
                path.append(child)
                sim.apply(actor, action)
                node = None  # expanded: the rest is playout
                continue
            action, child = actions[0], node.children[actions[0]]
            best_score = -1.0
            for a in actions:
                c = node.children[a]
                score = (c.reward / c.visits
                         + self.exploration * math.sqrt(math.log(max(c.avail, 1)) / c.visits))
                if score > best_score:
                    action, child, best_score = a, c, score
            path.append(child)
            sim.apply(actor, action)
            node = child
        utility = utilities(sim)[self.seat]
        for child in path:
            child.visits += 1
            child.reward += utility


def _search_bot(seat: Seat, rng: Rng) -> Bot:
    return PukkSearchBot(seat, rng, time_budget_s=0.3, max_iterations=300,
                         max_rollout_steps=120, rollout=PukkRuleBot)


BOTS: dict[str, Callable[[Seat, Rng], Bot]] = {
    "random": RandomBot,
    "rule": PukkRuleBot,
    "search": _search_bot,
}

GAME = PukkGame()
