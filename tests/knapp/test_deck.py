"""The 60-card deck and the seeded shuffle."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.knapp.cards import Card, Colour, Figure, solve
from controller.knapp.deck import deck_problems, deck_stats, shuffled_deck, standard_deck
from controller.rng import Rng


def test_standard_deck_has_every_property() -> None:
    deck = standard_deck()
    assert deck_problems(deck) == []
    assert len(deck) == 60 and len(set(deck)) == 60
    answers = Counter(solve(c).answer for c in deck)
    assert answers == dict.fromkeys(Figure, 12)
    stats = deck_stats(deck)
    assert stats["kind"] == {"true_colour": 20, "wrong_colour": 40}
    assert set(stats["pictured"].values()) == {12}
    for card in deck:
        if card.true_colour:
            assert card.figure.colour not in card.background


def test_problems_are_named() -> None:
    deck = standard_deck()
    assert deck_problems(deck[:-1])[0] == "the deck has 59 cards, expected 60"
    dup = [*deck[:-1], deck[0]]
    assert any("duplicate cards" in p for p in deck_problems(dup))
    bad = [*deck[:-1], Card.parse("ship:yellow/blue+green")]
    assert any("invalid card ship:yellow/blue+green" in p for p in deck_problems(bad))


def test_true_colour_card_on_own_colour_is_rejected() -> None:
    deck = standard_deck()
    # Swap one true-colour ship card for a ship on the sea (blue on blue).
    i = next(i for i, c in enumerate(deck) if c.figure is Figure.SHIP and c.true_colour)
    bad = list(deck)
    bad[i] = Card.parse("ship:blue/blue+red")
    assert any("repeats the figure's own colour blue" in p for p in deck_problems(bad))


@given(st.integers(min_value=0, max_value=2**64))
def test_every_shuffle_is_a_permutation_of_the_deck(seed: int) -> None:
    deck = shuffled_deck(seed)
    assert sorted(map(str, deck)) == sorted(map(str, standard_deck()))
    assert deck == shuffled_deck(seed)


def test_seeds_give_different_orders() -> None:
    orders = {tuple(map(str, shuffled_deck(s))) for s in range(50)}
    assert len(orders) == 50


def test_deal_order_is_pinned() -> None:
    # Pinned so a change to the generator or the deck (which would change every
    # replay) cannot pass unnoticed.
    assert [str(c) for c in shuffled_deck(0)[:6]] == [
        "viking:white/blue+yellow", "chest:yellow/blue+white", "chest:blue/green+white",
        "child:red/yellow+white", "viking:green/yellow+white", "child:green/red+yellow",
    ]


def test_generator_is_sha256_in_counter_mode() -> None:
    # An independent re-derivation of the stream from its documented construction.
    key = hashlib.sha256(b"knapp-rng/1\x00" + b"i0").digest()
    words = []
    for counter in range(2):
        block = hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
        words += [int.from_bytes(block[i:i + 8], "big") for i in range(0, 32, 8)]
    r = Rng(0)
    assert [r.next_u64() for _ in range(8)] == words


def test_generator_is_unbiased_enough() -> None:
    r = Rng("bias")
    counts = Counter(r.randbelow(6) for _ in range(60_000))
    assert all(9_500 < n < 10_500 for n in counts.values())


# SHA-256 of the whole deal order for seeds 0, 1, 2**63 and "table-7", one line each.
DEALS_SHA256 = "9ea16ae1190c1746bb330509f4163b381a40d2ee1d7a08527193a14b705ae065"
DEALS_CODE = """
import hashlib
from controller.knapp.deck import shuffled_deck
text = "\\n".join(",".join(map(str, shuffled_deck(s))) for s in (0, 1, 2**63, "table-7"))
print(hashlib.sha256(text.encode()).hexdigest())
"""


def _interpreters() -> list[str]:
    """This Python and every other working Python 3.11+ on the PATH."""
    found = {sys.executable}
    for minor in range(11, 20):
        path = shutil.which(f"python3.{minor}")
        if path is None:
            continue
        probe = subprocess.run([path, "-c", "import sys; print(sys.version_info >= (3, 11))"],
                               capture_output=True, text=True, check=False)
        if probe.returncode == 0 and probe.stdout.strip() == "True":  # not a dead shim
            found.add(path)
    return sorted(found)


@pytest.mark.parametrize("python", _interpreters())
def test_whole_deals_are_pinned_on_every_python_found(python: str) -> None:
    # The pinned digest is the cross-version contract: any Python (and any
    # platform: integer arithmetic and SHA-256 only) must deal these orders.
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([python, "-c", DEALS_CODE], capture_output=True, text=True,
                         check=True, cwd=root,
                         env={"PYTHONPATH": str(root), "PYTHONHASHSEED": "random"})
    assert out.stdout.strip() == DEALS_SHA256


def test_same_stream_in_another_interpreter() -> None:
    code = ("from controller.knapp.deck import shuffled_deck;"
            "print(','.join(map(str, shuffled_deck(12345))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONHASHSEED": "777"}).stdout.strip()
    assert out == ",".join(map(str, shuffled_deck(12345)))


def test_rng_state_round_trips() -> None:
    r = Rng(9)
    r.next_u64()
    copy = Rng.from_json(r.to_json())
    assert [copy.randbelow(1000) for _ in range(20)] == [r.randbelow(1000) for _ in range(20)]
    assert Rng(9).fork("a").random() != Rng(9).fork("b").random()


def test_deck_stats_count_answers_paints_and_both_backgrounds() -> None:
    deck = standard_deck()
    stats = deck_stats(deck)
    five = {f.value: 12 for f in Figure}
    assert stats["answer"] == five and stats["pictured"] == five
    assert stats["paint"] == {c.value: 12 for c in Colour}
    assert stats["background"] == {c.value: 24 for c in Colour}  # two per card
    part = deck_stats(deck[:7])  # a part of the deck: counts from 0, not the whole deck's
    assert part["answer"] == {f.value: sum(solve(c).answer is f for c in deck[:7])
                              for f in Figure}
    assert sum(part["paint"].values()) == 7 and sum(part["background"].values()) == 14
    assert part["paint"] == {c.value: sum(card.paint is c for card in deck[:7]) for c in Colour}
    assert part["background"] == {c.value: sum(c in card.background for card in deck[:7])
                                  for c in Colour}


def test_the_default_seed_is_0() -> None:
    assert shuffled_deck() == shuffled_deck(0) != shuffled_deck(1)


def test_every_problem_of_a_deck_is_named_in_order() -> None:
    deck = standard_deck()
    assert deck_problems([*deck[:-2], deck[0], deck[1]]) == [
        "duplicate cards: ship:blue/green+yellow, ship:blue/red+green",
        "the ship is the answer 14 times, expected 12",
        "the ship is the answer on 6 true-colour cards, expected 4 (documented mix 4 + 8)",
        "the dog is the answer 10 times, expected 12"]
    # An invalid card first: the cards after it are still counted.
    bad = deck_problems([Card.parse("ship:yellow/blue+green"), *deck[1:]])
    assert bad[0].startswith("invalid card ship:yellow/blue+green: ")
    assert bad[1:] == [
        "the ship is the answer 11 times, expected 12",
        "the ship is the answer on 3 true-colour cards, expected 4 (documented mix 4 + 8)"]
