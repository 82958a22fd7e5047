"""The card pictures people reviewed (docs/deck.md) change only deliberately.

`render_pins.json` beside this file holds the SHA-256 of `card_svg` for every
card of the standard deck (plain and colour-blind) and of `figure_svg` for
every figure. A change to a coordinate, colour or attribute of any picture
fails `test_every_picture_matches_its_pin`. When a picture is changed on
purpose, look at the new pictures first (docs/deck.md), then regenerate the
pins from the repository root and commit them with the change:

    python -m tests.knapp.test_render_pinned --regen

The other tests check what a reviewer would check by eye, so the pins are not
the only guard: every picture is well-formed SVG of the right size, shows the
figure's paint and both background colours, and names the card.
"""

from __future__ import annotations

import hashlib
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from controller.knapp.cards import Card, Colour, Figure, background_name
from controller.knapp.deck import standard_deck
from controller.knapp.render import FILL, HEIGHT, WIDTH, card_svg, figure_svg

PINS = Path(__file__).with_name("render_pins.json")
NS = "{http://www.w3.org/2000/svg}"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def current_pins() -> dict[str, dict[str, str]]:
    """The digests of every picture as the code draws it now."""
    deck = standard_deck()
    return {
        "card_svg": {str(c): _sha(card_svg(c)) for c in deck},
        "card_svg_colour_blind": {str(c): _sha(card_svg(c, colour_blind=True)) for c in deck},
        "figure_svg": {f.value: _sha(figure_svg(f)) for f in Figure},
    }


def regen() -> None:
    """Rewrite render_pins.json from the current drawing code."""
    PINS.write_text(json.dumps(current_pins(), indent=1, sort_keys=True) + "\n")


def test_every_picture_matches_its_pin() -> None:
    pinned = json.loads(PINS.read_text())
    now = current_pins()
    assert now.keys() == pinned.keys()
    for kind, digests in now.items():
        changed = sorted(k for k in digests.keys() | pinned[kind].keys()
                         if digests.get(k) != pinned[kind].get(k))
        assert changed == [], f"{kind} changed for {changed} (see this file's docstring)"


def test_the_defaults_are_the_plain_picture_with_a_title() -> None:
    card = Card.parse("ship:yellow/red+green")
    assert card_svg(card) == card_svg(card, colour_blind=False, title=True)
    untitled = card_svg(card, title=False)
    assert "<title>" not in untitled
    assert untitled == card_svg(card).replace(f"<title>{card}</title>", "")


@pytest.mark.parametrize("colour_blind", [False, True], ids=["plain", "colour-blind"])
@pytest.mark.parametrize("card", standard_deck(), ids=str)
def test_every_card_is_a_picture_a_reviewer_would_accept(card: Card, colour_blind: bool) -> None:
    root = ET.fromstring(card_svg(card, colour_blind=colour_blind))
    assert root.tag == f"{NS}svg"
    assert root.get("viewBox") == f"0 0 {WIDTH} {HEIGHT}" == "0 0 300 420"
    assert (root.get("width"), root.get("height")) == ("300", "420")
    top, bottom = card.background
    assert root.get("aria-label") == (f"A {card.paint.value} {card.figure.value} on "
                                      f"{background_name(top)} and {background_name(bottom)}")
    fills = {el.get("fill") for el in root.iter()}
    assert {FILL[card.paint], FILL[top], FILL[bottom]} <= fills
    figure = next(g for g in root.iter(f"{NS}g") if "scale" in (g.get("transform") or ""))
    assert {p.get("fill") for p in figure.iter(f"{NS}path")} - {"none"} - {
        f"url(#pat-{card.paint.value})"} == {FILL[card.paint]}
    patterns = {p.get("id") for p in root.iter(f"{NS}pattern")}
    if colour_blind:
        assert patterns == {"pat-blue", "pat-red", "pat-green", "pat-yellow"}
        shown = {c for c in (card.paint, top, bottom) if c is not Colour.WHITE}
        assert {f"url(#pat-{c.value})" for c in shown} <= fills
    else:
        assert patterns == set()


@pytest.mark.parametrize("figure", list(Figure), ids=lambda f: f.value)
def test_every_figure_alone_is_drawn_in_its_true_colour(figure: Figure) -> None:
    root = ET.fromstring(figure_svg(figure))
    assert root.tag == f"{NS}svg"
    assert root.get("viewBox") == "-4 -4 108 108"
    assert root.get("aria-label") == f"the {figure.title}"
    fills = {p.get("fill") for p in root.iter(f"{NS}path")}
    assert fills == {FILL[figure.colour], "none"}


if __name__ == "__main__":
    if sys.argv[1:] != ["--regen"]:
        sys.exit("usage: python -m tests.knapp.test_render_pinned --regen")
    regen()
    print(f"wrote {PINS.name}")
