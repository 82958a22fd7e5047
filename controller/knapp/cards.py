"""Cards, their canonical text form, and the rule that names the correct figure.

A card shows one figure painted in one colour on a background of two different
colours. Its text form is ``FIGURE:PAINT/BG1+BG2``; the background is a set, so
``ship:yellow/red+green`` and ``ship:yellow/green+red`` are the same card and
format to the canonical order (the order of `Colour`).

>>> str(Card.parse("ship:yellow/red+green"))
'ship:yellow/red+green'
>>> str(Card.parse("ship:yellow/green+red"))
'ship:yellow/red+green'
>>> solve(Card.parse("ship:yellow/red+green")).answer
<Figure.DOG: 'dog'>
>>> solve(Card.parse("ship:blue/green+yellow")).answer
<Figure.SHIP: 'ship'>
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass
from functools import cache

from controller.errors import InvalidCard, MalformedCard


class Colour(enum.Enum):
    """The five colours; each is exactly one figure's true colour."""

    BLUE = "blue"
    RED = "red"
    GREEN = "green"
    YELLOW = "yellow"
    WHITE = "white"

    def __str__(self) -> str:
        return self.value


class Figure(enum.Enum):
    """The five wooden figures."""

    SHIP = "ship"
    VIKING = "viking"
    CHILD = "child"
    CHEST = "chest"
    DOG = "dog"

    def __str__(self) -> str:
        return self.value

    @property
    def colour(self) -> Colour:
        """The figure's true colour."""
        return COLOUR_OF[self]

    @property
    def title(self) -> str:
        """A human name for screens: 'blue ship', 'red Viking', ..."""
        return _TITLES[self]


COLOUR_OF: dict[Figure, Colour] = {
    Figure.SHIP: Colour.BLUE,
    Figure.VIKING: Colour.RED,
    Figure.CHILD: Colour.GREEN,
    Figure.CHEST: Colour.YELLOW,
    Figure.DOG: Colour.WHITE,
}
FIGURE_OF: dict[Colour, Figure] = {c: f for f, c in COLOUR_OF.items()}
_TITLES = {
    Figure.SHIP: "blue ship",
    Figure.VIKING: "red Viking",
    Figure.CHILD: "green Viking child",
    Figure.CHEST: "yellow treasure chest",
    Figure.DOG: "white dog",
}


def _noun(figure: Figure) -> str:
    # The figure's name without its true colour ("treasure chest"), for sentences that
    # then say which colour it is painted in.
    return figure.title.split(" ", 1)[1]


_COLOUR_ORDER = {c: i for i, c in enumerate(Colour)}


def _parse_enum(kind: type[enum.Enum], text: str, what: str, card: str) -> enum.Enum:
    try:
        return kind(text.strip().lower())
    except ValueError:
        known = ", ".join(m.value for m in kind)
        raise MalformedCard(
            f"{card!r}: unknown {what} {text!r} (expected one of {known})"
        ) from None


