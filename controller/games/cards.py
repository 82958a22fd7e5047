"""Playing cards as small ints: one encoding for every card game.

A natural card is ``suit * 13 + rank - 2``: rank 2..14 (the ace is 14) and
suit an index into `SUITS`, so one pack is 0..51 and a card can index a tuple.
The cards of a pack run upward within a suit, so ``card + 1`` is the next
higher card of the suit below the ace.

Packs that tell two decks apart (500 names the second deck's copy with a
prime, "QH'") add 52 per copy, and jokers come after every copy ("JK1" is
`JOKER`). A game that treats two decks as a multiset (KNUFF) simply uses the
52 ints twice.

The suit order is the one of Manni's trump rotation (hearts, spades, diamonds,
clubs). A game that deals or shows cards in another order says so to `deck`
and `sort_order`, so its seeded deals and its hands look the same whatever
this order is.

>>> card_text(make_card(QUEEN, HEARTS))
'QH'
>>> parse_card("10s") == make_card(10, SPADES)
True
>>> card_text(parse_card(" qh' ")), card_text(JOKER + 2)
("QH'", 'JK3')
>>> rank_of(parse_card("AC")), SUITS[suit_of(parse_card("AC"))]
(14, 'C')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controller.errors import MalformedCard

SUITS = "HSDC"
SUIT_NAMES = ("hearts", "spades", "diamonds", "clubs")
HEARTS, SPADES, DIAMONDS, CLUBS = range(4)
JACK, QUEEN, KING, ACE = 11, 12, 13, 14
#: Ranks of a full suit, lowest first.
RANKS: tuple[int, ...] = tuple(range(2, ACE + 1))
#: Rank text by rank; rank 1 is the ace counted low (500's A-2-3).
RANK_TEXT: tuple[str, ...] = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                              "J", "Q", "K", "A")
DECK_SIZE = 52
MAX_COPIES = 2
JOKER = DECK_SIZE * MAX_COPIES
MAX_JOKERS = 4
NUM_CARDS = JOKER + MAX_JOKERS

#: Text of every card id, e.g. ``CARD_TEXT[0] == "2H"``.
CARD_TEXT: tuple[str, ...] = tuple(
    RANK_TEXT[c % 13 + 2] + SUITS[c % DECK_SIZE // 13] + "'" * (c // DECK_SIZE)
    for c in range(JOKER)) + tuple(f"JK{j + 1}" for j in range(MAX_JOKERS))
#: Card id of every canonical text.
CARD_OF: dict[str, int] = {text: c for c, text in enumerate(CARD_TEXT)}
#: Rank per card id (0 for a joker), for hot loops that cannot afford a call.
RANK: tuple[int, ...] = tuple(c % 13 + 2 for c in range(JOKER)) + (0,) * MAX_JOKERS
#: Suit index per card id (-1 for a joker).
SUIT: tuple[int, ...] = tuple(c % DECK_SIZE // 13 for c in range(JOKER)) + (-1,) * MAX_JOKERS


def make_card(rank: int, suit: int, copy: int = 0) -> int:
    """The card of `rank` (2..14) and `suit` (an index into `SUITS`) in deck `copy`."""
    return copy * DECK_SIZE + suit * 13 + rank - 2


def rank_of(card: int) -> int:
    """Rank 2..14 (the ace is 14); 0 for a joker."""
    return RANK[card]


def suit_of(card: int) -> int:
    """Suit index into `SUITS`; -1 for a joker."""
    return SUIT[card]


def copy_of(card: int) -> int:
    """Which deck of a multi-deck pack the card is from (0 for the first; 0 for jokers)."""
    return 0 if card >= JOKER else card // DECK_SIZE


def face_of(card: int) -> int:
    """The card with its deck copy dropped (jokers are their own face)."""
    return card if card >= JOKER else card % DECK_SIZE


def is_joker(card: int) -> bool:
    """True for the jokers ``JOKER`` .. ``JOKER + MAX_JOKERS - 1``."""
    return card >= JOKER


def card_text(card: int) -> str:
    """The canonical text of a card: rank then suit letter, e.g. "10S", "QH'", "JK1".

    >>> [card_text(c) for c in (0, 12, 51, 52 + 10, JOKER)]
    ['2H', 'AH', 'AC', "QH'", 'JK1']
    """
    return CARD_TEXT[card]


def parse_card(text: str) -> int:
    """Parse a card's text, ignoring case and surrounding space.

    Raises `MalformedCard` for anything that is not a card's text; each game
    turns that into its own `IllegalAction` message.

    >>> card_text(parse_card("10h"))
    '10H'
    >>> parse_card("1H")
    Traceback (most recent call last):
    ...
    controller.errors.MalformedCard: not a card: '1H'
    """
    card = CARD_OF.get(str(text).strip().upper())
    if card is None:
        raise MalformedCard(f"not a card: {text!r}")
    return card


def deck(suits: str = SUITS, ranks: Iterable[int] = RANKS, *, copies: int = 1,
         jokers: int = 0) -> list[int]:
    """A pack in dealing order: each copy, suit by suit in the order of `suits`
    (letters), `ranks` in the order given; then the jokers.

    The order is what a seeded shuffle permutes, so a game that must replay
    its old deals keeps passing the order it always used.

    >>> [card_text(c) for c in deck("CD", (ACE, 2))]
    ['AC', '2C', 'AD', '2D']
    >>> len(deck(copies=2, jokers=3)), card_text(deck(jokers=1)[-1])
    (107, 'JK1')
    """
    rank_list = list(ranks)
    out = [make_card(r, SUITS.index(s), copy)
           for copy in range(copies) for s in suits for r in rank_list]
    out.extend(JOKER + j for j in range(jokers))
    return out


def sort_order(suits: str = SUITS, *, ace_low: bool = False) -> tuple[int, ...]:
    """Sort positions by card id: deck copy, then suit in the order of `suits`,
    then rank (the ace first with `ace_low`); jokers after every natural card.

    Use as ``sorted(hand, key=order.__getitem__)``. The default order is the
    ids' own order.

    >>> order = sort_order("CDHS", ace_low=True)
    >>> [card_text(c) for c in sorted(map(parse_card, ["2H", "JK1", "KC", "AC"]),
    ...                               key=order.__getitem__)]
    ['AC', 'KC', '2H', 'JK1']
    """
    out = []
    for c in range(NUM_CARDS):
        if c >= JOKER:
            out.append(c)
            continue
        rank = RANK[c]
        rank_pos = (0 if rank == ACE else rank - 1) if ace_low else rank - 2
        out.append(copy_of(c) * DECK_SIZE + suits.index(SUITS[SUIT[c]]) * 13 + rank_pos)
    return tuple(out)


#: The ids' own order (suits as in `SUITS`, the ace high).
NATURAL_ORDER: tuple[int, ...] = sort_order()


def sort_cards(cards: Iterable[int], order: Sequence[int] = NATURAL_ORDER) -> list[int]:
    """`cards` sorted by `order` (a `sort_order` table)."""
    return sorted(cards, key=order.__getitem__)
