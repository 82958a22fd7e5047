"""The designed screens of the two board/lawn games in Debian's Chromium, against a real
`knapp serve`: a whole game of Kobbla and of Koob played through the screens' own
widgets by a 360 x 740 phone (computer players or a second team in the other seat), the
table screen at 1920 x 1080 with its sounds, the rules pages, and the in-page PIN form.

Every action a screen sends must be one the game accepts (Kobbla: none refused); Koob's
entries the rules do not allow are sent on purpose and the rule's reason must be shown.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.chromium import AUTOPLAY, BROWSER_TESTS, chromium
from tests.web.server import Server
from tests.web.test_rooms_browser import csp_check, get, join_urls, start_room

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots" / "screens"  # reviewed copies: docs/screenshots/screens
PIN = "24681357"
PHONE = {"width": 360, "height": 740}
TABLE = {"width": 1920, "height": 1080}
MAX_TAPS = 800  # actions by the phone before a game counts as stuck
NO_HSCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"
# Counts the oscillators the page starts: the sounds are WebAudio, no files.
COUNT_TONES = """
  window.__tones = 0;
  const orig = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.__tones++; return orig.call(this);
  };
"""

pytestmark = BROWSER_TESTS


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
    with chromium(AUTOPLAY) as b:
        yield b


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
        """The view the page shows now. Playwright reports a received frame on its own path
        (the browser's network side), which under load can trail the page's own drawing of
        it: wait until the frames recorded here reach the step the page shows."""
        for _ in range(500):
            shown = self.page.evaluate("document.body.dataset.step")
            views = [m for m in self.got if m.get("type") == "view"]
            if views and str(views[-1]["step"]) == shown:
                return views[-1]
            self.page.wait_for_timeout(20)
        raise AssertionError(f"the page shows step {shown}, the frames recorded end at "
                             f"{views[-1]['step'] if views else None}")

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        # The screen from its top (a tap may have scrolled the page).
        self.page.evaluate("() => { const s = document.getElementById('screen');"
                           " if (s && !s.hidden) s.scrollIntoView(); }")
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


def check_chain(view: dict[str, Any], path: str) -> None:
    """Each hop of the drawn chain is one the room's white_jump allows, over a stone."""
    rows = view["observation"]["board"]  # rank 8 first
    stone = {f"{'abcdef'[c]}{8 - i}" for i, r in enumerate(rows) for c, ch in enumerate(r)
             if ch != "."}
    squares = [(ord(n[0]) - ord("a"), int(n[1:])) for n in path.split()]
    mode = view.get("_white_jump", "bent")
    for (c0, r0), (c1, r1) in itertools.pairwise(squares):
        name = f"{'abcdef'[c1]}{r1}"
        assert name not in stone, f"{path}: lands on a stone"
        if mode == "straight":
            assert sorted((abs(c1 - c0), abs(r1 - r0))) == [0, 2], path
            assert f"{'abcdef'[(c0 + c1) // 2]}{(r0 + r1) // 2}" in stone, path
        else:  # bent: onto an adjacent stone, then onto a square next to it
            assert 1 <= abs(c1 - c0) + abs(r1 - r0) <= 2, path


def kobbla_turn(dev: Device, rng: random.Random, shots: set[str],
                white_jump: str = "bent") -> None:
    """One action through the board, chosen at random the way a person might tap."""
    page = dev.page
    view = {**dev.view(), "_white_jump": white_jump}
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
        check_chain(view, page.get_attribute("#screen .kb-board", "data-path") or "")
        if "chain" not in shots and path >= 2:
            dev.shot("kobbla-phone-chain")
            shots.add("chain")
        button = page.locator("#screen .kb-bar button[data-act^='white:']")
        end = button.get_attribute("data-act")
        assert end is not None and end.startswith(f"white:{start},")
        button.click() if rng.random() < 0.5 else page.click(
            f"#screen .kb-sq[data-sq='{end.split(',')[1]}']")
    elif phase == "k" and "undo" not in shots and page.locator("[data-undo]").count():
        # Once: take the white move back; the board is as before it, the white move due again.
        shots.add("undo")
        before_board = [v for v in dev.got if v.get("type") == "view"
                        and v["step"] < view["step"]][-1]["observation"]
        page.click("#screen [data-undo]")
        page.wait_for_function("s => document.body.dataset.step !== s", arg=str(view["step"]))
        after = dev.view()["observation"]
        assert after["phase"] == "w" and after["board"] == before_board["board"]
        assert [m["type"] for m in dev.sent][-1] == "undo"
        return
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
        bar = page.locator("#screen .kb-bar button[data-act]")
        assert bar.count(), (f"nothing to tap at phase {phase!r}: legal {sorted(legal)}, "
                             f"hint {page.inner_text('#screen .kb-hint')!r}")
        bar.first.click()
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
    assert phone.page.inner_text("#options [data-opt='max_turns'] b") == "30"
    phone.no_hscroll()
    for text in table.console + phone.console:
        csp_check(text)
    table.context.close()
    phone.context.close()


def test_kobbla_as_north_with_straight_jumps(server: Server, browser: Any) -> None:
    """North's phone sees its home rank at the bottom; hops follow the room's white_jump."""
    table = Device(browser, TABLE, phone=False)
    page = table.page
    page.goto(server.url + "/games")
    page.click("button.newroom[data-game=kobbla]")
    page.select_option("select.who[data-seat='0']", "bot:rule")
    page.select_option("select.who[data-seat='1']", "person")
    page.select_option("#opt-white_jump", '"straight"')
    page.fill("#opt-max_turns", "20")
    page.fill("#nr-delay", "0")
    page.click("#nr-start")
    page.wait_for_url("**/rooms/**/table")
    phone = Device(browser, PHONE)
    phone.join(join_urls(server, page, 1)[0], "Nia")
    ranks = phone.page.locator("#screen .kb-rank").all_inner_texts()
    files = phone.page.locator("#screen .kb-file").all_inner_texts()
    assert ranks == [str(r) for r in range(1, 9)] and files == list("fedcba")
    rng = random.Random(11)
    taps = 0
    done = {"chain", "kobb"}  # no screenshots from this game
    while wait_turn(phone.page, KB_TAPPABLE):
        kobbla_turn(phone, rng, done, "straight")
        taps += 1
        assert taps < MAX_TAPS, "the game did not finish"
    assert not phone.refusals(), phone.refusals()
    assert phone.view()["over"] and phone.view()["seat"] == 1
    phone.no_hscroll()
    table.context.close()
    phone.context.close()


# -- Koob ---------------------------------------------------------------------------------


def refused_with(dev: Device, words: str) -> None:
    """The rule's reason is on the screen, above the pitch, and nothing was entered."""
    dev.page.wait_for_selector("#refused:not([hidden])")
    text = dev.page.inner_text("#refused")
    assert words in text, text
    assert dev.refusals()[-1] in text


def enter(dev: Device, selector: str) -> None:
    """Tap an entry button and wait for the next view."""
    step = dev.page.evaluate("document.body.dataset.step")
    dev.page.click(selector)
    dev.page.wait_for_function("s => document.body.dataset.step !== s", arg=step)


def test_a_whole_match_of_koob_one_phone_per_team(server: Server, browser: Any) -> None:
    table = Device(browser, TABLE, phone=False)
    room = start_room(server, table.page, "koob", seats=2, fields={},
                      selects={"#opt-placement": '"baton_length"'}, people=2)
    urls = join_urls(server, table.page, 2)
    teams = [Device(browser, PHONE), Device(browser, PHONE, reduced_motion="reduce")]
    for dev, url, name in zip(teams, urls, ("Bea", "Cai"), strict=True):
        dev.join(url, name)
    t0, t1 = teams
    t0.page.wait_for_selector("#kk-cm")
    t0.no_hscroll()
    t0.shot("koob-phone-toss")
    # A toss no pitch allows: the rules say what a toss may be; the screen shows it large.
    t0.page.fill("#kk-cm", "900")
    t0.page.click("#screen button[data-toss]")
    refused_with(t0, "a toss lands 0-800 cm from the king")
    assert t0.page.input_value("#kk-cm") == "900"  # what was typed is kept to correct
    t0.shot("koob-phone-refused")
    t0.page.fill("#kk-cm", "50")
    enter(t0, "#screen button[data-toss]")
    assert t0.page.is_hidden("#refused")  # an accepted entry clears the refusal
    # Cai's phone acts on the view after Bea's toss (an action on an older step is
    # refused as stale).
    t1.page.wait_for_function("s => document.body.dataset.step === s",
                              arg=t0.page.evaluate("document.body.dataset.step"))
    t1.page.fill("#kk-cm", "120")
    enter(t1, "#screen button[data-toss]")
    # Team 1 was closer: it throws at team 2's baseline.
    t0.page.wait_for_selector("#screen .kk-half.target button.kk-koob.base")
    assert "Nothing for Cai (team 2)" in t1.page.inner_text("#screen")
    assert t1.page.locator("#screen button.kk-koob").count() == 0  # not team 2's entry
    base = t0.page.locator("#screen .kk-half.target button.kk-koob.base")
    assert base.count() == 5
    base.nth(1).click()
    base.nth(3).click()
    assert "2</b> baseline" in t0.page.inner_html("#screen .kk-sum")
    t0.shot("koob-phone-baton")
    # Animations are short and optional: this phone has no reduced-motion preference.
    assert t0.page.eval_on_selector("#screen button.kk-koob",
                                    "el => getComputedStyle(el).transitionDuration") == "0.15s"
    enter(t0, "#screen button[data-act='baton:0,2,0']")
    # A mis-entry: the team takes it back (its own entries of this turn) and enters again.
    assert t0.view()["observation"]["halves"][1]["baseline"] == 3
    enter(t0, "#screen button[data-undo]")
    assert t0.view()["observation"]["batons_left"] == 6
    assert t0.view()["observation"]["halves"][1]["baseline"] == 5
    assert t1.page.locator("#screen button[data-undo]").count() == 0  # not team 2's to undo
    base = t0.page.locator("#screen .kk-half.target button.kk-koob.base")
    base.nth(0).click()
    base.nth(4).click()
    enter(t0, "#screen button[data-act='baton:0,2,0']")
    for _ in range(5):
        enter(t0, "#screen button[data-act='baton:0,0,0']")
    # Team 2 throws its two koobs into team 1's half: one lands, one misses twice.
    t1.page.wait_for_selector("#screen button[data-act='koob:in']")
    assert "attempt 1 of 2" in t1.page.inner_text("#screen .kk-head")
    t1.shot("koob-phone-throw-in")
    enter(t1, "#screen button[data-act='koob:in']")
    enter(t1, "#screen button[data-act='koob:out']")
    assert "attempt 2 of 2" in t1.page.inner_text("#screen .kk-head")
    enter(t1, "#screen button[data-act='koob:out']")
    # Team 0 places it; too near the king is what this room's placement rule refuses.
    t0.page.wait_for_selector("#screen button[data-act='place:near']")
    t0.page.click("#screen button[data-act='place:near']")
    refused_with(t0, "at least one baton length from the king")
    t0.shot("koob-phone-place-refused")
    enter(t0, "#screen button[data-act='place:clear']")
    # Team 1: the two field koobs first, then the baseline, then the king.
    t1.page.wait_for_selector("#screen .kk-half.target button.kk-koob.field")
    assert t1.page.locator("#screen .kk-half.target button.kk-koob.field").count() == 2
    table.shot("koob-table")
    table.no_hscroll()
    for i in range(2):
        t1.page.locator("#screen .kk-half.target button.kk-koob.field").nth(i).click()
    enter(t1, "#screen button[data-act='baton:2,0,0']")
    for i in range(5):
        t1.page.locator("#screen .kk-half.target button.kk-koob.base").nth(i).click()
    enter(t1, "#screen button[data-act='baton:0,5,0']")
    t1.page.click("#screen button.kk-king")
    assert "the set is decided" in t1.page.inner_text("#screen .kk-note")
    # None for the phone that asks for reduced motion.
    transition = "el => getComputedStyle(el).transitionDuration"
    assert t1.page.eval_on_selector("#screen button.kk-king", transition) == "0s"
    # The table screen's sound: volume and mute kept in the Knapp page's keys; muted, silent.
    assert table.page.evaluate("window.__tones") > 0  # the turns so far chimed
    table.page.eval_on_selector("#volume", "el => { el.value = '0.3';"
                                " el.dispatchEvent(new Event('input')); }")
    table.page.click("#mute")
    assert table.page.inner_text("#mute") == "Sound off"
    assert table.page.evaluate("[localStorage.getItem('knapp-muted'),"
                               " localStorage.getItem('knapp-volume')]") == ["1", "0.3"]
    tones = table.page.evaluate("window.__tones")
    enter(t1, "#screen button[data-act='baton:0,0,1']")
    for dev in teams:
        dev.page.wait_for_selector("#screen .kk-result")
        assert "Cai (team 2) wins the match" in dev.page.inner_text("#screen .kk-result")
        dev.no_hscroll()
    t1.shot("koob-phone-end")
    table.page.wait_for_selector("#screen .kk-result")
    assert table.page.evaluate("document.body.dataset.chime") == "end"
    assert table.page.evaluate("window.__tones") == tones  # the end came, muted
    table.shot("koob-table-end")
    assert len(t0.refusals()) == 2 and not t1.refusals()
    t0.page.click("#screen a[href^='/rules/koob']")
    t0.page.wait_for_selector("#options")
    assert t0.page.inner_text("#options [data-opt='placement'] b") == "baton_length"
    assert room in t0.page.url
    for dev in (table, *teams):
        for text in dev.console:
            csp_check(text)
        dev.context.close()


def test_koob_against_the_computer_through_the_screen(server: Server, browser: Any) -> None:
    table = Device(browser, TABLE, phone=False)
    start_room(server, table.page, "koob", seats=2, fields={}, people=1)
    phone = Device(browser, PHONE)
    phone.join(join_urls(server, table.page, 1)[0], "Bea")
    rng = random.Random(3)
    tappable = "#screen .kk-go:not([disabled])"
    for _ in range(MAX_TAPS):
        if not wait_turn(phone.page, tappable):
            break
        view = phone.view()
        step = str(view["step"])
        if phone.page.locator("#kk-cm").count():
            phone.page.fill("#kk-cm", str(rng.randrange(0, 400)))
        for koob in phone.page.locator("#screen button.kk-koob").all():
            if rng.random() < 0.3:
                koob.click()
        if phone.page.locator("#screen button.kk-king").count() and rng.random() < 0.15:
            phone.page.click("#screen button.kk-king")
        buttons = phone.page.locator("#screen .kk-go, #screen .kk-btn")
        buttons.nth(rng.randrange(buttons.count())).click()
        phone.page.wait_for_function(
            "s => document.body.dataset.step !== s || !document.querySelector('#refused[hidden]')",
            arg=step)
    else:
        raise AssertionError("the match did not finish")
    assert phone.view()["over"]
    assert "wins the match" in phone.page.inner_text("#screen .kk-result")
    # Whatever the rules refused (a toss tie is a re-toss, not a refusal), they said why.
    for reason in phone.refusals():
        assert reason
    table.context.close()
    phone.context.close()


# -- the rules pages, the generic view's link, the games page, the PIN form ---------------


def test_rules_pages_in_the_browser(server: Server, browser: Any) -> None:
    dev = Device(browser, PHONE)
    table = Device(browser, TABLE, phone=False)
    room = start_room(server, table.page, "kobbla", seats=2,
                      fields={"#opt-max_turns": "55"}, people=1)
    # The generic view (?plain=1) links the rules with the room's options too.
    dev.page.goto(f"{server.url}/rooms/{room}/view?plain=1")
    dev.page.wait_for_selector("#ruleslink:not([hidden])")
    assert dev.page.is_visible("#board") and dev.page.is_hidden("#screen")
    dev.page.click("#ruleslink")
    dev.page.wait_for_selector("#options")
    assert dev.page.inner_text("#options [data-opt='max_turns'] b") == "55"
    assert dev.page.locator("#rules h1").count() == 1 and dev.page.locator("#rules li").count()
    dev.no_hscroll()
    dev.shot("kobbla-rules-phone")
    for game in ("manni", "pukk", "rommy", "knuff", "koob"):
        r = dev.page.goto(f"{server.url}/rules/{game}")
        assert r is not None and r.status == 200
        assert dev.page.locator("#rules h1").count() == 1
        assert dev.page.locator("#options").count() == 0  # no room: no options table
        dev.no_hscroll()
    for bad in ("chess", "..%2F..%2Fpyproject", "kobbla.md", "%2e%2e%2fREADME"):
        r = dev.page.goto(f"{server.url}/rules/{bad}")
        assert r is not None and r.status == 404, bad
        assert "[project]" not in dev.page.content()  # nothing of another file
    # The games page: every game ready, each with its rules link.
    dev.page.goto(server.url + "/games")
    dev.page.wait_for_selector(".game .badge")
    badges = dev.page.locator(".game .badge").all_inner_texts()
    assert badges == ["ready"] * 6
    assert dev.page.locator(".game a.rules").count() == 6
    dev.no_hscroll()
    dev.context.close()
    table.context.close()


def test_staff_pin_is_asked_in_the_page(server: Server, browser: Any) -> None:
    table = Device(browser, TABLE, phone=False)
    room = start_room(server, table.page, "koob", seats=2, fields={}, people=2)
    table.context.close()
    # Another screen without the room's table token: making it the table screen needs staff.
    dev = Device(browser, PHONE)
    dialogs: list[str] = []
    dev.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    dev.page.goto(f"{server.url}/rooms/{room}/table")
    dev.page.click("#becomehost")
    dev.page.wait_for_selector("#pinbox:not([hidden])")
    assert "table screen needs staff" in dev.page.inner_text("#pinwhy")
    dev.page.fill("#pinfield", "1111")
    dev.page.click("#pinok")
    dev.page.wait_for_selector("#pinmsg:not(:empty)")
    assert dev.page.is_visible("#pinbox")  # a wrong PIN: said so, the form stays
    dev.no_hscroll()
    dev.shot("koob-pin-form-phone")
    dev.page.fill("#pinfield", PIN)
    with dev.page.expect_navigation():
        dev.page.click("#pinok")
    dev.page.wait_for_selector("#qrs .qrcard")  # now the table screen: the join codes
    assert dev.page.evaluate(f"localStorage.getItem('knapp-room-host:{room}')")
    assert dev.page.evaluate("fetch('/api/session').then(r => r.json())")["staff"] is True
    assert dev.page.input_value("#pinfield") == ""
    assert not dialogs, dialogs  # no prompt(), alert() or confirm() on the way
    # Cancelling the form leaves things as they were and says why nothing happened.
    other = Device(browser, PHONE)
    other.page.goto(f"{server.url}/rooms/{room}/table")
    other.page.click("#becomehost")
    other.page.click("#pincancel")
    other.page.wait_for_selector("#banners >> text=staff log-in cancelled")
    assert not other.page.evaluate(f"localStorage.getItem('knapp-room-host:{room}')")
    dev.context.close()
    other.context.close()
