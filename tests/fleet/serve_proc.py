"""A real `knapp serve --sim` table with a `[fleet]` section, as a process the test can kill."""

from __future__ import annotations

import http.cookiejar
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from controller.fleet.local import LocalMosquitto, free_port
from tests.fleet.helpers import PASSWORDS

PIN = "13572468"

TABLE_TOML = """\
[table]
name = "Table {table}"
seats = ["Ada", "Ben", "Cleo"]

[match]
target = 2

[kiosk]
countdown_s = 0.1
sim_return_s = 0.1
bots = 3
evidence = false
pin = "{pin}"

[fleet]
broker = "mqtt://127.0.0.1:{port}"
table = "{table}"
password_file = "{table}.password"
resend_after_s = 5
"""


class ServedTable:
    """`knapp serve --sim` for one table; its stderr is read as it comes.

    `KNAPP_FAULT=announce` makes its store say "appended N" after every commit, so
    the test can wait for the table to have played on (never for a time).
    """

    def __init__(self, mq: LocalMosquitto, table: str, folder: Path, seed: int) -> None:
        self.table = table
        self.folder = folder
        self.data = folder / "data"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{table}.password").write_text(PASSWORDS[table] + "\n")
        self.config = folder / "table.toml"
        self.config.write_text(TABLE_TOML.format(table=table, port=mq.port, pin=PIN))
        self.seed = seed
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: list[str] = []
        self.appended = 0
        self.matches_started = 0
        self._cond = threading.Condition()
        self.port = 0

    @property
    def db_path(self) -> Path:
        return self.data / "knapp.db"

    def start(self, timeout_s: float = 60) -> ServedTable:
        env = {**os.environ, "KNAPP_FAULT": "announce", "PYTHONUNBUFFERED": "1"}
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller", "serve", "--sim", "--host", "127.0.0.1",
             "--port", str(self.port), "--data-dir", str(self.data), "--config",
             str(self.config), "--seed", str(self.seed)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        # Only this run's output counts: a restarted table's earlier "ready" is old news.
        with self._cond:
            mark = len(self.lines)
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        assert self.wait(lambda: "knapp: ready" in self.lines[mark:], timeout_s), \
            "\n".join(self.lines[-30:])
        threading.Thread(target=self._staff, args=(self.proc,), daemon=True).start()
        return self

    def _staff(self, proc: subprocess.Popen[bytes]) -> None:
        """The café's staff: when a match is over, start the next one (as from the page).

        Looks after each record the table commits (its "appended" line), never on a timer.
        """
        base = f"http://127.0.0.1:{self.port}"
        opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def call(path: str, body: dict[str, str] | None = None) -> dict[str, object]:
            req = urllib.request.Request(base + path, method="GET" if body is None else "POST",
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
            with opener.open(req, timeout=10) as r:
                out: dict[str, object] = json.loads(r.read() or b"{}")
                return out

        try:
            call("/api/session", {"pin": PIN})
            seen = -1
            while proc.poll() is None:
                with self._cond:
                    self._cond.wait_for(
                        lambda s=seen: self.appended != s or proc.poll() is not None)
                    seen = self.appended
                state = call("/api/state")
                if state.get("winners"):
                    call("/api/control", {"action": "rematch"})
                    self.matches_started += 1
        except (OSError, ValueError):
            return  # the table went away (killed): nobody to press the button for

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        pending = b""
        while True:
            sel.select()
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            *done, pending = (pending + chunk).split(b"\n")
            with self._cond:
                for raw in done:
                    line = raw.decode(errors="replace").strip()
                    if line.startswith("appended "):
                        self.appended += 1
                    else:
                        self.lines.append(line)
                self._cond.notify_all()
        sel.close()
        proc.stdout.close()
        with self._cond:
            self._cond.notify_all()

    def wait(self, predicate: object, timeout_s: float = 60) -> bool:
        """Wait on the table's own output until `predicate()` holds."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while not predicate():  # type: ignore[operator]
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def played_on(self, more: int, timeout_s: float = 60) -> bool:
        """Wait until the table has committed `more` records beyond now."""
        target = self.appended + more
        return self.wait(lambda: self.appended >= target, timeout_s)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)
        self.proc = None
