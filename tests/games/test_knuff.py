"""Rule tests for KNUFF (controller/games/knuff.py).

Each test cites the seed sentence it checks (Norwegian, seed 004) or the
decision in docs/rules/knuff.md / rules.md §7 for the readings. Positions are
built from short card strings ("QH 5S"); golden transcripts of whole seeded
games live in tests/games/playthroughs/knuff_*.txt (set KNUFF_REGEN=1 to
rewrite them after an intended rule change).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from controller.errors import IllegalAction
from controller.games import Session, get_game
from controller.games.base import Action, GameState
from controller.games.knuff import (
    ACTIVE,
    AWAY,
    BOTS,
    DECLINE,
    DRAW,
    GAME,
    NEW,
    PASS,
    PLAY,
    WINDOW,
    KnuffState,
    card_text,
    parse_card,
    playable,
)
from controller.rng import Rng

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def texts(cs: list[int]) -> list[str]:
    return sorted(card_text(c) for c in cs)


def make(hands: list[str], *, stock: str = "", pile: str = "", pile_seats: list[int] | None = None,
         turn: int = 0, nodraw: bool = False, **options: Any) -> KnuffState:
    """A position: hands per seat, stock (last card on top), pile (last card on top)."""
    st = GAME.new_state(len(hands), GAME.resolve_options(options), Rng("test"))
    st.hands = [cards(h) for h in hands]
    st.stock = cards(stock)
    st.pile = []
    st.top = -1
    st.run_len = 0
    st.run_seats = []
    for i, c in enumerate(cards(pile)):
        st._lay(pile_seats[i] if pile_seats else (turn - 1) % len(hands), c)
    st.dead = []
    st.nodraw = nodraw
    st.phase = PLAY
    st.turn = turn
    st.draws = 0
    st.passes = 0
    st._legal = None
    return st


def act(st: GameState, seat: int, text: str) -> list[Any]:
    return st.apply(seat, Action.parse(text))


def legal(st: GameState, seat: int) -> set[str]:
    return {str(a) for a in st.legal_actions(seat)}


# --- the playing rule ------------------------------------------------------------


def test_playing_rule() -> None:
    """seed: 'Alle billedkort+ess kan legges (vrir farge). Kan også vri farge ved å legge
    samme tall. Ellers må man legge kort i samme farge som forrige med samme eller lavere
    tall.' Ace high (docs/rules/knuff.md, interpretation 3)."""
    nine_h = parse_card("9H")
    assert playable(parse_card("5H"), nine_h)       # same suit, lower
    assert playable(parse_card("9S"), nine_h)       # same number changes suit
    assert not playable(parse_card("10H"), nine_h)  # same suit, higher
    assert not playable(parse_card("5S"), nine_h)   # other suit, other number
    for pic in ("JS", "QD", "KC", "AS"):
        assert playable(parse_card(pic), nine_h)    # picture cards and aces always
    assert playable(parse_card("10H"), parse_card("AH"))  # ace is high: 10 <= A
    assert playable(parse_card("2C"), -1)           # empty pile: anything goes


def test_played_card_sets_the_suit() -> None:
    """seed: '(vrir farge)': the played picture card's suit is the one to follow."""
    st = make(["QS 8S 8H 3D", "5C 6C"], stock="2C 3C 4C 5D", pile="9H")
    act(st, 0, "play:QS")
    st.turn = 0
    st._legal = None
    assert "play:8S" in legal(st, 0) and "play:8H" not in legal(st, 0)


def test_illegal_play_is_rejected_and_changes_nothing() -> None:
    """seed: 'Ellers må man legge kort i samme farge ... samme eller lavere tall'."""
    st = make(["10H 3D", "5C"], stock="2C", pile="9H")
    before = st.to_json()
    with pytest.raises(IllegalAction) as err:
        act(st, 0, "play:10H")
    assert err.value.rule == "playing-rule" and "10H does not go on 9H" in str(err.value)
    with pytest.raises(IllegalAction) as err:
        act(st, 0, "play:KS")
    assert "does not hold KS" in str(err.value)
    with pytest.raises(IllegalAction) as err:
        act(st, 1, "play:5C")
    assert err.value.rule == "turn-order"
    assert st.to_json() == before


# --- drawing and passing -----------------------------------------------------------


def test_pass_only_after_drawing_and_at_most_five_draws() -> None:
    """seed: 'Man kan kun si pass når man har trukket minst 1 kort, men man kan trekke
    opptil 5* kort.'"""
    st = make(["2S 3S 4S 5S", "5C"], stock="2C 3C 4C 6D 7D 8D 9D", pile="9H")
    assert legal(st, 0) == {"draw"}
    with pytest.raises(IllegalAction) as err:
        act(st, 0, "pass")
    assert err.value.rule == "passing"
    for k in range(5):
        act(st, 0, "draw")
        assert st.turn == 0 and len(st.hands[0]) == 5 + k
    assert "draw" not in legal(st, 0) and "pass" in legal(st, 0)
    with pytest.raises(IllegalAction, match="at most 5 cards"):
        act(st, 0, "draw")
    act(st, 0, "pass")
    assert st.turn == 1 and st.draws == 0


def test_draw_limit_option() -> None:
    """The '5*' is option max_draws (docs/rules/knuff.md, interpretation 1)."""
    st = make(["2S", "5C"], stock="2C 3C 4C", pile="9H", max_draws=1)
    act(st, 0, "draw")
    assert legal(st, 0) == {"pass"}


def test_may_draw_even_when_a_card_fits_and_then_play() -> None:
    """seed: drawing is allowed up to five; playing after a draw ends the turn."""
    st = make(["5H 2S 3S 4S", "5C 6C"], stock="2C 3C 4C 8D", pile="9H")
    assert {"play:5H", "draw"} <= legal(st, 0) and "pass" not in legal(st, 0)
    act(st, 0, "draw")
    act(st, 0, "play:5H")
    assert st.turn == 1


