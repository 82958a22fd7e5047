"""Throwaway Mosquitto and PostgreSQL servers on free ports in temporary folders.

For the tests, the bench and `knapp fleet demo`: the real Debian servers
(`mosquitto`, `postgresql`), each started in a folder of its own and removed
with it. PostgreSQL will not run as root, so when this process is root the
cluster is made and run as the unprivileged user `nobody` (through
`runuser`), in a folder handed to that user. Both wait for the server to say
it is ready (`pg_ctl -w`, Mosquitto's own "running" line), never for a time.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import selectors
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from controller.fleet.broker import ACL, Tls, mosquitto_conf

PG_USER = "knapp"
UNPRIVILEGED = "nobody"
START_TIMEOUT_S = 30.0


class LocalServerError(RuntimeError):
    """A throwaway server could not be found or started (the message says which and why)."""


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def pg_binary(name: str) -> Path:
    """A PostgreSQL server program: on PATH, or Debian's /usr/lib/postgresql/*/bin.

    Raises:
        LocalServerError: not installed (names the Debian package).
    """
    found = shutil.which(name)
    if found:
        return Path(found)
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                      key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if versions:
        return Path(versions[-1])
    raise LocalServerError(f"PostgreSQL's {name} is not installed (Debian: apt-get install "
                           "postgresql)")


def mosquitto_binary(name: str = "mosquitto") -> Path:
    """Mosquitto's program (or `mosquitto_passwd`).

    Raises:
        LocalServerError: not installed (names the Debian package).
    """
    found = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}")
                                        if os.access(p, os.X_OK)), None)
    if found is None:
        raise LocalServerError(f"{name} is not installed (Debian: apt-get install mosquitto)")
    return Path(found)


def _as_unprivileged(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser is None:
        raise LocalServerError("PostgreSQL refuses to run as root, and runuser (util-linux) "
                               "is not here to run it as 'nobody'")
    return [runuser, "-u", UNPRIVILEGED, "--", *cmd]


def _run(cmd: list[str], what: str) -> None:
    # The servers stay in this process group: when a test run is killed, they go with it
    # (Ctrl-C stops them too; `close` then only removes the folders).
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise LocalServerError(f"{what} failed ({done.returncode}): "
                               f"{(done.stderr or done.stdout).strip()[-800:]}")


class LocalPostgres:
    """A throwaway PostgreSQL cluster (trust authentication on 127.0.0.1 only).

    Args:
        fsync: keep PostgreSQL's fsync (off makes tests faster; the bench keeps it on).
    """

    def __init__(self, *, fsync: bool = False) -> None:
        self.fsync = fsync
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="knapp-pg-"))
        self.data = self.dir / "data"
        self.logfile = self.dir / "postgres.log"
        if os.geteuid() == 0:
            nobody = pwd.getpwnam(UNPRIVILEGED)
            os.chown(self.dir, nobody.pw_uid, nobody.pw_gid)
        self._running = False

    def _ctl(self, *args: str) -> list[str]:
        opts = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                f"-c fsync={'on' if self.fsync else 'off'} -c max_connections=40")
        return _as_unprivileged([str(pg_binary("pg_ctl")), "-D", str(self.data), "-l",
                                 str(self.logfile), "-w", "-t", str(int(START_TIMEOUT_S)),
                                 *args, "-o", opts])

    def start(self) -> LocalPostgres:
        """Make the cluster (first time) and start the server; returns when it accepts."""
        if not self.data.exists():
            _run(_as_unprivileged([str(pg_binary("initdb")), "-D", str(self.data), "-U",
                                   PG_USER, "--auth=trust", "-E", "UTF8", "--no-sync",
                                   "--no-instructions"]), "initdb")
        _run(self._ctl("start"), "pg_ctl start")
        self._running = True
        return self

    @property
    def running(self) -> bool:
        """True between `start` and `stop`."""
        return self._running

    def restart(self) -> None:
        """Stop (fast: sessions cut) and start again on the same port."""
        _run(self._ctl("restart", "-m", "fast"), "pg_ctl restart")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`immediate` is a crash, with recovery at the next start)."""
        if self._running:
            _run(self._ctl("stop", "-m", mode), "pg_ctl stop")
            self._running = False

    def dsn(self, dbname: str = "postgres") -> str:
        """A libpq connection string for `dbname`."""
        return f"host=127.0.0.1 port={self.port} user={PG_USER} dbname={dbname}"

    def create_database(self, name: str) -> str:
        """Create an empty database; return its connection string."""
        import psycopg  # only the fleet's own helpers load the driver

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def close(self) -> None:
        """Stop the server and remove its folder."""
        with contextlib.suppress(LocalServerError):
            self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


class LocalMosquitto:
    """A throwaway Mosquitto with the café's ACL and the given accounts.

    Args:
        users: user name -> password (tables by their ids, and "cafe").
        tls: a certificate for an mqtts listener (None: plain mqtt).
    """

    def __init__(self, users: dict[str, str], *, tls: Tls | None = None) -> None:
        self.users = dict(users)
        self.tls = tls
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="knapp-mqtt-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self._drainer: threading.Thread | None = None
        self.output: list[str] = []
        passwords = self.dir / "passwords"
        passwords.touch(mode=0o600)
        for user, password in self.users.items():
            _run([str(mosquitto_binary("mosquitto_passwd")), "-b", str(passwords), user,
                  password], "mosquitto_passwd")
        acl = self.dir / "acl"
        acl.write_text(ACL, encoding="utf-8")
        # As root, Mosquitto would switch to its own account, which cannot read this folder.
        me = pwd.getpwuid(os.geteuid()).pw_name
        self.conf = self.dir / "mosquitto.conf"
        self.conf.write_text(mosquitto_conf(self.port, password_file=passwords, acl_file=acl,
                                            data_dir=self.dir, bind="127.0.0.1", tls=tls,
                                            user=me), encoding="utf-8")

    def start(self) -> LocalMosquitto:
        """Start the broker; returns when it says it is running."""
        self.proc = subprocess.Popen([str(mosquitto_binary()), "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + START_TIMEOUT_S
        pending = b""
        try:
            # Raw reads after select: a buffered readline could hold the next line back
            # in its buffer where select cannot see it.
            while time.monotonic() < deadline:
                if not sel.select(timeout=deadline - time.monotonic()):
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                self.output += [line.decode(errors="replace") for line in lines]
                if any(b" running" in line for line in lines):
                    self._drainer = threading.Thread(target=self._drain, args=(fd,),
                                                     daemon=True)
                    self._drainer.start()
                    return self
        finally:
            sel.close()
        self.stop(signal.SIGKILL)
        raise LocalServerError("mosquitto did not start:\n" + "\n".join(self.output[-20:]))

    def _drain(self, fd: int) -> None:
        """Keep reading the broker's log, or a full pipe would stop it."""
        with contextlib.suppress(OSError):
            while chunk := os.read(fd, 65536):
                self.output += chunk.decode(errors="replace").splitlines()
                del self.output[:-200]

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the broker (SIGTERM saves its queues; SIGKILL is a crash)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)
        if self._drainer is not None:
            self._drainer.join(5)  # it ends at the pipe's end, now the broker is gone
            self._drainer = None
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        self.proc = None

    def close(self) -> None:
        """Stop the broker and remove its folder."""
        self.stop(signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)
