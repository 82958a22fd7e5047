"""Pads benchmark: timing end to end through the virtual board, parser speed, host CPU.

Run: .venv/bin/python bench/bench_pads.py [--rounds N] [--seed S]

1. End to end, in simulated time: the firmware logic behind a real pty with
   USB-like jitter (1 ms frames, log-normal host latency, 1 % stalls; and a
   harsher profile), the real SerialPads driver and clock sync. Each round
   lifts 2-3 figures 1.0-2.0 ms apart (and some pairs exactly 1 ms apart);
   we count rounds whose measured order is right, the clock offset error of
   every event against the board clock's truth, whether the reported error
   bound covers it, and the whole event error against the true lift time.
2. Parser throughput: frames per second through FrameReader (host).
3. Host CPU per thousand events: SerialPads reading a burst of EVENT frames
   from a real pty (thread CPU time, not wall time). (pyserial's loop:// is
   not used here: it queues byte by byte, which would dominate the figure.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tty

from controller.knapp.cards import Figure
from controller.pads import protocol as wire
from controller.pads.clocksync import ClockSync, SyncSample
from controller.pads.events import PadEvent
from controller.pads.serial_link import SerialPads
from controller.progress import Progress
from controller.rng import Rng
from controller.sim.virtual_board import UsbJitter, wait_pending
from controller.sim.virtual_table import PlannedLift, VirtualTable

MS = 1_000_000
FIGS = list(Figure)
PROFILES = {
    "usb (1 ms frames, 150 us median, 1 % stalls)": UsbJitter(),
    "harsh (1 ms frames, 400 us median, 5 % stalls up to 6 ms)":
        UsbJitter(median_ns=400_000, sigma=0.8, stall_rate=0.05, stall_ns=6_000_000),
}


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def end_to_end(rounds: int, seed: int, jitter: UsbJitter,
               sync_window: int | None = None) -> dict[str, float]:
    rng = Rng(f"bench:{seed}")
    table = VirtualTable(seed=seed, jitter=jitter)
    if sync_window is not None:  # to compare clock-fit windows (docs/pads.md)
        table.pads.sync = ClockSync(window=sync_window)
    table.start()
    ordered = pairs_1ms = pairs_1ms_ok = rounds_done = 0
    lift_err: list[float] = []
    lift_unc: list[float] = []
    covered_event = 0
    t_wall = time.perf_counter()
    bar = Progress(rounds, "  rounds")
    for r in range(rounds):
        bar.update(r)
        t = table.clock.now_ns() + 1_500 * MS + rng.randbelow(500 * MS)
        n = 2 + rng.randbelow(2)
        lifts = []
        exact = r % 4 == 0  # every fourth round: gaps of exactly 1.000 ms
        for k, fig in enumerate(rng.sample(FIGS, n)):
            lifts.append(PlannedLift(f"s{k}", fig, t))
            t += MS if exact else MS + rng.randbelow(MS)
        res = table.play_round(lifts)
        rounds_done += 1
        if [m.seat for m in res.lifts] == [p.seat for p in lifts]:
            ordered += 1
        if exact:
            pairs_1ms += n - 1
            pairs_1ms_ok += sum(1 for a, b in zip(res.lifts, res.lifts[1:], strict=False)
                                if int(a.seat[1:]) + 1 == int(b.seat[1:]))
        for m in res.lifts:
            err = m.t_ns - m.true_t_ns
            lift_err.append(abs(err))
            lift_unc.append(m.uncertainty_ns)
            covered_event += abs(err) <= m.uncertainty_ns
    wall = time.perf_counter() - t_wall
    # Clock error of every event (lifts and places) against the board clock's truth.
    events = [e for e in table.items if isinstance(e, PadEvent)]
    clock_err: list[float] = []
    bounds: list[float] = []
    covered = 0
    pool = list(table.board.emitted)
    for ev in events:
        em = min((x for x in pool if FIGS[x.pad] == ev.figure and x.kind == ev.kind),
                 key=lambda x: abs(x.true_ns - ev.t_ns))
        pool.remove(em)
        err = abs(ev.t_ns - em.true_ns)
        bound = ev.uncertainty_ns - table.pads.scan_ns
        clock_err.append(err)
        bounds.append(bound)
        covered += err <= bound
    stats = dict(table.pads.stats)
    bar.update(rounds)
    bar.close()
    table.close()
    return {
        "rounds": rounds_done, "ordered": ordered, "pairs_1ms": pairs_1ms,
        "pairs_1ms_ok": pairs_1ms_ok, "events": len(events),
        "clock_err_p50_us": statistics.median(clock_err) / 1e3,
        "clock_err_p99_us": pct(clock_err, 0.99) / 1e3,
        "clock_err_max_us": max(clock_err) / 1e3,
        "bound_p50_us": statistics.median(bounds) / 1e3,
        "bound_max_us": max(bounds) / 1e3,
        "bound_covers": covered / len(events),
        "lift_err_p50_us": statistics.median(lift_err) / 1e3,
        "lift_err_max_us": max(lift_err) / 1e3,
        "lift_unc_p50_us": statistics.median(lift_unc) / 1e3,
        "uncertainty_covers": covered_event / len(lift_err),
        "bad_frames": stats["bad_frames"], "lost_frames": stats["lost_frames"],
        "simulated_s": table.clock.now_ns() / 1e9, "wall_s": wall,
        "clock_err": clock_err, "bounds": bounds,
    }


def event_frames(count: int, start_seq: int = 2) -> bytes:
    out = bytearray()
    for i in range(count):
        n = i % 65535 + 1
        out += wire.pack(wire.EVENT, start_seq + i, n, i % 5, (i + 1) % 2,
                         (1_000_000 + i * 1000) % wire.TICKS_PERIOD, 20000, 0)
    return bytes(out)


def parser_throughput(count: int = 200_000) -> float:
    data = event_frames(count)
    reader = wire.FrameReader()
    t0 = time.perf_counter()
    got = 0
    for i in range(0, len(data), 4096):
        got += len(reader.feed(data[i:i + 4096]))
    dt = time.perf_counter() - t0
    assert got == count
    return count / dt


def host_cpu_per_1000(count: int = 20_000) -> float:
    """Driver CPU (thread time) per 1000 EVENT frames read from a real pty."""
    master, slave = os.openpty()
    tty.setraw(slave)
    pads = SerialPads(os.ttyname(slave), burst=0, ping_interval_s=3600)
    pads.poll()  # open; send HELLO_REQ
    os.write(master, wire.pack(wire.HELLO, 1, 7, *wire.PROTOCOL_VERSION, 5, 1_000_000, 250, 0,
                               0x1F, 0))
    wait_pending(slave, 1)
    pads.poll()
    now = pads.clock.now_ns()
    # As if synced (a fit takes three round trips), with the board's clock past
    # every event below: an event timed after it arrived is refused.
    board_now = 2_000_000 + count * 1000
    for k in (2, 1, 0):
        t = now - k * 20_000_000
        b = board_now - 500 - k * 20_000
        pads.sync.add(SyncSample(t - 1_000_000, t, b, b))
    data = event_frames(count)
    got = 0
    cpu = 0.0
    for i in range(0, len(data), 4000):  # what fits in the pty's buffer
        chunk = data[i:i + 4000]
        os.write(master, chunk)
        wait_pending(slave, len(chunk))
        c0 = time.thread_time()
        got += sum(isinstance(x, PadEvent) for x in pads.poll())
        cpu += time.thread_time() - c0
    assert got == count, got
    pads.close()
    os.close(master)
    os.close(slave)
    return cpu / count * 1000 * 1000  # ms per 1000 events


def plot(results: dict[str, dict], path: str) -> None:
    """Scatter each event's true clock error against the bound reported with it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4.5), sharey=True)
    for ax, (name, r) in zip(axes, results.items(), strict=True):
        ax.scatter([b / 1e3 for b in r["bounds"]], [e / 1e3 for e in r["clock_err"]], s=6,
                   alpha=0.5)
        top = max(r["bounds"]) / 1e3
        ax.plot([0, top], [0, top], "r--", label="error = bound")
        ax.axhline(500, color="grey", lw=0.8, ls=":", label="0.5 ms target")
        ax.set_title(name.split(" (")[0] + " jitter", fontsize=10)
        ax.set_xlabel("reported error bound (us)")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("true clock error (us)")
    fig.suptitle("Pad board clock sync: every event's error lies under its bound")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plot", metavar="PNG", help="save clock error vs reported bound here")
    ap.add_argument("--sync-window", type=int, metavar="N",
                    help="round trips the clock fit keeps (default: the driver's, 24)")
    args = ap.parse_args()
    results = {}
    print("== pads: end to end through the virtual board (firmware logic + pty + driver)")
    for name, jitter in PROFILES.items():
        r = end_to_end(args.rounds, args.seed, jitter, args.sync_window)
        results[name] = r
        print(f"-- jitter: {name}")
        print(f"   rounds in the right order      {r['ordered']}/{r['rounds']} "
              "(lifts 1.0-2.0 ms apart)")
        print(f"   pairs exactly 1.000 ms apart   {r['pairs_1ms_ok']}/{r['pairs_1ms']} in order")
        print(f"   clock offset error             median {r['clock_err_p50_us']:.0f} us, "
              f"p99 {r['clock_err_p99_us']:.0f} us, max {r['clock_err_max_us']:.0f} us "
              f"over {r['events']} events")
        print(f"   reported error bound           median {r['bound_p50_us']:.0f} us, "
              f"max {r['bound_max_us']:.0f} us; covers the true error in "
              f"{100 * r['bound_covers']:.2f} % of events")
        print(f"   lift time error (vs truth)     median {r['lift_err_p50_us']:.0f} us, "
              f"max {r['lift_err_max_us']:.0f} us; event uncertainty median "
              f"{r['lift_unc_p50_us']:.0f} us covers {100 * r['uncertainty_covers']:.2f} %")
        print(f"   link                           {r['bad_frames']} bad frames, "
              f"{r['lost_frames']} lost frames")
        print(f"   simulated {r['simulated_s']:.0f} s in {r['wall_s']:.1f} s wall")
    if args.plot:
        plot(results, args.plot)
        print(f"== plot: {args.plot}")
    fps = parser_throughput()
    print(f"== parser throughput: {fps:,.0f} frames/s (FrameReader, EVENT frames)")
    cpu = host_cpu_per_1000()
    print(f"== host CPU per 1000 events: {cpu:.1f} ms (SerialPads reading a pty, thread time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