def test_top_up_to_four_after_a_play() -> None:
    """seed: '(alltid minimum 4 kort på hånden, trekk inn om mulig)'."""
    st = make(["5H 2S 3S 4S", "5C"], stock="2C 3C 8D", pile="9H")
    events = act(st, 0, "play:5H")
    assert len(st.hands[0]) == 4 and parse_card("8D") in st.hands[0]
    drew = [e for e in events if e.kind == "drew"]
    assert drew and drew[0].visible_to == frozenset({0}) and drew[0].chance


def test_going_out_only_once_the_stock_is_empty() -> None:
    """rules.md §7 ambiguity 2: with the minimum topped up, going out needs an empty stock."""
    st = make(["5H", "5C 6C"], stock="2C", pile="9H")
    act(st, 0, "play:5H")
    assert st.hands[0] == cards("2C") and not st.round_winners
    st = make(["5H", "5C 6C"], stock="", pile="9H", end="rounds", rounds=1)
    act(st, 0, "play:5H")
    assert st.round_winners == [0] and st.is_terminal()


def test_stuck_without_stock_passes_and_a_full_round_of_passes_closes_the_pile() -> None:
    """docs/rules/knuff.md, estimate: nobody can play or draw -> pass; when every seat
    has passed in a row the pile is closed and the next seat leads anything."""
    st = make(["2S 3S", "4D 5D"], stock="", pile="9H")
    assert legal(st, 0) == {"pass"}
    act(st, 0, "pass")
    assert st.blocked_on[0] == parse_card("9H")
    events = act(st, 1, "pass")
    assert any(e.kind == "pile-closed" for e in events)
    assert st.top == -1 and legal(st, 0) == {"play:2S", "play:3S"}


def test_must_play_when_nothing_can_be_drawn() -> None:
    """docs/rules/knuff.md, estimate: without a draw, pass only if no card fits."""
    st = make(["5H 2S", "4D"], stock="", pile="9H")
    assert legal(st, 0) == {"play:5H"}


# --- knuffs ---------------------------------------------------------------------------


def test_simple_knuff_skips_the_next_player() -> None:
    """seed: '(enkel) KNUFF - når man legger et billedkort(inkl.ess) oppå et annet
    billedkort med samme verdi ... -> da hopper man over neste spiller'."""
    st = make(["KS 2C 3C 4C", "5D", "6D", "7D"], stock="8C 9C 10C", pile="KH")
    events = act(st, 0, "play:KS")
    assert [e.data for e in events if e.kind == "knuff"] == [{"seat": 0, "skipped": 1}]
    assert st.turn == 2


def test_same_number_card_is_no_knuff() -> None:
    """seed: knuff needs picture cards (aces included); two fives are just a suit change."""
    st = make(["5S 2C 3C 4C", "5D", "6D"], stock="8C 9C", pile="5H")
    act(st, 0, "play:5S")
    assert st.turn == 1


def test_personlig_knuff_plays_a_pair_and_goes_again() -> None:
    """seed: 'Personlig KNUFF - man legger ut et par med billedkort(inkl.ess) ... -> man
    får selv legge på en gang til (men kortet ... et lovlig kort ...)'."""
    st = make(["AS AD 7S 2C", "5D", "6D"], stock="8C 9C 10C 3H 4H", pile="9H")
    assert "pair:AS,AD" in legal(st, 0) or "pair:AD,AS" in legal(st, 0)
    pair = next(a for a in st.legal_actions(0) if a.kind == "pair")
    events = act(st, 0, str(pair))
    assert any(e.kind == "personlig-knuff" for e in events)
    assert st.turn == 0 and len(st.hands[0]) == 4       # topped up, same seat again
    assert st.top == parse_card(str(pair.args[1]))
    # The extra card must be legal on the top card (an ace: any spade fits if AS on top).
    assert all(playable(parse_card(str(a.args[0])), st.top)
               for a in st.legal_actions(0) if a.kind == "play")


def test_a_pair_is_laid_in_the_order_the_player_chooses() -> None:
    """seed: 'Personlig KNUFF - man legger ut et par med billedkort ... -> man får selv
    legge på en gang til (men kortet man legger på være et lovlig kort å legge oppå det
    øverste av kortet som ligger i bunken)'. The player lays the pair, so the player
    chooses which card lies on top (issue 13: only the card-index order was legal, so
    with KH KS 5H 3H on 9D the hearts could never follow)."""
    st = make(["KH KS 5H 3H", "5D", "6D"], stock="8C 9C 10C 2D 4D", pile="9D")
    assert {"pair:KH,KS", "pair:KS,KH"} <= legal(st, 0)
    act(st, 0, "pair:KS,KH")
    assert card_text(st.top) == "KH" and st.turn == 0
    assert {"play:5H", "play:3H"} <= legal(st, 0)
    act(st, 0, "play:5H")
    assert card_text(st.top) == "5H" and st.turn == 1
    # The other order puts the spade on top: the hearts do not fit.
    st = make(["KH KS 5H 3H", "5D", "6D"], stock="8C 9C 10C 2D 4D", pile="9D")
    act(st, 0, "pair:KH,KS")
    assert card_text(st.top) == "KS" and not {"play:5H", "play:3H"} & legal(st, 0)


