"""The project's own seeded random generator.

Python guarantees only `random.random()` across versions; `shuffle`, `randrange`
and `choice` have changed between releases (bpo-27742). A match or a game must
replay identically from its seed on any Python and any platform, so shuffles and
integer draws come from this generator: SHA-256 in counter mode, consumed as
64-bit words, with rejection sampling for unbiased ranges. Integer results are
bit-exact everywhere; `gauss`/`lognormal` go through libm and are reproducible
to the last bit only where libm is correctly rounded (glibc), which is why
nothing that must replay exactly (deals, shuffles) uses them.

>>> Rng(7).randbelow(1000) == Rng(7).randbelow(1000)
True
>>> deck = list(range(10)); Rng("demo").shuffle(deck); sorted(deck) == list(range(10))
True
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_DOMAIN = b"knapp-rng/1\x00"


def _seed_bytes(seed: int | str | bytes) -> bytes:
    if isinstance(seed, bool):
        raise TypeError("seed must be int, str or bytes, not bool")
    if isinstance(seed, int):
        return b"i" + str(seed).encode()
    if isinstance(seed, str):
        return b"s" + seed.encode("utf-8")
    if isinstance(seed, bytes):
        return b"b" + seed
    raise TypeError(f"seed must be int, str or bytes, not {type(seed).__name__}")


class Rng:
    """Deterministic generator; the same seed gives the same stream everywhere.

    Args:
        seed: an int, str or bytes; equal seeds give equal streams.
    """

    __slots__ = ("_buf", "_counter", "_key")

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self._key = hashlib.sha256(_DOMAIN + _seed_bytes(seed)).digest()
        self._counter = 0
        self._buf: list[int] = []

    @classmethod
    def _from_key(cls, key: bytes, counter: int = 0, buf: Sequence[int] = ()) -> Rng:
        rng = cls.__new__(cls)
        rng._key = key
        rng._counter = counter
        rng._buf = list(buf)
        return rng

    def fork(self, label: int | str | bytes) -> Rng:
        """Return an independent stream named `label`; this stream is not advanced."""
        return Rng._from_key(hashlib.sha256(self._key + b"fork" + _seed_bytes(label)).digest())

    def _refill(self) -> None:
        block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        # Reversed so that pop() hands the words out in block order.
        self._buf = [int.from_bytes(block[i : i + 8], "big") for i in (24, 16, 8, 0)]

    def next_u64(self) -> int:
        """Return the next 64-bit word of the stream."""
        if not self._buf:
            self._refill()
        return self._buf.pop()

    def randbelow(self, n: int) -> int:
        """Return a uniform int in [0, n)."""
        if n <= 0:
            raise ValueError(f"randbelow needs n > 0, got {n}")
        if n == 1:
            return 0
        k = (n - 1).bit_length()
        if k > 64:
            raise ValueError("randbelow supports n up to 2**64")
        while True:
            r = self.next_u64() >> (64 - k)
            if r < n:
                return r

    def randint(self, a: int, b: int) -> int:
        """Return a uniform int in [a, b], both ends included."""
        if b < a:
            raise ValueError(f"randint needs a <= b, got {a} > {b}")
        return a + self.randbelow(b - a + 1)

    def random(self) -> float:
        """Return a uniform float in [0, 1) with 53 random bits."""
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)

    def choice(self, seq: Sequence[T]) -> T:
        """Return one element of a non-empty sequence."""
        if not seq:
            raise IndexError("choice from an empty sequence")
        return seq[self.randbelow(len(seq))]

    def shuffle(self, seq: MutableSequence[Any]) -> None:
        """Shuffle in place (Fisher-Yates from the end)."""
        for i in range(len(seq) - 1, 0, -1):
            j = self.randbelow(i + 1)
            seq[i], seq[j] = seq[j], seq[i]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """Return k distinct elements in random order."""
        if not 0 <= k <= len(seq):
            raise ValueError(f"sample size {k} out of range for {len(seq)} items")
        pool = list(seq)
        for i in range(k):
            j = i + self.randbelow(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        """Return a normal variate (Box-Muller)."""
        u1 = 1.0 - self.random()  # in (0, 1], so log is finite
        u2 = self.random()
        return mu + sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def lognormal(self, median: float, sigma: float) -> float:
        """Return a log-normal variate with the given median and log-space sigma."""
        return median * math.exp(self.gauss(0.0, sigma))

    def to_json(self) -> dict[str, Any]:
        """Return the full generator state as JSON-able data."""
        return {"key": self._key.hex(), "counter": self._counter, "buf": list(self._buf)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rng:
        """Rebuild a generator from `to_json` output."""
        return cls._from_key(bytes.fromhex(data["key"]), int(data["counter"]), data["buf"])
