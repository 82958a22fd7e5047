"""`knapp fleet`: the café service, its league nights and its broker's files; a table's link.

`knapp fleet serve --config CAFE.toml` runs the café side: the subscriber
that ingests every table's records into PostgreSQL, and the staff pages.
`knapp fleet league` plans a league night, `knapp fleet broker-config` writes
the broker's ACL and configuration. `start_table_link` is how `knapp serve`
starts a table's side when its file has a `[fleet]` section. paho-mqtt and
psycopg are imported only when one of these runs.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from controller.errors import ConfigError, KnappError

INSTALL_HINT = "pip install 'knapp-controller[fleet]' (paho-mqtt and psycopg)"


def register(sub: Any) -> None:
    """Add the `fleet` command and its sub-commands."""
    p: argparse.ArgumentParser = sub.add_parser(
        "fleet", help="the café: collect every table's records, staff pages, league nights",
        description="The café side of a fleet of tables (docs/fleet.md).")
    fs = p.add_subparsers(dest="fleet_command", metavar="SUBCOMMAND")
    fs.required = True

    serve = fs.add_parser("serve", help="run the café service and its staff pages",
                          description="Subscribe to every table on the café's broker, ingest "
                                      "their records into PostgreSQL (verified, each once) "
                                      "and serve the staff pages.")
    serve.add_argument("--config", required=True, metavar="CAFE.toml", help="the café file")
    serve.add_argument("--host", help="address of the staff pages (default from the file)")
    serve.add_argument("--port", type=int, help="port of the staff pages (default from the file)")
    serve.set_defaults(func=_serve)

    league = fs.add_parser("league", help="plan a league night",
                           description="Plan a league night: every player meets the others "
                                       "across the tables (circle method); the staff page's "
                                       "League tab shows the schedule and the standings.")
    league.add_argument("--config", required=True, metavar="CAFE.toml", help="the café file")
    league.add_argument("--name", required=True, help="the night's name")
    league.add_argument("--players", required=True, help="comma-separated names, as seated")
    league.add_argument("--tables", required=True, help="comma-separated table ids")
    league.add_argument("--group", type=int, default=2, help="players per match (default 2)")
    league.add_argument("--rounds", type=int, help="rounds (default: everyone meets once)")
    league.set_defaults(func=_league)

    demo = fs.add_parser("demo", help="a whole café on this machine: broker, database, tables",
                         description="Start a throwaway Mosquitto and PostgreSQL, the café "
                                     "service and simulated tables, and serve the staff pages "
                                     "until Ctrl-C (everything is removed then).")
    demo.add_argument("--tables", type=int, default=3, help="simulated tables (1 to 6)")
    demo.add_argument("--host", default="127.0.0.1", help="address of the staff pages")
    demo.add_argument("--port", type=int, default=8080, help="port of the staff pages")
    demo.set_defaults(func=_demo)

    rebuild = fs.add_parser("rebuild", help="check every held record again and remake the "
                                            "leaderboard and summaries from them",
                            description="Check every record the café holds again (the table's "
                                        "signature, the chain, the sealed form) and derive the "
                                        "streams, match and room summaries, leaderboard, league "
                                        "results and health from the records that hold; a "
                                        "record that fails is moved to the refusals.")
    rebuild.add_argument("--config", required=True, metavar="CAFE.toml", help="the café file")
    rebuild.set_defaults(func=_rebuild)

    password = fs.add_parser("password", help="hash a staff password for the café file",
                             description="Read a staff password (twice, not echoed; or one "
                                         "line on stdin) and print the line for the café "
                                         "file's staff_password.")
    password.set_defaults(func=_password)

    broker = fs.add_parser("broker-config", help="write the broker's ACL and configuration",
                           description="Write acl and knapp.conf for the café's Mosquitto "
                                       "(hardware/fleet/README.md); accounts are added with "
                                       "mosquitto_passwd.")
    broker.add_argument("--out", required=True, help="folder to write into")
    broker.add_argument("--etc", default="/etc/mosquitto",
                        help="where the files will live on the broker (default /etc/mosquitto)")
    broker.add_argument("--port", type=int, default=8883, help="listener port (default 8883)")
    broker.add_argument("--plain", action="store_true",
                        help="plain mqtt, no TLS (a test bench only)")
    broker.set_defaults(func=_broker_config)


def cafe_app(cafe: Any, *, clock: Any = None, wall: Any = None) -> Any:
    """The staff pages as `knapp fleet serve` runs them: behind the table web app's own
    Host/Origin guard, with its wrong-PIN throttle counting wrong staff passwords."""
    import time

    from controller.clock import MonotonicClock
    from controller.fleet.web import create_cafe_app
    from controller.web.auth import Throttle, client_key
    from controller.web.security import HostGuard, default_hosts

    app = create_cafe_app(cafe, throttle=Throttle(clock or MonotonicClock()),
                          client_key=client_key, wall=wall or time.time)
    app.add_middleware(HostGuard, hosts=default_hosts(cafe.config.allowed_hosts))
    return app


def _logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s",
                        stream=sys.stderr)


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from controller.fleet.cafe import CafeService
        from controller.fleet.config import load_cafe_config
    except ImportError as exc:
        print(f"knapp fleet serve: {exc.name} is missing: {INSTALL_HINT}", file=sys.stderr)
        return 2
    cfg = load_cafe_config(args.config)
    _logging()
    cafe = CafeService(cfg).start()
    host = args.host or cfg.host
    port = args.port if args.port is not None else cfg.port
    app = cafe_app(cafe)
    if not cfg.staff_password:
        print("knapp fleet: no staff_password in the café file: nobody can log in to the staff "
              "pages (run `knapp fleet password`)", file=sys.stderr, flush=True)
    print(f"knapp fleet: café {cfg.name!r}, broker {cfg.broker.url}, staff pages on "
          f"http://{host}:{port}/", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    try:
        asyncio.run(_until_stopped(server))
    finally:
        cafe.stop()
    return 0


async def _until_stopped(server: Any) -> None:
    async def ready() -> None:
        while not server.started:
            await asyncio.sleep(0.05)
        print("knapp fleet: ready", flush=True)

    task = asyncio.create_task(ready())
    try:
        await server.serve()
    finally:
        task.cancel()


def _demo(args: argparse.Namespace) -> int:
    try:
        from controller.cli import fleet_demo
    except ImportError as exc:
        print(f"knapp fleet demo: {exc.name} is missing: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from controller.fleet.local import LocalServerError

    _logging()
    try:
        return fleet_demo.run(args, cafe_app)
    except LocalServerError as exc:
        print(f"knapp fleet demo: {exc}", file=sys.stderr)
        return 1


def _league(args: argparse.Namespace) -> int:
    try:
        import psycopg

        from controller.fleet.config import load_cafe_config
        from controller.fleet.ingest import Ingestor
        from controller.fleet.league import LeagueError, plan
    except ImportError as exc:
        print(f"knapp fleet league: {exc.name} is missing: {INSTALL_HINT}", file=sys.stderr)
        return 2
    import time

    cfg = load_cafe_config(args.config)
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    try:
        fixtures = plan(players, tables, group=args.group, rounds=args.rounds)
    except LeagueError as exc:
        print(f"knapp fleet league: {exc}", file=sys.stderr)
        return 2
    try:
        db = Ingestor.connect(cfg.database, wall=time.time)
    except psycopg.Error as exc:
        print(f"knapp fleet league: cannot reach the café database: {exc}", file=sys.stderr)
        return 1
    try:
        league_id = db.add_league(args.name, {"fixtures": [f.to_json() for f in fixtures],
                                              "players": players, "tables": tables})
    finally:
        db.close()
    print(f"league {league_id} {args.name!r}: {len(fixtures)} matches over "
          f"{max(f.round for f in fixtures)} rounds")
    for f in fixtures:
        print(f"  round {f.round}{'.' + str(f.wave) if f.wave > 1 else ''}  {f.table:>12}  "
              f"{' – '.join(f.players)}")
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    try:
        import psycopg

        from controller.fleet.config import load_cafe_config
        from controller.fleet.ingest import Ingestor
    except ImportError as exc:
        print(f"knapp fleet rebuild: {exc.name} is missing: {INSTALL_HINT}", file=sys.stderr)
        return 2
    import time

    cfg = load_cafe_config(args.config)
    try:
        db = Ingestor.connect(cfg.database, wall=time.time, keys=dict(cfg.keys),
                              trust=cfg.trust)
    except psycopg.Error as exc:
        print(f"knapp fleet rebuild: cannot reach the café database: {exc}", file=sys.stderr)
        return 1
    try:
        report = db.rebuild()
    except psycopg.Error as exc:
        print(f"knapp fleet rebuild: the database refused the rebuild, nothing changed: {exc}",
              file=sys.stderr)
        return 1
    finally:
        db.close()
    print(f"rebuilt from {report.records} verified records in {report.streams} streams: "
          f"{report.matches} matches, {report.rooms} rooms ({report.sealed} records still "
          f"sealed); {report.refused} refused")
    return 0 if report.refused == 0 else 3


def _password(_args: argparse.Namespace) -> int:
    import getpass

    from controller.fleet.config import hash_password

    if sys.stdin.isatty():
        first = getpass.getpass("staff password: ")
        if getpass.getpass("again: ") != first:
            print("knapp fleet password: the two passwords differ", file=sys.stderr)
            return 2
    else:
        first = sys.stdin.readline().rstrip("\n")
    try:
        line = hash_password(first)
    except ValueError as exc:
        print(f"knapp fleet password: {exc}", file=sys.stderr)
        return 2
    print(f'staff_password = "{line}"')
    return 0


def _broker_config(args: argparse.Namespace) -> int:
    from controller.fleet.broker import ACL, Tls, mosquitto_conf

    out = Path(args.out)
    etc = Path(args.etc)
    out.mkdir(parents=True, exist_ok=True)
    tls = None if args.plain else Tls(etc / "certs" / "ca.pem", etc / "certs" / "broker.pem",
                                      etc / "certs" / "broker.key")
    (out / "acl").write_text(ACL, encoding="utf-8")
    (out / "knapp.conf").write_text(
        mosquitto_conf(args.port, password_file=etc / "knapp.passwd", acl_file=etc / "acl",
                       tls=tls), encoding="utf-8")
    print(f"wrote {out / 'acl'} (for {etc / 'acl'}) and {out / 'knapp.conf'} (for "
          f"{etc / 'conf.d' / 'knapp.conf'}); add accounts with "
          f"mosquitto_passwd {etc / 'knapp.passwd'} NAME")
    return 0


# -- the table side, started by `knapp serve` ------------------------------------------------


def start_table_link(cfg: Any, service: Any, data_dir: Path) -> Any:
    """Start the table's link to the café when its file has `[fleet]`; None otherwise.

    Never stops the table: a missing library or an unreadable password file is
    one line on stderr, and the table plays on without the café.
    """
    if not cfg.fleet.enabled:
        return None
    logger = logging.getLogger("knapp.fleet")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("knapp: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    try:
        from controller.fleet.table import TableLink
    except ImportError as exc:
        print(f"knapp: [fleet] is set but {exc.name} is missing ({INSTALL_HINT}); this table "
              "plays without the café", file=sys.stderr)
        return None
    from controller.evidence.signing import TableKey

    try:
        # The key the table signs its exports with signs its café records too: one
        # fingerprint to pin in the café (docs/fleet.md, "Trust").
        link = TableLink(cfg.fleet, data_dir / "knapp.db", signer=TableKey.load_or_create(data_dir),
                         health=lambda: service.snapshot()["health"], name=cfg.name)
    except (ConfigError, KnappError, OSError) as exc:
        print(f"knapp: the café link cannot start ({exc}); this table plays without it",
              file=sys.stderr)
        return None
    service.subscribe(link.wake)
    return link.start()