def test_the_extra_after_a_pair_is_one_fitting_card_or_a_pass() -> None:
    """seed: 'man får selv legge på en gang til' (one is allowed to lay on once more):
    the extra is one more card that fits on the top card, not a whole turn: no drawing,
    no second pair, and the player may pass without having drawn (docs/rules/knuff.md)."""
    st = make(["KH KS QH QD 9C", "5D", "6D"], stock="8C 9C 10C 2D 4D 7S", pile="9D")
    act(st, 0, "pair:KS,KH")
    assert st.extra and st.turn == 0
    acts = legal(st, 0)
    assert "draw" not in acts and not any(a.startswith("pair:") for a in acts)
    assert "pass" in acts and "play:QH" in acts and "play:9C" not in acts
    with pytest.raises(IllegalAction) as err:
        act(st, 0, "draw")
    assert "one more card that fits" in str(err.value)
    stock_before = len(st.stock)
    events = act(st, 0, "pass")
    assert any(e.kind == "passed" and e.data.get("extra") for e in events)
    assert st.turn == 1 and not st.extra and len(st.stock) == stock_before
    assert st.passes == 0                  # a pass after playing is no blocked table
    assert st.blocked_on[0] == -1          # and says nothing about what seat 0 holds


def test_no_pair_of_number_cards() -> None:
    """seed: the pair is 'billedkort(inkl.ess)', so two sevens are no personlig knuff."""
    st = make(["7S 7D 2C", "5D"], stock="8C", pile="9H")
    assert not any(a.kind == "pair" for a in st.legal_actions(0))
    with pytest.raises(IllegalAction) as err:
        act(st, 0, "pair:7S,7D")
    assert err.value.rule == "personlig-knuff"


# --- hel-knuff ------------------------------------------------------------------------


def test_helknuff_removes_four_reshuffles_and_deals_four_to_the_others() -> None:
    """seed: 'HEL-KNUFF - en person legger den 4 av en rekke på 4 like kort ... de 4
    kortene ... går ut. Ellers går alle kort som ikke er på hånd til noen til enkel
    omstokk og de andre spillerne får uttdelt 4 kort hver ... (går over i fasen der man
    ikke kan trekke kort)'."""
    st = make(["8C 2D 3D 4D", "2S", "3S"], stock="2H 3H 4H 5H 6H 7H 10C", pile="JC 10S 8H 8S 8D")
    before = st.conservation()
    events = act(st, 0, "play:8C")
    assert texts(st.dead) == ["8C", "8D", "8H", "8S"]
    assert st.nodraw and st.pile == [] and st.top == -1
    assert len(st.hands[0]) == 3                     # the hel-knuffer gets nothing
    assert len(st.hands[1]) == 5 and len(st.hands[2]) == 5
    assert len(st.stock) == 9 - 8                    # 7 stock + 2 pile reshuffled, 8 dealt
    assert st.conservation() == before
    assert [e.kind for e in events if e.kind in ("hel-knuff", "dealt")] == [
        "hel-knuff", "dealt", "dealt"]
    assert st.turn == 1                               # next seat leads anything
    assert DRAW not in st.legal_actions(1)


def test_helknuff_short_of_cards_deals_equally() -> None:
    """seed: 'Dersom det ikke er nok kort får alle like mange.'"""
    st = make(["8C 2D", "2S", "3S", "4S"], stock="2H 3H", pile="5C 8H 8S 8D")
    act(st, 0, "play:8C")
    assert [len(h) for h in st.hands[1:]] == [2, 2, 2]   # 3 cards for 3 seats: 1 each
    assert len(st.stock) == 0


def test_helknuff_by_pair_counts_both_cards() -> None:
    """docs/rules/knuff.md interpretation 4: a personlig-knuff pair counts as two of the four."""
    st = make(["QS QD 2D 3D", "2S", "3S"], stock="2H 3H 4H 5H 6H 7H 8H 9H", pile="QH QC")
    pair = next(a for a in st.legal_actions(0) if a.kind == "pair")
    events = act(st, 0, str(pair))
    assert any(e.kind == "hel-knuff" for e in events)
    assert st.turn == 1 and st.nodraw


def test_no_draw_phase_allows_going_out_without_stock_check() -> None:
    """rules.md §7 ambiguity 2: in the no-draw phase nobody draws or tops up."""
    st = make(["5H 2S", "5C 6C"], stock="2C 3C", pile="9H", nodraw=True)
    act(st, 0, "play:5H")
    assert len(st.hands[0]) == 1 and len(st.stock) == 2


# --- parknuff ------------------------------------------------------------------------


def test_fare_for_helknuff_window_and_parknuff() -> None:
    """seed: '(HEL)ParKNUFF - ... den som legger det siste kortet(kun 1) ikke har sin tur,
    han "sniker" inn det 4 kortet etter at noen har sagt: "Fare for HELKNUFF". Alle andre
    en de som la 3og4 kort får 4 kort hver og spillet går over i fasen der man ikke kan
    trekke kort.'"""
    st = make(["5D 2C 3C 4C", "6C 7C", "5S 9C", "2H 3H"],
              stock="2S 3S 4S 6S 7S 8S 9S 10S JS QS KS AS 6D",
              pile="5H 5C", pile_seats=[2, 3])
    events = act(st, 0, "play:5D")
    assert any(e.kind == "fare-for-helknuff" for e in events)
    assert st.phase == WINDOW and st.turn == 1
    assert st.actors() == frozenset({2, 3})   # not the seat on turn, not the 3rd-card player
    assert legal(st, 2) == {"decline", "parknuff:5S"}
    assert legal(st, 3) == {"decline"}
    assert st.legal_actions(1) == []
    act(st, 3, "decline")
    assert st.actors() == frozenset({2})
    events = act(st, 2, "parknuff:5S")
    kinds = [e.kind for e in events if e.visible_to is None]
    assert "parknuff" in kinds and "hel-knuff" in kinds
    assert texts(st.dead) == ["5C", "5D", "5H", "5S"]
    assert st.nodraw and st.phase == PLAY and st.turn == 1     # the seat on turn goes on
    assert len(st.hands[0]) == 4      # topped up after its play; the 3rd-card player gets none
    assert len(st.hands[2]) == 1                      # the sneaker gets none
    assert len(st.hands[1]) == 2 + 4 and len(st.hands[3]) == 2 + 4


