"""`knapp serve`: the table service with its kiosk and companion pages."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import sys
from typing import Any

from controller.cli import seed_arg
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
    p.add_argument("--bots", type=int, default=None, help="simulated players (the last seats)")
    p.add_argument("--host", help="address to listen on (default from the configuration)")
    p.add_argument("--port", type=int, help="port (default from the configuration, 8000)")
    p.add_argument("--data-dir", help="where the database and evidence live")
    p.add_argument("--seed", type=seed_arg, help="seed for decks and simulated players")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Start the service; return when it is stopped."""
    import dataclasses

    import uvicorn

    from controller.clock import MonotonicClock
    from controller.pads import build_source
    from controller.referee.service import TableService
    from controller.sim.table import simulated_service
    from controller.store import EventStore
    from controller.web.app import create_app
    from controller.web.auth import PinGuard

    cfg = load_config(args.config) if args.config else default_config()
    kiosk = cfg.kiosk
    if args.data_dir:
        kiosk = dataclasses.replace(kiosk, data_dir=args.data_dir)
        cfg = dataclasses.replace(cfg, kiosk=kiosk)
    pads_cfg = cfg.pads
    sim = args.sim or pads_cfg.backend == "sim"
    clock = MonotonicClock()
    data = kiosk.data_path
    data.mkdir(parents=True, exist_ok=True)
    store = EventStore(data / "knapp.db")
    pads = None if sim else build_source(pads_cfg, clock=clock)
    link = None
    bots = args.bots if args.bots is not None else (kiosk.bots or (len(cfg.seats) - 1 if sim
                                                                  else 0))
    service = (simulated_service(cfg, store=store, clock=clock, bots=bots, seed=args.seed)
               if sim else TableService(cfg, store=store, clock=clock, pads=pads, seed=args.seed))
    link = _camera(cfg, clock, sim, service, camera_only=pads is None and not sim)
    pin = PinGuard(data, kiosk.pin, clock=clock)
    app = create_app(service, pin)
    host = args.host or kiosk.host
    port = args.port if args.port is not None else kiosk.port
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    mode = "simulation" if sim else "hardware"
    print(f"knapp: table {cfg.name!r} ({mode}), data in {data}", flush=True)
    print(f"knapp: open http://{shown}:{port}/  (table PIN: "
          f"{'from the configuration' if kiosk.pin else pin.pin})", flush=True)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    notifier = _SystemdNotifier()

    async def main() -> None:
        async def ready() -> None:
            while not server.started:
                await asyncio.sleep(0.05)
            notifier.notify("READY=1")
            print("knapp: ready", flush=True)
            interval = notifier.watchdog_interval()
            while interval:
                notifier.notify("WATCHDOG=1")
                await asyncio.sleep(interval)

        watcher = asyncio.create_task(ready())
        try:
            await server.serve()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher

    try:
        asyncio.run(main())
    finally:
        if link is not None:
            link.stop()
        store.close()
        if pads is not None:
            pads.close()
    return 0


def _camera(cfg: Any, clock: Any, sim: bool, service: Any, *, camera_only: bool) -> Any:
    """Open the configured camera; on any failure go on with pads only and say why."""
    from controller.errors import KnappError

    cam = cfg.camera
    if sim or cam.source == "sim":
        return None
    from controller.referee.camera import CameraLink
    from controller.vision.analyze import FrameAnalyser
    from controller.vision.calibrate import Calibration, calibrate
    from controller.vision.ring import FrameRing
    from controller.vision.sources import open_source

    try:
        source = open_source(cam.source, clock=clock, width=cam.width, height=cam.height,
                             fps=cam.fps)
        if cam.calibration is not None:
            calibration = Calibration.load(cam.calibration)
        else:
            first = source.read()
            if first is None:
                raise KnappError("the camera gave no frame to calibrate from")
            calibration = calibrate(first.image, cam)
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
