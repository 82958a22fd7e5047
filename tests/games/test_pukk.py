"""Rule tests for Púkk, each citing the rule it checks.

Sources: "seed" is the rule text in the project's seed file (pagat's Púkk page,
cut off after the honours); [1954] Reykjalundur 1954 p. 46; [1969] Húsfreyjan
4/1969 pp. 36-37; [is.wikipedia] and [spilareglur.is] the variants; "rules.md
§4" the project's completions and decisions. Positions are dealt by hand with
`position()` ("AS KH 7D 6C JC" per seat); seat 0 deals unless stated, so
forehand is seat 1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from controller.errors import IllegalAction
from controller.games import Action, GameEvent, GameState, Session, get_game
from controller.games.cards import deck as card_deck
from controller.games.cards import rank_of, sort_cards, sort_order, suit_of
from controller.games.pukk import (
    BOTS,
    GAME,
    PACK_SUITS,
    PAMFILL,
    PukkRuleBot,
    PukkSearchBot,
    PukkState,
    best_set,
    card_text,
    parse_card,
    position,
    set_text,
)
from controller.rng import Rng

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def act(st: PukkState, seat: int, text: str) -> list[GameEvent]:
    return st.apply(seat, Action.parse(text))


def pk(game: Session) -> PukkState:
    st = game.state
    assert isinstance(st, PukkState)
    return st


def actor(st: GameState) -> int:
    (seat,) = st.actors()
    return seat


# --- cards and sets -------------------------------------------------------------

def test_card_text_round_trips_and_bad_text_is_named() -> None:
    # seed: "The cards in each suit rank: 5 (low), 6, 7, 8, 9, 10, Jack, Queen, King, and Ace"
    for text in ("5C", "10D", "JC", "QH", "KS", "AS"):
        assert card_text(parse_card(text)) == text
    assert card_text(PAMFILL) == "JC"
    with pytest.raises(IllegalAction, match="'4C'"):
        parse_card("4C")
    with pytest.raises(IllegalAction, match="'AX'"):
        parse_card("AX")


def test_bigger_sets_beat_smaller_and_five_beats_four_sixes() -> None:
    # [1969]: "four tens and Pamfíll beat four póstar"; 3 over 2, 4 over 3, 5 over 4
    five = best_set(cards("10C 10D 10H 10S JC"))
    four_sixes = best_set(cards("6C 6D 6H 6S AS"))
    trips = best_set(cards("5C 5D 5H AS KS"))
    pair = best_set(cards("6C 6D AH KS QS"))
    assert five is not None and four_sixes is not None and trips is not None
    assert pair is not None
    assert five[0] == 5 and four_sixes[0] == 4
    assert five > four_sixes > trips > pair


def test_sixes_are_the_highest_rank_and_fives_the_lowest() -> None:
    # [1954]: "póstar (the sixes) highest, then aces, kings and so on"; 5s lowest (rules.md §4)
    order = ["6", "A", "K", "Q", "J", "10", "9", "8", "7", "5"]
    keys = [best_set(cards(f"{r}D {r}H 9C 8C 7C" if r not in "987" else f"{r}D {r}H AC KC QC"))
            for r in order]
    assert keys == sorted(keys, reverse=True)  # type: ignore[type-var]
    assert len(set(keys)) == len(keys)


def test_pamfill_is_wild_and_beats_a_natural_set_of_the_same_rank() -> None:
    # [1954]: "Pamfíll can pair with any card and always has more value: Pamfíll
    # and an ace is worth more than two aces"
    with_p = best_set(cards("JC AS 9D 8H 7H"))
    natural = best_set(cards("AD AS 9C 8H 7S"))
    assert with_p == (2, 9, 1) and natural == (2, 9, 0)
    assert with_p > natural
    # As a tie-break only (rules.md §4): two 6s still beat Pamfíll and an ace.
    assert best_set(cards("6D 6S 9C 8H 7S")) > with_p  # type: ignore[operator]
    assert set_text(with_p) == "two As with Pamfíll"


def test_two_pairs_count_as_the_higher_pair_and_no_pair_is_none() -> None:
    # rules.md §4 (estimate): a hand counts as its best set
    assert best_set(cards("AD AS KC KH 5S")) == best_set(cards("AH AC 9C 8H 5D"))
    assert best_set(cards("AD KS QC 9H 5S")) is None


ALL_CARDS = sorted(parse_card(r + s) for r in ("5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
                   for s in "CDHS")


@settings(max_examples=200, deadline=None)
@given(st_.lists(st_.sampled_from(ALL_CARDS), min_size=5, max_size=5, unique=True))
def test_set_rules_hold_for_any_hand(hand: list[int]) -> None:
    # [1954]: at least a pair is needed and Pamfíll pairs with anything; sets by size first
    key = best_set(hand)
    ranks = [rank_of(c) for c in hand if c != PAMFILL]
    has_pair = PAMFILL in hand or len(set(ranks)) < len(ranks)
    assert (key is not None) == has_pair
    if key is not None:
        most = max(ranks.count(r) for r in ranks) + (PAMFILL in hand)
        assert key[0] == most and 2 <= key[0] <= 5
        assert key[2] == (PAMFILL in hand)
        above = best_set(hand, pamfill_above=True)
        assert above is not None and above[0] == key[0]


def test_pamfill_above_option_ranks_any_pamfill_set_over_natural_sets() -> None:
    # rules.md §4 open point: "Pamfíll + K beats A + A?" - option pamfill_set="above"
    two_aces = cards("AD AS 9C 8H 7S")
    pam_king = cards("JC KS 9D 8S 5H")
    win = {}
    for rule in ("tiebreak", "above"):
        st = position(2, ["AD AS 9C 8H 7S", "JC KS 9D 8S 5H"], "10C", dealer=1,
                      options={"pamfill_set": rule})
        act(st, 0, "bet")
        act(st, 1, "match")
        events = act(st, 0, "pass")  # two left and one stops: both show [1969]
        (won,) = [e.data["seats"] for e in events if e.kind == "pukk_won"]
        win[rule] = won[0]
    assert best_set(two_aces) > best_set(pam_king)  # type: ignore[operator]
    assert win == {"tiebreak": 0, "above": 1}


# --- dressing, deal, trump, bísefa, honours -----------------------------------

def test_dressing_puts_one_chip_per_player_in_every_compartment() -> None:
    # seed: "Each player is required to place a single chip in each of the seven compartments";
    # "Compartments will always contain a multiple of the number of players"
    st = GAME.new_state(6, GAME.resolve_options({}), Rng(1))
    assert st.dressing_cost() == 7
    # Everything not yet taken by honours is a multiple of 6.
    assert all(v % 6 == 0 for v in st.pools.values()) and st.pukk == 6
    assert sum(st.stacks) + sum(st.pools.values()) + st.pukk == 600


def test_per_player_layout_has_no_tia_with_five_and_nia_with_seven() -> None:
    # [1969]: one compartment per player; Tía with six players, Nía with seven
    five = GAME.new_state(5, GAME.resolve_options({"layout": "per-player"}), Rng(1))
    seven = GAME.new_state(7, GAME.resolve_options({"layout": "per-player"}), Rng(1))
    assert five.pool_names == ("as", "kongur", "drottning", "gosi", "pamfill")
    assert "nia" in seven.pool_names and len(seven.pool_names) == 7
    with pytest.raises(IllegalAction, match="per-player"):
        GAME.new_state(4, GAME.resolve_options({"layout": "per-player"}), Rng(1))


def test_deal_gives_five_cards_three_then_two_from_forehand_and_turns_the_next() -> None:
    # seed: "He first serves three cards all around the table, and then the remaining two
    # cards"; "the next card of the pack is turned face up ... designates ... trump"
    seats = 4
    st = GAME.new_state(seats, GAME.resolve_options({}), Rng(7))
    deck = card_deck(PACK_SUITS, range(5, 15))
    dealt = Rng(7).sample(deck, 5 * seats + 1)
    forehand = st.forehand
    order = [(forehand + k) % seats for k in range(seats)]
    expected = {s: dealt[3 * i:3 * i + 3] + dealt[3 * seats + 2 * i:3 * seats + 2 * i + 2]
                for i, s in enumerate(order)}
    taken = {c for h in st.hands for c in h}
    # Before any action (a bísefa swap) the hands are exactly the deal.
    for s in range(seats):
        assert sort_cards(expected[s], sort_order(PACK_SUITS)) == st.hands[s]
    assert st.turned == dealt[-1] and st.trump == suit_of(dealt[-1])
    assert len(taken) == 20 and len(st.stock) == 40 - 21


def test_bisefa_holder_may_swap_for_the_turned_card() -> None:
    # seed: "A player holding the 7 of the trump suit (bísefa) may ... exchange it for the
    # turned-up trump designator"; [1954] it "may buy" it - a free swap (rules.md §4)
    st = position(3, ["7H 8S 9S 10S 5C", "AS KS QS JS 6D", "5D 5H 6C 6H 7C"], "AH")
    assert st.phase == "bisefa" and st.actors() == {0}
    assert st.legal_actions(0) == [Action("keep"), Action("swap")]
    assert st.observation(None)["shown"][0] == []  # being asked shows nothing (below)
    pools_before = dict(st.pools)
    act(st, 0, "swap")
    assert parse_card("AH") in st.hands[0] and parse_card("7H") not in st.hands[0]
    assert card_text(st.turned) == "7H"
    # The bought ace takes the Ás compartment.
    assert st.pools["as"] == 0 and st.stacks[0] == 100 - 7 + pools_before["as"]


def test_a_kept_bisefa_stays_hidden_from_every_other_seat() -> None:
    """seed: "A player holding the 7 of the "trump" suit (a card called bísefa in
    Icelandic), may, if he wishes, exchange it for the turned-up "trump" designator";
    [1954] "may buy". Neither source makes the holder known when it does not exchange, so
    (issue 13) every seat is asked in turn from forehand, a seat without the 7 answers
    `keep` as well, and nothing public names the holder after a keep."""
    game = Session(GAME, 3, seed=0)
    st = pk(game)
    found = None
    for seed in range(200):  # a deal where the trump 7 is dealt to a hand
        game = Session(GAME, 3, seed=seed)
        st = pk(game)
        if st.phase == "bisefa" and st.bisefa_seat >= 0:
            found = seed
            break
    assert found is not None
    holder = st.bisefa_seat
    asked = st.order_from(st.forehand)
    assert st.actors() == {asked[0]}
    for seat in asked:
        assert actor(st) == seat
        assert st.legal_actions(seat) == (
            [Action("keep"), Action("swap")] if seat == holder else [Action("keep")])
        game.apply(seat, "keep")
    assert st.phase != "bisefa"
    seven = card_text(next(c for c in st.hands[holder] if rank_of(c) == 7
                           and suit_of(c) == st.trump))
    for viewer in [None, *range(3)]:
        if viewer == holder:
            continue
        obs = st.observation(viewer)
        assert obs["bisefa"] is None
        assert seven not in json.dumps(obs)
        events = game.events_for(viewer)
        assert seven not in json.dumps([e.to_json() for e in events])
        # Every "kept" looks alike, and no event carries the holder's seat alone.
        kept = [e for e in events if e.kind == "kept"]
        assert [e.data for e in kept] == [{"seat": s} for s in asked]
        assert not any(e.kind == "bisefa" and "seat" in e.data for e in events)


def test_a_swapped_bisefa_is_public() -> None:
    st = position(3, ["7H 8S 9S 10S 5C", "AS KS QS JS 6D", "5D 5H 6C 6H 7C"], "AH")
    act(st, 0, "swap")
    assert st.observation(None)["bisefa"] == 0
    assert st.observation(1)["turned"] == "7H"


def test_went_out_and_the_observation_tell_the_same_deal() -> None:
    """Issue 13: `went_out` named the exempt seat and card, the observation's
    `last_deal` did not, and the exempt card (shown by not paying for it) was missing
    from `shown`. Both now say the same: winner, last card, payments and exemption."""
    checked = 0
    for seed in range(40):
        game = Session(GAME, 4, seed=seed, options={"deals": 1})
        bots = [PukkRuleBot(s, Rng(seed * 10 + s)) for s in range(4)]
        while not game.state.is_terminal():
            (seat,) = game.state.actors()
            game.apply(seat, bots[seat].choose(game.state))
        out = [e for e in game.events if e.kind == "went_out"]
        if not out:
            continue
        data = out[-1].data
        last = pk(game).observation(None)["last_deal"]
        assert {k: last[k] for k in ("winner", "last", "payments", "exempt")} == {
            "winner": data["seat"], "last": data["last"], "payments": data["payments"],
            "exempt": data["exempt"]}
        if data["exempt"] is not None:
            ex = data["exempt"]
            assert ex["card"] in pk(game).observation(None)["shown"][ex["seat"]]
            checked += 1
    assert checked >= 3, "no seed gave an exempted card"


def test_bisefa_keep_leaves_the_ace_compartment_to_carry_over() -> None:
    # [1954]: "If a compartment is not taken ... its owner dresses it again on top
    # (tvíklæða, þríklæða)"; rules.md §4: an unbought turned honour carries over
    st = position(3, ["7H 8S 9S 10S 5C", "AS KS QS JS 6D", "5D 5H 6C 6H 7C"], "AH")
    act(st, 0, "keep")
    assert st.pools["as"] == 3
    assert parse_card("7H") in st.hands[0]


def test_honour_holders_show_and_take_their_compartments() -> None:
    # seed: "The player who holds the Ace, King, Queen, Jack or Ten of the trump suit now
    # displays it to the others and collects the ante in the corresponding pool"
    st = position(3, ["AD 8S 9S 10S 5C", "KD QD JD 10D 6D", "5D 5H 6C 6H 7C"], "9D", dealer=2)
    assert st.stacks == [100 - 7 + 3, 100 - 7 + 12, 100 - 7]
    assert st.pools == {"as": 0, "kongur": 0, "drottning": 0, "gosi": 0, "tia": 0, "pamfill": 3}
    assert sorted(st.observation(None)["shown"][1]) == ["10D", "JD", "KD", "QD"]
    # Pamfíll lies in the stock: the table knows it (nobody claimed it).
    assert "JC" in st.observation(0)["known_in_stock"]


def test_pamfill_takes_its_compartment_whatever_the_trump_and_gosi_when_clubs() -> None:
    # [1954]: "Whoever gets Pamfíll (J♣) takes from it"; seed: "if clubs are trump receives
    # both the ante for Pamfíll and that for the Jack of the trump suit"
    hearts = position(3, ["JC 8S 9S 10S 5C", "AS KS QS JS 6D", "5D 5H 6C 6H 7C"], "9H")
    assert hearts.stacks[0] == 100 - 7 + 3 and hearts.pools["gosi"] == 3
    clubs = position(3, ["JC 8S 9S 10S 5H", "AS KS QS JS 6D", "5D 6H 6C 9H 7H"], "9C")
    assert clubs.stacks[0] == 100 - 7 + 6 and clubs.pools["gosi"] == 0


def test_unclaimed_compartments_are_dressed_again_on_top() -> None:
    # seed: "one or more compartments have chips left in them from the previous game, in
    # which case, chips are added anyway"
    st = position(2, ["6S 6H AH KS QS", "7C 8C 9C 10C 5D"], "5H", pools={"kongur": 4}, pukk=3)
    assert st.pools["kongur"] == 6 and st.pukk == 5


def test_nia_goes_to_the_trump_nine_in_the_seven_player_layout() -> None:
    # rules.md §4 (inferred): "Where it is used, the trump 9 takes Nía"
    hands = ["9H 5C 6C 7C 8C", "10C JC QC KC AC", "5D 6D 7D 8D 9D", "10D JD QD KD AD",
             "5S 6S 7S 8S 9S", "10S JS QS KS AS", "5H 6H 8H 10H JH"]
    st = position(7, hands, "QH", options={"layout": "per-player"})
    assert st.stacks[0] == 100 - 8 + 7 and st.pools["nia"] == 0


def test_honour_owners_option_charges_the_owner_one_chip() -> None:
    # [is.wikipedia]: "those holding the ace of spades show it and charge whoever chose to be
    # Ás one chip ... whoever has the jack of clubs is paid by the Pamfíll whatever the trump"
    st = position(3, ["AH 8S 9S 10S 5C", "KS QS JS 5D 6D", "KH 5H 6C 6H 8C"], "9H",
                  options={"honours": "owners"})
    # Seats 0-2 own Ás, Kóngur, Drottning; Gosi, Tía and Pamfíll stay compartments.
    assert st.pool_names == ("gosi", "tia", "pamfill") and st.dressing_cost() == 4
    assert st.stacks == [96, 95, 97]  # seat 2 holds KH: its owner, seat 1, pays 1
    assert st.observation(None)["shown"] == [[], [], ["KH"]]  # own honour: nothing to show
    six = GAME.new_state(6, GAME.resolve_options({"honours": "owners"}), Rng(3))
    assert six.pool_names == () and six.dressing_cost() == 1
    with pytest.raises(IllegalAction, match="owners"):
        GAME.new_state(6, GAME.resolve_options({"honours": "owners", "layout": "per-player"}),
                       Rng(1))


# --- the Púkk (betting) ------------------------------------------------------------

def test_betting_needs_a_pair_and_forehand_speaks_first() -> None:
    # [1954]: "Nobody may púkka who does not have at least one pair"; "Whoever is in
    # forehand begins; if he cannot or will not, then the next"
    st = position(3, ["AS KH QD 9C 5C", "8S 9S 10S JS 5D", "6C 6H 8D 10H 7S"], "AH", dealer=0)
    assert actor(st) == 1
    assert st.legal_actions(1) == [Action("pass")]  # no pair: cannot bet
    with pytest.raises(IllegalAction) as err:
        act(st, 1, "bet")
    assert err.value.rule == "pair-to-bet"
    act(st, 1, "pass")
    assert actor(st) == 2 and Action("bet") in st.legal_actions(2)


def test_bet_is_matched_or_abandoned_by_each_other_player_from_forehand() -> None:
    # [1969]: "the others match it or give up ... always starting from forehand"
    st = position(4, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C", "KS KH 9S 5D 7D", "8S 9H 10S JS 5H"],
                  "QH", dealer=3)  # forehand 0
    base = list(st.stacks)
    act(st, 0, "pass")
    act(st, 1, "bet")
    assert st.pukk == 4 + 1 and st.stacks[1] == base[1] - 1
    assert [actor(st)] == [0]
    assert st.legal_actions(0) == [Action("fold"), Action("match")]
    act(st, 0, "match")
    assert actor(st) == 2
    act(st, 2, "fold")
    assert st.legal_actions(3) == [Action("fold")]  # no pair: must give up
    act(st, 3, "fold")
    # Further round from forehand among those still in [1969].
    assert actor(st) == 0 and st.legal_actions(0) == [Action("bet"), Action("pass")]


def test_two_left_and_one_stops_both_show_and_the_best_set_takes_the_pukk() -> None:
    # [1969]: "If two are left ... and one will not go on, they both show, and the one with
    # the highest set takes everything in the Púkk"; those who gave up lose their chips
    st = position(3, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C", "KS KH 9S 5D 7D"], "QH", dealer=2)
    act(st, 0, "bet")
    act(st, 1, "match")
    act(st, 2, "fold")
    assert st.pukk == 3 + 2
    stacks = list(st.stacks)
    events = act(st, 0, "pass")
    assert st.stacks[0] == stacks[0] + 5 and st.pukk == 0
    shown = {e.data["seat"]: e.data["set"] for e in events if e.kind == "showed"}
    assert shown == {0: "two 6s", 1: "two As"}
    assert all(e.visible_to is None for e in events[:-1])  # the table sees the showdown
    assert events[-1].kind == "revealed"  # and no undo crosses it
    assert st.phase == "play"


def test_last_bettor_takes_the_pukk_unseen_when_all_others_give_up() -> None:
    # rules.md §4 (inferred, as in Poch): the last bettor takes the Púkk without showing
    st = position(3, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C", "KS KH 9S 5D 7D"], "QH", dealer=2)
    base = list(st.stacks)
    act(st, 0, "bet")
    act(st, 1, "fold")
    events = act(st, 2, "fold")
    assert st.stacks[0] == base[0] - 1 + 4
    assert not any(e.kind == "showed" for e in events)
    assert st.observation(None)["shown"][0] == ["10H"]  # only its honour, not its hand


def test_nobody_bets_and_the_pukk_is_dressed_again() -> None:
    # [1969]: "If nobody púkkar (which is rare), the Púkk is dressed again ... and can be
    # dressed many times"
    st = position(3, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C", "KS KH 9S 5D 7D"], "QH", dealer=2)
    for s in (0, 1, 2):
        act(st, s, "pass")
    assert st.phase == "play" and st.pukk == 3
    game = Session(GAME, 3, seed=5)
    rule = [PukkRuleBot(s, Rng(s)) for s in range(3)]
    while pk(game).deal_no == 1:
        s = actor(game.state)
        a = Action("pass") if pk(game).phase == "bet" else None
        if a is None or a not in game.state.legal_actions(s):
            a = rule[s].choose(game.state)
        game.apply(s, a)
    # The Púkk of deal 1 was never opened: deal 2 dresses it again on top.
    assert pk(game).pukk == 6


def test_equal_best_sets_split_the_pukk_and_the_odd_chip_stays() -> None:
    # [1969]: "If both have equal sets, e.g. two póstar, the Púkk is split evenly";
    # rules.md §4 (estimate): an odd chip stays in the Púkk
    st = position(3, ["6C 6H 8D 10H 7S", "6D 6S QD 9C 5C", "KS KH 9S 5D 7D"], "QH", dealer=2,
                  pukk=2)
    assert st.pukk == 5
    act(st, 0, "bet")
    act(st, 1, "match")
    act(st, 2, "fold")
    before = list(st.stacks)
    act(st, 0, "pass")
    assert st.stacks[0] - before[0] == 3 and st.stacks[1] - before[1] == 3 and st.pukk == 1


def test_three_or_more_still_in_and_nobody_bets_all_show() -> None:
    # rules.md §4 (inferred): "If three or more remain and nobody bets, all of them show"
    st = position(3, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C", "KS KH 9S 5D 7D"], "QH", dealer=2)
    base = list(st.stacks)
    act(st, 0, "bet")
    act(st, 1, "match")
    act(st, 2, "match")
    act(st, 0, "pass")
    act(st, 1, "pass")
    events = act(st, 2, "pass")
    assert [e.data["seat"] for e in events if e.kind == "showed"] == [0, 1, 2]
    assert st.stacks[0] == base[0] - 1 + 6


def test_bet_cap_forces_a_showdown() -> None:
    # rules.md §4 / docs: option max_bets ends the betting so play is finite
    st = position(2, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C"], "QH", dealer=1,
                  options={"max_bets": 2})
    base = list(st.stacks)
    for _ in range(2):
        act(st, 0, "bet")
        act(st, 1, "match")
    assert st.phase == "play" and st.stacks[0] == base[0] - 2 + 6


def test_outright_sixes_option_takes_the_pukk_before_betting() -> None:
    # [is.wikipedia]: "Whoever has two sixes takes the Púkk, or Pamfíll and a six; if two
    # have them, the Púkk is split"
    st = position(3, ["6C JC 8D 10H 7S", "6D 6S QD 9C 5C", "KS KH 9S 5D 7D"], "QH", dealer=2,
                  options={"outright_sixes": True}, pukk=1)
    assert st.phase == "play"
    # Seat 0 also took Pamfíll and Tía (3 each); the Púkk of 4 is split 2 + 2.
    assert st.stacks[0] == 100 - 7 + 3 + 3 + 2 and st.stacks[1] == 100 - 7 + 2 and st.pukk == 0
    assert sorted(st.observation(None)["shown"][1]) == ["6D", "6S"]


# --- the play-out (stops) ---------------------------------------------------------

def _to_play(st: PukkState) -> None:
    while st.phase != "play":
        s = actor(st)
        legal = st.legal_actions(s)
        act(st, s, next(a for a in ("keep", "pass", "fold") if Action(a) in legal))


def test_forehand_leads_and_runs_follow_compulsorily_to_the_ace() -> None:
    # [1969]: "Forehand leads; whoever has the next card above in the same suit plays it
    # ... until the ace of the suit is out"; "whoever had the last card ... leads next"
    st = position(3, ["9S 10H JD 5C 6C", "10S QS 7D 8D 9D", "JS KS AS 5H 6H"], "QH", dealer=2)
    _to_play(st)
    assert actor(st) == 0
    events = act(st, 0, "play:9S")
    played = [(e.data["seat"], e.data["card"]) for e in events if e.kind == "played"]
    assert played == [(0, "9S"), (1, "10S"), (2, "JS"), (1, "QS"), (2, "KS"), (2, "AS")]
    assert actor(st) == 2  # the ace ended the run: its player leads


def test_run_stops_when_the_next_card_is_in_the_stock_and_the_table_learns_it() -> None:
    # [1969]: the run ends "when nobody has the next card above"; that card is then known
    # to be undealt
    st = position(3, ["9S 10H JD 5C 6C", "10S QS 7D 8D 9D", "KS AS 5H 6H 7H"], "QH", dealer=2)
    _to_play(st)
    act(st, 0, "play:9S")
    assert actor(st) == 1
    assert "JS" in st.observation(2)["known_in_stock"]


def test_first_out_is_paid_a_chip_per_card_except_the_card_above_the_last() -> None:
    # [1969]: "The first to get rid of all cards gets as many chips from each player as
    # they have cards left. But whoever has the next card above the last card need not pay
    # for it."
    st = position(3, ["5S 6S 7S 8S 9S", "10S QD 7D 8D 9D", "5H 6H JH QH 10D"], "AH", dealer=2)
    _to_play(st)
    before = list(st.stacks)
    events = act(st, 0, "play:5S")
    out = next(e for e in events if e.kind == "went_out")
    assert out.data["seat"] == 0 and out.data["last"] == "9S"
    assert out.data["exempt"] == {"seat": 1, "card": "10S"}
    assert out.data["payments"] == {"1": 4, "2": 5}
    assert [a - b for a, b in zip(st.last_deal["stacks"], before, strict=True)] == [9, -4, -5]


def test_nobody_pays_more_chips_than_they_have() -> None:
    # rules.md §4 / docs (estimate): payments are capped at the payer's stack
    st = position(2, ["5S 6S 7S 8S 9S", "10S QD 7D 8D 9D"], "AH", dealer=1,
                  stacks=[100, 9])
    _to_play(st)
    act(st, 0, "play:5S")
    assert st.last_deal["payments"] == {"1": 2}
    assert st.is_terminal()  # seat 1 cannot pay the next dressing


def test_downward_option_lets_runs_extend_below() -> None:
    # [is.wikipedia]: "if he leads the ten of hearts, the next may slip the nine of hearts
    # under"; [spilareglur.is]: cards above and/or below the card that is out
    hands = ["10H 5C 6C 7C 8C", "9H KS 5D 6D 7D", "JH 8H AS 8D 9D"]
    plain = position(3, hands, "QS", dealer=2)
    down = position(3, hands, "QS", dealer=2, options={"downward": True})
    for st in (plain, down):
        _to_play(st)
        act(st, 0, "play:10H")
    plain_cards = [c for _, c in plain.plays]
    assert plain_cards == [parse_card("10H"), parse_card("JH")]
    # Seat 2 holds both JH (above) and 8H (below the 9H): it chooses.
    assert actor(down) == 2
    assert down.legal_actions(2) == [Action("play", ("8H",)), Action("play", ("JH",))]
    act(down, 2, "play:8H")
    assert [card_text(c) for _, c in down.plays] == ["10H", "9H", "8H", "JH"]


# --- the whole game: end, chips, information -----------------------------------------

def _play(seed: int, seats: int = 5, options: dict[str, Any] | None = None,
          bot: str = "random") -> Session:
    game = Session(GAME, seats, seed=seed, options=options)
    bots = [BOTS[bot](s, Rng(f"{seed}:{s}")) for s in range(seats)]
    while not game.state.is_terminal():
        s = actor(game.state)
        game.apply(s, bots[s].choose(game.state))
    return game


def test_game_ends_after_the_set_number_of_deals_with_chips_conserved() -> None:
    # issue 6: "a configurable number of deals or until a player is out of chips"
    game = _play(3, 4, {"deals": 3})
    st = game.state
    assert isinstance(st, PukkState)
    assert st.deal_no == 3 and st.end_reason == "3 deals played"
    assert st.conservation()["chips"] == 400 and st.conservation()["cards"] == 40
    assert st.returns() == [s - 100 for s in st.stacks]
    default = _play(4, 4)
    assert isinstance(default.state, PukkState) and default.state.deal_no == 4


def test_until_broke_plays_until_a_player_cannot_dress() -> None:
    # issue 6: "until a player is out of chips"
    st = _play(11, 3, {"until_broke": True, "chips": 25}, bot="rule").state
    assert isinstance(st, PukkState)
    assert min(st.stacks) < st.dressing_cost() and "cannot pay" in st.end_reason


def test_pack_by_players_drops_the_low_ranks() -> None:
    # [spilareglur.is]: with six players the 5s are also removed; with five the 6s too
    six = GAME.new_state(6, GAME.resolve_options({"pack": "by-players"}), Rng(2))
    five = GAME.new_state(5, GAME.resolve_options({"pack": "by-players"}), Rng(2))
    assert six.conservation()["cards"] == 36 and five.conservation()["cards"] == 32
    assert min(rank_of(c) for h in five.hands for c in h) >= 7


def test_bad_options_and_actions_are_named_and_change_nothing() -> None:
    with pytest.raises(IllegalAction, match="chips"):
        GAME.new_state(5, GAME.resolve_options({"chips": 3}), Rng(1))
    with pytest.raises(IllegalAction, match="layout"):
        GAME.resolve_options({"layout": "round"})
    st = position(3, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C", "KS KH 9S 5D 7D"], "QH", dealer=2)
    before = st.to_json()
    with pytest.raises(IllegalAction) as err:
        act(st, 1, "bet")
    assert err.value.rule == "turn-order"
    with pytest.raises(IllegalAction):
        act(st, 0, "play:6C")
    assert st.to_json() == before


def test_observation_hides_other_hands_and_events_are_tagged() -> None:
    # issue 6: "Hidden information ... never reaches another player's screen"
    game = _play(5, 4, {"deals": 2})
    st = game.state
    assert isinstance(st, PukkState)
    for seat in range(4):
        obs = st.observation(seat)
        assert "hands" not in obs and obs["hand"] == [card_text(c) for c in st.hands[seat]]
    dealt = [e for e in game.events if e.kind == "dealt"]
    assert dealt and all(e.visible_to == frozenset({e.data["seat"]}) for e in dealt)
    assert "hand" not in st.observation(None)


def test_determinize_keeps_what_the_seat_knows_and_bettors_keep_a_pair() -> None:
    st = position(4, ["6C 6H 8D 10H 7S", "AS AH QD 9C 5C", "KS KH 9S 5D 7D", "8S 9H 10S JS 5H"],
                  "QH", dealer=3)
    act(st, 0, "pass")
    act(st, 1, "bet")
    act(st, 0, "fold")
    act(st, 2, "match")
    moved = 0
    for i in range(40):
        d = st.determinize(0, Rng(i))
        assert d.observation(0) == st.observation(0)
        assert d.hands[0] == st.hands[0]
        for s in (1, 2):
            assert best_set(d.hands[s]) is not None  # they bet or matched
        assert parse_card("QH") not in d.hands[1]  # trump queen: claimed by nobody -> turned
        moved += d.hands[1] != st.hands[1]
        assert d.conservation() == st.conservation()
    assert moved > 20


OPTION_SETS = [
    {}, {"layout": "per-player"}, {"honours": "owners"}, {"pack": "by-players"},
    {"downward": True}, {"outright_sixes": True}, {"pamfill_set": "above"},
    {"bet_unit": 3, "max_bets": 0}, {"until_broke": True, "chips": 20},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "default")
def test_every_option_plays_to_the_end_with_chips_and_cards_conserved(
        options: dict[str, Any]) -> None:
    # issue 6: "All six games play to the end by the rules with every option"
    for seed in range(12):
        seats = 5 + seed % 3 if options.get("layout") else 2 + seed % 6
        game = Session(GAME, seats, seed=seed, options=options)
        st = game.state
        assert isinstance(st, PukkState)
        totals = st.conservation()
        assert totals["chips"] == seats * st.start_chips
        bots = [BOTS["random"](s, Rng(f"{seed}:{s}")) for s in range(seats)]
        while not st.is_terminal():
            s = actor(st)
            assert st.legal_actions(s)
            game.apply(s, bots[s].choose(st))
            assert st.conservation() == totals
            assert min(st.stacks) >= 0
        assert st.actors() == frozenset() and st.end_reason


def test_json_round_trip_and_replay_are_exact() -> None:
    game = _play(8, 5, {"deals": 2, "downward": True})
    replay = Session.replay(GAME, json.loads(json.dumps(game.to_json())))
    assert replay.state.to_json() == game.state.to_json()
    mid = Session(GAME, 5, seed=8, options={"deals": 2, "downward": True})
    for seat, action in game.log[:17]:
        mid.apply(seat, action)
    data = json.loads(json.dumps(mid.state.to_json()))
    assert PukkState.from_json(data).to_json() == mid.state.to_json()
    with pytest.raises(IllegalAction, match="not a Púkk state"):
        PukkState.from_json({"num_seats": 3})


def test_session_undo_never_crosses_a_deal() -> None:
    # issue 6: BGA's undo policy - never across revealed information or a random event
    game = Session(GAME, 3, seed=2, options={"deals": 1})
    bots = [PukkRuleBot(s, Rng(s)) for s in range(3)]
    while not game.state.is_terminal():
        s = actor(game.state)
        events = game.apply(s, bots[s].choose(game.state))
        if any(e.chance or e.visible_to is not None for e in events):
            assert not game.can_undo(s)


def test_undo_is_refused_once_a_lead_reveals_other_hands() -> None:
    # issue 6 / BGA undo policy: "never across ... revealed hidden information". A lead
    # whose run comes back to the leader still revealed who held the run's cards, or
    # that the next card lies in the stock.
    hands = ["9S JS AH 5C 6C", "10S 7D 8D 9D 5D", "KS 8H 5H 6H 6D"]
    game = Session(GAME, 3, seed=0)
    game.state = position(3, hands, "QD", dealer=2)
    assert isinstance(game.state, PukkState)
    _to_play(game.state)
    events = game.apply(0, "play:AH")  # the ace stops the run at once: nothing learnt
    assert [e.kind for e in events] == ["led", "played", "stopped"]
    assert game.can_undo(0)
    game.undo(0)
    events = game.apply(0, "play:9S")  # seat 1 must play 10S; QS then lies in the stock
    assert actor(game.state) == 0
    assert events[-1].kind == "revealed" and events[-1].visible_to == frozenset({0, 1, 2})
    assert "QS" in game.state.observation(None)["known_in_stock"]
    assert not game.can_undo(0)


# --- bots ---------------------------------------------------------------------------

def test_rule_bot_leads_its_own_run_to_the_ace() -> None:
    # rules.md §4 tip / [1969]: "lead cards in sequence if you have them, such as the queen
    # of spades" (up to the ace keeps the lead)
    st = position(3, ["QS KS AS 5C 9H", "10S 7D 8D 9D 5D", "JS 8H 5H 6H 6C"], "QH", dealer=2)
    _to_play(st)
    assert PukkRuleBot(0, Rng(0)).choose(st) == Action("play", ("QS",))


def test_rule_bot_bets_strong_sets_and_folds_hopeless_ones() -> None:
    st = position(3, ["6C 6H 6S 10H 7S", "AS KH QD 9C 5C", "KS QH 9S 5D 7D"], "8H", dealer=2)
    assert PukkRuleBot(0, Rng(0)).choose(st) == Action("bet")


def test_search_bot_sees_only_its_own_information() -> None:
    # issue 6: the search player "only sees its own observation and samples hidden cards"
    a = position(3, ["6C 6H 8D 10H 7S", "AS AC QS 9C 5C", "KS KC 9S 5D 8S"], "6D", dealer=2)
    b = position(3, ["6C 6H 8D 10H 7S", "KS KC QS 9C 5C", "AS AC 9S 5D 8S"], "6D", dealer=2)
    assert a.observation(0) == b.observation(0)
    picks = []
    for st in (a, b):
        bot = PukkSearchBot(0, Rng("s"), time_budget_s=60.0, max_iterations=60,
                            rollout=PukkRuleBot)
        picks.append(bot.choose(st))
        assert bot.last_iterations == 60
    assert picks[0] == picks[1] and picks[0] in a.legal_actions(0)


def test_registered_bots_play_legal_moves() -> None:
    assert set(BOTS) == {"random", "rule", "search"}
    assert get_game("pukk") is GAME
    game = Session(GAME, 3, seed=1, options={"deals": 1})
    bots = [BOTS[k](s, Rng(s)) for s, k in enumerate(("random", "rule", "search"))]
    for b in bots:
        if isinstance(b, PukkSearchBot):
            b.max_iterations = 20
    while not game.state.is_terminal():
        s = actor(game.state)
        game.apply(s, bots[s].choose(game.state))
    assert isinstance(game.state, PukkState) and game.state.conservation()["chips"] == 300


# --- golden transcripts ---------------------------------------------------------------

TRANSCRIPTS = {
    "pukk_rule_5seats.txt": (5, 101, {}, "rule"),
    "pukk_variants_7seats.txt": (7, 202, {"layout": "per-player", "downward": True,
                                          "outright_sixes": True, "pamfill_set": "above",
                                          "deals": 3}, "rule"),
    "pukk_random_4seats.txt": (4, 303, {"pack": "by-players", "bet_unit": 2, "deals": 2,
                                        "honours": "owners"},
                               "random"),
}


def transcript(seats: int, seed: int, options: dict[str, Any], bot: str) -> str:
    """A complete seeded game as the public table and each seat saw it."""
    game = Session(GAME, seats, seed=seed, options=options)
    st = game.state
    assert isinstance(st, PukkState)
    lines = [f"game pukk seats={seats} seed={seed} bots={bot} "
             f"options={json.dumps(game.options, sort_keys=True)}"]

    def emit(events: list[GameEvent]) -> None:
        for e in events:
            who = "all" if e.visible_to is None else ",".join(map(str, sorted(e.visible_to)))
            lines.append(f"  [{who}] {e.kind} {json.dumps(dict(e.data), sort_keys=True)}")

    emit(st.opening_events)
    bots = [BOTS[bot](s, Rng(f"{seed}:{s}")) for s in range(seats)]
    while not game.state.is_terminal():
        s = actor(game.state)
        a = bots[s].choose(game.state)
        lines.append(f"seat {s}: {a}")
        emit(game.apply(s, a))
    lines.append(f"returns {game.state.returns()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_golden_transcripts(name: str) -> None:
    # Regenerate with PUKK_REGENERATE=1 after a deliberate rule change, then review the diff.
    text = transcript(*TRANSCRIPTS[name])
    path = PLAYTHROUGHS / name
    if os.environ.get("PUKK_REGENERATE"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text
