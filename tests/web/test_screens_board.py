"""The designed screens of the two board/lawn games in Debian's Chromium, against a real
`knapp serve`: a whole game of Kobbla and of Koob played through the screens' own
widgets by a 360 x 740 phone (computer players or a second team in the other seat), the
table screen at 1920 x 1080 with its sounds, the rules pages, and the in-page PIN form.

Every action a screen sends must be one the game accepts (Kobbla: none refused); Koob's
entries the rules do not allow are sent on purpose and the rule's reason must be shown.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.server import Server
from tests.web.test_rooms_browser import CHROMIUM, csp_check, get, join_urls, start_room

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots" / "screens"  # reviewed copies: docs/screenshots/screens
PIN = "24681357"
PHONE = {"width": 360, "height": 740}
TABLE = {"width": 1920, "height": 1080}
MAX_TAPS = 3000
NO_HSCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"
# Counts the oscillators the page starts: the sounds are WebAudio, no files.
COUNT_TONES = """
  window.__tones = 0;
  const orig = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.__tones++; return orig.call(this);
  };
"""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("screens-board")
    cfg = tmp / "table.toml"
    cfg.write_text(f'[table]\nseats = ["Ada", "Ben"]\n[kiosk]\npin = "{PIN}"\nbots = 1\n')
    srv = Server(tmp / "data", cfg, "--seed", "5").start()
    yield srv
    srv.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run",
            "--autoplay-policy=no-user-gesture-required"])
        yield b
        b.close()


class Device:
    """A browser context on one page, recording the frames it sends and receives."""

    def __init__(self, browser: Any, viewport: dict[str, int], *, phone: bool = True,
                 reduced_motion: str = "no-preference") -> None:
        self.context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone,
                                           reduced_motion=reduced_motion)
        self.context.add_init_script(COUNT_TONES)
        self.page = self.context.new_page()
        self.sent: list[dict[str, Any]] = []
        self.got: list[dict[str, Any]] = []
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(m.text))
        self.page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        ws.on("framesent", lambda p: self.sent.append(json.loads(p)))
        ws.on("framereceived", lambda p: self.got.append(json.loads(p)))

    def join(self, url: str, name: str) -> None:
        self.page.goto(url)
        self.page.fill("#joinname", name)
        self.page.click("#joinbtn")
        self.page.wait_for_selector("#screen:not([hidden])")

    def refusals(self) -> list[str]:
        return [m["reason"] for m in self.got if m.get("type") == "refused"]

    def acts(self) -> list[str]:
        return [m["action"] for m in self.sent if m.get("type") == "act"]

    def view(self) -> dict[str, Any]:
        views = [m for m in self.got if m.get("type") == "view"]
        return views[-1]

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), animations="disabled")

    def no_hscroll(self) -> None:
        assert self.page.evaluate(NO_HSCROLL), "the page scrolls sideways"


def wait_turn(page: Any, selector: str) -> bool:
    """Until the screen offers something to tap (True) or the game is over (False)."""
    page.wait_for_selector(f"{selector}, .kb-result, .kk-result", timeout=60_000)
    return not page.is_visible(".kb-result, .kk-result")


# -- Kobbla -------------------------------------------------------------------------------

KB_TAPPABLE = ("#screen .kb-sq.movable:not([disabled]), #screen .kb-sq.reach:not([disabled]),"
               " #screen .kb-bar button:not([disabled])")


def kobbla_turn(dev: Device, rng: random.Random, shots: set[str]) -> None:
    """One action through the board, chosen at random the way a person might tap."""
    page = dev.page
    view = dev.view()
    legal = set(view["legal"])
    phase = view["observation"]["phase"]
    before = len(dev.acts())
    if phase == "p":
        squares = page.locator("#screen .kb-sq.reach")
        squares.nth(rng.randrange(squares.count())).click()
    elif phase == "w" and page.locator("#screen .kb-sq.movable").count():
        stones = page.locator("#screen .kb-sq.movable")
        stones.nth(rng.randrange(stones.count())).click()
        start = page.locator("#screen .kb-sq.from").get_attribute("data-sq")
        # Hop by hop most of the time; now and then the end at once.
        if rng.random() < 0.25:
            ends = page.locator("#screen .kb-sq.reach")
            ends.nth(rng.randrange(ends.count())).click()
        else:
            page.locator("#screen .kb-sq.next").first.click()
            while page.locator("#screen .kb-sq.next").count() and rng.random() < 0.6:
                page.locator("#screen .kb-sq.next").first.click()
        path = page.locator("#screen .kb-sq.path").count()
        assert page.locator("#screen svg.kb-path polyline").count() == 1  # the chain drawn
        if "chain" not in shots and path >= 2:
            dev.shot("kobbla-phone-chain")
            shots.add("chain")
        button = page.locator("#screen .kb-bar button[data-act^='white:']")
        end = button.get_attribute("data-act")
        assert end is not None and end.startswith(f"white:{start},")
        button.click() if rng.random() < 0.5 else page.click(
            f"#screen .kb-sq[data-sq='{end.split(',')[1]}']")
    elif phase == "k":
        if "kobb" not in shots:
            dev.shot("kobbla-phone-kobb")
            shots.add("kobb")
        exits = [a for a in legal if a.startswith("exit:")]
        dests = page.locator("#screen .kb-sq.reach")
        if exits and rng.random() < 0.7:
            page.click(f"#screen .kb-sq[data-sq='{exits[0][5:]}']")
            page.click("#screen .kb-bar button[data-act^='exit:']")
        elif dests.count() and rng.random() < 0.6:
            dests.nth(rng.randrange(dests.count())).click()
            page.locator("#screen .kb-bar button[data-act]").first.click()
        else:
            page.click("#screen .kb-bar button[data-act='stay']")
    else:
        page.locator("#screen .kb-bar button[data-act]").first.click()
    acts = dev.acts()
    assert len(acts) == before + 1 and acts[-1] in legal, (acts[-1:], phase)
    page.wait_for_function("s => document.body.dataset.step !== s", arg=str(view["step"]))


def test_a_whole_game_of_kobbla_through_its_screen(server: Server, browser: Any) -> None:
    table = Device(browser, TABLE, phone=False)
    room = start_room(server, table.page, "kobbla", seats=2, fields={"#opt-max_turns": "30"},
                      people=1)
    url = join_urls(server, table.page, 1)[0]
    phone = Device(browser, PHONE)
    phone.join(url, "Bea")
    table.page.wait_for_function("() => !document.querySelector('.qrcard')")
    rng = random.Random(7)
    shots: set[str] = set()
    taps = 0
    while wait_turn(phone.page, KB_TAPPABLE):
        kobbla_turn(phone, rng, shots)
        taps += 1
        assert taps < MAX_TAPS, "the game did not finish"
        if taps == 6:
            phone.no_hscroll()
            table.shot("kobbla-table")
            table.no_hscroll()
    assert not phone.refusals(), phone.refusals()  # every tap was a legal move
    result = phone.page.inner_text("#screen .kb-result")
    assert "wins" in result or "draw" in result
    final = phone.view()
    assert final["over"] and final["result"]
    tails = final["observation"]["tails"]
    assert f"tails {tails[0]} : {tails[1]}" in result
    phone.shot("kobbla-phone-end")
    table.page.wait_for_selector("#screen .kb-result")
    table.shot("kobbla-table-end")
    phone.no_hscroll()
    # The table screen chimed the turns and the end (WebAudio), the phone did not.
    assert table.page.evaluate("window.__tones") > 0
    assert table.page.evaluate("document.body.dataset.chime") == "end"
    assert phone.page.evaluate("window.__tones") == 0
    assert get(server.url + "/api/rooms")[0]["room"] in {room, *[r["room"] for r in
                                                                 get(server.url + "/api/rooms")]}
    # The rules link of the screen opens the rules with this room's options.
    phone.page.click("#screen a[href^='/rules/kobbla']")
    phone.page.wait_for_selector("#options")
    assert phone.page.inner_text("#options tr[data-opt='max_turns'] b") == "30"
    phone.no_hscroll()
    for text in table.console + phone.console:
        csp_check(text)
    table.context.close()
    phone.context.close()
