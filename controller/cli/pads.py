"""`knapp pads monitor` and `knapp pads selftest`: watch and check the pressure pads.

monitor: live pad states and events until Ctrl-C; with --json one object per
line, events as {"figure", "kind", "t_ns", "uncertainty_ns", "source"} and status
changes as {"status", "detail"}.

selftest: asks the person to lift and replace each figure in turn and reports,
per pad, the levels, thresholds and timing, with a clear PASS or FAIL.

virtual-board: runs the real firmware logic behind a pty on the host clock and
prints its port, so monitor and selftest can be tried with `--serial PORT`
and no hardware; a figure's letter (s v c t d) or name on standard input
lifts it or puts it back.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import select
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from controller.cli import seed_arg
from controller.clock import Clock, FakeClock, MonotonicClock
from controller.config import default_config, load_config
from controller.knapp.cards import Figure
from controller.pads import build_source
from controller.pads.config import PadsConfig
from controller.pads.events import Item, LightEvent, PadEvent, PadSource, PadStatus
from controller.rng import Rng

if TYPE_CHECKING:
    from controller.pads.serial_link import SerialPads

Poll = Callable[[float], list[Item]]


def register(sub: Any) -> None:
    """Add the `pads` command with its `monitor` and `selftest` actions."""
    p: argparse.ArgumentParser = sub.add_parser("pads", help="watch and test the pressure pads")
    psub = p.add_subparsers(dest="pads_command", metavar="ACTION")
    psub.required = True
    mon = psub.add_parser("monitor", help="show live pad states and events")
    _common(mon)
    mon.add_argument("--json", action="store_true",
                     help="one JSON object per line (events and status changes)")
    mon.set_defaults(func=_monitor)
    st = psub.add_parser("selftest", help="lift and replace each figure; pass or fail per pad")
    _common(st)
    st.set_defaults(func=_selftest)
    vb = psub.add_parser("virtual-board",
                         help="the pad board's firmware behind a pty, to try the tools "
                              "without hardware")
    vb.add_argument("--seed", type=seed_arg, default=0,
                    help="noise, jitter and boot id (default 0)")
    vb.set_defaults(func=_virtual_board)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="table configuration file (TOML)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--gpio", action="store_true", help="GPIO pads (pins from the config)")
    which.add_argument("--serial", metavar="PORT",
                       help="the pad board: its /dev/serial/by-id/ name, a path or a URL")
    which.add_argument("--sim", action="store_true", help="simulated pads")


def _source(args: argparse.Namespace, clock: Clock) -> tuple[PadSource, PadsConfig]:
    cfg = (load_config(args.config) if args.config else default_config()).pads
    backend = "gpio" if args.gpio else "serial" if args.serial else "sim" if args.sim else None
    return build_source(cfg, backend=backend, port=args.serial, clock=clock), cfg


# -- monitor ----------------------------------------------------------------------


def port_problem(port: str) -> str | None:
    """What is wrong with a pad board's port before it is opened, in words; None if nothing."""
    from controller.pads.serial_link import AUTO, BY_ID_DIR, resolve_port

    if port == AUTO or "://" in port:
        return None  # looked up, or a pyserial URL: the driver's messages say it
    path = resolve_port(port)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        try:
            names = sorted(os.listdir(BY_ID_DIR))
        except OSError:
            names = []
        seen = (f"serial devices plugged in now: {', '.join(names)}" if names
                else f"nothing under {BY_ID_DIR}")
        return f"{path} does not exist (is the board plugged in? {seen})"
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if not stat.S_ISCHR(mode):
        return f"{path} is not a serial device"
    if not os.access(path, os.R_OK | os.W_OK):
        return f"{path}: this user may not open it (add the user to the dialout group)"
    return None


def _monitor(args: argparse.Namespace) -> int:
    clock = MonotonicClock()
    source, _ = _source(args, clock)
    from controller.pads.serial_link import SerialPads
    from controller.pads.sim import SimPads

    if isinstance(source, SimPads):
        source.demo(Rng("pads-monitor"), clock.now_ns(), 1000)
    if isinstance(source, SerialPads):
        # The status lines below say each fault; the driver's log would say it twice.
        logging.getLogger("controller.pads.serial_link").setLevel(logging.ERROR)
        problem = port_problem(source.port)
        retry = (f"retrying until the board answers (every {source.backoff_s[1]:g} s at most); "
                 "Ctrl-C to stop")
        print(f"knapp pads monitor: {problem}; {retry}" if problem else
              f"knapp pads monitor: reading the pad board at {source.port}; if it cannot be "
              f"opened or is lost, {retry}", file=sys.stderr, flush=True)
    try:
        run_monitor(source, sys.stdout, json_lines=args.json, clock=clock)
    finally:
        source.close()
    return 0


