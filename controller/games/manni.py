"""Manni: the Icelandic three-player trick-taking game with the spare hand.

The basic game follows the seed text (pagat's translation of *Spilabók AB*,
1989): 48 cards (the twos only show trump), trump rotating hearts, spades,
diamonds, clubs from deal to deal, 12 cards each in packets of four, the
12-card Manni that the players may take in exchange for their whole hand
(offered clockwise from the dealer's left, once), twelve tricks, one point per
trick above four and minus one per trick short of four, game to 10.

Variants, chosen with the `variant` option, are `_Rules` subclasses that
override named hooks (deck, deal, contract, exchange, scoring, end):

- ``hornafjordur``: 52 cards, a cut card sets the contract (2-5 Nullo, 6-9
  trump in its suit, 10-A no-trump), a 16-card Manni, partial exchanges of up
  to 7 / 5 / the rest.
- ``dealers_choice``: 52 cards, the dealer picks Nullo, a trump suit or
  no-trump (each once per dealer), partial exchanges, nine deals.
- ``laugavatn``: 52 cards, 16 each and a 4-card Manni, the declarer (dealer's
  left) picks one of six contracts (each once per seat) and may take the Manni,
  par 8 for the declarer and 4 for the others (Nullo: at most 4 / 6), eighteen
  deals.

Every interpretation is marked in docs/rules/manni.md.

Seats are numbered clockwise, so seat ``s + 1`` (mod 3) sits at ``s``'s left;
deal, exchange and play all move to the left.
"""

from __future__ import annotations

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
from controller.games.cards import (
    ACE,
    CARD_OF,
    CARD_TEXT,
    DECK_SIZE,
    SUIT_NAMES,
    SUITS,
    card_text,
    deck,
    rank_of,
    suit_of,
)
from controller.games.search import SearchBot
from controller.rng import Rng

# --- cards -------------------------------------------------------------------
# Cards are `controller.games.cards` ints. Its suit order is the seed's trump
# rotation: hearts, spades, diamonds, clubs.

NUM_SEATS = 3

DECK_48: tuple[int, ...] = tuple(deck(ranks=range(3, ACE + 1)))
DECK_52: tuple[int, ...] = tuple(deck())

# Contracts: a trump suit letter, "grand" (no trump) or "nullo" (fewest tricks,
# no trump, ace low).
GRAND = "grand"
NULLO = "nullo"
CONTRACTS = ("H", "S", "D", "C", GRAND, NULLO)


def parse_card(text: str) -> int:
    """Parse a card's text form (``"QH"``, ``"10S"``, ``"3c"``).

    >>> card_text(parse_card("QH"))
    'QH'
    """
    try:
        card = cards.parse_card(text)
    except MalformedCard:
        card = -1
    if not 0 <= card < DECK_SIZE:
        raise IllegalAction("syntax", f"not a card: {text!r} (examples: 'AH', '10S', '3C')")
    return card


def _trump_index(contract: str) -> int:
    """Suit index of the trump, or -1 in Grand and Nullo."""
    return SUITS.find(contract) if len(contract) == 1 else -1


def _strength(card: int, nullo: bool) -> int:
    """Rank used to compare cards of one suit; the ace is low in Nullo."""
    rank = card % 13 + 2
    return 1 if nullo and rank == 14 else rank


def trick_winner(cards: list[tuple[Seat, int]], contract: str) -> Seat:
    """The seat that wins a trick: highest trump, else highest of the led suit.

    Args:
        cards: (seat, card) in the order played; the first card was led.
        contract: the deal's contract.
    """
    trump = _trump_index(contract)
    nullo = contract == NULLO
    best_seat, best_card = cards[0]
    for seat, card in cards[1:]:
        suit = card // 13
        best_suit = best_card // 13
        if suit == best_suit:
            if _strength(card, nullo) > _strength(best_card, nullo):
                best_seat, best_card = seat, card
        elif suit == trump:   # the first trump on a non-trump lead
            best_seat, best_card = seat, card
    return best_seat


def _sort_hand(hand: list[int]) -> None:
    hand.sort()


# Actions are cached values: `legal_actions` is on the hot path of playouts.
PLAY: tuple[Action, ...] = tuple(Action("play", (t,)) for t in CARD_TEXT[:DECK_SIZE])
DISCARD: tuple[Action, ...] = tuple(Action("discard", (t,)) for t in CARD_TEXT[:DECK_SIZE])
SWAP = Action("swap")
KEEP = Action("keep")
TAKE = Action("take")
PASS = Action("pass")
DONE = Action("done")
CONTRACT_ACTIONS: dict[str, Action] = {c: Action("contract", (c,)) for c in CONTRACTS}

_NOBODY: frozenset[Seat] = frozenset()
_ONE_ACTOR: tuple[frozenset[Seat], ...] = tuple(frozenset((s,)) for s in range(NUM_SEATS))

# Phases of a deal.
CONTRACT, EXCHANGE, PLAYING, OVER = "contract", "exchange", "play", "over"


# --- variants ----------------------------------------------------------------


