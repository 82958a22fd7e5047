"""Rule tests for Manni (controller/games/manni.py), each citing the rule it checks.

"seed" quotes the pagat text in the seed file (basic game); "rules.md §3"
cites the project's rules digest for the variants; "docs" marks an
interpretation documented in docs/rules/manni.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from controller.errors import IllegalAction
from controller.games import get_game
from controller.games.base import Action, RandomBot, Session
from controller.games.manni import (
    BOTS,
    DECK_48,
    DECK_52,
    GAME,
    ManniRuleBot,
    ManniSearchBot,
    ManniState,
    card_text,
    parse_card,
    trick_winner,
)
from controller.rng import Rng

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"


def cards(text: str) -> list[int]:
    return sorted(parse_card(t) for t in text.split())


def new(variant: str = "basic", seed: int | str = 1, **options: Any) -> ManniState:
    return GAME.new_state(3, {"variant": variant, **options}, Rng(seed))


def position(hands: list[str], contract: str, leader: int, variant: str = "basic") -> ManniState:
    """A play-phase position from one line per seat, e.g. ["AH 3S", "KH 4S", "QH 5S"]."""
    st = new(variant)
    st.phase = "play"
    st.contract = contract
    st.hands = [cards(h) for h in hands]
    held = {c for h in st.hands for c in h}
    st.manni = [c for c in st.rules.deck if c not in held]
    st.dealer = (leader - 1) % 3
    st.leader = st.turn = leader
    return st


def play(st: ManniState, seat: int, card: str) -> list[Any]:
    return st.apply(seat, Action("play", (card,)))


def frozen(st: ManniState) -> str:
    return json.dumps(st.to_json(), sort_keys=True)


def finish_exchange(st: ManniState) -> None:
    while st.phase == "exchange":
        legal = st.legal_actions(st.turn)
        st.apply(st.turn, Action("keep") if Action("keep") in legal else
                 Action("pass") if Action("pass") in legal else Action("done"))


# --- cards -----------------------------------------------------------------


def test_card_text_round_trips_for_all_52() -> None:
    for c in range(52):
        assert parse_card(card_text(c)) == c
    assert card_text(parse_card("10s")) == "10S"


@pytest.mark.parametrize("bad", ["", "1H", "AX", "11S", "H"])
def test_bad_card_text_names_the_problem(bad: str) -> None:
    with pytest.raises(IllegalAction, match="not a card"):
        parse_card(bad)


def test_basic_pack_has_48_cards_without_twos() -> None:
    # seed: "a 48 card pack, made from a standard 52 card pack by taking out the twos"
    assert len(DECK_48) == 48
    assert not any(card_text(c).startswith("2") for c in DECK_48)
    assert len(DECK_52) == 52


# --- deal --------------------------------------------------------------------


def test_basic_deal_twelve_each_and_a_twelve_card_manni() -> None:
    # seed: "12 cards are dealt to each player ... The remaining 12 cards form the Manni"
    st = new()
    assert [len(h) for h in st.hands] == [12, 12, 12]
    assert len(st.manni) == 12
    assert sorted([*st.manni, *(c for h in st.hands for c in h)]) == sorted(DECK_48)


def test_trump_rotates_hearts_spades_diamonds_clubs() -> None:
    # seed: "the trump suit rotates from deal to deal in the sequence hearts, spades,
    # diamonds, clubs, hearts, etc."
    st = new(seed=3, target=60)
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    while st.deal_no <= 6:
        st.apply(st.turn, bots[st.turn].choose(st))
    assert [h["contract"] for h in st.history[:6]] == ["H", "S", "D", "C", "H", "S"]


def test_deal_passes_to_the_left() -> None:
    # docs: the deal passes to the left (the seed does not say; rules.md §3 ambiguity)
    st = new(seed=4, target=60)
    first = st.dealer
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    while st.deal_no <= 3:
        st.apply(st.turn, bots[st.turn].choose(st))
    assert [h["dealer"] for h in st.history[:3]] == [first, (first + 1) % 3, (first + 2) % 3]


# --- the Manni exchange (basic) --------------------------------------------------


def test_exchange_offered_from_dealers_left_then_clockwise() -> None:
    # seed: "The player to dealer's left has the opportunity ... If [they choose] not
    # to exchange, the opportunity to do so passes clockwise around the table."
    st = new()
    d = st.dealer
    order = []
    while st.phase == "exchange":
        order.append(st.turn)
        assert st.legal_actions(st.turn) == [Action("swap"), Action("keep")]
        st.apply(st.turn, Action("keep"))
    assert order == [(d + 1) % 3, (d + 2) % 3, d]


def test_dealer_may_be_left_out_of_the_exchange() -> None:
    # rules.md §3 ambiguity "whether the dealer may also exchange": option dealer_may_swap
    st = new(dealer_may_swap=False)
    offers = 0
    while st.phase == "exchange":
        offers += 1
        st.apply(st.turn, Action("keep"))
    assert offers == 2


def test_swap_takes_the_whole_manni_and_ends_the_exchange() -> None:
    # seed: "change all 12 cards with the 12 cards of the Manni ... Once a player has
    # exchanged the other players must play with the cards they were dealt."
    st = new()
    first = st.turn
    old_hand, manni = list(st.hands[first]), sorted(st.manni)
    others = [list(st.hands[s]) for s in range(3)]
    events = st.apply(first, Action("swap"))
    assert st.hands[first] == manni
    assert st.discards[first] == old_hand   # out of play
    assert st.phase == "play"
    assert [st.hands[s] for s in range(3) if s != first] == [
        others[s] for s in range(3) if s != first]
    private = [e for e in events if e.visible_to is not None]
    assert private and all(e.visible_to == {first} for e in private)


def test_unused_manni_stays_unseen() -> None:
    # seed: "If no one exchanges all play with their original cards and the Manni is
    # not looked at."
    st = new()
    manni = list(st.manni)
    finish_exchange(st)
    assert st.manni == manni
    for seat in (None, 0, 1, 2):
        text = json.dumps(st.observation(seat))
        assert all(f'"{card_text(c)}"' not in text for c in manni)


def test_wrong_action_in_the_exchange_changes_nothing() -> None:
    st = new()
    before = frozen(st)
    with pytest.raises(IllegalAction, match="swap-or-keep"):
        st.apply(st.turn, Action("done"))
    with pytest.raises(IllegalAction, match="turn-order"):
        st.apply((st.turn + 1) % 3, Action("keep"))
    assert frozen(st) == before


# --- play ------------------------------------------------------------------------


def test_left_of_dealer_leads_the_first_trick() -> None:
    # seed: "The player to the dealer's left leads to the first trick."
    st = new()
    finish_exchange(st)
    assert st.turn == (st.dealer + 1) % 3


def test_must_follow_suit_if_possible() -> None:
    # seed: "Players must follow suit if possible"
    st = position(["AS 3H", "KS 4H", "QS 5H"], "H", leader=0)
    play(st, 0, "AS")
    before = frozen(st)
    assert st.legal_actions(1) == [Action("play", ("KS",))]
    with pytest.raises(IllegalAction, match="follow-suit"):
        play(st, 1, "4H")
    assert frozen(st) == before


def test_void_may_play_any_card_and_trump_wins() -> None:
    # seed: "if unable to follow they may play any card. The trick is won by the
    # highest trump in it"
    st = position(["AS 3D", "4H 5D", "KS 6D"], "H", leader=0)
    play(st, 0, "AS")
    assert {str(a) for a in st.legal_actions(1)} == {"play:4H", "play:5D"}
    play(st, 1, "4H")
    play(st, 2, "KS")
    assert st.tricks == [0, 1, 0]
    # seed: "The winner of each trick leads to the next."
    assert st.turn == 1


def test_highest_of_led_suit_wins_without_trump() -> None:
    # seed: "or, if it contains no trump, by the highest card of the suit led"
    assert trick_winner([(0, parse_card("9S")), (1, parse_card("AD")),
                         (2, parse_card("JS"))], "H") == 2
    assert trick_winner([(0, parse_card("9S")), (1, parse_card("3H")),
                         (2, parse_card("5H"))], "H") == 2


def test_playing_a_card_not_held_is_refused() -> None:
    st = position(["AS 3D", "4H 5D", "KS 6D"], "H", leader=0)
    with pytest.raises(IllegalAction, match="own-cards"):
        play(st, 0, "KS")
    with pytest.raises(IllegalAction, match="not a card"):
        play(st, 0, "ZZ")
    with pytest.raises(IllegalAction, match="turn-order"):
        play(st, 1, "4H")


# --- scoring and the end -------------------------------------------------------


def _play_out_deal(st: ManniState) -> None:
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    deal = st.deal_no
    while st.deal_no == deal and not st.is_terminal():
        st.apply(st.turn, bots[st.turn].choose(st))


def test_scoring_around_four_tricks() -> None:
    # seed: "score one point for each trick in excess of four; ... lose a point for
    # each trick short of four. Players with exactly four tricks neither win nor lose."
    st = new(seed=9)
    _play_out_deal(st)
    h = st.history[0]
    assert sum(h["tricks"]) == 12
    assert h["points"] == [t - 4 for t in h["tricks"]]
    assert st.scores == h["points"]


def test_game_ends_when_someone_reaches_ten_and_most_points_win() -> None:
    # seed: "The game continues until one or more players have a cumulative score of
    # 10 points or more. The player who then has most points is the winner."
    st = new(seed=11)
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    while not st.is_terminal():
        assert max(st.scores) < 10
        st.apply(st.turn, bots[st.turn].choose(st))
    assert max(st.scores) >= 10
    assert st.winners() == [s for s in range(3) if st.scores[s] == max(st.scores)]
    assert st.actors() == frozenset()
    with pytest.raises(IllegalAction, match="game-over"):
        st.apply(0, Action("keep"))


def test_tie_at_the_top_is_shared_by_default() -> None:
    # docs: ties at >= 10 (rules.md §3 ambiguity): option ties=share (default)
    st = new()
    st.scores = [10, 10, -20]
    assert st.rules.game_over(st)


def test_tie_at_the_top_plays_on_when_chosen() -> None:
    # docs: ties=play_on deals again until one player leads
    st = new(ties="play_on")
    st.scores = [10, 10, -20]
    assert not st.rules.game_over(st)
    st.scores = [11, 10, -21]
    assert st.rules.game_over(st)


def test_options_are_validated() -> None:
    with pytest.raises(IllegalAction, match="variant"):
        GAME.resolve_options({"variant": "nope"})
    with pytest.raises(IllegalAction, match="unknown option"):
        GAME.resolve_options({"colour": 1})
    with pytest.raises(IllegalAction, match="target"):
        GAME.new_state(3, {"target": 0}, Rng(0))
    with pytest.raises(IllegalAction, match="seats"):
        GAME.new_state(4, {}, Rng(0))


# --- Hornafjarðarmanni ------------------------------------------------------------


def test_hornafjordur_cut_card_sets_the_contract() -> None:
    # rules.md §3: "A cut card sets the contract: 2-5 is Nullo, 6-9 is trump in the
    # cut suit, and 10-A is no-trump."
    seen = set()
    for seed in range(40):
        st = new("hornafjordur", seed=seed)
        cut = card_text(st.cut_card)
        rank, suit = cut[:-1], cut[-1]
        want = ("nullo" if rank in "2345" and len(rank) == 1 else
                suit if rank in ("6", "7", "8", "9") else "grand")
        assert st.contract == want
        seen.add(want if want in ("nullo", "grand") else "suit")
    assert seen == {"nullo", "grand", "suit"}


def test_hornafjordur_manni_has_sixteen_cards() -> None:
    # rules.md §3: "Deal 4 cards to the Manni first, then 3-3-3, so the Manni ends
    # with 16 cards."
    st = new("hornafjordur")
    assert [len(h) for h in st.hands] == [12, 12, 12] and len(st.manni) == 16
    assert sorted([*st.manni, *(c for h in st.hands for c in h)]) == list(DECK_52)


def test_hornafjordur_exchange_limits_seven_five_rest() -> None:
    # rules.md §3: "left of dealer up to 7 cards, right of dealer up to 5, the dealer
    # the rest. Discards leave play."
    st = new("hornafjordur", seed=2)
    limits = []
    while st.phase == "exchange":
        seat = st.turn
        n = 0
        while Action("done") != st.legal_actions(seat)[0]:
            st.apply(seat, st.legal_actions(seat)[0])
            n += 1
        limits.append(n)
        top = st.manni[:n]
        st.apply(seat, Action("done"))
        assert set(top) <= set(st.hands[seat])   # drawn from the top of the Manni
        assert len(st.hands[seat]) == 12 and len(st.discards[seat]) == n
    assert limits == [7, 5, 4]


def test_hornafjordur_partial_exchange_can_be_undone_before_done() -> None:
    # Board Game Arena undo policy: laying a card away reveals nothing, so it can be
    # taken back until "done" draws from the Manni.
    s = Session(GAME, 3, seed=5, options={"variant": "hornafjordur"})
    seat = s.state.turn
    hand = list(s.state.hands[seat])  # type: ignore[attr-defined]
    s.apply(seat, s.state.legal_actions(seat)[0])
    assert s.can_undo(seat)
    s.undo(seat)
    assert s.state.hands[seat] == hand  # type: ignore[attr-defined]
    s.apply(seat, s.state.legal_actions(seat)[0])
    s.apply(seat, "done")
    assert not s.can_undo(seat)


def test_nullo_ace_is_low_and_scores_four_minus_tricks() -> None:
    # rules.md §3 / cardgames.io: in Nullo "Ace is a low card"; docs: 4 - tricks
    assert trick_winner([(0, parse_card("AS")), (1, parse_card("3S")),
                         (2, parse_card("2S"))], "nullo") == 1
    st = position(["AS", "3S", "2S"], "nullo", leader=0, variant="hornafjordur")
    st.tricks = [4, 4, 3]
    play(st, 0, "AS")
    play(st, 1, "3S")
    play(st, 2, "2S")
    assert st.history[-1]["tricks"] == [4, 5, 3]
    assert st.history[-1]["points"] == [0, -1, 1]


# --- dealer's choice -------------------------------------------------------------


def test_dealers_choice_each_contract_once_per_dealer_nine_deals() -> None:
    # rules.md §3: "Three contracts, each used once by every dealer, giving 9 hands."
    st = new("dealers_choice", seed=6)
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    while not st.is_terminal():
        if st.phase == "contract":
            assert st.turn == st.dealer   # the dealer names it, after seeing the hand
        st.apply(st.turn, bots[st.turn].choose(st))
    assert len(st.history) == 9
    for seat in range(3):
        named = [h["contract"] for h in st.history if h["dealer"] == seat]
        kinds = sorted("trump" if len(c) == 1 else c for c in named)
        assert kinds == ["grand", "nullo", "trump"]


def test_dealers_choice_refuses_a_used_contract() -> None:
    st = new("dealers_choice", seed=6)
    st.used[st.dealer] = ["trump"]
    before = frozen(st)
    assert {str(a) for a in st.legal_actions(st.dealer)} == {"contract:grand",
                                                             "contract:nullo"}
    with pytest.raises(IllegalAction, match="contract"):
        st.apply(st.dealer, Action("contract", ("H",)))
    assert frozen(st) == before


# --- Laugavatnsmanni ------------------------------------------------------------


def test_laugavatn_declarer_takes_the_manni_and_lays_four_away() -> None:
    # rules.md §3 / spilareglur.is: 16 cards each, a 4-card Manni; the declarer may
    # take the whole Manni or nothing, else the choice passes left.
    st = new("laugavatn", seed=3)
    assert [len(h) for h in st.hands] == [16, 16, 16] and len(st.manni) == 4
    declarer = (st.dealer + 1) % 3
    assert st.turn == declarer
    st.apply(declarer, Action("contract", ("S",)))
    assert st.legal_actions(declarer) == [Action("take"), Action("pass")]
    manni = list(st.manni)
    st.apply(declarer, Action("take"))
    assert set(manni) <= set(st.hands[declarer]) and len(st.hands[declarer]) == 20
    for _ in range(4):
        st.apply(declarer, st.legal_actions(declarer)[0])
    assert len(st.hands[declarer]) == 16 and st.phase == "play"


def test_laugavatn_par_is_eight_for_the_declarer() -> None:
    # spilareglur.is: the declarer needs eight tricks to score zero, the others four;
    # in Nullo the declarer may take four and the others six.
    st = new("laugavatn")
    st.declarer = 0
    st.contract = "H"
    st.tricks = [9, 4, 3]
    assert st.rules.deal_points(st) == [1, 0, -1]
    st.contract = "nullo"
    st.tricks = [2, 7, 7]
    assert st.rules.deal_points(st) == [2, -1, -1]


def test_laugavatn_eighteen_deals_each_contract_once_per_seat() -> None:
    # rules.md §3: "each player chooses each once, giving 18 rounds"
    st = new("laugavatn", seed=8)
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    while not st.is_terminal():
        st.apply(st.turn, bots[st.turn].choose(st))
    assert len(st.history) == 18
    for seat in range(3):
        assert sorted(h["contract"] for h in st.history if h["declarer"] == seat) == sorted(
            ["H", "S", "D", "C", "grand", "nullo"])


# --- hidden information -------------------------------------------------------


@pytest.mark.parametrize(("variant", "target", "deals"), [
    ("basic", 7, None), ("hornafjordur", 15, None), ("dealers_choice", 10, 9),
    ("laugavatn", 10, 18)])
def test_observation_tells_every_viewer_how_long_the_game_runs(
        variant: str, target: int, deals: int | None) -> None:
    """A screen joining late learns the target score (or the fixed number of deals) from
    the observation itself, not from the log's first line."""
    options = {"target": target} if deals is None else {}
    st = new(variant, seed=4, **options)
    for viewer in (None, 0, 1, 2):
        obs = st.observation(viewer)
        assert (obs["target"], obs["deals"]) == (target, deals)