def test_window_closes_when_nobody_claims() -> None:
    """docs/rules/knuff.md interpretation 5: declined by all, the seat on turn plays on."""
    st = make(["5D 2C 3C 4C", "6C 7C", "9C", "2H"], stock="2S 3S 4S 6S 7S",
              pile="5H 5C", pile_seats=[2, 3])
    act(st, 0, "play:5D")
    act(st, 2, "decline")
    events = act(st, 3, "decline")
    assert any(e.kind == "window-closed" for e in events)
    assert st.phase == PLAY and st.actors() == frozenset({1}) and not st.nodraw
    act(st, 1, "draw")
    act(st, 1, "pass")                 # the warning is given once, after the third card
    assert st.phase == PLAY and st.actors() == frozenset({2})


def test_no_window_when_the_fourth_card_is_in_sight() -> None:
    """The warning is only given while the fourth card can still come (it is not on the pile)."""
    st = make(["5D 2C 3C 4C", "6C", "9C"], stock="2S 3S 4S", pile="5S 2H 5H 5C")
    act(st, 0, "play:5D")
    # 5S lies deeper in the pile, so no window; the run of four consecutive is not
    # there either (2H breaks it).
    assert st.phase == PLAY and st.turn == 1


def test_simultaneous_parknuff_claims_first_in_playing_order_from_the_seat_on_turn() -> None:
    """docs/rules/knuff.md: claims are sealed; the first claimant clockwise from the seat
    on turn wins; the other claim stays secret and its card stays in hand (two packs)."""
    st = make(["5D 2C 3C 4C", "6C 7C", "5S 9C", "5S 2H", "5H 3D"],
              stock="2S 3S 4S 6S 7S 8S 9S 10S JS QS KS AS 6D 7D 8D 9D 10D",
              pile="5H 5C", pile_seats=[3, 4], decks=2)
    act(st, 0, "play:5D")
    assert st.actors() == frozenset({2, 3, 4})
    events3 = act(st, 3, "parknuff:5S")                 # seat 3 answers first ...
    assert [e.visible_to for e in events3] == [frozenset({3}), None]
    assert "claim" not in events3[1].data               # others learn only that 3 answered
    assert st.observation(3)["my_claim"] == "5S"
    assert "my_claim" not in st.observation(2) and st.observation(2)["window"]["answered"] == [3]
    act(st, 4, "parknuff:5H")
    events2 = act(st, 2, "parknuff:5S")                 # ... but seat 2 is first from seat 1
    sneak = [e for e in events2 if e.kind == "parknuff"]
    assert sneak[0].data["seat"] == 2
    assert parse_card("5S") in st.hands[3] and parse_card("5H") in st.hands[4]
    assert not any(e.data.get("seat") in (3, 4) for e in events2 if e.kind == "parknuff")


def test_parknuff_option_off() -> None:
    """Option parknuff=False: no warning, no window."""
    st = make(["5D 2C 3C 4C", "6C", "5S"], stock="2S 3S 4S", pile="5H 5C", parknuff=False)
    act(st, 0, "play:5D")
    assert st.phase == PLAY and st.turn == 1


# --- sengeknuff ----------------------------------------------------------------------------


def test_sengeknuff_only_in_no_draw_phase() -> None:
    """seed: 'SENGEKNUFF - ... dame+konge+ess i samme farge ... Dette kan kun gjøres i
    fasen der man ikke kan trekke kort.'"""
    st = make(["QH KH AH 2C", "5D"], stock="3C", pile="9S")
    assert not any(a.kind == "senge" for a in st.legal_actions(0))
    with pytest.raises(IllegalAction) as err:
        act(st, 0, "senge:H,left")
    assert err.value.rule == "sengeknuff"


@pytest.mark.parametrize(("direction", "expected"), [
    ("left", {1: ["2C"], 2: ["5D", "6D"], 0: ["7S", "8S", "9S"]}),
    ("right", {2: ["2C"], 0: ["5D", "6D"], 1: ["7S", "8S", "9S"]}),
])
def test_sengeknuff_rotates_every_hand(direction: str, expected: dict[int, list[str]]) -> None:
    """seed: 'Den som legger kan velge om sengeknuffen går til venstre eller høyre. Alle
    håndene med kort bytter spiller en til venstre, eller høyre' (own hand moves too)."""
    st = make(["QH KH AH 2C", "5D 6D", "7S 8S 9S"], pile="9C", nodraw=True)
    events = act(st, 0, f"senge:H,{direction}")
    assert {s: texts(st.hands[s]) for s in range(3)} == expected
    assert st.top == parse_card("AH") and st.turn == 1
    hand_events = [e for e in events if e.kind == "hand"]
    assert all(e.visible_to is not None and len(e.visible_to) == 2 for e in hand_events)
    # Seat 0 knows exactly where its old hand went; the observation says so.
    dest = 1 if direction == "left" else 2
    assert st.observation(0)["known"] == {str(dest): ["2C"]}


def test_sengeknuff_with_last_three_cards_goes_out() -> None:
    """seed: 'En spiller vinner når han\\hun har blitt kvitt alle kortene.'"""
    st = make(["QH KH AH", "5D 6D", "7S"], pile="9C", nodraw=True, end="rounds", rounds=1)
    act(st, 0, "senge:H,left")
    assert st.round_winners == [0] and texts(st.hands[1]) == ["5D", "6D"]


# --- letters and hand size -------------------------------------------------------------------


@pytest.mark.parametrize("options", [
    {}, {"end": "either", "rounds": 3, "max_draws": 2}, {"end": "letters", "letters": 7}])