class _Rules:
    """The basic game of the seed; variants override the hooks below."""

    name: ClassVar[str] = "basic"
    deck: ClassVar[tuple[int, ...]] = DECK_48
    hand_size: ClassVar[int] = 12
    manni_size: ClassVar[int] = 12
    exchange_kind: ClassVar[str] = "whole"   # "whole", "partial" or "take"
    chooses_contract: ClassVar[bool] = False
    fixed_deals: ClassVar[int | None] = None  # None: play to the target score
    contract_menu: ClassVar[tuple[str, ...]] = ()

    def deal(self, st: ManniState, events: list[GameEvent]) -> None:
        """Shuffle, set the contract if chance sets it, and deal hands and Manni.

        Seed: "12 cards are dealt to each player, in packets of four. The
        remaining 12 cards form the Manni"; the trump "rotates from deal to deal
        in the sequence hearts, spades, diamonds, clubs".
        """
        deck = list(self.deck)
        st.rng.shuffle(deck)
        st.contract = SUITS[(st.deal_no - 1) % 4]
        order = st.deal_order()
        pos = 0
        for _ in range(3):
            for seat in order:
                st.hands[seat].extend(deck[pos:pos + 4])
                pos += 4
        st.manni = deck[pos:]

    def contract_chooser(self, st: ManniState) -> Seat:
        """The seat that names the contract (variants with a choice)."""
        return st.dealer

    def contract_choices(self, st: ManniState, seat: Seat) -> list[str]:
        """Contracts `seat` may still name."""
        used = st.used[seat]
        return [c for c in self.contract_menu if c not in used]

    def used_key(self, contract: str) -> str:
        """What naming `contract` uses up of the seat's once-per-game menu."""
        return contract

    def exchange_order(self, st: ManniState) -> list[Seat]:
        """Who may exchange, in turn. Seed: from the dealer's left, clockwise."""
        order = st.deal_order()
        return order if st.options["dealer_may_swap"] else order[:2]

    def exchange_limit(self, st: ManniState, index: int) -> int:
        """Most cards the `index`-th exchanger may exchange (partial exchanges)."""
        _ = index
        return len(st.manni)

    def deal_points(self, st: ManniState) -> list[int]:
        """Seed: +1 per trick above four, -1 per trick short of four."""
        return [t - 4 for t in st.tricks]

    def game_over(self, st: ManniState) -> bool:
        """Seed: "until one or more players have a cumulative score of 10 points or
        more. The player who then has most points is the winner"."""
        if self.fixed_deals is not None:
            # Every contract is used up by then, so a tied lead is shared.
            return st.deal_no >= self.fixed_deals
        if max(st.scores) < st.options["target"]:
            return False
        return self._decided(st)

    def _decided(self, st: ManniState) -> bool:
        if st.options["ties"] == "share":
            return True
        best = max(st.scores)
        return st.scores.count(best) == 1


class _Hornafjordur(_Rules):
    """Hornafjarðarmanni (cardgames.io, gamerules.com)."""

    name = "hornafjordur"
    deck = DECK_52
    manni_size = 16
    exchange_kind = "partial"

    def deal(self, st: ManniState, events: list[GameEvent]) -> None:
        """The player right of the dealer cuts; the card at the cut sets the
        contract; 4 cards to the Manni, then 3 to each player, four times."""
        deck = list(self.deck)
        st.rng.shuffle(deck)
        cut = st.rng.randint(4, len(deck) - 4)
        shown = deck[cut - 1]   # the bottom card of the lifted packet
        deck = deck[cut:] + deck[:cut]
        rank = rank_of(shown)
        st.contract = NULLO if rank <= 5 else SUITS[suit_of(shown)] if rank <= 9 else GRAND
        st.cut_card = shown
        events.append(GameEvent("cut", {"seat": (st.dealer + 2) % 3, "card": CARD_TEXT[shown],
                                        "contract": st.contract}, chance=True))
        _deal_with_manni(st, deck, manni_packet=4, packet=3)

    def exchange_order(self, st: ManniState) -> list[Seat]:
        """Left of dealer, right of dealer, then the dealer."""
        return st.deal_order()

    def exchange_limit(self, st: ManniState, index: int) -> int:
        """Up to 7, then up to 5, then whatever is left in the Manni."""
        return min((7, 5, 16)[index], len(st.manni))

    def deal_points(self, st: ManniState) -> list[int]:
        """Tricks - 4; in Nullo 4 - tricks (interpretation, as in dealer's choice)."""
        if st.contract == NULLO:
            return [4 - t for t in st.tricks]
        return [t - 4 for t in st.tricks]


class _DealersChoice(_Hornafjordur):
    """Dealer's choice (traditionalgamerules.neocities.org): nine deals."""

    name = "dealers_choice"
    chooses_contract = True
    fixed_deals = 9
    contract_menu = ("trump", GRAND, NULLO)

    def deal(self, st: ManniState, events: list[GameEvent]) -> None:
        """Three to each player, then four to the Manni, until all are dealt."""
        deck = list(self.deck)
        st.rng.shuffle(deck)
        st.contract = ""
        _deal_with_manni(st, deck, manni_packet=4, packet=3, manni_first=False)

    def contract_choices(self, st: ManniState, seat: Seat) -> list[str]:
        """Any trump suit if "trump" is unused, Grand, Nullo: each once per dealer."""
        used = st.used[seat]
        out: list[str] = []
        if "trump" not in used:
            out.extend("HSDC")
        out.extend(c for c in (GRAND, NULLO) if c not in used)
        return out

    def used_key(self, contract: str) -> str:
        """Any trump suit uses up the one "trump" contract."""
        return "trump" if len(contract) == 1 else contract


class _Laugavatn(_Rules):
    """Laugavatnsmanni (gamerules.com; spilareglur.is for the Manni and the par)."""

    name = "laugavatn"
    # Interpretation: 3 x 16 cards plus a 4-card Manni needs all 52 cards, so
    # the twos stay in (gamerules.com's "twos removed" cannot give that deal).
    deck = DECK_52
    hand_size = 16
    manni_size = 4
    exchange_kind = "take"
    chooses_contract = True
    fixed_deals = 18
    contract_menu = ("H", "S", "D", "C", GRAND, NULLO)

    def deal(self, st: ManniState, events: list[GameEvent]) -> None:
        """16 cards each in packets of four; the last 4 form the Manni."""
        deck = list(self.deck)
        st.rng.shuffle(deck)
        st.contract = ""
        order = st.deal_order()
        pos = 0
        for _ in range(4):
            for seat in order:
                st.hands[seat].extend(deck[pos:pos + 4])
                pos += 4
        st.manni = deck[pos:]

    def contract_chooser(self, st: ManniState) -> Seat:
        """The player left of the dealer declares."""
        return (st.dealer + 1) % 3

    def exchange_order(self, st: ManniState) -> list[Seat]:
        """The declarer first, then clockwise; the first to take ends it."""
        return st.deal_order()

    def deal_points(self, st: ManniState) -> list[int]:
        """Par 8 for the declarer and 4 for the others; in Nullo at most 4 for the
        declarer and 6 for the others (spilareglur.is)."""
        out = []
        for seat, t in enumerate(st.tricks):
            if st.contract == NULLO:
                out.append((4 if seat == st.declarer else 6) - t)
            else:
                out.append(t - (8 if seat == st.declarer else 4))
        return out


def _deal_with_manni(st: ManniState, deck: list[int], *, manni_packet: int, packet: int,
                     manni_first: bool = True) -> None:
    order = st.deal_order()
    pos = 0
    manni: list[int] = []
    while pos < len(deck):
        if manni_first:
            manni.extend(deck[pos:pos + manni_packet])
            pos += manni_packet
        for seat in order:
            st.hands[seat].extend(deck[pos:pos + packet])
            pos += packet
        if not manni_first:
            manni.extend(deck[pos:pos + manni_packet])
            pos += manni_packet
    st.manni = manni


