"""Evidence retention: age, size, holds, and the full-disk check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.evidence.retention import (
    disk_has_room,
    enforce,
    held,
    hold,
    release,
)

DAY = 86_400.0
NOW = 2_000_000_000.0


def bundle(root: Path, name: str, age_days: float, size: int) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "clip.webm").write_bytes(b"x" * size)
    t = NOW - age_days * DAY
    os.utime(d, (t, t))
    return d


def test_old_bundles_go_first(tmp_path: Path) -> None:
    bundle(tmp_path, "a", 40, 10)
    bundle(tmp_path, "b", 10, 10)
    report = enforce(tmp_path, max_age_s=30 * DAY, max_bytes=10**9, now_s=NOW)
    assert report.deleted == ["a"] and report.kept == ["b"]
    assert not (tmp_path / "a").exists() and (tmp_path / "b").exists()


def test_size_limit_deletes_oldest_until_under(tmp_path: Path) -> None:
    for i, name in enumerate("abcd"):
        bundle(tmp_path, name, 5 - i, 100)
    report = enforce(tmp_path, max_age_s=30 * DAY, max_bytes=250, now_s=NOW)
    assert report.deleted == ["a", "b"] and report.total_bytes == 200


def test_held_bundles_are_kept_until_released(tmp_path: Path) -> None:
    bundle(tmp_path, "disputed", 90, 100)
    bundle(tmp_path, "other", 90, 100)
    hold(tmp_path, "disputed")
    report = enforce(tmp_path, max_age_s=30 * DAY, max_bytes=0, now_s=NOW)
    assert report.deleted == ["other"] and report.held == ["disputed"]
    release(tmp_path, "disputed")
    assert held(tmp_path) == []
    assert enforce(tmp_path, max_age_s=30 * DAY, max_bytes=0, now_s=NOW).deleted == ["disputed"]


def test_release_and_the_held_list(tmp_path: Path) -> None:
    assert held(tmp_path) == []
    bundle(tmp_path, "m1-002-dog", 90, 100)
    hold(tmp_path, "m1-002-dog")
    hold(tmp_path, "m1-001-ship")          # disputed before its bundle is written
    assert held(tmp_path) == ["m1-001-ship", "m1-002-dog"]
    assert enforce(tmp_path, max_age_s=30 * DAY, max_bytes=0, now_s=NOW).deleted == []
    release(tmp_path, "m1-002-dog")
    release(tmp_path, "m1-002-dog")       # releasing twice is harmless
    assert held(tmp_path) == ["m1-001-ship"]
    assert enforce(tmp_path, max_age_s=30 * DAY, max_bytes=0, now_s=NOW).deleted == ["m1-002-dog"]
    for bad in ("", ".hidden", "../escape", "a/b"):
        with pytest.raises(ValueError, match="not a bundle name"):
            release(tmp_path, bad)


def test_disk_room(tmp_path: Path) -> None:
    assert disk_has_room(tmp_path, 1)
    assert not disk_has_room(tmp_path, 1 << 62)
