"""A match survives its process being killed at any instant and resumes exactly.

A subprocess plays one simulated match into a durable SQLite store. Each run is
killed with SIGKILL at a random point: inside an event's transaction (before
its commit) or just after a commit, chosen by a seeded generator and injected
through KNAPP_FAULT, so the kill lands at an exact, reproducible place without
the test sleeping. Then the process is started again, and again, until the match
ends. The final event log and derived state must equal an uninterrupted run's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.rng import Rng
from controller.store import EventStore

SEED = 4242
ARGS = ["-m", "controller", "simulate", "--players", "4", "--seed", str(SEED), "--json"]


def run(db: Path, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("KNAPP_FAULT", None)
    if fault:
        env["KNAPP_FAULT"] = fault
    return subprocess.run([sys.executable, *ARGS, "--db", str(db), "--match-id", "m"],
                          capture_output=True, text=True, timeout=120, env=env, check=False)


def reference(tmp_path: Path) -> tuple[object, list[str], object]:
    """An uninterrupted run: its summary, its event bodies and its final state."""
    db = tmp_path / "reference.db"
    done = run(db)
    assert done.returncode == 0, done.stderr
    with EventStore(db) as store:
        return (json.loads(done.stdout), [r.body for r in store.records("m")],
                store.open_match("m").to_json())


@pytest.mark.slow
def test_kill_at_random_points_and_resume(tmp_path: Path) -> None:
    expected, expected_bodies, expected_state = reference(tmp_path)
    total = len(expected_bodies)
    assert total > 30

    db = tmp_path / "killed.db"
    rng = Rng("kill-points")
    kills = 0
    stored = 0
    first = True
    while True:
        remaining = total - stored
        # Die somewhere within this run's remaining events (1 = the first append);
        # the very first run dies inside the match's creation.
        point = 1 + rng.randbelow(max(1, min(remaining, 6)))
        where = rng.choice(["kill-in-tx", "kill-after-commit"])
        if first:
            point, where, first = 1, "kill-in-tx", False
        proc = run(db, f"{where}:{point}" if remaining > 0 else None)
        if proc.returncode == -signal.SIGKILL:
            kills += 1
            with EventStore(db) as store:
                records = store.records("m")
                if store.has_match("m"):
                    store.verify("m")  # a killed writer never leaves a broken chain
                else:
                    assert (where, point, stored) == ("kill-in-tx", 1, 0)
                # A kill inside the transaction loses that one event, nothing else.
                gained = len(records) - stored
                assert gained == (point - 1 if where == "kill-in-tx" else point), (where, point)
                assert [r.body for r in records] == expected_bodies[: len(records)]
                stored = len(records)
            continue
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == expected
        break
    assert kills >= 12, f"only {kills} kills; the test proves too little"
    with EventStore(db) as store:
        assert [r.body for r in store.records("m")] == expected_bodies
        assert store.open_match("m").to_json() == expected_state


@pytest.mark.slow
def test_kill_from_outside_at_whatever_instant_and_resume(tmp_path: Path) -> None:
    """The parent SIGKILLs the running writer as soon as it has read the child's
    k-th "appended" line: the child has gone on working meanwhile, so the kill
    lands wherever it happens to be (mid-simulation, mid-transaction, mid-fsync),
    as a tripped-over power cable would. No hook chooses the place."""
    expected, expected_bodies, expected_state = reference(tmp_path)

    db = tmp_path / "killed.db"
    rng = Rng("outside-kills")
    env = dict(os.environ, KNAPP_FAULT="announce")
    kills = 0
    for _attempt in range(200):
        target = 1 + rng.randbelow(4)
        proc = subprocess.Popen([sys.executable, *ARGS, "--db", str(db), "--match-id", "m"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        assert proc.stderr is not None and proc.stdout is not None
        seen = 0
        for line in proc.stderr:
            if line.startswith("appended "):
                seen += 1
                if seen == target:
                    proc.kill()
                    break
        out = proc.stdout.read()
        proc.stderr.close()
        proc.stdout.close()
        code = proc.wait(timeout=120)
        with EventStore(db) as store:
            records = store.records("m")
            if records:
                store.verify("m")  # never a torn or broken chain
            # Whatever was committed is exactly a prefix of the uninterrupted run.
            assert [r.body for r in records] == expected_bodies[: len(records)]
        if code == -signal.SIGKILL:
            kills += 1
            continue
        assert code == 0
        assert json.loads(out) == expected
        break
    else:
        pytest.fail("the match never finished")
    assert kills >= 5, f"only {kills} kills; the test proves too little"
    with EventStore(db) as store:
        assert [r.body for r in store.records("m")] == expected_bodies
        assert store.open_match("m").to_json() == expected_state