def test_observation_carries_the_public_options_of_length_and_drawing(
        options: dict[str, Any]) -> None:
    """The deals of the game, its end rule and the draws a turn are public options: every
    viewer's observation names them (a screen joining late has no other source)."""
    st = GAME.new_state(3, GAME.resolve_options(options), Rng("opts"))
    want = GAME.resolve_options(options)
    for viewer in (None, 0, 1, 2):
        obs = st.observation(viewer)
        assert (obs["end"], obs["rounds"], obs["letters_limit"], obs["max_draws"]) == (
            want["end"], want["rounds"], want["letters"], want["max_draws"])
    assert st.observation(None)["max_draws"] == options.get("max_draws", 5)


def test_winner_gives_letters_and_five_make_knuff() -> None:
    """seed: 'Når en spiller vinner får de andre en bokstav i ordet K-N-U-F-F ... Når en
    spiller blir KNUFF må han\\hun ha 5 kort på hånden resten av spillet og begynner på K
    igjen.'"""
    st = make(["5H", "2C 3C", "4D"], pile="9H", nodraw=True, end="rounds", rounds=5,
              seat_changes=False)
    st.letters = [0, 4, 1]
    events = act(st, 0, "play:5H")
    assert st.letters == [0, 0, 2] and st.knuffs == [0, 1, 0]
    assert [e.data for e in events if e.kind == "KNUFF"] == [
        {"seat": 1, "times": 1, "hand_minimum": 5}]
    assert st.observation(None)["letters"] == ["", "", "KN"]
    # Next deal: seat 1 is dealt five and tops up to five.
    assert st.round_no == 2 and [len(h) for h in st.hands] == [4, 5, 4]
    assert st.min_hand(1) == 5


def test_second_knuff_means_six_cards() -> None:
    """seed: 'Dersom han blir KNUFF en gang til må han ha 6 kort på hånden osv.'"""
    st = make(["5H", "2C 3C"], pile="9H", nodraw=True, end="rounds", rounds=5,
              seat_changes=False)
    st.letters = [0, 4]
    st.knuffs = [0, 1]
    act(st, 0, "play:5H")
    assert st.knuffs[1] == 2 and st.min_hand(1) == 6 and len(st.hands[1]) == 6


def test_game_ends_when_a_seat_first_becomes_knuff() -> None:
    """Issue 6: 'end it ... when a seat first becomes KNUFF' (option end=first-knuff)."""
    st = make(["5H", "2C 3C", "4D"], pile="9H", nodraw=True, end="first-knuff")
    st.letters = [0, 4, 3]
    act(st, 0, "play:5H")
    assert st.is_terminal() and st.first_knuff == 1
    assert st.returns() == [0.0, -5.0, -4.0] and st.winners() == [0]


def test_game_ends_after_the_number_of_rounds() -> None:
    """Issue 6: 'after a configurable number of rounds' (option end=rounds)."""
    st = make(["5H", "2C 3C"], pile="9H", nodraw=True, end="rounds", rounds=2,
              seat_changes=False)
    st.letters = [0, 4]
    act(st, 0, "play:5H")
    assert not st.is_terminal() and st.rounds_done == 1 and st.knuffs == [0, 1]
    st2 = make(["5H", "2C 3C"], pile="9H", nodraw=True, end="either", rounds=9)
    st2.letters = [0, 4]
    act(st2, 0, "play:5H")
    assert st2.is_terminal()


def test_game_ends_at_a_number_of_letters() -> None:
    """Option end=letters: the first seat to hold `letters` letters (a KNUFF five) ends it."""
    st = make(["5H", "2C 3C", "4D"], pile="9H", nodraw=True, end="letters", letters=7)
    st.letters = [0, 1, 0]
    st.knuffs = [0, 1, 0]
    act(st, 0, "play:5H")
    assert st.is_terminal() and st.totals() == [0, 7, 1]


def test_the_default_game_plays_on_with_the_larger_hand() -> None:
    """seed: 'Når en spiller blir KNUFF må han\\hun ha 5 kort på hånden resten av spillet
    ... Dersom han blir KNUFF en gang til må han ha 6 kort ... Spillet fortsetter til folk
    går lei.' Issue 13: ending at the first KNUFF meant the growing hand minimum was never
    played. The default is ten deals: every deal gives all but one seat a letter, so after
    nine deals some seat has five and is KNUFF, and at least one more deal is dealt to it
    with its minimum of five."""
    assert GAME.resolve_options({})["end"] == "rounds"
    assert GAME.resolve_options({})["rounds"] == 10
    for seats, seed in ((2, 1), (3, 2), (5, 3), (8, 4)):
        session = Session(GAME, seats, seed=seed)
        bots = [BOTS["rule"](s, Rng(seed * 10 + s)) for s in range(seats)]
        while not session.state.is_terminal():
            seat = min(session.state.actors())
            session.apply(seat, bots[seat].choose(session.state))
        kinds = [e.kind for e in session.events]
        assert kinds.count("out") == 10
        first = kinds.index("KNUFF")
        knuffed = session.events[first].data["seat"]
        later = [e for e in session.events[first:] if e.kind == "deal"]
        assert later, f"{seats} seats: no deal after the first KNUFF"
        assert later[0].data["counts"][knuffed] == 5


# --- who begins -------------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "starter"), [("yes", 2), ("no", 0)])
def test_someone_asks_who_begins(answer: str, starter: int) -> None:
    """seed: 'I begynnelsen av et spill må noen spørre noen andre om de vil begynne hvis
    de ikke vil må den som spurte begynne.' Seat 0 asks (estimate)."""
    st = GAME.new_state(3, GAME.resolve_options({}), Rng(5))
    assert st.actors() == frozenset({0})
    assert legal(st, 0) == {"ask:1", "ask:2"}
    assert [len(h) for h in st.hands] == [4, 4, 4] and len(st.stock) == 40
    act(st, 0, "ask:2")
    assert st.actors() == frozenset({2}) and legal(st, 2) == {"yes", "no"}
    act(st, 2, answer)
    assert st.phase == PLAY and st.turn == starter