@dataclass(frozen=True, slots=True)
class Card:
    """One card: a figure painted in `paint` on a two-colour background.

    Args:
        figure: the pictured figure.
        paint: the colour the figure is painted in.
        background: the two background colours, canonical order.
    """

    figure: Figure
    paint: Colour
    background: tuple[Colour, Colour]

    def __post_init__(self) -> None:
        a, b = self.background
        if a == b:
            raise MalformedCard(f"background colours must differ, got {a}+{b}")
        if _COLOUR_ORDER[a] > _COLOUR_ORDER[b]:
            object.__setattr__(self, "background", (b, a))

    @classmethod
    def make(cls, figure: Figure, paint: Colour, bg1: Colour, bg2: Colour) -> Card:
        """Build a card from its parts in any background order."""
        return cls(figure, paint, (bg1, bg2))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``FIGURE:PAINT/BG1+BG2``; raise `MalformedCard` naming what is wrong."""
        if not isinstance(text, str):
            raise MalformedCard(f"a card is text, got {type(text).__name__}")
        card = _CANONICAL.get(text)
        return card if card is not None else cls._parse(text)

    @classmethod
    def _parse(cls, text: str) -> Card:
        raw = text.strip()
        if ":" not in raw:
            raise MalformedCard(f"{text!r}: missing ':' between figure and paint "
                                "(expected FIGURE:PAINT/BG1+BG2)")
        fig_s, rest = raw.split(":", 1)
        if "/" not in rest:
            raise MalformedCard(f"{text!r}: missing '/' between paint and background "
                                "(expected FIGURE:PAINT/BG1+BG2)")
        paint_s, bg_s = rest.split("/", 1)
        parts = bg_s.split("+")
        if len(parts) != 2:
            raise MalformedCard(f"{text!r}: the background needs exactly two colours "
                                f"joined by '+', got {len(parts)}")
        figure = _parse_enum(Figure, fig_s, "figure", text)
        paint = _parse_enum(Colour, paint_s, "colour", text)
        bg1 = _parse_enum(Colour, parts[0], "colour", text)
        bg2 = _parse_enum(Colour, parts[1], "colour", text)
        if bg1 == bg2:
            raise MalformedCard(f"{text!r}: the two background colours must differ, "
                                f"both are {bg1.value}")
        return cls.make(figure, paint, bg1, bg2)  # type: ignore[arg-type]

    def __str__(self) -> str:
        a, b = self.background
        return f"{self.figure.value}:{self.paint.value}/{a.value}+{b.value}"

    @property
    def true_colour(self) -> bool:
        """True when the figure is painted in its own colour."""
        return self.paint == self.figure.colour

    @property
    def visible_colours(self) -> frozenset[Colour]:
        """The colours a player sees: the paint and the two background colours."""
        return frozenset((self.paint, *self.background))


@dataclass(frozen=True, slots=True)
class Solution:
    """The correct figure for a card and why.

    Args:
        card: the card solved.
        answer: the correct figure.
        by_shape: figures excluded because their shape is pictured.
        by_colour: figures excluded because their colour is visible (with where).
    """

    card: Card
    answer: Figure
    by_shape: tuple[Figure, ...]
    by_colour: tuple[tuple[Figure, str], ...]

    @property
    def explanation(self) -> str:
        """One sentence for the verdict and dispute screens."""
        card = self.card
        if card.true_colour:
            return (f"The {_noun(card.figure)} is shown in its true colour "
                    f"({card.paint.value}), so the {self.answer.title} is correct.")
        parts = [f"not the {f.title} (pictured in the wrong colour)" for f in self.by_shape]
        parts += [f"not the {f.title} ({f.colour.value} is visible: {where})"
                  for f, where in self.by_colour]
        return (f"The {_noun(card.figure)} is painted {card.paint.value}, not its true colour: "
                + "; ".join(parts) + f". So the {self.answer.title} is correct.")


_BG_PLACE = {
    Colour.GREEN: "meadow",
    Colour.YELLOW: "wheat field",
    Colour.RED: "earth",
    Colour.BLUE: "sea",
    Colour.WHITE: "snow",
}


def background_name(colour: Colour) -> str:
    """The themed region a background colour is drawn as (meadow, sea, ...)."""
    return _BG_PLACE[colour]


def solve(card: Card) -> Solution:
    """Apply the rule as written and return the correct figure with its reasons.

    Raises:
        InvalidCard: the card has no unique correct figure, with the reason.
    """
    return _solve(card)


@cache
def _solve(card: Card) -> Solution:
    if card.true_colour:
        return Solution(card, card.figure, (), ())
    a, b = card.background
    remaining = [f for f in Figure if f != card.figure and f.colour not in card.visible_colours]
    if len(remaining) != 1:
        names = " and ".join(f"the {f.title}" for f in remaining)
        causes = []
        if card.paint in card.background:
            causes.append(f"{card.paint.value} is both the paint and a background colour, "
                          "so only two colours are visible")
        if card.figure.colour in card.background:
            causes.append(f"the {_noun(card.figure)}'s true colour {card.figure.colour.value} "
                          "is visible in the background, so it excludes no other figure")
        cause = "; and ".join(causes)
        raise InvalidCard(f"{card}: no unique answer: {cause}; {len(remaining)} figures "
                          f"remain ({names})")
    where = {card.paint: f"the {_noun(card.figure)} is painted {card.paint.value}",
             a: f"the {_BG_PLACE[a]}", b: f"the {_BG_PLACE[b]}"}
    by_colour = tuple((f, where[f.colour]) for f in Figure
                      if f != card.figure and f.colour in card.visible_colours)
    return Solution(card, remaining[0], (card.figure,), by_colour)


def _canonical_table() -> dict[str, Card]:
    table = {}
    for fig in Figure:
        for paint in Colour:
            for a, b in itertools.combinations(Colour, 2):
                card = Card(fig, paint, (a, b))
                table[str(card)] = card
    return table


# Replays parse the same 250 canonical texts over and over; look them up.
_CANONICAL: dict[str, Card] = _canonical_table()


def all_cards() -> list[Card]:
    """Every distinct card that can be printed (valid or not), canonical order."""
    out = []
    for fig in Figure:
        for paint in Colour:
            for a, b in itertools.combinations(Colour, 2):
                out.append(Card(fig, paint, (a, b)))
    return out
