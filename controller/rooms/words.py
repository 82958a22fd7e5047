"""The log in words: one sentence per event, for the table screen and the phones.

A sentence is made only from the event's own data, so it says exactly what
the event tells its viewers (an event hidden from a seat never becomes a
sentence on that seat's screen). Kinds without a sentence of their own get a
generic one built from their fields; the designed screens of each game can
say it better. A kind two games (or a game and the room) share is told apart by
the shape of its data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller.errors import IllegalAction
from controller.games import get_game

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


def _count(k: Any, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _game_name(value: Any) -> str:
    # The event carries the game's id; people know the game by its name.
    if not isinstance(value, str):
        return str(value)
    try:
        return get_game(value).name
    except IllegalAction:
        return value


def _seats(value: Any, names: Names) -> str:
    if not isinstance(value, list | tuple) or not value:
        return "nobody"
    return ", ".join(names[s] if isinstance(s, int) and 0 <= s < len(names) else "someone"
                     for s in value)


# One sentence per event kind shared by several games or worth saying well.
PHRASES: dict[str, _Phrase] = {
    "started": lambda d, n: (f"A game of {_game_name(d.get('game'))} starts with "
                             f"{d.get('seats')} seats."),
    "hand": lambda d, n: (f"{_who(d, n)} now holds {_who(d, n, 'from')}'s hand: "
                          f"{_cards(d.get('cards'))}." if "from" in d
                          else f"{_who(d, n)}'s hand: {_cards(d.get('cards'))}."),
    "dealt": lambda d, n: (f"{_who(d, n)} is dealt {_cards(d.get('hand', d.get('cards')))}."
                           if "seat" in d else _rommy_dealt(d, n)),
    "deal": lambda d, n: _deal(d, n),  # noqa: PLW0108 (defined below)
    "play": lambda d, n: f"{_who(d, n)} plays {d.get('card')}.",
    "played": lambda d, n: _played(d, n),  # noqa: PLW0108 (defined below)
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
    "bet": lambda d, n: f"{_who(d, n)} bets (Púkk {d.get('pukk')}).",
    "pass": lambda d, n: (f"{_who(d, n)} passes (Púkk {d['pukk']})." if "pukk" in d
                          else f"{_who(d, n)} does not take the Manni."),
    "passed": lambda d, n: (f"{_who(d, n)} passes" + (
        f" after drawing {_count(d['drew'], 'card')}." if d.get("drew") else ".")),
    "fold": lambda d, n: f"{_who(d, n)} gives up the Púkk.",
    "match": lambda d, n: f"{_who(d, n)} matches the bet (Púkk {d.get('pukk')}).",
    "swap": lambda d, n: f"{_who(d, n)} swaps hands with the Manni.",
    "keep": lambda d, n: f"{_who(d, n)} keeps their hand.",
    "tossed": lambda d, n: (f"{_team(d)} toppled the king with the opening toss."
                            if d.get("result") == "king" else
                            f"{_team(d)}'s opening toss lands {d.get('result')} cm from the king."),
    "won": lambda d, n: f"{_team(d)} wins the match.",
    "kobb-placed": lambda d, n: f"{_who(d, n)} places the Kobb on {d.get('square')}.",
    "white-moved": lambda d, n: f"{_who(d, n)} moves white {d.get('from')} → {d.get('to')}.",
    "kobb-moved": lambda d, n: f"{_who(d, n)} moves the Kobb {d.get('from')} → {d.get('to')}.",
    "kobb-out": lambda d, n: f"{_who(d, n)}'s Kobb leaves at {d.get('exit')} "
                             f"(tail {d.get('tail')}).",
    # Manni.
    "contract": lambda d, n: f"{_who(d, n)} names the contract: {_contract(d.get('contract'))}.",
    "cut": lambda d, n: (f"{_who(d, n)} cuts {d.get('card')}: the contract is "
                         f"{_contract(d.get('contract'))}."),
    "take": lambda d, n: f"{_who(d, n)} takes the Manni ({_count(d.get('count'), 'card')}).",
    "drawn": lambda d, n: f"{_who(d, n)} draws {_cards(d.get('cards'))} from the Manni.",
    "lay_away": lambda d, n: f"{_who(d, n)} lays away a card ({d.get('count')} so far).",
    "exchange": lambda d, n: (f"{_who(d, n)} exchanges {_count(d['count'], 'card')} with "
                              "the Manni." if d.get("count") else
                              f"{_who(d, n)} keeps their hand."),
    # KNUFF.
    "asked": lambda d, n: f"{_who(d, n)} asks {_who(d, n, 'asked')} whether they want to begin.",
    "begins": lambda d, n: (f"{_who(d, n, 'asked')} says yes and begins." if d.get("answer") ==
                            "yes" else f"{_who(d, n, 'asked')} says no: {_who(d, n)} begins."),
    "drew-count": lambda d, n: (f"{_who(d, n)} draws {_count(d.get('count'), 'card')} "
                                f"({d.get('stock')} left to draw)."),
    "dealt-counts": lambda d, n: (f"After the hel-knuff {_seats(d.get('seats'), n)} get "
                                  f"{_count(d.get('each'), 'card')} each; "
                                  f"{d.get('set_aside')} are set aside."),
    "knuff": lambda d, n: f"KNUFF! {_who(d, n)} knuffs: {_who(d, n, 'skipped')} is skipped.",
    "personlig-knuff": lambda d, n: f"{_who(d, n)} plays a pair (personlig knuff) and goes again.",
    "fare-for-helknuff": lambda d, n: (f"Fare for HELKNUFF! Three {d.get('rank')}s lie on top: "
                                       f"{_seats(d.get('invited'), n)} may sneak in the fourth."),
    "answered": lambda d, n: (
        (f"{_who(d, n)} claims the parknuff (sealed)." if d["claim"] else
         f"{_who(d, n)} lets the parknuff go (sealed).") if "claim" in d
        else f"{_who(d, n)} has answered the Fare for HELKNUFF."),
    "window-closed": lambda d, n: "Nobody sneaks in the fourth: play goes on.",
    "parknuff": lambda d, n: (f"PARKNUFF! {_who(d, n)} sneaks in {d.get('card')} "
                              f"({_count(d.get('left'), 'card')} left)."),
    "hel-knuff": lambda d, n: (f"{_who(d, n)} completes the four: {_cards(d.get('cards'))} "
                               "leave the game. No more drawing this deal."),
    "sengeknuff": lambda d, n: (f"{_who(d, n)} plays sengeknuff: the hands move "
                                f"{d.get('direction')}."),
    "pile-closed": lambda d, n: ("Everyone passed without drawing: the pile is closed and the "
                                 "next player plays anything."),
    "out": lambda d, n: f"{_who(d, n)} is out and wins deal {d.get('round')}.",
    "letters": lambda d, n: f"Letters after the deal: {_letters(d, n)}.",
    "KNUFF": lambda d, n: (f"{_who(d, n)} is KNUFF (×{d.get('times')}) and must hold "
                           f"{d.get('hand_minimum')} cards from now on."),
    "left": lambda d, n: (f"{_who(d, n)} sits out; their {_count(d.get('cards'), 'card')} wait "
                          "face down."),
    "returned": lambda d, n: _knuff_seat_back(d, n, "comes back to the game"),
    # Púkk.
    "dressed": lambda d, n: (f"Deal {d.get('deal')}: {_who(d, n, 'dealer')} deals; everyone "
                             f"dresses the board with {_count(d.get('per_player'), 'chip')} "
                             f"(Púkk {d.get('pukk')})."),
    "turned": lambda d, n: f"The turned card is {d.get('card')}: {d.get('trump')} are trump.",
    "bisefa": lambda d, n: "Bísefa: each player in turn is asked about the trump 7.",
    "swapped": lambda d, n: (f"Bísefa: {_who(d, n)} swaps the trump 7 {d.get('gave')} for the "
                             f"turned {d.get('took')}."),
    "kept": lambda d, n: f"{_who(d, n)} goes on (no bísefa swap).",
    "honour": lambda d, n: (f"{_who(d, n)} shows {d.get('card')} and takes "
                            f"{_count(d.get('chips'), 'chip')}"
                            + (f" from the {d['pool']} compartment." if "pool" in d else
                               f" from {_who(d, n, 'owner')}.")),
    "unclaimed": lambda d, n: (f"Nobody holds the {d.get('pool')} honour: its "
                               f"{_count(d.get('carried'), 'chip')} stay for the next deal."),
    "pukk_won": lambda d, n: (f"{_seats(d.get('seats'), n)} "
                              f"{'share' if len(d.get('seats') or []) > 1 else 'wins'} the Púkk "
                              f"({_count(d.get('chips'), 'chip')}"
                              + (" each" if len(d.get("seats") or []) > 1 else "")
                              + f", {d.get('how')})."),
    "pukk_unopened": lambda d, n: (f"Nobody bets: the Púkk's {_count(d.get('carried'), 'chip')} "
                                   "stay for the next deal."),
    "showed": lambda d, n: f"{_who(d, n)} shows {_cards(d.get('hand'))}: {d.get('set')}.",
    "stopped": lambda d, n: (f"The run stops; {_who(d, n, 'leader')} leads again"
                             + (f" (next would be {_cards(d['next'])})." if d.get("next")
                                else ".")),
    "went_out": lambda d, n: (f"{_who(d, n)} goes out with {d.get('last')}; the others pay "
                              f"{_payments(d.get('payments'), n)}."),
    "revealed": lambda d, n: "Cards came to light: no taking back moves before this.",
    # 500 (Rommy).
    "no_last_card": lambda d, n: (f"{_who(d, n)} has no card left to discard: "
                                  "one more round for the others."),
    "penalty": lambda d, n: f"{_who(d, n)} pays {-int(d.get('points', 0))} for the pile.",
    "reshuffled": lambda d, n: f"The pile is reshuffled into the stock ({d.get('stock')} cards).",
    "stock_exhausted": lambda d, n: "The stock is used up: the deal ends.",
    "deal_scored": lambda d, n: (f"Deal {int(d.get('deal', 0)) + 1} scored: "
                                 f"{_scores(d.get('scores'), n)} (totals "
                                 f"{_scores(d.get('totals'), n)})."),
    # Kobbla.
    "kobb-stayed": lambda d, n: f"{_who(d, n)}'s Kobb stays where it is.",
    "no-white-move": lambda d, n: f"{_who(d, n)} has no white move.",
    # Koob.
    "retoss": lambda d, n: "The opening tosses tie (or both toppled the king): toss again.",
    "turn": lambda d, n: (f"{_team(d)} throws: {_count(d.get('batons'), 'baton')} "
                          f"(set {d.get('set')})."),
    "baton": lambda d, n: (f"{_team(d)} fells {_count(d.get('field'), 'field koob')} and "
                           f"{_count(d.get('baseline'), 'baseline koob')}"
                           + (" and hits the king" if d.get("king") else "")
                           + f" ({_count(d.get('batons_left'), 'baton')} left)."),
    "stood_up": lambda d, n: (f"{_team(d)} stands {d.get('baseline')} baseline koob(s) up "
                              "again: field koobs must fall first."),
    "king": lambda d, n: (f"{_team(d)} fells the king and "
                          f"{'wins' if d.get('wins') else 'loses'} the set ({d.get('reason')})."),
    "turn_over": lambda d, n: (f"{_team(d)}'s batons are thrown "
                               f"({_count(d.get('knocked'), 'koob')} knocked down)."),
    "koob_landed": lambda d, n: f"{_team(d)} throws a koob in (attempt {d.get('attempt')}).",
    "koob_missed": lambda d, n: f"{_team(d)}'s koob lands outside (attempt {d.get('attempt')}).",
    "punishment_koob": lambda d, n: (f"{_team({'team': d.get('placed_by')})} places the "
                                     "missed koob as a punishment koob."),
    "placed": lambda d, n: f"{_team(d)} places the koob ({d.get('where')}).",
    "set_won": lambda d, n: (f"{_team(d)} wins set {d.get('set')} "
                             f"(sets {'–'.join(str(x) for x in d.get('sets_won', []))})."),
    # The room's own events.
    # KNUFF's "joined" (a seat joins the game) has a seat; the room's has seats and a name.
    "joined": lambda d, n: (_knuff_seat_back(d, n, "joins the game") if "seat" in d
                            else f"{d.get('name') or 'A person'} takes seat {_seat_list(d)}."),
    "released": lambda d, n: f"{_who(d, n)} leaves the seat.",
    "computer": lambda d, n: f"A computer ({d.get('level')}) plays for {_who(d, n)}.",
    "reclaimed": lambda d, n: f"{_who(d, n)} takes the seat back from the computer.",
    "undone": lambda d, n: f"{_who(d, n)} takes back {d.get('moves', 1)} move(s).",
    # Rommy's "closed" (a seat goes out) has a seat; the room's has the reason it closed.
    "closed": lambda d, n: (f"{_who(d, n)} goes out and closes the deal." if "seat" in d
                            else f"The room is closed ({d.get('reason', 'closed')})."),
    "finished": lambda d, n: (f"The game is over: {_winners(d, n)} won." if _winners(d, n)
                              else "The game is over."),
}


def _team(data: Mapping[str, Any]) -> str:
    return f"Team {int(data.get('team', 0)) + 1}"


_CONTRACTS = {"H": "hearts trump", "S": "spades trump", "D": "diamonds trump",
              "C": "clubs trump", "grand": "grand (no trump)",
              "nullo": "Nullo (take few tricks)"}


def _contract(value: Any) -> str:
    return _CONTRACTS.get(str(value), str(value))


def _deal(data: Mapping[str, Any], names: Names) -> str:
    if "round" in data:  # KNUFF
        counts = data.get("counts")
        each = (f"{counts[0]} cards each" if isinstance(counts, list) and counts
                and len(set(counts)) == 1 else "the hands")
        return (f"Deal {data['round']}: {each} dealt, {data.get('stock')} left to draw; "
                f"{_who(data, names, 'starter')} asks who begins.")
    if "contract" in data:  # Manni
        return (f"Deal {data.get('deal')}: {_who(data, names, 'dealer')} deals"
                + (f"; {_contract(data['contract'])}." if data.get("contract") else "."))
    return f"Deal {data.get('deal', '')} is dealt."


def _rommy_dealt(data: Mapping[str, Any], names: Names) -> str:
    if "up" not in data:
        return f"Cards are dealt (deal {data.get('deal')})."
    # 500 counts its deals from 0; people count from 1 (as its screen does).
    return (f"Deal {int(data.get('deal', 0)) + 1}: {_who(data, names, 'dealer')} deals and "
            f"turns up {data['up']} ({data.get('stock')} in the stock).")


def _played(data: Mapping[str, Any], names: Names) -> str:
    cards = _cards(data.get("card", data.get("cards")))
    if data.get("how") == "pair":
        return (f"{_who(data, names)} plays the pair {cards} "
                f"({_count(data.get('left'), 'card')} left).")
    left = f" ({_count(data['left'], 'card')} left)" if "left" in data else ""
    return f"{_who(data, names)} plays {cards}{left}."


def _letters(data: Mapping[str, Any], names: Names) -> str:
    letters = data.get("letters")
    if not isinstance(letters, list):
        return "?"
    return ", ".join(f"{names[i] if i < len(names) else i} {t or '–'}"
                     for i, t in enumerate(letters))


def _knuff_seat_back(data: Mapping[str, Any], names: Names, verb: str) -> str:
    dealt = data.get("dealt")
    gets = f" and is dealt {_count(dealt, 'card')}" if dealt else ""
    return f"{_who(data, names)} {verb}{gets} (letters {data.get('letters') or '–'})."


def _payments(value: Any, names: Names) -> str:
    if not isinstance(value, Mapping) or not value:
        return "nothing"
    return ", ".join(f"{_who({'seat': int(s)}, names)} {_count(c, 'chip')}"
                     for s, c in value.items())


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
    return fallback(kind, data, names)


def fallback(kind: str, data: Mapping[str, Any], names: Names) -> str:
    """The generic sentence: the kind and its fields, for a kind without a phrase."""
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
