"""The pure core of Knapp daneben: cards, the solving rule, the deck, the match.

Nothing here touches a sensor, the store or the web; it only imports the shared
seeded generator and the error base.
"""

from controller.knapp.cards import (
    COLOUR_OF,
    FIGURE_OF,
    Card,
    Colour,
    Figure,
    Solution,
    all_cards,
    solve,
)

__all__ = [
    "COLOUR_OF",
    "FIGURE_OF",
    "Card",
    "Colour",
    "Figure",
    "Solution",
    "all_cards",
    "solve",
]
