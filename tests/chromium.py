"""Debian's Chromium under Playwright, launched one way for every browser test.

The flags keep a headless Chromium in a container quiet and repeatable: no
sandbox (the container is one), no GPU, no background fetches, updates, sync
or first-run pages that would race the test's own requests.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run")
# The sounds are WebAudio: without a user's tap they start only with this.
AUTOPLAY = "--autoplay-policy=no-user-gesture-required"
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium (make test installs it)")
# The marks of a module of browser tests: skipped, saying why, where Chromium is missing.
BROWSER_TESTS = [pytest.mark.browser, NEEDS_CHROMIUM]


@contextmanager
def chromium(*extra: str) -> Iterator[Any]:
    """A Chromium browser (Playwright's `Browser`), closed on leaving."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, *extra])
        try:
            yield browser
        finally:
            browser.close()