@pytest.mark.parametrize("variant", ["basic", "hornafjordur", "dealers_choice", "laugavatn"])
def test_no_observation_or_event_shows_another_seats_cards(variant: str) -> None:
    s = Session(GAME, 3, seed=21, options={"variant": variant})
    bots = [RandomBot(i, Rng(i)) for i in range(3)]
    steps = 0
    while not s.state.is_terminal() and steps < 400:
        st = s.state
        assert isinstance(st, ManniState)
        for seat in range(3):
            hidden = {card_text(c) for o in range(3) if o != seat for c in st.hands[o]}
            hidden |= {card_text(c) for c in st.manni}
            hidden -= {card_text(st.cut_card)} if st.cut_card >= 0 else set()  # shown to all
            text = json.dumps(st.observation(seat))
            assert not any(f'"{c}"' in text for c in hidden)
        public = json.dumps(st.observation(None))
        assert not any(f'"{card_text(c)}"' in public for h in st.hands for c in h
                       if c != st.cut_card)
        seat = st.turn
        s.apply(seat, bots[seat].choose(st))
        steps += 1
    for e in s.events:
        if e.kind in ("hand", "drawn"):
            assert e.visible_to == frozenset({e.data["seat"]})


def test_determinize_keeps_what_the_seat_knows_and_respects_voids() -> None:
    st = new(seed=13)
    finish_exchange(st)
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    for _ in range(18):
        st.apply(st.turn, bots[st.turn].choose(st))
    st.voids[1] |= 1 << 0   # pretend seat 1 showed out of hearts
    st.hands[0].extend(c for c in st.hands[1] if c // 13 == 0)
    st.hands[1] = [c for c in st.hands[1] if c // 13 != 0]
    changed = 0
    for k in range(30):
        d = st.determinize(2, Rng(k))
        assert d.observation(2) == st.observation(2)
        assert d.hands[2] == st.hands[2]
        assert not any(c // 13 == 0 for c in d.hands[1])
        assert [len(h) for h in d.hands] == [len(h) for h in st.hands]
        assert sorted(d.hands[0] + d.hands[1] + d.manni) == sorted(
            st.hands[0] + st.hands[1] + st.manni)
        changed += d.hands[0] != st.hands[0]
    assert changed > 20


def test_determinize_solves_tight_voids_exactly() -> None:
    from controller.games.manni import _exact_deal
    cards_ = cards("AH KH QH AS KS QS AD KD")
    # Only one split fits: no spades for part 0, no hearts for part 1, and part 2
    # holds neither, so it must take both diamonds.
    parts = _exact_deal(cards_, [3, 3, 2], [0b0010, 0b0001, 0b0011], Rng(1))
    assert sorted(parts[0]) == cards("AH KH QH")
    assert sorted(parts[1]) == cards("AS KS QS")
    assert sorted(parts[2]) == cards("AD KD")
    from controller.games.manni import _constrained_deal
    for k in range(10):
        parts = _constrained_deal(cards_, [3, 3, 2], [0b0010, 0b0001, 0b0011], Rng(k))
        assert sorted(parts[2]) == cards("AD KD")


# --- persistence and replay -------------------------------------------------------


@pytest.mark.parametrize("variant", ["basic", "hornafjordur", "dealers_choice", "laugavatn"])
def test_json_round_trip_and_replay(variant: str) -> None:
    s = Session(GAME, 3, seed="rt", options={"variant": variant})
    bots = [ManniRuleBot(i, Rng(i)) for i in range(3)]
    for _ in range(60):
        seat = s.state.turn  # type: ignore[attr-defined]
        s.apply(seat, bots[seat].choose(s.state))
    data = json.loads(json.dumps(s.state.to_json()))
    back = GAME.state_from_json(data)
    assert back.to_json() == s.state.to_json()
    replayed = Session.replay(GAME, json.loads(json.dumps(s.to_json())))
    assert replayed.state.to_json() == s.state.to_json()


def test_bad_state_json_is_refused() -> None:
    with pytest.raises(IllegalAction, match="not a Manni state"):
        GAME.state_from_json({"options": {}})


def test_registry_finds_manni_with_three_default_seats() -> None:
    game = get_game("manni")
    assert game is GAME and game.default_seats == 3
    assert set(BOTS) == {"random", "rule", "search"}


# --- bots -------------------------------------------------------------------------


def test_rule_bot_beats_random_bots() -> None:
    wins = 0.0
    for seed in range(12):
        hero = seed % 3
        st = new(seed=f"rb{seed}")
        bots = [ManniRuleBot(s, Rng(s)) if s == hero else RandomBot(s, Rng(s)) for s in range(3)]
        while not st.is_terminal():
            st.apply(st.turn, bots[st.turn].choose(st))
        wins += hero in st.winners()
    assert wins >= 9


def test_search_bot_uses_only_its_own_view() -> None:
    # Two states that seat 0 cannot tell apart give the same choice.
    st = new(seed=17)
    finish_exchange(st)
    twin = st.clone()
    pool = twin.hands[1] + twin.hands[2]
    twin.hands[1], twin.hands[2] = sorted(pool[::2]), sorted(pool[1::2])
    assert twin.observation(st.turn) == st.observation(st.turn)
    seat = st.turn
    a = ManniSearchBot(seat, Rng(3), time_budget_s=60, max_iterations=6).choose(st)
    b = ManniSearchBot(seat, Rng(3), time_budget_s=60, max_iterations=6).choose(twin)
    assert a == b and a in st.legal_actions(seat)


def test_search_bot_plays_a_full_deal_legally() -> None:
    st = new("hornafjordur", seed=19)
    bots = [BOTS["search"](0, Rng(0)), ManniRuleBot(1, Rng(1)), ManniRuleBot(2, Rng(2))]
    bots[0].max_iterations = 3  # type: ignore[attr-defined]
    while st.deal_no == 1:
        st.apply(st.turn, bots[st.turn].choose(st))
    assert len(st.history) == 1


# --- golden transcripts -------------------------------------------------------------

GOLDEN = [
    ("basic", "rule", 2030),
    ("hornafjordur", "rule", 7),
    ("dealers_choice", "rule", 8),
    ("laugavatn", "random", 9),
]


def transcript(variant: str, bots: str, seed: int) -> str:
    """A complete seeded game: every action, and every event except the plain echo
    of a played card, tagged with who may see it (this is the omniscient log)."""
    s = Session(GAME, 3, seed=seed, options={"variant": variant})
    st = s.state
    assert isinstance(st, ManniState)
    players = [BOTS[bots](i, Rng(f"{bots}:{i}")) for i in range(3)]
    lines = [f"# manni variant={variant} bots={bots} seed={seed}",
             f"deal 1 dealer {st.dealer} contract {st.contract or '-'}"]
    lines.extend(f"  hand {i}: {' '.join(card_text(c) for c in h)}"
                 for i, h in enumerate(st.hands))
    lines.append(f"  manni: {' '.join(card_text(c) for c in st.manni)}")
    while not st.is_terminal():
        seat = st.turn
        action = players[seat].choose(st)
        lines.append(f"{seat} {action}")
        lines.extend(_event_line(e.to_json()) for e in s.apply(seat, action)
                     if e.kind != "play")
    lines.append(f"# result {st.returns()} winners {st.winners()}")
    return "\n".join(lines) + "\n"


def _event_line(e: dict[str, Any]) -> str:
    who = "all" if e["visible_to"] is None else ",".join(map(str, e["visible_to"]))
    chance = " chance" if e["chance"] else ""
    data = e["data"]
    if "cards" in data:
        data = {**data, "cards": " ".join(data["cards"])}
    body = " ".join(f"{k}={v}" for k, v in sorted(data.items()))
    return f"  [{who}{chance}] {e['kind']} {body}"


@pytest.mark.parametrize(("variant", "bots", "seed"), GOLDEN)
def test_golden_transcript(variant: str, bots: str, seed: int) -> None:
    # Regenerate with MANNI_REGENERATE=1 after a deliberate rule change, then review the diff.
    path = PLAYTHROUGHS / f"manni_{variant}_{bots}_seed{seed}.txt"
    text = transcript(variant, bots, seed)
    if os.environ.get("MANNI_REGENERATE"):
        path.write_text(text)
    assert path.read_text() == text


@pytest.mark.parametrize(("variant", "deck"), [("basic", 48), ("hornafjordur", 52),
                                               ("dealers_choice", 52), ("laugavatn", 52)])
def test_cards_and_zero_sum_scores_are_conserved(variant: str, deck: int) -> None:
    # Every deal hands out as many points above par as below it, so the scores sum to 0.
    st = new(variant, seed=23)
    bots = [ManniRuleBot(s, Rng(s)) for s in range(3)]
    while not st.is_terminal():
        assert st.conservation() == {"cards": deck, "score_sum": 0}
        st.apply(st.turn, bots[st.turn].choose(st))
    assert st.conservation() == {"cards": deck, "score_sum": 0}


def test_evaluate_is_the_deal_in_progress_then_the_deal_just_scored() -> None:
    st = position(["AS 3D", "4H 5D", "KS 6D"], "H", leader=0)
    st.tricks = [5, 3, 2]
    assert st.evaluate() == [1.0, -1.0, -2.0]
    for seat, card in ((0, "AS"), (1, "4H"), (2, "KS"), (1, "5D"), (2, "6D"), (0, "3D")):
        play(st, seat, card)
    assert st.deal_no == 2 and not st.played
    assert st.evaluate() == [float(p) for p in st.history[-1]["points"]]


def test_search_bot_stops_at_its_world_cap() -> None:
    st = new(seed=29)
    finish_exchange(st)
    bot = ManniSearchBot(st.turn, Rng(0), time_budget_s=60, max_iterations=5)
    assert bot.choose(st) in st.legal_actions(st.turn)
    assert bot.last_iterations == 5


def test_search_treats_touching_cards_as_one_play() -> None:
    from controller.games.manni import _distinct_plays
    st = position(["QS JS 9S 3D", "AS 4D 5D 6D", "KS 8D 7D 10D"], "H", leader=0)
    st.played = [parse_card("10S")]   # 10S is gone, so QS JS 9S touch
    legal = st.legal_actions(0)
    assert [str(a) for a in _distinct_plays(st, 0, legal)] == ["play:9S", "play:3D"]
    st.played = []
    assert [str(a) for a in _distinct_plays(st, 0, legal)] == [
        "play:9S", "play:JS", "play:3D"]
