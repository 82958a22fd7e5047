"""`knapp serve`: the table service with its kiosk and companion pages."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import errno
import fcntl
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from controller.cli import seed_arg
from controller.cli.fleet import start_table_link
from controller.config import default_config, load_config


def register(sub: Any) -> None:
    """Add the `serve` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "serve", help="run the table service and its web pages",
        description="Run the table: pads, camera, referee, store and the kiosk web app. "
                    "With no hardware configured, or with --sim, the whole table is simulated.",
    )
    p.add_argument("--config", metavar="FILE", help="table configuration file (TOML)")
    p.add_argument("--sim", action="store_true", help="simulate the table (pads, players)")
    p.add_argument("--bots", type=int, default=None,
                   help="simulated players in the last seats: 0 up to the number of seats")
    p.add_argument("--host", help="address to listen on (default from the configuration)")
    p.add_argument("--port", type=port_arg,
                   help="port, 1 to 65535 (default from the configuration, 8000)")
    p.add_argument("--data-dir", help="where the database and evidence live")
    p.add_argument("--seed", type=seed_arg, help="seed for decks and simulated players")
    p.set_defaults(func=run)


def port_arg(text: str) -> int:
    """argparse type of `--port`: a TCP port, 1 to 65535 (as `[kiosk] port`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 1 to 65535, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Start the service; return when it is stopped."""
    import uvicorn

    from controller.clock import MonotonicClock
    from controller.errors import StoreError
    from controller.pads import build_source
    from controller.referee.service import TableService
    from controller.sim.table import simulated_service
    from controller.store import EventStore
    from controller.web.app import create_app
    from controller.web.auth import PinGuard
    from controller.web.server_options import uvicorn_options

    cfg = load_config(args.config) if args.config else default_config()
    if args.data_dir:
        cfg = dataclasses.replace(cfg, kiosk=dataclasses.replace(cfg.kiosk,
                                                                 data_dir=args.data_dir))
    kiosk, pads_cfg = cfg.kiosk, cfg.pads
    sim = args.sim or pads_cfg.backend == "sim"
    if (refused := _bots_refused(args.bots, cfg.seats)) is not None:
        print(f"knapp serve: {refused}", file=sys.stderr)
        return 2
    host = args.host or kiosk.host
    port = args.port if args.port is not None else kiosk.port
    try:  # before anything is opened or printed: a taken port is the whole message
        listener = listen_socket(host, port, "--port" if args.port is not None
                                 else "[kiosk] port")
    except ListenError as exc:
        print(f"knapp serve: {exc}", file=sys.stderr)
        return 2
    clock = MonotonicClock()
    data = kiosk.data_path
    try:
        lock = lock_data_dir(data)  # held until this process ends
    except DataDirError as exc:
        listener.close()
        print(f"knapp serve: {exc}", file=sys.stderr)
        return 2
    try:
        store = EventStore(data / "knapp.db")
    except StoreError as exc:
        listener.close()
        lock.close()
        print(f"knapp serve: {exc}", file=sys.stderr)
        return 2
    pads = None if sim else build_source(pads_cfg, clock=clock)
    bots = args.bots if args.bots is not None else (kiosk.bots or (len(cfg.seats) - 1 if sim
                                                                  else 0))
    try:
        service = (simulated_service(cfg, store=store, clock=clock, bots=bots, seed=args.seed,
                                     wait_for_people=True)
                   if sim else TableService(cfg, store=store, clock=clock, pads=pads,
                                            seed=args.seed))
    except StoreError as exc:  # e.g. no room to deal a first match: systemd tries again
        for part in (pads, store, lock, listener):
            if part is not None:
                part.close()
        print(f"knapp serve: cannot start the table: {exc}", file=sys.stderr)
        return 1
    link = _camera(cfg, clock, sim, service, camera_only=pads is None and not sim)
    fleet = start_table_link(cfg, service, data)  # None unless the file has [fleet]
    pin = PinGuard(data, kiosk.pin, clock=clock)
    app = create_app(service, pin, hosts=[host])
    _announce(cfg.name, sim, data, host=host, port=port,
              generated_pin=None if kiosk.pin else pin.pin)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            **uvicorn_options(kiosk))
    server = uvicorn.Server(config)
    try:
        asyncio.run(_serve(server, _SystemdNotifier(), service, [listener]))
    finally:
        listener.close()
        for part in (fleet, link):  # the café link, the camera
            if part is not None:
                part.stop()
        for closing in (service, store, pads, lock):
            if closing is not None:
                closing.close()
    return 0


def _bots_refused(bots: int | None, seats: Sequence[str]) -> str | None:
    """Why `--bots` cannot be used at this table, or None."""
    if bots is None or 0 <= bots <= len(seats):
        return None
    return (f"--bots {bots}: the table has {len(seats)} seats ({', '.join(seats)}); "
            f"give 0 to {len(seats)}")


def _announce(name: str, sim: bool, data: Path, *, host: str, port: int,
              generated_pin: str | None) -> None:
    """Say where the table is and how staff log in."""
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    mode = "simulation" if sim else "hardware"
    print(f"knapp: table {name!r} ({mode}), data in {data}", flush=True)
    # The generated PIN goes to this terminal (the journal on a Pi) and the Pi's own
    # screen, never to a browser elsewhere.
    where = ("from the configuration" if generated_pin is None
             else f"{generated_pin}, kept in {data}")
    print(f"knapp: open http://{shown}:{port}/  (staff log in with the table PIN: {where})",
          flush=True)


