"""The 60-card deck and its seeded shuffle.

The mix (documented in docs/deck.md): every figure is the answer 12 times,
4 times on a true-colour card and 8 times on a wrong-colour card, so a third of
the deck asks for the pictured figure and two thirds ask for the deduction.
Every figure is also pictured exactly 12 times (4 true-colour + 8 wrong-colour),
so the picture alone gives nothing away.

- True-colour cards: figure F in its own colour on two of the other four
  colours. Of the six possible backgrounds we keep four that form a cycle over
  the four colours, so each background colour appears twice per figure, and
  never the figure's own colour (it would hide the figure).
- Wrong-colour cards: for answer G and pictured F (F != G) the three visible
  colours are exactly the other three colours; one is the paint and two are
  the background. Of the three possible paints we keep two, rotating which is
  dropped, so paints stay balanced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from controller.knapp.cards import COLOUR_OF, FIGURE_OF, Card, Colour, Figure, solve
from controller.rng import Rng

DECK_SIZE = 60
ANSWERS_PER_FIGURE = 12
TRUE_COLOUR_PER_FIGURE = 4
WRONG_COLOUR_PER_FIGURE = 8

_FIG_INDEX = {f: i for i, f in enumerate(Figure)}
_COL_INDEX = {c: i for i, c in enumerate(Colour)}


def standard_deck() -> list[Card]:
    """Return the 60 cards in their canonical (unshuffled) order."""
    cards: list[Card] = []
    for fig in Figure:
        others = [c for c in Colour if c != fig.colour]
        # A 4-cycle over the other colours: each appears in exactly two backgrounds.
        for i in range(4):
            cards.append(Card.make(fig, fig.colour, others[i], others[(i + 1) % 4]))
    for answer in Figure:
        for pictured in Figure:
            if pictured == answer:
                continue
            visible = [c for c in Colour if c not in (answer.colour, pictured.colour)]
            drop = (_FIG_INDEX[answer] + _FIG_INDEX[pictured]) % 3
            for k, paint in enumerate(visible):
                if k == drop:
                    continue
                a, b = (c for c in visible if c != paint)
                cards.append(Card.make(pictured, paint, a, b))
    return cards


def shuffled_deck(seed: int | str | bytes = 0) -> list[Card]:
    """Return the deck in deal order for `seed`; identical on every Python and platform."""
    cards = standard_deck()
    Rng(seed).fork("deck").shuffle(cards)
    return cards


def deck_problems(cards: Sequence[Card]) -> list[str]:
    """Check every deck property; return the failures in order (empty when sound)."""
    problems: list[str] = []
    if len(cards) != DECK_SIZE:
        problems.append(f"the deck has {len(cards)} cards, expected {DECK_SIZE}")
    dupes = [str(c) for c, n in Counter(cards).items() if n > 1]
    if dupes:
        problems.append(f"duplicate cards: {', '.join(sorted(dupes))}")
    answers: Counter[Figure] = Counter()
    true_colour: Counter[Figure] = Counter()
    for card in cards:
        try:
            answer = solve(card).answer
        except ValueError as exc:
            problems.append(f"invalid card {card}: {exc}")
            continue
        answers[answer] += 1
        if card.true_colour:
            true_colour[answer] += 1
            if card.figure.colour in card.background:
                problems.append(f"{card}: a true-colour card's background repeats the "
                                f"figure's own colour {card.figure.colour.value}")
    for fig in Figure:
        if answers[fig] != ANSWERS_PER_FIGURE:
            problems.append(f"the {fig.value} is the answer {answers[fig]} times, "
                            f"expected {ANSWERS_PER_FIGURE}")
        if true_colour[fig] != TRUE_COLOUR_PER_FIGURE:
            problems.append(f"the {fig.value} is the answer on {true_colour[fig]} true-colour "
                            f"cards, expected {TRUE_COLOUR_PER_FIGURE} (documented mix 4 + 8)")
    return problems


def deck_stats(cards: Sequence[Card]) -> dict[str, dict[str, int]]:
    """Counts per figure and colour, for docs and the `--check` report."""
    stats: dict[str, dict[str, int]] = {
        "answer": {f.value: 0 for f in Figure},
        "pictured": {f.value: 0 for f in Figure},
        "paint": {c.value: 0 for c in Colour},
        "background": {c.value: 0 for c in Colour},
        "kind": {"true_colour": 0, "wrong_colour": 0},
    }
    for card in cards:
        stats["answer"][solve(card).answer.value] += 1
        stats["pictured"][card.figure.value] += 1
        stats["paint"][card.paint.value] += 1
        for c in card.background:
            stats["background"][c.value] += 1
        stats["kind"]["true_colour" if card.true_colour else "wrong_colour"] += 1
    return stats


__all__ = [
    "ANSWERS_PER_FIGURE",
    "COLOUR_OF",
    "DECK_SIZE",
    "FIGURE_OF",
    "deck_problems",
    "deck_stats",
    "shuffled_deck",
    "standard_deck",
]