# --- seats leaving and joining ------------------------------------------------------------------


def finish_round(st: KnuffState, winner: int = 0) -> None:
    st.hands[winner] = cards("5H")
    for s in range(st.num_seats):
        if s != winner and st.status[s] == ACTIVE and not st.hands[s]:
            st.hands[s] = cards("2C")
    st.pile = []
    st._lay((winner - 1) % st.num_seats, parse_card("9H"))
    st.nodraw = True
    st.phase = PLAY
    st.turn = winner
    st._legal = None
    act(st, winner, "play:5H")


def test_a_seat_leaves_on_its_turn_and_the_game_goes_on_without_it() -> None:
    """seed: 'Hvis noen ikke gidder mer, eller går på do kan de gå og komme tilbake som de
    vil, men spillet fortsetter uten dem.' Issue 13: leaving was possible only between
    deals. A seat is asked to act only on its turn, so it leaves then; its hand stays face
    down at its chair."""
    st = make(["2S 3D", "3S 4D", "4S 5D", "5S 6D"], stock="2H 3H 4H 5H 6H 7H 8H", pile="9S",
              turn=1)
    assert "leave" in legal(st, 1) and "leave" not in legal(st, 2)
    events = act(st, 1, "leave")
    assert st.status[1] == AWAY and texts(st.hands[1]) == ["3S", "4D"]
    assert [e.data for e in events if e.kind == "left"] == [{"seat": 1, "cards": 2}]
    assert st.turn == 2 and all(1 not in st._order_from(s) for s in range(4))
    # Returning in the same deal takes the same hand back; no card is dealt.
    assert 1 in st.actors() and legal(st, 1) == {"join"}
    stock = len(st.stock)
    events = act(st, 1, "join")
    assert st.status[1] == ACTIVE and texts(st.hands[1]) == ["3S", "4D"]
    assert len(st.stock) == stock and st.turn == 2
    assert [e.data["dealt"] for e in events if e.kind == "returned"] == [0]


def test_a_seat_away_for_a_whole_deal_gets_a_letter_and_a_new_hand_on_return() -> None:
    """seed: 'Men for hver hele omgang de er borte får de en ekstra bokstav.'"""
    st = make(["2S", "3S", "4S", "5S"], end="rounds", rounds=9, turn=1,
              stock="2H 3H 4H 5H 6H 7H 8H 9H")
    act(st, 1, "leave")
    finish_round(st)
    assert st.letters == [0, 1, 1, 1] and st.hands[1] == []   # a loser's letter
    finish_round(st, winner=2)
    assert st.letters == [1, 2, 1, 2]                  # seat 1's letter for the deal away
    st.phase, st.nodraw, st.turn, st._legal = PLAY, False, 0, None
    events = act(st, 1, "join")
    assert any(e.kind == "returned" for e in events) and st.letters[1] == 2
    assert len(st.hands[1]) == 4                       # dealt its minimum from the stock
    assert [e.visible_to for e in events if e.kind == "drew"] == [frozenset({1})]


def test_a_new_player_joins_mid_deal_with_the_most_letters_and_knuffs() -> None:
    """seed: 'Dersom en ny spiller vil være med kan han hive seg på når som helst.
    Spilleren får like mange bokstaver i KNUFF som den som har flest bokstaver. Gjelder
    også dersom noen har blitt KNUFF flere ganger.' Issue 13: joining waited for the end
    of the deal."""
    st = GAME.new_state(4, GAME.resolve_options({"players": 3}), Rng(1))
    assert st.status == [ACTIVE, ACTIVE, ACTIVE, NEW] and st.hands[3] == []
    assert 3 not in st.actors()                        # not while seat 0 asks who begins
    act(st, 0, "ask:1")
    act(st, 1, "yes")
    assert st.actors() == frozenset({1, 3}) and legal(st, 3) == {"join"}
    st.letters = [3, 1, 0, 0]
    st.knuffs = [0, 1, 0, 0]
    act(st, 3, "join")
    assert st.letters[3] == st.letters[1] == 1 and st.knuffs[3] == 1
    assert st.status[3] == ACTIVE and len(st.hands[3]) == 5      # inherits the hand minimum
    assert st.turn == 1                                # the seat on turn is still on turn


def test_nobody_joins_or_returns_in_the_no_draw_phase() -> None:
    """seed: 'Ingen nye spillere kan komme til, og ingen kan komme tilbake når fasen der man
    ikke kan trekke kort er begynt. Da må de vente til neste omgang.'"""
    st = make(["2S 3D", "3S 4D", "4S 5D"], stock="2H 3H 4H 5H 6H", pile="9S", nodraw=True)
    st.status[2] = AWAY
    assert st.actors() == frozenset({0}) and legal(st, 2) == set()
    with pytest.raises(IllegalAction) as err:
        act(st, 2, "join")
    assert err.value.rule == "turn-order"
    st2 = make(["2S 3D", "3S 4D", "4S 5D"], stock="2H 3H 4H 5H 6H", pile="9S")
    st2.status[2] = AWAY
    assert 2 in st2.actors()
    st2.nodraw = True
    why = st2._why(2, Action("join"))
    assert "no-draw phase" in why and "next deal" in why


