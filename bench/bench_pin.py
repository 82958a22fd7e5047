"""How fast can a stranger guess the table PIN? The real per-client throttle on a fake clock.

Run: .venv/bin/python bench/bench_pin.py [--days D] [--addresses N]
A guesser tries again the moment its wait ends; prints guesses per day from one
address and the time to search half of each PIN space (docs/kiosk.md,
"The arithmetic"). Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse

from controller.clock import FakeClock
from controller.web.auth import Throttle

DAY_NS = 86_400 * 1_000_000_000


def guesses_in(days: float) -> int:
    """Wrong PINs one client gets to try in `days`, always trying as soon as it may."""
    clock = FakeClock(0)
    throttle = Throttle(clock)
    end = int(days * DAY_NS)
    n = 0
    while clock.now_ns() < end:
        wait = throttle.wait_ns("guesser")
        if wait:
            clock.advance(wait / 1e9)
            continue
        throttle.failed("guesser")
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=float, default=30.0, help="how long the guesser keeps at it")
    ap.add_argument("--addresses", type=int, default=250, help="addresses the guesser can use")
    args = ap.parse_args()
    first = guesses_in(1)
    total = guesses_in(args.days)
    per_day = (total - first) / (args.days - 1)  # the steady rate after the first day
    print(f"guesses from one address: {first} on the first day, {per_day:.1f}/day after")
    for digits in (4, 6, 8):
        half = 10**digits / 2
        one = half / per_day
        many = half / (per_day * args.addresses)
        print(f"{digits} digits: half the space in {one / 365.25:,.1f} years from one address, "
              f"{many:,.1f} days ({many / 365.25:,.1f} years) from {args.addresses} addresses")


if __name__ == "__main__":
    main()