def format_item(item: Item, t0_ns: int) -> str:
    """One human line for an event or a status."""
    if isinstance(item, PadEvent):
        return (f"{(item.t_ns - t0_ns) / 1e9:10.4f} s  {item.kind:5}  {item.figure.value:6}  "
                f"±{item.uncertainty_ns / 1e6:.3f} ms  ({item.source})")
    if isinstance(item, LightEvent):
        return (f"{(item.t_ns - t0_ns) / 1e9:10.4f} s  light  "
                f"{'brighter' if item.brighter else 'darker'}  ±{item.uncertainty_ns / 1e6:.3f} ms")
    return f"[{item.status}] {item.detail}"


def format_states(placed: dict[Figure, bool | None]) -> str:
    """The pads at a glance: ● figure standing, ○ lifted, ? not known yet."""
    marks = {True: "●", False: "○", None: "?"}
    return "pads: " + "  ".join(f"{f.value} {marks[v]}" for f, v in placed.items())


def run_monitor(source: PadSource, out: TextIO, *, json_lines: bool, clock: Clock,
                poll: Poll | None = None, stop: Callable[[], bool] = lambda: False) -> None:
    """Print what `source` reports until `stop()` is true (or Ctrl-C).

    Args:
        poll: what to call for new items (default: `source.poll`).
    """
    t0 = clock.now_ns()
    fetch = poll or source.poll
    last_states = ""
    last_status = ""
    while not stop():
        items = fetch(0.1)
        for item in items:
            if json_lines:
                out.write(json.dumps(item.to_json()) + "\n")
                continue
            if isinstance(item, PadStatus):
                # A retry that repeats the last fault is said once, not every few seconds.
                status = f"{item.status}: {item.detail.split('; retrying')[0]}"
                if status == last_status:
                    continue
                last_status = status
            out.write(format_item(item, t0) + "\n")
        if not json_lines and items:
            states = format_states(source.placed())
            if states != last_states:
                out.write(states + "\n")
                last_states = states
        if items:
            out.flush()


# -- selftest ---------------------------------------------------------------------


@dataclass
class PadCheck:
    """One pad's self-test result."""

    figure: Figure
    lift: PadEvent | None = None
    place: PadEvent | None = None
    prompt_ns: int = 0
    others: list[PadEvent] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def _press_enter(prompt: str) -> None:
    input(prompt + " Press Enter when done. ")


class _Listener:
    """Reads a pad source and waits for the item a step of the self-test needs.

    Statuses that mean trouble (a lost or busy port, a reboot) are printed as
    they pass, whatever is being waited for.
    """

    TROUBLE = ("disconnected", "busy", "rebooted", "bad_frame", "version")

    def __init__(self, fetch: Poll, clock: Clock, out: TextIO) -> None:
        self.fetch = fetch
        self.clock = clock
        self.out = out
        self.seen: list[Item] = []

    def wait_for(self, pred: Callable[[Item], bool], seconds: float) -> Item | None:
        """Return the first item `pred` accepts within `seconds` (None: none came)."""
        seen = self.seen
        deadline = self.clock.now_ns() + round(seconds * 1e9)
        while True:
            for i, item in enumerate(seen):
                if pred(item):
                    del seen[: i + 1]
                    return item
            seen.clear()
            if self.clock.now_ns() >= deadline:
                return None
            for item in self.fetch(0.05):
                if isinstance(item, PadStatus) and item.status in self.TROUBLE:
                    self.out.write(f"  [{item.status}] {item.detail}\n")
                seen.append(item)

    def answers(self, status: str, pads: int, seconds: float = 2.0) -> None:
        """Wait until each of `pads` pads has answered with `status` (or `seconds` pass).

        The board answers a calibration after averaging 64 samples per pad:
        16 ms at 4 kHz, longer on a slow board, so it is waited for, not timed.
        """
        left = pads

        def one(item: Item) -> bool:
            nonlocal left
            if isinstance(item, PadStatus) and item.status == status:
                left -= 1
            return left == 0

        self.wait_for(one, seconds)


def run_selftest(source: PadSource, out: TextIO, *, clock: Clock, poll: Poll | None = None,
                 person: Callable[[Figure], None] | None = None,
                 confirm: Callable[[str], None] = _press_enter,
                 timeout_s: float = 30.0) -> int:
    """Walk the person through every pad; print the report; return 0 if all pass.

    With the pad board, first calibrate: every figure off (the board learns
    each empty level), every figure on (the loaded levels); the board keeps
    them in its flash. Then each figure is lifted and replaced in turn.

    Args:
        poll: what to call for new items (default: `source.poll`).
        person: called after each lift prompt (a simulated person lifts the figure).
        confirm: shows a calibration instruction and returns once it is done.
        timeout_s: how long to wait for each lift and each replacement.
    """
    from controller.pads.serial_link import SerialPads

    serial = source if isinstance(source, SerialPads) else None
    listener = _Listener(poll or source.poll, clock, out)
    figures = list(source.placed())
    if serial is not None and not _calibrate(serial, listener, len(figures), out, confirm):
        return 1
    if not _all_on_their_pads(source, listener, out, timeout_s):
        return 1
    checks = [_check_pad(fig, listener, out, person, timeout_s) for fig in figures]
    if serial is not None:
        serial.request_levels()
        listener.answers("levels", len(figures))
    return _report(checks, serial, out)