RULES: dict[str, _Rules] = {r.name: r for r in (_Rules(), _Hornafjordur(), _DealersChoice(),
                                                _Laugavatn())}


# --- the game ----------------------------------------------------------------


class ManniGame(Game):
    """Manni for three players, with its regional variants as options."""

    id = "manni"
    name = "Manni"
    min_seats = 3
    max_seats = 3
    default_seats = 3
    summary = ("Icelandic trick-taking for three: swap for the spare hand, "
               "take more than four tricks")
    options_schema: ClassVar[dict[str, Option]] = {
        "variant": Option("basic", "basic (seed), hornafjordur (cut contract, partial "
                          "exchange), dealers_choice (9 deals), laugavatn (18 deals)",
                          tuple(RULES)),
        "target": Option(10, "score that ends the game (basic, hornafjordur)"),
        "dealer_may_swap": Option(True, "basic: the dealer has the last chance to take the Manni",
                                  (True, False)),
        "ties": Option("share", "a tie for the lead at the target: share the win, or "
                       "play_on until one leads (fixed-length variants share)",
                       ("share", "play_on")),
    }

    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> ManniState:
        """Cut for the first dealer and deal the first hand."""
        self.check_seats(seats)
        opts = self.resolve_options(options)
        if opts["target"] < 1:
            raise IllegalAction("options", f"option 'target' must be at least 1, "
                                f"got {opts['target']}")
        st = ManniState(opts, rng)
        st.opening_events = st.start_game()
        return st

    def state_from_json(self, data: dict[str, Any]) -> ManniState:
        """Rebuild a state from `ManniState.to_json` output."""
        return ManniState.from_json(data)