def test_a_joiner_needs_a_hand_from_the_stock() -> None:
    """docs/rules/knuff.md (estimate): a new or returning seat without cards joins only
    while the stock holds its hand minimum."""
    st = make(["2S 3D", "3S 4D", ""], stock="2H 3H 4H", pile="9S")
    st.status[2] = AWAY
    assert st.actors() == frozenset({0})
    st.stock = cards("2H 3H 4H 5H")
    assert st.actors() == frozenset({0, 2})
    st.knuffs[2] = 1                                   # a minimum of five
    assert st.actors() == frozenset({0})


def test_seat_changes_off_keeps_the_table_fixed() -> None:
    st = make(["2S 3D", "3S 4D", "4S 5D"], stock="2H 3H 4H 5H 6H", pile="9S",
              seat_changes=False)
    st.status[2] = AWAY
    assert st.actors() == frozenset({0}) and "leave" not in legal(st, 0)


def test_at_least_two_players_stay() -> None:
    """docs/rules/knuff.md: a leave that would leave one player alone is refused."""
    st = make(["2S 3D", "3S 4D"], stock="2H 3H 4H", pile="9S")
    assert "leave" not in legal(st, 0)
    with pytest.raises(IllegalAction) as err:
        act(st, 0, "leave")
    assert err.value.rule == "seat-changes" and "two players" in str(err.value)


def test_empty_chair_counts_as_the_most_letters_in_the_result() -> None:
    """docs/rules/knuff.md: a chair nobody took never wins the game."""
    st = GAME.new_state(3, GAME.resolve_options({"players": 2}), Rng(1))
    st.letters = [2, 1, 0]
    assert st.totals() == [2, 1, 2]


def test_options_are_checked() -> None:
    """Options with a clear error naming the option."""
    with pytest.raises(IllegalAction, match="'players'"):
        GAME.new_state(4, GAME.resolve_options({"players": 1}), Rng(0))
    with pytest.raises(IllegalAction, match="'decks'"):
        GAME.resolve_options({"decks": 3})
    with pytest.raises(IllegalAction, match="'max_draws'"):
        GAME.new_state(4, GAME.resolve_options({"max_draws": 0}), Rng(0))


# --- hidden information, JSON, determinize ------------------------------------------------


def random_playout(seed: int, steps: int, **options: Any) -> KnuffState:
    st = GAME.new_state(4, GAME.resolve_options(options), Rng(seed))
    r = Rng(f"bots{seed}")
    for _ in range(steps):
        if st.is_terminal():
            break
        seat = r.choice(sorted(st.actors()))
        st.apply(seat, r.choice(st.legal_actions(seat)))
    return st


def test_observation_hides_other_hands_and_events_are_tagged() -> None:
    """Standards: a player's hand never reaches another seat's screen or log."""
    session = Session(get_game("knuff"), 4, seed=3)
    r = Rng("leak")
    for _ in range(400):
        st = session.state
        if st.is_terminal():
            break
        seat = r.choice(sorted(st.actors()))
        session.apply(seat, r.choice(st.legal_actions(seat)))
        assert isinstance(st, KnuffState)
        for viewer in range(4):
            shown = json.dumps(st.observation(viewer))
            for other in range(4):
                if other == viewer:
                    continue
                secret = set(st.hands[other]) - set(st.hands[viewer]) - set(
                    c for k in st.known[viewer] for c in k)
                for c in secret:
                    assert f'"{card_text(c)}"' not in json.dumps(st.observation(viewer)["hand"])
                    assert f'"{card_text(c)}"' not in json.dumps(
                        st.observation(viewer)["known"])
            assert '"hands"' not in shown
    for e in session.events:
        if e.kind in ("dealt", "drew", "hand"):
            assert e.visible_to is not None
        if e.kind == "answered" and "claim" in e.data:
            assert e.visible_to is not None and len(e.visible_to) == 1


@pytest.mark.parametrize("seed", range(6))
def test_json_round_trip_and_determinize_keep_the_observation(seed: int) -> None:
    """games.md contract: to_json round-trips; determinize(seat) keeps observation(seat)."""
    st = random_playout(seed, 60 + 37 * seed, decks=1 + seed % 2)
    data = json.loads(json.dumps(st.to_json()))
    back = KnuffState.from_json(data)
    assert back.to_json() == st.to_json()
    for seat in range(4):
        det = st.determinize(seat, Rng(seed))
        assert det.observation(seat) == st.observation(seat)
        assert det.conservation() == st.conservation()
        assert sorted(det.hands[seat]) == sorted(st.hands[seat])


def test_determinize_keeps_known_cards_and_blocked_inference() -> None:
    """games.md: re-deal hidden cards consistently with what the seat has seen."""
    st = make(["QH KH AH 2C 3C", "5D 6D JD", "7S 8S 9S JS"], pile="9C", nodraw=True)
    st.stock = cards("4H 4D 4S 4C 10H 10D")
    act(st, 0, "senge:H,left")                # seat 1 now holds 2C 3C, seat 0 knows it
    st.blocked_on[2] = parse_card("2S")       # seat 2 held nothing playable on 2S
    for k in range(20):
        det = st.determinize(0, Rng(k))
        assert {parse_card("2C"), parse_card("3C")} <= set(det.hands[1])
        assert not any(playable(c, parse_card("2S")) for c in det.hands[2])


def test_determinize_does_not_depend_on_the_hidden_cards() -> None:
    """Search sees only its observation: two worlds alike to seat 0 sample alike."""
    a = make(["5H 2S", "3C 4C", "6D 7D"], stock="8C 9C 10C", pile="9H")
    b = make(["5H 2S", "8C 9C", "3C 7D"], stock="4C 6D 10C", pile="9H")
    assert a.observation(0) == b.observation(0)
    assert a.determinize(0, Rng(4)).to_json()["hands"] == b.determinize(0, Rng(4)).to_json()[
        "hands"]
    bot_a = BOTS["search"](0, Rng(9))
    bot_b = BOTS["search"](0, Rng(9))
    bot_a.max_iterations = bot_b.max_iterations = 60   # type: ignore[attr-defined]
    bot_a.time_budget_s = bot_b.time_budget_s = 30.0   # type: ignore[attr-defined]
    assert bot_a.choose(a) == bot_b.choose(b)


