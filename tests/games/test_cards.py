"""The one card encoding of the card games (`controller.games.cards`).

Besides the encoding itself, these pin the dealing order of each game's pack
in text form: a seeded shuffle permutes that order, so it is what keeps every
recorded deal (and the golden transcripts) the same.
"""

from __future__ import annotations

import doctest

import pytest

from controller.errors import MalformedCard
from controller.games import cards
from controller.games.cards import (
    ACE,
    CARD_TEXT,
    JOKER,
    NUM_CARDS,
    RANK_TEXT,
    SUITS,
    card_text,
    copy_of,
    deck,
    face_of,
    is_joker,
    make_card,
    parse_card,
    rank_of,
    sort_cards,
    sort_order,
    suit_of,
)


def texts(ids: list[int]) -> list[str]:
    return [card_text(c) for c in ids]


def test_module_doctests() -> None:
    result = doctest.testmod(cards)
    assert result.attempted >= 8 and result.failed == 0


def test_every_card_round_trips_through_its_text() -> None:
    assert len(set(CARD_TEXT)) == NUM_CARDS
    for c in range(NUM_CARDS):
        assert parse_card(card_text(c)) == c
        assert parse_card(f" {card_text(c).lower()} ") == c


def test_rank_suit_copy_and_face_rebuild_the_card() -> None:
    for c in range(JOKER):
        assert make_card(rank_of(c), suit_of(c), copy_of(c)) == c
        assert face_of(c) == make_card(rank_of(c), suit_of(c))
        assert card_text(c).rstrip("'") == RANK_TEXT[rank_of(c)] + SUITS[suit_of(c)]
        assert not is_joker(c)
    for j in range(JOKER, NUM_CARDS):
        assert is_joker(j) and rank_of(j) == 0 and suit_of(j) == -1 and face_of(j) == j


def test_the_next_card_up_is_the_next_id_below_the_ace() -> None:
    for c in range(JOKER):
        if rank_of(c) < ACE:
            assert rank_of(c + 1) == rank_of(c) + 1 and suit_of(c + 1) == suit_of(c)


@pytest.mark.parametrize("bad", ["", "1H", "11S", "AX", "H", "TS", "JK0", "JK5", "QH''"])
def test_bad_text_is_a_malformed_card(bad: str) -> None:
    with pytest.raises(MalformedCard, match="not a card"):
        parse_card(bad)


def test_sort_order_is_copy_then_suit_then_rank_then_jokers() -> None:
    hand = [parse_card(t) for t in ("JK2", "2S'", "AC", "10H", "2C", "JK1", "KD")]
    assert texts(sort_cards(hand)) == ["10H", "KD", "2C", "AC", "2S'", "JK1", "JK2"]
    assert texts(sort_cards(hand, sort_order("CDHS"))) == [
        "2C", "AC", "KD", "10H", "2S'", "JK1", "JK2"]
    assert texts(sort_cards(hand, sort_order("CDHS", ace_low=True))) == [
        "AC", "2C", "KD", "10H", "2S'", "JK1", "JK2"]


# The packs in the order each game has always shuffled them.

def old_order(suits: str, ranks: list[str], copies: int = 1) -> list[str]:
    return [r + s + "'" * k for k in range(copies) for s in suits for r in ranks]


HIGH = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def test_manni_and_knuff_deal_hearts_spades_diamonds_clubs_two_to_ace() -> None:
    from controller.games.manni import DECK_48, DECK_52
    assert texts(list(DECK_52)) == old_order("HSDC", HIGH) == texts(deck())
    assert texts(list(DECK_48)) == old_order("HSDC", HIGH[1:])


def test_pukk_deals_clubs_diamonds_hearts_spades_from_its_low_rank() -> None:
    from controller.games.pukk import PACK_SUITS
    for low in (5, 6, 7):
        assert texts(deck(PACK_SUITS, range(low, ACE + 1))) == old_order(
            "CDHS", HIGH[low - 2:])


def test_rommy_deals_each_deck_clubs_to_spades_ace_to_king_then_jokers() -> None:
    from controller.games.rommy import PACK_RANKS, PACK_SUITS
    low = ["A", *HIGH[:-1]]
    jokers = ["JK1", "JK2", "JK3"]
    assert texts(deck(PACK_SUITS, PACK_RANKS, copies=2, jokers=3)) == [
        *old_order("CDHS", low, copies=2), *jokers]
