"""The log in words: one sentence per event, for the table screen and the phones.

A sentence is made only from the event's own data, so it says exactly what
the event tells its viewers (an event hidden from a seat never becomes a
sentence on that seat's screen). Kinds without a sentence of their own get a
generic one built from their fields; the designed screens of each game can
say it better.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Names = Sequence[str]
_Phrase = Callable[[Mapping[str, Any], Names], str]


def _who(data: Mapping[str, Any], names: Names, key: str = "seat") -> str:
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    return "someone"


def _cards(value: Any) -> str:
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value) or "nothing"
    return str(value)


def _scores(value: Any, names: Names) -> str:
    if not isinstance(value, list | tuple):
        return str(value)
    return ", ".join(f"{names[i] if i < len(names) else i} {_num(v)}"
                     for i, v in enumerate(value))


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _winners(data: Mapping[str, Any], names: Names) -> str:
    winners = data.get("winners")
    if isinstance(winners, list) and winners:
        return " and ".join(names[w] for w in winners if isinstance(w, int) and w < len(names))
    return ""


# One sentence per event kind shared by several games or worth saying well.
PHRASES: dict[str, _Phrase] = {
    "started": lambda d, n: f"A game of {d.get('game')} starts with {d.get('seats')} seats.",
    "hand": lambda d, n: f"{_who(d, n)}'s hand: {_cards(d.get('cards'))}.",
    "dealt": lambda d, n: (f"{_who(d, n)} is dealt {_cards(d.get('hand', d.get('cards')))}."
                           if "seat" in d else f"Cards are dealt (deal {d.get('deal')})."),
    "deal": lambda d, n: f"Deal {d.get('deal', d.get('round', ''))} is dealt.",
    "play": lambda d, n: f"{_who(d, n)} plays {d.get('card')}.",
    "played": lambda d, n: f"{_who(d, n)} plays {_cards(d.get('card', d.get('cards')))}.",
    "led": lambda d, n: f"{_who(d, n)} leads {d.get('card')}.",
    "trick": lambda d, n: (f"{_who(d, n, 'winner')} takes the trick "
                           f"({_cards(d.get('cards'))})."),
    "score": lambda d, n: f"Deal {d.get('deal')} scored: {_scores(d.get('scores'), n)}.",
    "game_over": lambda d, n: _game_over(d, n),  # noqa: PLW0108 (defined below)
    "game-over": lambda d, n: _game_over(d, n),  # noqa: PLW0108
    "took": lambda d, n: f"{_who(d, n)} takes {d.get('card')} from the pile.",
    "took_pile": lambda d, n: f"{_who(d, n)} takes the pile: {_cards(d.get('cards'))}.",
    "drew": lambda d, n: (f"{_who(d, n)} draws {_cards(d['cards'])}." if "cards" in d
                          else f"{_who(d, n)} draws from the stock."),
    "drew_card": lambda d, n: f"{_who(d, n)} draws {d.get('card')}.",
    "discarded": lambda d, n: f"{_who(d, n)} discards {d.get('card')}.",
    "melded": lambda d, n: f"{_who(d, n)} melds a {d.get('kind')}: {_cards(d.get('cards'))}.",
    "laid_off": lambda d, n: f"{_who(d, n)} lays {d.get('card')} off on meld {d.get('meld')}.",
    "bet": lambda d, n: f"{_who(d, n)} bets (pot {d.get('pukk')}).",
    "pass": lambda d, n: f"{_who(d, n)} passes.",
    "passed": lambda d, n: f"{_who(d, n)} passes.",
    "fold": lambda d, n: f"{_who(d, n)} folds.",
    "match": lambda d, n: f"{_who(d, n)} matches the bet.",
    "swap": lambda d, n: f"{_who(d, n)} swaps hands with the Manni.",
    "keep": lambda d, n: f"{_who(d, n)} keeps their hand.",
    "tossed": lambda d, n: f"{_team(d)} tossed {d.get('result')}.",
    "won": lambda d, n: f"{_team(d)} wins the match.",
    "kobb-placed": lambda d, n: f"{_who(d, n)} places the Kobb on {d.get('square')}.",
    "white-moved": lambda d, n: f"{_who(d, n)} moves white {d.get('from')} → {d.get('to')}.",
    "kobb-moved": lambda d, n: f"{_who(d, n)} moves the Kobb {d.get('from')} → {d.get('to')}.",
    "kobb-out": lambda d, n: f"{_who(d, n)}'s Kobb leaves at {d.get('exit')} "
                             f"(tail {d.get('tail')}).",
    # The room's own events.
    "joined": lambda d, n: f"{d.get('name') or 'A person'} takes seat {_seat_list(d)}.",
    "released": lambda d, n: f"{_who(d, n)} leaves the table.",
    "computer": lambda d, n: f"A computer ({d.get('level')}) plays for {_who(d, n)}.",
    "reclaimed": lambda d, n: f"{_who(d, n)} takes the seat back from the computer.",
    "undone": lambda d, n: f"{_who(d, n)} takes back {d.get('moves', 1)} move(s).",
    "finished": lambda d, n: (f"The game is over: {_winners(d, n)} won." if _winners(d, n)
                              else "The game is over."),
}


def _team(data: Mapping[str, Any]) -> str:
    return f"Team {int(data.get('team', 0)) + 1}"


def _seat_list(data: Mapping[str, Any]) -> str:
    seats = data.get("seats", [])
    return ", ".join(str(s + 1) for s in seats) if isinstance(seats, list) else "?"


def _game_over(data: Mapping[str, Any], names: Names) -> str:
    values = data.get("scores", data.get("totals", data.get("returns")))
    return f"Game over: {_scores(values, names)}." if values is not None else "Game over."


def describe(kind: str, data: Mapping[str, Any], names: Names) -> str:
    """One sentence for an event of `kind` with `data`, naming seats by `names`."""
    phrase = PHRASES.get(kind)
    if phrase is not None:
        try:
            return phrase(data, names)
        except (KeyError, TypeError, ValueError, IndexError):
            pass  # an unexpected shape falls back to the generic sentence
    subject = _who(data, names) if "seat" in data else (
        _team(data) if "team" in data else "")
    rest = ", ".join(f"{k.replace('_', ' ')} {_value(v, names)}" for k, v in data.items()
                     if k not in ("seat", "team"))
    head = f"{subject}: {kind.replace('_', ' ').replace('-', ' ')}" if subject else \
        kind.replace("_", " ").replace("-", " ").capitalize()
    return f"{head}{' (' + rest + ')' if rest else ''}."


def _value(value: Any, names: Names) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return "[" + " ".join(_value(v, names) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} {_value(v, names)}" for k, v in value.items()) + "}"
    if value is None:
        return "none"
    return _num(value)
