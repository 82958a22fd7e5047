"""Cards, their text form and the solving rule (seed: Knapp daneben rule book)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.errors import InvalidCard, MalformedCard
from controller.knapp.cards import COLOUR_OF, Card, Colour, Figure, all_cards, solve

ALL = all_cards()


def brute_force_answers(card: Card) -> list[Figure]:
    """The rule book read literally, as an independent oracle."""
    if card.paint == COLOUR_OF[card.figure]:
        return [card.figure]
    visible = {card.paint, *card.background}
    return [f for f in Figure if f != card.figure and COLOUR_OF[f] not in visible]


def test_true_colours_from_the_rule_book() -> None:
    assert {f.value: c.value for f, c in COLOUR_OF.items()} == {
        "ship": "blue", "viking": "red", "child": "green", "chest": "yellow", "dog": "white",
    }


def test_seed_example_true_colour() -> None:
    # seed: "a blue ship with a green meadow and a yellow wheat field ... the blue ship"
    assert solve(Card.parse("ship:blue/green+yellow")).answer is Figure.SHIP


def test_seed_example_wrong_colour() -> None:
    # seed: "a yellow ship with red earth and a green meadow ... therefore the white dog"
    sol = solve(Card.parse("ship:yellow/red+green"))
    assert sol.answer is Figure.DOG
    assert sol.by_shape == (Figure.SHIP,)
    assert {f for f, _ in sol.by_colour} == {Figure.VIKING, Figure.CHILD, Figure.CHEST}
    assert "white dog is correct" in sol.explanation
    assert "red is visible: the earth" in sol.explanation


def test_explanations_name_the_figures_as_the_screens_do() -> None:
    # "The Viking", "the treasure chest" as on every screen, not the ids "viking", "chest".
    assert solve(Card.parse("viking:red/blue+white")).explanation == (
        "The Viking is shown in its true colour (red), so the red Viking is correct.")
    sol = solve(Card.parse("chest:blue/green+red"))
    assert sol.explanation.startswith("The treasure chest is painted blue, not its true colour: "
                                      "not the yellow treasure chest (pictured in the wrong")
    assert "(blue is visible: the treasure chest is painted blue)" in sol.explanation
    assert "Viking child is painted" in solve(Card.parse("child:white/red+blue")).explanation
    for card in (c for c in ALL if c.figure in (Figure.VIKING, Figure.CHILD, Figure.CHEST)):
        try:
            words = solve(card).explanation
        except InvalidCard:
            continue
        assert f"The {card.figure.value} " not in words, card


def test_there_are_250_printable_cards() -> None:
    assert len(ALL) == 5 * 5 * 10
    assert len(set(ALL)) == len(ALL)


@pytest.mark.parametrize("card", ALL, ids=str)
def test_every_card_agrees_with_the_literal_rule(card: Card) -> None:
    answers = brute_force_answers(card)
    if len(answers) == 1:
        assert solve(card).answer is answers[0]
    else:
        with pytest.raises(InvalidCard) as err:
            solve(card)
        assert str(card) in str(err.value)
        assert f"{len(answers)} figures remain" in str(err.value)


def test_unique_iff_three_distinct_colours_none_the_figures_own() -> None:
    # rules.md: a wrong-colour card is unambiguous iff paint and background are three
    # distinct colours and none is the pictured figure's true colour.
    for card in ALL:
        if card.true_colour:
            continue
        expected = len(card.visible_colours) == 3 and card.figure.colour not in card.visible_colours
        assert (len(brute_force_answers(card)) == 1) == expected


@given(st.sampled_from(ALL))
def test_text_form_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert str(Card.parse(str(card))) == str(card)


@given(st.sampled_from(list(Figure)), st.sampled_from(list(Colour)),
       st.sampled_from(list(itertools.permutations(Colour, 2))))
def test_background_order_does_not_matter(fig: Figure, paint: Colour,
                                           bg: tuple[Colour, Colour]) -> None:
    a = Card.parse(f"{fig.value}:{paint.value}/{bg[0].value}+{bg[1].value}")
    b = Card.parse(f"{fig.value}:{paint.value}/{bg[1].value}+{bg[0].value}")
    assert a == b and str(a) == str(b)
    order = list(Colour)
    assert order.index(a.background[0]) < order.index(a.background[1])


def test_parse_is_lenient_about_case_and_spaces() -> None:
    assert str(Card.parse("  SHIP:Yellow/Green+red ")) == "ship:yellow/red+green"


@pytest.mark.parametrize(("text", "fragment"), [
    ("", "missing ':'"),
    ("ship", "missing ':'"),
    ("ship:yellow", "missing '/'"),
    ("ship:yellow/red", "exactly two colours"),
    ("ship:yellow/red+green+blue", "exactly two colours"),
    ("boat:yellow/red+green", "unknown figure 'boat'"),
    ("ship:purple/red+green", "unknown colour 'purple'"),
    ("ship:yellow/red+pink", "unknown colour 'pink'"),
    ("ship:yellow/red+red", "must differ"),
])
def test_malformed_cards_name_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(MalformedCard) as err:
        Card.parse(text)
    assert fragment in str(err.value)


@given(st.text(max_size=40))
def test_parse_never_crashes_on_garbage(text: str) -> None:
    try:
        card = Card.parse(text)
    except MalformedCard:
        return
    assert Card.parse(str(card)) == card


def test_ambiguous_reasons() -> None:
    with pytest.raises(InvalidCard, match="yellow is both the paint and a background colour"):
        solve(Card.parse("ship:yellow/yellow+green"))
    with pytest.raises(InvalidCard, match="true colour blue is visible"):
        solve(Card.parse("ship:yellow/blue+green"))
    # both at once: red paint on red earth, and the ship's blue in the sea
    with pytest.raises(InvalidCard) as err:
        solve(Card.parse("ship:red/blue+red"))
    assert "red is both the paint and a background colour" in str(err.value)
    assert "true colour blue is visible" in str(err.value)
    assert "3 figures remain" in str(err.value)


@pytest.mark.parametrize("card", [c for c in ALL if len(brute_force_answers(c)) != 1], ids=str)
def test_every_ambiguous_card_gives_a_cause(card: Card) -> None:
    with pytest.raises(InvalidCard) as err:
        solve(card)
    assert "no unique answer: " in str(err.value)
    assert "both the paint" in str(err.value) or "is visible in the background" in str(err.value)


def test_every_printable_card_once_in_canonical_order():
    cards = all_cards()  # called here, not only at import, so a changed all_cards is seen
    assert len(cards) == len(set(cards)) == len(Figure) * len(Colour) * 10  # 5 choose 2
    assert cards == ALL
    assert cards[0] == Card(Figure.SHIP, Colour.BLUE, (Colour.BLUE, Colour.RED))


def test_text_that_is_not_text_and_equal_backgrounds_are_named():
    with pytest.raises(MalformedCard) as err:
        Card.parse(7)  # type: ignore[arg-type]
    assert str(err.value) == "a card is text, got int"
    with pytest.raises(MalformedCard) as err:
        Card(Figure.DOG, Colour.RED, (Colour.BLUE, Colour.BLUE))
    assert str(err.value) == "background colours must differ, got blue+blue"
