"""Start the real `knapp serve` process on a free port for tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.lines import LineReader


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A `knapp serve` subprocess; `start()` returns once it printed 'ready'."""

    def __init__(self, data_dir: Path, config: Path | None = None, *extra: str) -> None:
        self.data_dir = data_dir
        self.config = config
        self.extra = extra
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None
        self.output: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60.0) -> Server:
        args = [sys.executable, "-m", "controller", "serve", "--sim", "--host", "127.0.0.1",
                "--port", str(self.port), "--data-dir", str(self.data_dir), *self.extra]
        if self.config is not None:
            args += ["--config", str(self.config)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env)
        assert self.proc.stdout is not None
        # A thread drains the pipe for the server's whole life (a full pipe would
        # block its logging); the test waits on its lines, never sleeps.
        lines = LineReader(self.proc.stdout)
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                line = lines.get(deadline)
                self.output.append(line)
                if line.strip() == "knapp: ready":
                    return self
        except AssertionError:
            pass
        self.kill()
        raise RuntimeError("server did not become ready:\n" + "".join(self.output))

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