def _calibrate(serial: SerialPads, listener: _Listener, pads: int, out: TextIO,
               confirm: Callable[[str], None]) -> bool:
    """Connect, learn every pad's empty and loaded level, self-test; False if no board."""
    out.write(f"Connecting to the pad board on {serial.port} ...\n")
    synced = listener.wait_for(lambda i: isinstance(i, PadStatus) and i.status == "synced", 10)
    if synced is None:
        out.write("FAIL: no pad board answered and synchronised within 10 s\n")
        return False
    confirm("Calibration: take every figure off its pad.")
    # A moment to let hands leave and figures stop rocking before measuring;
    # it also drops what the board said on connecting, which is no answer.
    listener.wait_for(lambda i: False, 0.2)
    serial.calibrate(None, loaded=False)
    listener.answers("levels", pads)
    confirm("Calibration: put every figure back on its pad.")
    listener.wait_for(lambda i: False, 0.2)
    serial.calibrate(None, loaded=True)
    listener.answers("levels", pads)
    out.write("Calibrated: " + ", ".join(
        f"{f.value} {lv.empty}/{lv.loaded}" for f, lv in serial.levels.items())
        + " (empty/loaded, stored on the board)\n")
    serial.request_selftest()
    listener.answers("selftest", pads)
    return True


def _all_on_their_pads(source: PadSource, listener: _Listener, out: TextIO,
                       timeout_s: float) -> bool:
    """Ask for every figure on its pad and wait for it; False if they did not come."""
    missing = [f for f, v in source.placed().items() if v is False]
    if not missing:
        return True
    out.write("Put every figure on its pad first: missing "
              + ", ".join(f.title for f in missing) + "\n")
    if listener.wait_for(lambda i: all(source.placed().values()), timeout_s) is None:
        out.write("FAIL: not every figure is on its pad\n")
        return False
    return True


def _check_pad(fig: Figure, listener: _Listener, out: TextIO,
               person: Callable[[Figure], None] | None, timeout_s: float) -> PadCheck:
    """Ask for `fig` to be lifted and put back; note what its pad and the others did."""
    check = PadCheck(fig, prompt_ns=listener.clock.now_ns())
    out.write(f"Lift the {fig.title}, then put it back.\n")
    out.flush()
    if person is not None:
        person(fig)
    lift = listener.wait_for(_pad_event_of(check, "lift"), timeout_s)
    check.lift = lift if isinstance(lift, PadEvent) else None
    if check.lift is None:
        check.problems.append(f"no lift seen within {timeout_s:g} s")
    else:
        place = listener.wait_for(_pad_event_of(check, "place"), timeout_s)
        check.place = place if isinstance(place, PadEvent) else None
        if check.place is None:
            check.problems.append(f"no replacement seen within {timeout_s:g} s")
    if check.others:
        names = sorted({f"{e.figure.value} {e.kind}" for e in check.others})
        check.problems.append("other pads changed meanwhile: " + ", ".join(names))
    return check


def _pad_event_of(check: PadCheck, kind: str) -> Callable[[Item], bool]:
    """A predicate for `kind` on `check`'s pad that notes other pads' events on the way."""
    def pred(item: Item) -> bool:
        if not isinstance(item, PadEvent):
            return False
        if item.figure != check.figure:
            check.others.append(item)
            return False
        return item.kind == kind
    return pred


MIN_SAMPLE_RATE = 1000  # per pad, per second: the firmware must keep up at least this


