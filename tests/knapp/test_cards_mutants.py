"""Card parsing errors, word for word (the survivors of mutation testing, issue 14).

`tests/knapp/test_cards.py` checks that each error names a fragment; these pin the
whole message, so a change to its words, the list of known values or the card it
names fails. They also pin which separator is split first when a card holds more
than one ':' or '/': the first, so the error names the part that is really wrong.
"""

from __future__ import annotations

import pytest

from controller.errors import MalformedCard
from controller.knapp.cards import Card

_FORM = "(expected FIGURE:PAINT/BG1+BG2)"
_FIGURES = "ship, viking, child, chest, dog"
_COLOURS = "blue, red, green, yellow, white"


def _error(text: str) -> str:
    with pytest.raises(MalformedCard) as err:
        Card.parse(text)
    return str(err.value)


@pytest.mark.parametrize(("text", "message"), [
    ("ship", f"'ship': missing ':' between figure and paint {_FORM}"),
    ("ship:yellow", f"'ship:yellow': missing '/' between paint and background {_FORM}"),
])
def test_a_missing_separator_is_named_with_the_expected_form(text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize(("text", "message"), [
    ("boat:yellow/red+green",
     f"'boat:yellow/red+green': unknown figure 'boat' (expected one of {_FIGURES})"),
    ("ship:purple/red+green",
     f"'ship:purple/red+green': unknown colour 'purple' (expected one of {_COLOURS})"),
    ("ship:yellow/pink+green",
     f"'ship:yellow/pink+green': unknown colour 'pink' (expected one of {_COLOURS})"),
    ("ship:yellow/red+pink",
     f"'ship:yellow/red+pink': unknown colour 'pink' (expected one of {_COLOURS})"),
])
def test_an_unknown_name_in_each_place_is_named_with_the_card_and_the_known_names(
        text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize(("text", "message"), [
    # A second ':' belongs to the paint, which is then unknown; it does not make the
    # figure 'ship:yellow' nor fail to unpack.
    ("ship:yellow:x/red+green",
     f"'ship:yellow:x/red+green': unknown colour 'yellow:x' (expected one of {_COLOURS})"),
    # A second '/' belongs to the background, whose first colour is then unknown.
    ("ship:yellow/red/x+green",
     f"'ship:yellow/red/x+green': unknown colour 'red/x' (expected one of {_COLOURS})"),
])
def test_a_second_separator_is_part_of_what_follows_the_first(text: str, message: str) -> None:
    assert _error(text) == message