async def _serve(server: Any, notifier: _SystemdNotifier, service: Any,
                 sockets: list[socket.socket]) -> None:
    """Serve until stopped; tell systemd when ready, and feed its watchdog while alive."""

    async def ready() -> None:
        while not server.started:
            await asyncio.sleep(0.05)
        notifier.notify("READY=1")
        print("knapp: ready", flush=True)
        interval = notifier.watchdog_interval()
        while interval:
            feed_watchdog(notifier, service, interval)
            await asyncio.sleep(interval)

    watcher = asyncio.create_task(ready())
    try:
        await server.serve(sockets=sockets)
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


class ListenError(Exception):
    """The web pages cannot listen where asked (port taken, address not this machine's)."""


def listen_socket(host: str, port: int, what: str = "--port") -> socket.socket:
    """Bind the web pages' TCP socket (as uvicorn would) and return it, listening.

    `what` names where the port came from, for the message.

    Raises:
        ListenError: one line naming the address and what is wrong with it.
    """
    try:
        # IPv4 unless the address is IPv6, as uvicorn decides.
        infos = socket.getaddrinfo(host, port, socket.AF_INET6 if ":" in host else socket.AF_INET,
                                   socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ListenError(f"--host {host}: not an address of this machine "
                          f"({exc.strerror})") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ListenError(f"{what} {port}: another program already listens on "
                              f"{host}:{port}; stop it, or give --port another number") from None
        if exc.errno == errno.EACCES:
            raise ListenError(f"{what} {port}: this user may not listen on ports below 1024; "
                              "use a port from 1024 up") from None
        raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


class DataDirError(Exception):
    """The data folder cannot be used (not a folder, not writable, in use)."""


LOCK_FILE = "knapp.lock"


def lock_data_dir(data: Path) -> IO[str]:
    """Make sure `data` is a usable folder and take its lock; return the open lock file.

    One service per data folder: a second would write into the same log and,
    on its next start, resume the other's match. The lock (`flock`, released
    by the kernel when the process ends, however it ends) is held as long as
    the returned file stays open; the file names the holder's pid.

    Raises:
        DataDirError: one line saying what is wrong with `data`, or who holds it.
    """
    try:
        data.mkdir(parents=True, exist_ok=True)
        fd = os.open(data / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    except FileExistsError:
        raise DataDirError(f"--data-dir {data}: not a folder (a file is in the way)") from None
    except NotADirectoryError:
        raise DataDirError(f"--data-dir {data}: a part of the path is a file, "
                           "not a folder") from None
    except OSError as exc:
        raise DataDirError(f"--data-dir {data}: cannot use it as the data folder "
                           f"({exc.strerror or exc})") from None
    f = os.fdopen(fd, "r+", encoding="ascii")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = f.read().strip()
        f.close()
        who = f"pid {holder}" if holder.isdigit() else "another process"
        raise DataDirError(f"--data-dir {data} is in use by another knapp serve ({who}); "
                           "stop it first, or give this one another --data-dir") from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def feed_watchdog(notifier: _SystemdNotifier, service: Any, interval_s: float) -> bool:
    """Send WATCHDOG=1 only while the referee loop finished a tick within `interval_s`.

    A loop that died, hangs or keeps failing stops feeding systemd's watchdog,
    which then restarts the service (and the match resumes from its log).
    """
    if service.alive(interval_s):
        notifier.notify("WATCHDOG=1")
        return True
    notifier.notify(f"STATUS=referee loop stalled: {service.heartbeat.error or 'no tick'}")
    return False


def _camera(cfg: Any, clock: Any, sim: bool, service: Any, *, camera_only: bool) -> Any:
    """Open the configured camera; on any failure go on with pads only and say why."""
    from controller.errors import KnappError

    cam = cfg.camera
    if sim or cam.source == "sim":
        return None
    from controller.referee.camera import CameraLink
    from controller.vision.analyze import FrameAnalyser, calibrate_live
    from controller.vision.calibrate import Calibration
    from controller.vision.ring import FrameRing
    from controller.vision.sources import open_source

    try:
        source = open_source(cam.source, clock=clock, width=cam.width, height=cam.height,
                             fps=cam.fps)
        if cam.calibration is not None:
            calibration = Calibration.load(cam.calibration)
        else:
            # Frames as they come, not one: hands resting on different markers move.
            calibration, _ = calibrate_live(source, cam)
        link = CameraLink(source, FrameAnalyser(cam, calibration, fps=source.fps),
                          FrameRing(cam.ring_seconds))
    except (KnappError, OSError) as exc:
        service.camera_unavailable(str(exc))
        print(f"knapp: camera not used ({exc}); refereeing from the pads", file=sys.stderr)
        return None
    service.attach_camera(link, camera_only=camera_only)
    link.start()
    print(f"knapp: camera {cam.source} at {source.fps:g} fps", flush=True)
    return link


class _SystemdNotifier:
    """sd_notify over $NOTIFY_SOCKET (Type=notify, WatchdogSec).

    Written here rather than pulling in a library: it is one datagram per call.
    """

    def __init__(self) -> None:
        self.address = os.environ.get("NOTIFY_SOCKET", "")

    def notify(self, message: str) -> None:
        if not self.address:
            return
        addr = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.connect(addr)
                s.sendall(message.encode())
        except OSError as exc:
            print(f"knapp: sd_notify failed: {exc}", file=sys.stderr)

    def watchdog_interval(self) -> float:
        usec = os.environ.get("WATCHDOG_USEC", "")
        return int(usec) / 2e6 if usec.isdigit() else 0.0