def test_session_replays_identically_and_undo() -> None:
    """Issue 6: a game replays identically from its seed and action log."""
    session = Session(get_game("knuff"), 3, seed="replay", options={"decks": 2})
    r = Rng("x")
    while not session.state.is_terminal():
        seat = min(session.state.actors())
        session.apply(seat, BOTS["rule"](seat, r).choose(session.state))
    again = Session.replay(get_game("knuff"), json.loads(json.dumps(session.to_json())))
    assert again.state.to_json() == session.state.to_json()
    assert [e.to_json() for e in again.events] == [e.to_json() for e in session.events]


# --- bots --------------------------------------------------------------------------------


def test_rule_bot_takes_helknuff_and_parknuff() -> None:
    """The rule bot plays the fourth card whenever it can."""
    st = make(["8C 2D 3D 9D", "2S", "3S"], stock="2H 3H 4H", pile="8H 8S 8D")
    assert BOTS["rule"](0, Rng(0)).choose(st) == Action.parse("play:8C")
    st = make(["5D 2C 3C 4C", "6C 7C", "5S 9C"], stock="2S 3S 4S 6S",
              pile="5H 5C", pile_seats=[1, 2])
    act(st, 0, "play:5D")
    assert BOTS["rule"](2, Rng(0)).choose(st) == Action.parse("parknuff:5S")


def test_rule_bot_draws_once_then_passes_when_stuck() -> None:
    """The rule bot keeps its hand small: one draw, then pass."""
    st = make(["2S 3S 4S 5S", "5C"], stock="2C 3C 4C 6D", pile="9H")
    bot = BOTS["rule"](0, Rng(0))
    assert bot.choose(st) == DRAW
    act(st, 0, "draw")
    assert bot.choose(st) == PASS


def test_search_bot_picks_a_legal_move_and_claims_the_sneak() -> None:
    """The search bot finds the parknuff (it gives the others four cards each)."""
    st = make(["5D 2C 3C 4C", "6C 7C 8D 9D", "5S 9C 2D 3D"],
              stock="2S 3S 4S 6S 7S 8S 9S 10S 2H 3H 4H 6H 7H 8H 10H 4D 6D 7D",
              pile="5H 5C", pile_seats=[1, 2])
    act(st, 0, "play:5D")
    bot = BOTS["search"](2, Rng(1))
    bot.max_iterations = 300  # type: ignore[attr-defined]
    bot.time_budget_s = 30.0  # type: ignore[attr-defined]
    choice = bot.choose(st)
    assert choice in st.legal_actions(2)
    assert choice == Action.parse("parknuff:5S")
    assert DECLINE in st.legal_actions(2)


# --- golden transcripts --------------------------------------------------------------------------


def transcript(seats: int, seed: int, bots: list[str], options: dict[str, Any]) -> str:
    """A complete seeded game: every action and the public events, then the result."""
    session = Session(get_game("knuff"), seats, seed=seed, options=options)
    players = [BOTS[b](s, Rng(f"golden:{seed}:{s}")) for s, b in enumerate(bots)]
    lines = [f"# KNUFF seats={seats} seed={seed} bots={','.join(bots)} "
             f"options={json.dumps(session.options, sort_keys=True)}"]
    st0 = session.state
    assert isinstance(st0, KnuffState)
    lines.append("hands " + " | ".join(" ".join(texts(h)) for h in st0.hands))
    while not session.state.is_terminal():
        # The highest seat first, so that a seat away joins as soon as it may.
        seat = max(session.state.actors())
        action = players[seat].choose(session.state)
        events = session.apply(seat, action)
        public = "; ".join(f"{e.kind} {json.dumps(dict(e.data), sort_keys=True)}"
                           for e in events if e.visible_to is None)
        lines.append(f"{seat}: {action}  -> {public}")
    st = session.state
    lines.append(f"returns {st.returns()} winners {st.winners()}")
    return "\n".join(lines) + "\n"


GOLDEN = {
    "knuff_rule_4seats.txt": (4, 1, ["rule"] * 4, {}),
    "knuff_mixed_twopacks.txt": (5, 7, ["rule", "random", "rule", "random", "rule"],
                                 {"decks": 2, "players": 3, "end": "rounds", "rounds": 4}),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_transcripts(name: str) -> None:
    """OpenSpiel-style playthroughs: regenerate and diff (KNUFF_REGEN=1 rewrites)."""
    text = transcript(*GOLDEN[name])
    path = PLAYTHROUGHS / name
    if os.environ.get("KNUFF_REGEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text


def test_search_bot_searches_its_own_move_when_a_lower_seat_may_join() -> None:
    """A seat away (seat 0) is an actor beside the seat on turn; the search must still
    score the seat on turn's own actions at the root, not fall back to a random one."""
    st = make(["2S 3D", "3S 4D", "KH KS 5H"], stock="2H 3H 4H 5D 6D 7D 8D 9C", pile="9H",
              turn=2)
    st.status[0] = AWAY
    assert st.actors() == frozenset({0, 2})
    bot = BOTS["search"](2, Rng(3))
    bot.max_iterations = 200  # type: ignore[attr-defined]
    bot.time_budget_s = 30.0  # type: ignore[attr-defined]
    root = bot.search(st)  # type: ignore[attr-defined]
    mine = [a for (seat, a), child in root.children.items() if seat == 2 and child.visits]
    assert mine and all(seat == 2 for seat, _ in root.children)