def _report(checks: list[PadCheck], serial: Any, out: TextIO) -> int:
    board_ok = True
    if serial is not None and serial.scan_ns:
        rate = 1e9 / serial.scan_ns
        bound = serial.error_bound_ns()
        version = ".".join(map(str, serial.version)) if serial.version else "?"
        board_ok = rate >= MIN_SAMPLE_RATE
        out.write(f"\nPad board: firmware {version}, each pad sampled every "
                  f"{serial.scan_ns / 1000:.0f} us ({rate:.0f}/s, needs {MIN_SAMPLE_RATE}/s: "
                  f"{'ok' if board_ok else 'TOO SLOW'})"
                  + (f", clock error bound now {bound / 1000:.0f} us" if bound else "") + "\n")
    out.write("\nPad       result  lift after prompt  held      uncertainty  levels\n")
    for c in checks:
        if serial is not None:
            st = serial.selftest.get(c.figure)
            if st is not None and not st.ok:
                c.problems.append(f"board self-test: {st.reason}")
            lv = serial.levels.get(c.figure)
            if lv is None:
                levels = "not reported"
                c.problems.append("the board sent no levels for this pad")
            else:
                spread = lv.loaded - lv.empty
                levels = (f"empty {lv.empty}, loaded {lv.loaded}, thresholds {lv.lo}/{lv.hi} "
                          f"(spread {spread})")
        elif c.lift is not None and c.lift.source == "sim":
            levels = "simulated pads"
        else:
            levels = "digital input (threshold set in hardware)"
        after = (f"{(c.lift.t_ns - c.prompt_ns) / 1e9:6.2f} s" if c.lift else "     -  ")
        held = (f"{(c.place.t_ns - c.lift.t_ns) / 1e9:6.2f} s" if c.place and c.lift
                else "     -  ")
        unc = f"±{c.lift.uncertainty_ns / 1e6:.2f} ms" if c.lift else "-"
        verdict = "PASS" if c.passed else "FAIL"
        out.write(f"{c.figure.value:9} {verdict:6}  {after:17}  {held:8}  {unc:11}  {levels}\n")
        for p in c.problems:
            out.write(f"          - {p}\n")
    failed = [c.figure.value for c in checks if not c.passed]
    if not board_ok:
        out.write("\nFAIL: the pad board samples too slowly (firmware/main.py SCAN_US, "
                  "hardware/bring-up.md)\n")
        return 1
    if failed:
        out.write(f"\nFAIL: {len(failed)} of {len(checks)} pads: {', '.join(failed)}\n")
        return 1
    out.write(f"\nPASS: all {len(checks)} pads\n")
    return 0


def _selftest(args: argparse.Namespace) -> int:
    clock = MonotonicClock()
    source, _ = _source(args, clock)
    person = None
    from controller.pads.sim import SimPads

    if isinstance(source, SimPads):
        sim = source

        def person(fig: Figure) -> None:
            now = clock.now_ns()
            sim.lift(fig, now + 600_000_000)
            sim.place(fig, now + 1_200_000_000)
    try:
        return run_selftest(source, sys.stdout, clock=clock, person=person)
    finally:
        source.close()


# -- virtual-board ------------------------------------------------------------------

FIGURE_KEYS = {"s": Figure.SHIP, "v": Figure.VIKING, "c": Figure.CHILD, "t": Figure.CHEST,
               "d": Figure.DOG}


def parse_figure(text: str) -> Figure:
    """A figure from its key (s v c t d, as on the kiosk) or its name.

    Raises:
        ValueError: naming the text and what is accepted.
    """
    word = text.strip().lower()
    if word in FIGURE_KEYS:
        return FIGURE_KEYS[word]
    try:
        return Figure(word)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a figure: type one of s v c t d, or "
                         f"{', '.join(f.value for f in Figure)}") from None


def _virtual_board(args: argparse.Namespace) -> int:
    from controller.sim.virtual_board import VirtualBoard

    host = MonotonicClock()
    clock = FakeClock(host.now_ns())  # the board's simulated time follows the host's
    # Full scan rate all the time (no fast-forward while idle): a calibration
    # burst then takes the 16 ms it takes on the real board.
    board = VirtualBoard(clock=clock, rng=Rng(f"virtual-board-{args.seed}"), live=True,
                         idle_scan_us=250)
    out = sys.stdout
    out.write(f"{board.port}\n")
    out.flush()
    # The port and the changes go to stdout for scripts; the help to the person.
    print(f"virtual pad board, firmware boot id {board.boot_id:08x}; in another terminal:\n"
          f"  knapp pads monitor --serial {board.port}\n"
          "type s v c t d (or a figure's name) and Enter to lift that figure or put it "
          "back; Ctrl-D or Ctrl-C stops", file=sys.stderr, flush=True)
    fd = sys.stdin.fileno()
    buf = b""
    done = False

    def stop() -> bool:
        nonlocal buf, done
        while not done and select.select([fd], [], [], 0)[0]:
            data = os.read(fd, 1024)
            if not data:
                done = True
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                try:
                    figure = parse_figure(line.decode(errors="replace"))
                except ValueError as exc:
                    print(f"knapp pads virtual-board: {exc}", file=sys.stderr, flush=True)
                    continue
                kind, at = board.toggle(figure)
                out.write(json.dumps({"figure": figure.value, "kind": kind, "true_t_ns": at})
                          + "\n")
                out.flush()
        return done

    try:
        board.run_live(host.now_ns, time.sleep, stop)
    except KeyboardInterrupt:
        pass
    finally:
        board.close()
    return 0