class ManniState(GameState):
    """One Manni game in progress (every deal until the game ends)."""

    game_id = "manni"

    def __init__(self, options: dict[str, Any], rng: Rng) -> None:
        self.num_seats = NUM_SEATS
        self.options = dict(options)
        self.rules = RULES[self.options["variant"]]
        self.rng = rng
        self.deal_no = 0
        self.dealer = 0
        self.phase = OVER
        self.contract = ""
        self.declarer = -1
        self.cut_card = -1
        self.hands: list[list[int]] = [[], [], []]
        self.manni: list[int] = []               # top is index 0
        self.discards: list[list[int]] = [[], [], []]  # out of play, face down
        self.exchange_order: list[Seat] = []
        self.exchange_index = 0
        self.exchanged: list[int] = [-1, -1, -1]  # cards exchanged per seat (-1: not yet)
        self.marked = 0                          # partial/take: discards so far this turn
        self.taker = -1                          # whole/take: who took the Manni
        self.leader = 0
        self.turn = 0
        self.trick: list[tuple[Seat, int]] = []
        self.last_trick: list[tuple[Seat, int]] = []
        self.played: list[int] = []              # this deal, in order
        self.voids = [0, 0, 0]                   # bitmask of suits shown void this deal
        self.tricks = [0, 0, 0]
        self.scores = [0, 0, 0]
        self.used: list[list[str]] = [[], [], []]
        self.history: list[dict[str, Any]] = []

    # --- flow ---------------------------------------------------------------

    def deal_order(self) -> list[Seat]:
        """The seats from the dealer's left round to the dealer."""
        d = self.dealer
        return [(d + 1) % 3, (d + 2) % 3, d]

    def start_game(self) -> list[GameEvent]:
        """Cut for the first dealer (interpretation: by chance) and deal."""
        self.dealer = self.rng.randbelow(3)
        return self._start_deal()

    def _start_deal(self) -> list[GameEvent]:
        self.deal_no += 1
        self.hands = [[], [], []]
        self.discards = [[], [], []]
        self.trick, self.last_trick, self.played = [], [], []
        self.voids = [0, 0, 0]
        self.tricks = [0, 0, 0]
        self.exchanged = [-1, -1, -1]
        self.marked = 0
        self.taker = -1
        self.declarer = -1
        self.cut_card = -1
        events: list[GameEvent] = []
        self.rules.deal(self, events)
        for hand in self.hands:
            _sort_hand(hand)
        events.insert(0, GameEvent("deal", {"deal": self.deal_no, "dealer": self.dealer,
                                            "contract": self.contract,
                                            "manni": len(self.manni)}, chance=True))
        for seat in range(3):
            events.append(GameEvent("hand", {"seat": seat,
                                             "cards": [CARD_TEXT[c] for c in self.hands[seat]]},
                                    visible_to=frozenset({seat}), chance=True))
        self.exchange_order = self.rules.exchange_order(self)
        self.exchange_index = 0
        if self.rules.chooses_contract:
            self.phase = CONTRACT
            self.turn = self.rules.contract_chooser(self)
        else:
            self._begin_exchange()
        return events

    def _begin_exchange(self) -> None:
        self.phase = EXCHANGE
        self.exchange_index = 0
        self.turn = self.exchange_order[0]

    def _next_exchanger(self) -> None:
        self.exchange_index += 1
        self.marked = 0
        if (self.exchange_index >= len(self.exchange_order) or self.taker >= 0
                or (self.rules.exchange_kind == "partial" and not self.manni)):
            self._begin_play()
        else:
            self.turn = self.exchange_order[self.exchange_index]

    def _begin_play(self) -> None:
        # Seed: "The player to the dealer's left leads to the first trick."
        self.phase = PLAYING
        self.leader = self.turn = (self.dealer + 1) % 3

    # --- API ------------------------------------------------------------------

    def actors(self) -> frozenset[Seat]:
        """The one seat to act (none when the game is over)."""
        return _NOBODY if self.phase == OVER else _ONE_ACTOR[self.turn]

    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every action `seat` may take now, in a fixed order."""
        if self.phase == OVER or seat != self.turn:
            return []
        if self.phase == PLAYING:
            hand = self.hands[seat]
            if self.trick:
                led = self.trick[0][1] // 13
                follow = [PLAY[c] for c in hand if c // 13 == led]
                if follow:
                    return follow
            return [PLAY[c] for c in hand]
        if self.phase == CONTRACT:
            return [CONTRACT_ACTIONS[c] for c in self.rules.contract_choices(self, seat)]
        kind = self.rules.exchange_kind
        if kind == "whole":
            return [SWAP, KEEP]
        if kind == "take":
            if self.taker == seat:   # must lay away as many as taken
                return [DISCARD[c] for c in self.hands[seat]]
            return [TAKE, PASS]
        limit = self.rules.exchange_limit(self, self.exchange_index)
        out = [DISCARD[c] for c in self.hands[seat]] if self.marked < limit else []
        out.append(DONE)
        return out

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Apply `seat`'s action; raise `IllegalAction` naming the rule otherwise."""
        self.check_actor(seat)
        kind = action.kind
        if self.phase == PLAYING:
            if kind != "play":
                raise IllegalAction("phase", f"cards are being played: use play:CARD, not {action}")
            return self._play(seat, action)
        if self.phase == CONTRACT:
            if kind != "contract" or len(action.args) != 1:
                raise IllegalAction("phase", f"seat {seat} must name the contract "
                                    f"(contract:X), not {action}")
            return self._name_contract(seat, str(action.args[0]))
        return self._exchange(seat, action)

    def turn_message(self, seat: Seat) -> str:
        """Name the seat on turn and what it is doing."""
        return f"seat {seat} may not act now (waiting for seat {self.turn} to {self.phase})"

    def _card_arg(self, action: Action) -> int:
        if len(action.args) != 1:
            raise IllegalAction("syntax", f"{action.kind} takes one card, got {action}")
        return parse_card(str(action.args[0]))

    def _play(self, seat: Seat, action: Action) -> list[GameEvent]:
        args = action.args
        # Fast path for the canonical text; anything else goes through the parser.
        card = CARD_OF.get(args[0], -1) if len(args) == 1 and isinstance(args[0], str) else -1
        if not 0 <= card < DECK_SIZE:
            card = self._card_arg(action)
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction("own-cards", f"seat {seat} does not hold {card_text(card)}")
        if self.trick:
            led = self.trick[0][1] // 13
            if card // 13 != led:
                for c in hand:
                    if c // 13 == led:
                        raise IllegalAction("follow-suit", f"seat {seat} must follow "
                                            f"{SUIT_NAMES[led]} (seed: 'Players must follow "
                                            f"suit if possible')")
                self.voids[seat] |= 1 << led
        hand.remove(card)
        self.trick.append((seat, card))
        self.played.append(card)
        events = [GameEvent("play", {"seat": seat, "card": CARD_TEXT[card]})]
        if len(self.trick) < 3:
            self.turn = (seat + 1) % 3
            return events
        winner = trick_winner(self.trick, self.contract)
        self.tricks[winner] += 1
        self.last_trick = self.trick
        self.trick = []
        events.append(GameEvent("trick", {"winner": winner,
                                          "cards": [CARD_TEXT[c] for _, c in self.last_trick],
                                          "tricks": list(self.tricks)}))
        self.leader = self.turn = winner
        if not self.hands[winner]:
            events.extend(self._end_deal())
        return events

    def _end_deal(self) -> list[GameEvent]:
        points = self.rules.deal_points(self)
        for seat in range(3):
            self.scores[seat] += points[seat]
        self.history.append({"deal": self.deal_no, "dealer": self.dealer,
                             "contract": self.contract, "declarer": self.declarer,
                             "tricks": list(self.tricks), "points": points})
        events = [GameEvent("score", {"deal": self.deal_no, "tricks": list(self.tricks),
                                      "points": points, "scores": list(self.scores)})]
        if self.rules.game_over(self):
            self.phase = OVER
            events.append(GameEvent("game_over", {"scores": list(self.scores),
                                                  "winners": self.winners()}))
            return events
        self.dealer = (self.dealer + 1) % 3   # interpretation: the deal passes left
        events.extend(self._start_deal())
        return events

    def _name_contract(self, seat: Seat, contract: str) -> list[GameEvent]:
        choices = self.rules.contract_choices(self, seat)
        if contract not in choices:
            raise IllegalAction("contract", f"seat {seat} may name one of {choices}, "
                                f"not {contract!r} (each contract once per game)")
        self.contract = contract
        self.declarer = seat
        self.used[seat].append(self.rules.used_key(contract))
        self._begin_exchange()
        return [GameEvent("contract", {"seat": seat, "contract": contract})]

    def _exchange(self, seat: Seat, action: Action) -> list[GameEvent]:
        kind = self.rules.exchange_kind
        if action not in self.legal_actions(seat):
            rule = {"whole": "swap-or-keep", "take": "take-or-pass",
                    "partial": "exchange-limit"}[kind]
            raise IllegalAction(rule, f"{action} is not allowed now for seat {seat} "
                                f"(allowed: {', '.join(map(str, self.legal_actions(seat)))})")
        if kind == "whole":
            if action == KEEP:
                self.exchanged[seat] = 0
                self._next_exchanger()
                return [GameEvent("keep", {"seat": seat})]
            # Seed: "change all 12 cards with the 12 cards of the Manni".
            self.discards[seat] = self.hands[seat]
            self.hands[seat] = sorted(self.manni)
            self.manni = []
            self.exchanged[seat] = len(self.hands[seat])
            self.taker = seat
            self._next_exchanger()
            return [GameEvent("swap", {"seat": seat}),
                    GameEvent("hand", {"seat": seat,
                                       "cards": [CARD_TEXT[c] for c in self.hands[seat]]},
                              visible_to=frozenset({seat}))]
        if kind == "take":
            if action == PASS:
                self.exchanged[seat] = 0
                self._next_exchanger()
                return [GameEvent("pass", {"seat": seat})]
            if action == TAKE:
                taken = self.manni
                self.manni = []
                self.hands[seat].extend(taken)
                _sort_hand(self.hands[seat])
                self.taker = seat
                self.marked = 0
                return [GameEvent("take", {"seat": seat, "count": len(taken)}),
                        GameEvent("drawn", {"seat": seat, "cards": [CARD_TEXT[c] for c in taken]},
                                  visible_to=frozenset({seat}))]
            card = parse_card(str(action.args[0]))
            self.hands[seat].remove(card)
            self.discards[seat].append(card)
            self.marked += 1
            events = [GameEvent("lay_away", {"seat": seat, "count": self.marked})]
            if len(self.hands[seat]) == self.rules.hand_size:
                self.exchanged[seat] = self.marked
                self._next_exchanger()
            return events
        if action == DONE:
            n = self.marked
            drawn = self.manni[:n]
            del self.manni[:n]
            self.hands[seat].extend(drawn)
            _sort_hand(self.hands[seat])
            self.exchanged[seat] = n
            self._next_exchanger()
            events = [GameEvent("exchange", {"seat": seat, "count": n})]
            if n:
                events.append(GameEvent("drawn", {"seat": seat,
                                                  "cards": [CARD_TEXT[c] for c in drawn]},
                                        visible_to=frozenset({seat})))
            return events
        card = parse_card(str(action.args[0]))
        self.hands[seat].remove(card)
        self.discards[seat].append(card)
        self.marked += 1
        # No card named in public, so the seat can still undo its choice.
        return [GameEvent("lay_away", {"seat": seat, "count": self.marked})]

    # --- views ----------------------------------------------------------------

    def observation(self, seat: Seat | None) -> dict[str, Any]:
        """What `seat` may see (None: the public table screen)."""
        obs: dict[str, Any] = {
            "variant": self.rules.name, "phase": self.phase, "deal": self.deal_no,
            # The game's length is a public option: a screen joining late needs it too.
            "target": self.options["target"], "deals": self.rules.fixed_deals,
            "dealer": self.dealer, "contract": self.contract, "declarer": self.declarer,
            "trump": self.contract if len(self.contract) == 1 else None,
            "cut_card": CARD_TEXT[self.cut_card] if self.cut_card >= 0 else None,
            "turn": None if self.phase == OVER else self.turn,
            "hand_sizes": [len(h) for h in self.hands],
            "manni_size": len(self.manni),
            "laid_away": [len(d) for d in self.discards],
            "exchanged": list(self.exchanged), "manni_taken_by": self.taker,
            "trick": [[s, CARD_TEXT[c]] for s, c in self.trick],
            "last_trick": [[s, CARD_TEXT[c]] for s, c in self.last_trick],
            "played": [CARD_TEXT[c] for c in self.played],
            "tricks": list(self.tricks), "scores": list(self.scores),
            "used_contracts": [list(u) for u in self.used],
            "history": [dict(h) for h in self.history],
        }
        if seat is not None:
            obs["seat"] = seat
            obs["hand"] = [CARD_TEXT[c] for c in sorted(self.hands[seat])]
            obs["my_laid_away"] = [CARD_TEXT[c] for c in sorted(self.discards[seat])]
            obs["legal"] = [str(a) for a in self.legal_actions(seat)]
        return obs

    def is_terminal(self) -> bool:
        """True once a deal ends the game."""
        return self.phase == OVER

    def returns(self) -> list[float]:
        """Cumulative scores (final once the game is over)."""
        return [float(s) for s in self.scores]

    def evaluate(self) -> list[float]:
        """Heuristic value for cut-off playouts: this deal's points so far.

        Right after a deal ends (nothing played in the next deal yet), the
        points of the deal just finished.
        """
        if not self.played and self.history:
            return [float(p) for p in self.history[-1]["points"]]
        return [float(p) for p in self.rules.deal_points(self)]

    def conservation(self) -> dict[str, int]:
        """Counts that never change: every card somewhere, and zero-sum scores."""
        cards = (sum(len(h) for h in self.hands) + len(self.manni)
                 + sum(len(d) for d in self.discards) + len(self.played))
        return {"cards": cards, "score_sum": sum(self.scores)}

    # --- persistence ----------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The full state, hidden cards and generator included."""
        return {
            "game": "manni", "options": dict(self.options), "rng": self.rng.to_json(),
            "deal_no": self.deal_no, "dealer": self.dealer, "phase": self.phase,
            "contract": self.contract, "declarer": self.declarer, "cut_card": self.cut_card,
            "hands": [list(h) for h in self.hands], "manni": list(self.manni),
            "discards": [list(d) for d in self.discards],
            "exchange_order": list(self.exchange_order), "exchange_index": self.exchange_index,
            "exchanged": list(self.exchanged), "marked": self.marked, "taker": self.taker,
            "leader": self.leader, "turn": self.turn,
            "trick": [[s, c] for s, c in self.trick],
            "last_trick": [[s, c] for s, c in self.last_trick],
            "played": list(self.played), "voids": list(self.voids),
            "tricks": list(self.tricks), "scores": list(self.scores),
            "used": [list(u) for u in self.used],
            "history": [dict(h) for h in self.history],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ManniState:
        """Rebuild a state from `to_json` output."""
        try:
            st = cls(dict(data["options"]), Rng.from_json(data["rng"]))
            for key in ("deal_no", "dealer", "phase", "contract", "declarer", "cut_card",
                        "exchange_index", "marked", "taker", "leader", "turn"):
                setattr(st, key, data[key])
            st.hands = [list(h) for h in data["hands"]]
            st.manni = list(data["manni"])
            st.discards = [list(d) for d in data["discards"]]
            st.exchange_order = list(data["exchange_order"])
            st.exchanged = list(data["exchanged"])
            st.trick = [(s, c) for s, c in data["trick"]]
            st.last_trick = [(s, c) for s, c in data["last_trick"]]
            st.played = list(data["played"])
            st.voids = list(data["voids"])
            st.tricks = list(data["tricks"])
            st.scores = list(data["scores"])
            st.used = [list(u) for u in data["used"]]
            st.history = [dict(h) for h in data["history"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalAction("state", f"not a Manni state: {exc!r}") from exc
        return st

    def clone(self) -> ManniState:
        """A fast independent copy (no JSON round trip)."""
        st = ManniState.__new__(ManniState)
        st.__dict__.update(self.__dict__)
        st.opening_events = ()
        st.options = dict(self.options)
        st.rng = copy_rng(self.rng)
        st.hands = [list(h) for h in self.hands]
        st.manni = list(self.manni)
        st.discards = [list(d) for d in self.discards]
        st.exchange_order = list(self.exchange_order)
        st.exchanged = list(self.exchanged)
        st.trick = list(self.trick)
        st.last_trick = list(self.last_trick)
        st.played = list(self.played)
        st.voids = list(self.voids)
        st.tricks = list(self.tricks)
        st.scores = list(self.scores)
        st.used = [list(u) for u in self.used]
        st.history = [{**h, "tricks": list(h["tricks"]), "points": list(h["points"])}
                      for h in self.history]
        return st

    def determinize(self, seat: Seat, rng: Rng) -> ManniState:
        """Re-deal every card `seat` cannot see, keeping the other seats' shown voids.

        Seen by `seat`: its hand, the cards it laid away, every played card. The
        other two hands must avoid the suits they failed to follow; the Manni and
        the other seats' laid-away cards take anything. The copy gets a fresh
        generator, so later deals are not the true ones either.
        """
        st = self.clone()
        st.rng = Rng(rng.next_u64())
        others = [s for s in range(3) if s != seat]
        seen = set(self.hands[seat]) | set(self.discards[seat]) | set(self.played)
        unseen = [c for c in self.rules.deck if c not in seen]
        pool_sizes = [len(self.manni)] + [len(self.discards[s]) for s in others]
        sizes = [len(self.hands[s]) for s in others] + [sum(pool_sizes)]
        masks = [self.voids[s] for s in others] + [0]
        parts = _constrained_deal(unseen, sizes, masks, rng)
        for s, part in zip(others, parts[:2], strict=True):
            st.hands[s] = sorted(part)
        pool = parts[2]
        st.manni = pool[:pool_sizes[0]]
        pos = pool_sizes[0]
        for s, size in zip(others, pool_sizes[1:], strict=True):
            st.discards[s] = pool[pos:pos + size]
            pos += size
        return st


def _constrained_deal(cards: list[int], sizes: list[int], void_masks: list[int],
                      rng: Rng) -> list[list[int]]:
    """Split `cards` into parts of `sizes` where part i holds no suit in void_masks[i].

    One shuffle; the cards some part may not hold are placed first, each into an
    allowed part weighted by its free room; the rest fill the remaining room in
    shuffled order. If that fails a few times (rare, with long voids), an exact
    fill by suit counts (a tiny transport problem) is used.
    """
    pool = list(cards)
    any_void = 0
    for m in void_masks:
        any_void |= m
    for _ in range(20):
        rng.shuffle(pool)
        if not any_void:
            break
        room = list(sizes)
        parts: list[list[int]] = [[] for _ in sizes]
        free: list[int] = []
        ok = True
        for card in pool:
            bit = 1 << (card // 13)
            if not any_void & bit:
                free.append(card)
                continue
            total = 0
            for i, r in enumerate(room):
                if not void_masks[i] & bit:
                    total += r
            if total == 0:
                ok = False
                break
            pick = rng.randbelow(total)
            for i, r in enumerate(room):
                if void_masks[i] & bit:
                    continue
                if pick < r:
                    parts[i].append(card)
                    room[i] -= 1
                    break
                pick -= r
        if not ok:
            continue
        pos = 0
        for i, r in enumerate(room):
            parts[i].extend(free[pos:pos + r])
            pos += r
        return parts
    else:
        return _exact_deal(cards, sizes, void_masks, rng)
    out: list[list[int]] = []
    pos = 0
    for size in sizes:
        out.append(pool[pos:pos + size])
        pos += size
    return out


def _exact_deal(cards: list[int], sizes: list[int], void_masks: list[int],
                rng: Rng) -> list[list[int]]:
    by_suit: list[list[int]] = [[c for c in cards if c // 13 == s] for s in range(4)]
    for group in by_suit:
        rng.shuffle(group)
    # Max-flow on suits -> parts by augmenting paths; nodes 0..3 are suits and
    # 4.. are parts, so the graph has at most seven nodes.
    flow = [[0] * len(sizes) for _ in range(4)]
    supply = [len(g) for g in by_suit]
    room = list(sizes)

    def augment() -> bool:
        parent: dict[int, int] = {s: -1 for s in range(4) if supply[s] > 0}
        frontier = list(parent)
        while frontier:
            nxt: list[int] = []
            for node in frontier:
                if node < 4:
                    for p in range(len(sizes)):
                        if void_masks[p] >> node & 1 or 4 + p in parent:
                            continue
                        parent[4 + p] = node
                        if room[p] > 0:
                            room[p] -= 1
                            cur = 4 + p
                            while parent[cur] >= 0:
                                prev = parent[cur]
                                if cur >= 4:
                                    flow[prev][cur - 4] += 1
                                else:
                                    flow[cur][prev - 4] -= 1
                                cur = prev
                            supply[cur] -= 1
                            return True
                        nxt.append(4 + p)
                else:
                    for s in range(4):
                        if flow[s][node - 4] > 0 and s not in parent:
                            parent[s] = node
                            nxt.append(s)
            frontier = nxt
        return False

    while sum(supply) and augment():
        pass
    if sum(supply):
        raise IllegalAction("determinize", "no deal is consistent with the shown voids")
    parts: list[list[int]] = [[] for _ in sizes]
    for s in range(4):
        pos = 0
        for p in range(len(sizes)):
            parts[p].extend(by_suit[s][pos:pos + flow[s][p]])
            pos += flow[s][p]
    for part in parts:
        rng.shuffle(part)
    return parts


# --- bots --------------------------------------------------------------------

_TRUMP_VALUE = {14: 1.0, 13: 0.85, 12: 0.65, 11: 0.5}


def card_value(card: int, hand: list[int], contract: str) -> float:
    """Rough trick-taking worth of `card` in `hand` under `contract` (0..1).

    In Nullo the worth is negative: the danger that the card wins a trick.
    """
    suit = card // 13
    rank = card % 13 + 2
    length = sum(1 for c in hand if c // 13 == suit)
    if contract == NULLO:
        strength = 1 if rank == 14 else rank
        lower = sum(1 for c in hand if c // 13 == suit and _strength(c, True) < strength)
        # High cards are dangerous, less so when low cards of the suit can cover.
        return -max(0.0, (strength - 6) / 8.0) * (1.0 if lower < 2 else 0.6)
    trump = _trump_index(contract)
    if suit == trump:
        return _TRUMP_VALUE.get(rank, 0.35)
    higher_missing = 14 - rank   # rough: cards above it in the suit
    if higher_missing == 0:
        return 0.9
    if higher_missing == 1:
        return 0.55 if length >= 2 else 0.25
    if higher_missing == 2:
        return 0.3 if length >= 3 else 0.05
    if trump < 0 and length >= 5:
        return 0.2   # long suits run in no-trump
    return 0.0


def hand_value(hand: list[int], contract: str) -> float:
    """Estimated tricks of `hand` (Nullo: minus the estimated tricks taken)."""
    total = sum(card_value(c, hand, contract) for c in hand)
    trump = _trump_index(contract)
    if trump >= 0:
        trumps = sum(1 for c in hand if c // 13 == trump)
        if trumps >= 3:   # short side suits let trumps ruff
            for s in range(4):
                if s != trump and sum(1 for c in hand if c // 13 == s) <= 1:
                    total += 0.3
    return total


# `hand_value` of an average 12-card hand (2,000 seeded random hands): a trump
# contract 2.79, no-trump 2.08, Nullo -2.54, while the average hand takes 4 of 12
# tricks; these turn values into expected tricks (they scale with hand size).
_TRICKS_PER_VALUE = {"trump": 4 / 2.79, GRAND: 4 / 2.08, NULLO: 4 / 2.54}


def _points_for(contract: str, value: float, par: float) -> float:
    """Expected points of naming `contract`: tricks over par, or in Nullo par
    minus the tricks taken (`value` is then minus the danger)."""
    if contract == NULLO:
        return par + value * _TRICKS_PER_VALUE[NULLO]
    return value * _TRICKS_PER_VALUE[GRAND if contract == GRAND else "trump"] - par


class ManniRuleBot(Bot):
    """A table-tested style of play: count winners, draw trumps, ruff, duck in Nullo.

    Uses only its own hand and the public table (played cards, the trick).
    """

    name = "rule"
    #: Swap the whole hand for the Manni below this `hand_value` (the average
    #: hand's value is 2.8, worth 4 tricks; a bird in the hand is not kept lightly).
    swap_below = 3.0
    #: Partial exchanges lay away cards worth less than this.
    keep_above = 0.2

    def choose(self, state: GameState) -> Action:
        """Pick an action for `self.seat`."""
        assert isinstance(state, ManniState)
        seat = self.seat
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        hand = state.hands[seat]
        if state.phase == PLAYING:
            return PLAY[self._play(state, hand)]
        if state.phase == CONTRACT:
            # Declaring in Laugavatn needs 8 tricks (Nullo: at most 4).
            par = 8.0 if state.rules.name == "laugavatn" else 4.0
            return max(legal, key=lambda a: _points_for(
                str(a.args[0]), hand_value(hand, str(a.args[0])),
                4.0 if a.args[0] == NULLO else par))
        contract = state.contract
        if SWAP in legal:
            return SWAP if hand_value(hand, contract) < self.swap_below else KEEP
        if TAKE in legal:
            return TAKE   # taking and laying away the worst four never hurts
        worst = min(hand, key=lambda c: card_value(c, hand, contract))
        if DONE not in legal:   # Laugavatn: lay away what was taken
            return DISCARD[worst]
        value = card_value(worst, hand, contract)
        keep = value > -0.3 if contract == NULLO else value >= self.keep_above
        return DONE if keep or DISCARD[worst] not in legal else DISCARD[worst]

    def _play(self, st: ManniState, hand: list[int]) -> int:
        contract = st.contract
        nullo = contract == NULLO
        trump = _trump_index(contract)
        trick = st.trick
        if not trick:
            return self._lead(st, hand, trump, nullo)
        led = trick[0][1] // 13
        follow = [c for c in hand if c // 13 == led]
        win_seat = trick_winner(trick, contract)
        win_card = next(c for s, c in trick if s == win_seat)
        last = len(trick) == 2
        if nullo:
            def key(c: int) -> int:
                return _strength(c, True)
            if follow:
                if win_card // 13 == led:
                    under = [c for c in follow if key(c) < key(win_card)]
                    if under:
                        return max(under, key=key)
                return max(follow, key=key) if last else min(follow, key=key)
            return max(hand, key=lambda c: (key(c), -sum(1 for x in hand if x // 13 == c // 13)))
        if follow:
            beats = [c for c in follow
                     if win_card // 13 == led and c % 13 > win_card % 13]
            if beats:
                if last:
                    return min(beats)
                top = max(beats)
                if self._is_top(st, hand, top):
                    return top
            return min(follow)
        trumps = [c for c in hand if c // 13 == trump]
        if trumps:
            if win_card // 13 == trump:
                trumps = [c for c in trumps if c > win_card]
            if trumps:
                return min(trumps)
        return min(hand, key=lambda c: (card_value(c, hand, contract), c % 13))

    def _lead(self, st: ManniState, hand: list[int], trump: int, nullo: bool) -> int:
        if nullo:
            return min(hand, key=lambda c: (_strength(c, True),
                                            -sum(1 for x in hand if x // 13 == c // 13)))
        played = set(st.played)
        if trump >= 0:
            trumps = [c for c in hand if c // 13 == trump]
            outstanding = sum(1 for c in st.rules.deck if c // 13 == trump
                              and c not in played and c not in hand)
            if trumps and outstanding and len(trumps) >= 3 and self._is_top(st, hand, max(trumps)):
                return max(trumps)
        winners = [c for c in hand if c // 13 != trump and self._is_top(st, hand, c)]
        if winners:
            return max(winners, key=lambda c: c % 13)
        side = [c for c in hand if c // 13 != trump] or hand
        lengths = {s: sum(1 for c in side if c // 13 == s) for s in range(4)}
        return min(side, key=lambda c: (-lengths[c // 13], c % 13))

    @staticmethod
    def _is_top(st: ManniState, hand: list[int], card: int) -> bool:
        """True if every higher card of the suit is played or in `hand`."""
        played = st.played
        for higher in range(card + 1, (card // 13) * 13 + 13):
            if higher not in played and higher not in hand:
                return False
        return True


class ManniSearchBot(SearchBot):
    """Perfect-information Monte Carlo (PIMC) over the deal in progress.

    Each iteration samples one world with `determinize(seat)` (so only what the
    seat has seen is used) and plays every legal action out in that same world
    with the same playout seed: common random numbers make the comparison
    between actions far less noisy than tree search with the same budget, which
    matters because a deal's points vary by several points from luck alone.
    Playouts use the rule bot for the exchange and a fast greedy card player for
    the tricks, and stop when the deal ends; an action's value is the seat's
    mean points for the deal. Stops at the time budget or after
    `max_iterations` worlds (deterministic when the cap binds first).
    """

    name = "search"
    #: Play the tricks of a playout with the fast greedy player (else the rule bot).
    fast_tricks = True

    def choose(self, state: GameState) -> Action:
        """Pick the action with the best mean deal points over sampled worlds."""
        assert isinstance(state, ManniState)
        seat = self.seat
        legal = state.legal_actions(seat)
        if state.phase == PLAYING:
            legal = _distinct_plays(state, seat, legal)
        if len(legal) == 1:
            return legal[0]
        totals = [0.0] * len(legal)
        deadline = self.clock() + self.time_budget_s
        worlds = 0
        while worlds < self.max_iterations and (worlds == 0 or self.clock() < deadline):
            world = state.determinize(seat, self.rng)
            seed = self.rng.next_u64()
            for i, action in enumerate(legal):
                sim = world.clone()
                sim.apply(seat, action)
                self._finish_deal(sim, state.deal_no, Rng(seed))
                totals[i] += sim.evaluate()[seat]
            worlds += 1
        self.last_iterations = worlds
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]

    def _finish_deal(self, sim: ManniState, deal: int, rng: Rng) -> None:
        bots: dict[Seat, Bot] = {}
        for _ in range(self.max_rollout_steps):
            if sim.phase == OVER or sim.deal_no != deal:
                return
            if sim.phase == PLAYING and self.fast_tricks:
                _fast_finish(sim, rng)
                return
            actor = sim.turn
            bot = bots.get(actor)
            if bot is None:
                bot = bots[actor] = self.rollout(actor, rng)
            sim.apply(actor, bot.choose(sim))


def _distinct_plays(st: ManniState, seat: Seat, legal: list[Action]) -> list[Action]:
    """One play per run of equivalent cards, the lowest standing for the run.

    Cards of one suit with nothing between them that anyone else could still hold
    (e.g. Q and 10 once the J is played) win and lose the same tricks, so
    searching both would only halve the worlds each gets.
    """
    nullo = st.contract == NULLO
    hand = set(st.hands[seat])
    legal_cards = {CARD_OF[str(a.args[0])] for a in legal}
    gone = set(st.played) | set(st.discards[seat])
    keep: list[int] = []
    for suit in range(4):
        run_open = False
        order = sorted((c for c in st.rules.deck if c // 13 == suit),
                       key=lambda c: _strength(c, nullo))
        for c in order:
            if c in legal_cards:
                if not run_open:
                    keep.append(c)
                    run_open = True
            elif c not in gone and c not in hand:
                run_open = False   # someone else may hold it: the run breaks
    return [PLAY[c] for c in sorted(keep)]


def _fast_finish(st: ManniState, rng: Rng) -> None:
    """Play the deal's remaining tricks greedily, in place, without ending the deal.

    Leaves empty hands and the trick counts, so `evaluate()` gives the deal's
    points. Only for search playouts: no events, no legality checks.
    """
    contract = st.contract
    trump = _trump_index(contract)
    nullo = contract == NULLO
    strength = _NULLO_STRENGTH if nullo else _STRENGTH
    hands, trick, tricks, played = st.hands, st.trick, st.tricks, st.played
    live = {c for h in hands for c in h}
    seat = st.turn
    while True:
        hand = hands[seat]
        if not hand:
            break
        if not trick:
            card = -1
            if not nullo:
                # Cash a card no one can beat in its suit, as the rule bot does.
                for c in hand:
                    if c // 13 != trump and all(
                            h not in live or h in hand for h in range(c + 1, c // 13 * 13 + 13)):
                        card = c
                        break
                if card < 0 and trump >= 0:
                    # Draw trumps with the top trump when holding three or more.
                    trumps = [c for c in hand if c // 13 == trump]
                    if len(trumps) >= 3 and all(h not in live or h in hand for h in
                                                range(trumps[-1] + 1, trump * 13 + 13)) and any(
                            c // 13 == trump and c not in hand for c in live):
                        card = trumps[-1]
            if card < 0:
                pick = hand[rng.randbelow(len(hand))]
                card = min((c for c in hand if c // 13 == pick // 13),
                           key=strength.__getitem__)
        else:
            led = trick[0][1] // 13
            win = trick[0][1]
            for _, c in trick[1:]:
                if c // 13 == win // 13:
                    if strength[c] > strength[win]:
                        win = c
                elif c // 13 == trump:
                    win = c
            last = len(trick) == 2
            follow = [c for c in hand if c // 13 == led]
            if follow:
                if win // 13 == led:
                    beats = [c for c in follow if strength[c] > strength[win]]
                else:
                    beats = []
                if nullo:
                    under = [c for c in follow if strength[c] < strength[win]]
                    if under:
                        card = max(under, key=strength.__getitem__)
                    elif last:
                        card = max(follow, key=strength.__getitem__)
                    else:
                        card = min(follow, key=strength.__getitem__)
                elif beats and last:
                    card = min(beats, key=strength.__getitem__)
                elif beats and all(h not in live or h in hand
                                   for h in range(max(beats) + 1, led * 13 + 13)):
                    card = max(beats)   # a sure winner in second seat
                else:
                    card = min(follow, key=strength.__getitem__)
            elif nullo:
                card = max(hand, key=strength.__getitem__)
            else:
                trumps = [c for c in hand if c // 13 == trump]
                if trumps and win // 13 == trump:
                    trumps = [c for c in trumps if c > win]
                if trumps:
                    card = min(trumps)
                else:
                    side = [c for c in hand if c // 13 != trump] or hand
                    card = min(side, key=strength.__getitem__)
        hand.remove(card)
        live.discard(card)
        trick.append((seat, card))
        played.append(card)
        if len(trick) == 3:
            seat = trick_winner(trick, contract)
            tricks[seat] += 1
            st.last_trick = list(trick)
            trick.clear()
        else:
            seat = (seat + 1) % 3
    st.turn = seat


_STRENGTH: tuple[int, ...] = tuple(_strength(c, False) for c in range(DECK_SIZE))
_NULLO_STRENGTH: tuple[int, ...] = tuple(_strength(c, True) for c in range(DECK_SIZE))


def _search_bot(seat: Seat, rng: Rng) -> Bot:
    return ManniSearchBot(seat, rng, time_budget_s=0.4, max_iterations=400,
                          max_rollout_steps=200, rollout=ManniRuleBot)


BOTS: dict[str, Callable[[Seat, Rng], Bot]] = {
    "random": RandomBot,
    "rule": ManniRuleBot,
    "search": _search_bot,
}

GAME = ManniGame()
