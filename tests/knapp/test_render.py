"""Card pictures: valid SVG, the right colours in the right places."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from controller.knapp.cards import Card
from controller.knapp.deck import standard_deck
from controller.knapp.render import FILL, card_svg

NS = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("card", standard_deck(), ids=str)
def test_every_card_is_valid_svg_with_its_colours(card: Card) -> None:
    root = ET.fromstring(card_svg(card))
    assert root.tag == f"{NS}svg"
    assert root.findtext(f"{NS}title") == str(card)
    fills = [el.get("fill") for el in root.iter()]
    figure_group = next(g for g in root.iter(f"{NS}g") if "scale" in (g.get("transform") or ""))
    painted = {p.get("fill") for p in figure_group.iter(f"{NS}path")} - {"none"}
    assert painted == {FILL[card.paint]}
    for colour in card.background:
        assert FILL[colour] in fills
    assert card.paint.value in (root.get("aria-label") or "")


def test_colour_blind_patterns_differ_per_colour() -> None:
    plain = card_svg(Card.parse("ship:yellow/red+green"))
    cb = card_svg(Card.parse("ship:yellow/red+green"), colour_blind=True)
    assert "pat-" not in plain
    for name in ("pat-yellow", "pat-red", "pat-green"):
        assert f"url(#{name})" in cb
    assert "url(#pat-blue)" not in cb
    root = ET.fromstring(cb)
    label = "".join(t.text or "" for t in root.iter(f"{NS}text"))
    assert "yellow ship" in label and "earth (dots)" in label and "meadow (diagonals)" in label
