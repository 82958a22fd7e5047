"""Game rooms in Debian's Chromium (Playwright), against a real `knapp serve`: the table
screen and phone-sized contexts play whole games of all six through the generic view,
with computers in the other seats; a phone reloads mid-game; a seat is taken over by
the computer and taken back; the hot-seat privacy screen.

The leak probe runs here too: every WebSocket frame a phone receives, and the text of
its page, must name none of another seat's hidden cards, checked against the server's
full state (its own database, replayed to the step of each frame).
"""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from controller.rooms.persist import RoomStore
from controller.rooms.room import Room
from controller.rooms.spec import RoomSpec
from tests.chromium import BROWSER_TESTS, chromium
from tests.rooms.helpers import card_tokens, hidden_from, mentions
from tests.web.server import Server

# Fresh screenshots go to artifacts/ on every run; docs/screenshots/rooms/ holds reviewed copies.
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots" / "rooms"
PIN = "24681357"
TABLE = {"width": 1280, "height": 860}
PHONES = ({"width": 390, "height": 844}, {"width": 360, "height": 740})
ENABLED = "#legal button:not([disabled])"
# Rounds of taps (each phone once) before a game counts as stuck: the short games take a
# few hundred at most; a stuck one fails in minutes, not in half an hour.
MAX_ROUNDS = 1000
# The page's step and every text node of it, hidden ones included, one per line: what the
# DOM holds, not only what it shows.
PAGE_TEXT = """() => {
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), out = [];
  while (w.nextNode()) out.push(w.currentNode.nodeValue);
  return [document.body.dataset.step, out.join("\\n")];
}"""

pytestmark = BROWSER_TESTS

# Per game: seats, the form's option fields that make it one short whole game, and
# which seats the two phones take (the computers play the rest).
GAMES: dict[str, dict[str, Any]] = {
    "manni": {"seats": 3, "fields": {"#opt-target": "1"}},
    "pukk": {"seats": 3, "fields": {"#opt-deals": "1"}},
    "rommy": {"seats": 3, "fields": {"#opt-target": "100", "#opt-max_deals": "2"}},
    "knuff": {"seats": 3, "fields": {"#opt-rounds": "1"}, "selects": {"#opt-end": '"rounds"'}},
    "kobbla": {"seats": 2, "fields": {"#opt-max_turns": "40"}},
    "koob": {"seats": 2, "fields": {}},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("rooms-browser")
    cfg = tmp / "table.toml"
    cfg.write_text(f'[table]\nseats = ["Ada", "Ben"]\n[kiosk]\npin = "{PIN}"\nbots = 1\n')
    srv = Server(tmp / "data", cfg, "--seed", "3").start()
    yield srv
    srv.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def csp_check(text: str) -> None:
    """The pages keep the Content-Security-Policy: no inline script or style is refused."""
    assert "Content Security Policy" not in text and "Refused to" not in text, text


class Phone:
    """A phone-sized browser context on one seat, recording every frame it receives."""

    def __init__(self, browser: Any, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport, is_mobile=True, has_touch=True)
        self.page = self.context.new_page()
        self.frames: list[dict[str, Any]] = []
        self.page.on("websocket", self._socket)
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(m.text))
        self.checked = 0
        self.rng = random.Random(f"{viewport}")

    def tap(self) -> None:
        """Tap one of the legal actions at random (seeded), the way a person might."""
        # Count, choose and tap in one go in the page: between a count from here and a
        # click, another player's move can re-render the view and detach the button
        # (the click then waits out its timeout on a button that no longer exists).
        self.page.evaluate(
            "([sel, k, j]) => { const bs = [...document.querySelectorAll(sel)];"
            " if (!bs.length) return; const b = bs[k % bs.length];"
            " if (b.classList.contains('act-pick')) { const s = b.previousElementSibling;"
            " s.selectedIndex = j % s.options.length; } b.click(); }",
            [ENABLED, self.rng.randrange(1 << 30), self.rng.randrange(1 << 30)])

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self.frames.append(json.loads(payload)))

    def join(self, url: str, name: str) -> None:
        # The generic view (?plain=1), also for a game that has a designed screen.
        self.page.goto(url.replace("#", "?plain=1#", 1))
        self.page.fill("#joinname", name)
        self.page.click("#joinbtn")
        self.page.wait_for_selector("#mine:not([hidden])")

    def seat(self) -> int:
        views = [f for f in self.frames if f.get("type") == "view" and f.get("seat") is not None]
        seat: int = views[-1]["seat"]
        return seat


def ready(page: Any, timeout_ms: int = 200) -> bool:
    """Wait (on the page's own events, at most `timeout_ms`) until it may act or is over."""
    try:
        page.wait_for_selector(f"{ENABLED}, #result:not([hidden])", timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True


def history(server: Server, room_id: str, seat: int | None) -> dict[int, tuple[set[str],
                                                                            set[str]]]:
    """Per game step, from the server's own database: the cards hidden from `seat` then, and
    every card `seat` could legitimately have seen up to then (its views and its events)."""
    store = RoomStore(server.data_dir / "knapp.db", durable=False)
    try:
        records = store.load(room_id)
    finally:
        store.close()
    room = Room(room_id, RoomSpec.parse(records[0]["spec"]), int(records[0]["seed"]))
    seen: set[str] = set()
    out: dict[int, tuple[set[str], set[str]]] = {}
    for rec in [None, *records[1:]]:
        if rec is not None:
            room.apply(rec)
        hidden = set().union(*hidden_from(room, seat).values())
        seen |= card_tokens(room.state.observation(seat))
        seen |= {c for e in room.log if e.visible(seat) for c in card_tokens(e.data)}
        out[room.step] = (hidden, set(seen))
    return out


def probe(server: Server, room_id: str, phone: Phone) -> None:
    """No frame the phone got, nor its page text, names a card hidden from its seat that it
    never legitimately saw, at the step of that frame (or of the page)."""
    seat = phone.seat()
    # What the phone has first, the server's record after: the record is never behind.
    frames = phone.frames[phone.checked:]
    phone.checked += len(frames)
    # One look at the page: its step and its text from the same render.
    shown, dom = phone.page.evaluate(PAGE_TEXT)
    steps = history(server, room_id, seat)
    for frame in frames:
        if frame.get("type") == "view":
            hidden, seen = steps[frame["step"]]
            text = json.dumps(frame)
            leaked = [c for c in hidden - seen if mentions(text, c)]
            assert not leaked, f"seat {seat} was sent {leaked} at step {frame['step']}"
    if shown is not None:
        hidden, seen = steps[int(shown)]
        assert not [c for c in hidden - seen if mentions(dom, c)], "a hidden card is on the page"


def start_room(server: Server, table: Any, game: str, *, seats: int, fields: dict[str, str],
               selects: dict[str, str] | None = None, people: int = 2,
               hot_seat: bool = False) -> str:
    """Start a room from the Other games page, as a person at the table would."""
    table.goto(server.url + "/games")
    table.click(f"button.newroom[data-game={game}]")
    if not table.is_disabled("#nr-seats"):
        table.fill("#nr-seats", str(seats))
        table.dispatch_event("#nr-seats", "input")
    for i in range(seats):
        # The rule players: the search players think 0.4 s a move (Koob has only random).
        who = "person" if i < people else "bot:random" if game == "koob" else "bot:rule"
        table.select_option(f"select.who[data-seat='{i}']", who)
    for sel, value in fields.items():
        table.fill(sel, value)
    for sel, value in (selects or {}).items():
        table.select_option(sel, value)
    table.fill("#nr-delay", "0")
    if hot_seat:
        table.check("#nr-hotseat")
    table.click("#nr-start")
    table.wait_for_url("**/rooms/**")
    return str(table.url.split("/rooms/")[1].split("/")[0])


def join_urls(server: Server, table: Any, count: int) -> list[str]:
    table.wait_for_selector(f".qrcard:nth-child({count}) a.url")
    urls = [table.get_attribute(f".qrcard:nth-child({i + 1}) a.url", "href")
            for i in range(count)]
    # The QR codes carry this machine's network address; the test server listens on loopback.
    return [server.url + "/" + u.split("//", 1)[1].split("/", 1)[1] for u in urls]


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_through_the_generic_view(server: Server, browser: Any, game: str) -> None:
    spec = GAMES[game]
    table_ctx = browser.new_context(viewport=TABLE)
    table = table_ctx.new_page()
    csp: list[str] = []
    table.on("console", lambda m: csp.append(m.text))
    room = start_room(server, table, game, seats=spec["seats"], fields=spec["fields"],
                      selects=spec.get("selects"))
    assert table.url.endswith(f"/rooms/{room}/table")
    assert get(server.url + "/api/state")["paused"] is True  # the match waits meanwhile
    table.goto(f"{server.url}/rooms/{room}/table?plain=1")
    urls = join_urls(server, table, 2)
    phones = [Phone(browser, vp) for vp in PHONES]
    for i, (phone, url) in enumerate(zip(phones, urls, strict=True)):
        phone.join(url, ["Bea", "Cai"][i])
        # The used code left the address bar (the ?plain=1 stays).
        assert phone.page.url.endswith(f"/rooms/{room}?plain=1")
    table.wait_for_function("() => !document.querySelector('.qrcard')")
    active = list(phones)
    for moves in range(MAX_ROUNDS):
        active = [p for p in phones if not p.page.is_visible("#result")]
        if not active:
            break
        for phone in active:
            if ready(phone.page) and phone.page.locator(ENABLED).count():
                phone.tap()
                probe(server, room, phone)
        if moves == 4:
            SHOTS.mkdir(parents=True, exist_ok=True)
            table.screenshot(path=str(SHOTS / f"{game}-table.png"))
            for i, phone in enumerate(phones):
                phone.page.screenshot(path=str(SHOTS / f"{game}-phone{i + 1}.png"))
    assert not active, "the game did not finish"
    for phone in phones:
        probe(server, room, phone)
        assert "Winner:" in phone.page.inner_text("#result")
    table.wait_for_selector("#result:not([hidden])")
    listing = {r["room"]: r for r in get(server.url + "/api/rooms")}
    assert listing[room]["finished"]
    for text in csp + [t for p in phones for t in p.console]:
        csp_check(text)
    table.click("#tomatch")
    table.wait_for_url(server.url + "/")
    assert get(server.url + "/api/state")["paused"] is False
    for ctx in (table_ctx, *(p.context for p in phones)):
        ctx.close()


def test_a_phone_that_reloads_keeps_its_seat(server: Server, browser: Any) -> None:
    table_ctx = browser.new_context(viewport=TABLE)
    table = table_ctx.new_page()
    start_room(server, table, "kobbla", seats=2, fields={"#opt-max_turns": "60"}, people=1)
    url = join_urls(server, table, 1)[0]
    phone = Phone(browser, PHONES[0])
    phone.join(url, "Bea")
    phone.tap()
    phone.page.wait_for_selector(ENABLED)
    step = phone.frames[-1]["step"] if phone.frames else 0
    # A reload mid-game: the same seat, the same game, from the credential in localStorage.
    phone.page.reload()
    phone.page.wait_for_selector("#mine:not([hidden])")
    assert phone.page.inner_text("#mine-title").startswith("Bea")
    views = [f for f in phone.frames if f.get("type") == "view"]
    assert views[-1]["seat"] == 0 and views[-1]["step"] >= step
    table_ctx.close()
    phone.context.close()


def test_the_computer_takes_over_an_absent_seat_and_gives_it_back(server: Server,
                                                                  browser: Any) -> None:
    table_ctx = browser.new_context(viewport=TABLE)
    table = table_ctx.new_page()
    table.goto(server.url + "/games")
    table.click("button.newroom[data-game=kobbla]")
    table.select_option("select.who[data-seat='1']", "bot:rule")
    # The computers take a second a move, so the game is still on when Bea comes back.
    table.fill("#nr-delay", "1")
    table.fill("#nr-away", "5")
    table.click("#nr-start")
    table.wait_for_url("**/rooms/**/table")
    room = table.url.split("/rooms/")[1].split("/")[0]
    url = join_urls(server, table, 1)[0]
    phone = Phone(browser, PHONES[0])
    phone.join(url, "Bea")
    storage = phone.context.storage_state()
    phone.context.close()  # Bea's phone is gone while the game waits for her
    table.wait_for_selector("#seatlist li[data-seat='0'] >> text=plays for now", timeout=30_000)
    # She comes back (same phone, same localStorage) and takes her seat back.
    back = browser.new_context(viewport=PHONES[0], storage_state=storage)
    page = back.new_page()
    page.goto(f"{server.url}/rooms/{room}")
    page.wait_for_selector("#reclaim:not([hidden])")
    assert "computer" in page.inner_text("#turn")
    page.click("#reclaim")
    page.wait_for_selector("#reclaim", state="hidden")
    # The table hears of her return ("here") and of the reclaim in two views; the second
    # can come a moment after the first (a full run once read the table between them).
    table.wait_for_function(
        "() => { const li = document.querySelector(\"#seatlist li[data-seat='0']\");"
        " return !!li && li.innerText.includes('here')"
        " && !li.innerText.includes('plays for now'); }")
    assert "plays for now" not in table.inner_text("#seatlist li[data-seat='0']")
    back.close()
    table_ctx.close()


def test_hot_seat_privacy_screen(server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport=PHONES[0])
    tablet = ctx.new_page()
    frames: list[dict[str, Any]] = []
    tablet.on("websocket", lambda ws: ws.on("framereceived",
                                            lambda p: frames.append(json.loads(p))))
    room = start_room(server, tablet, "rommy", seats=3, fields={"#opt-target": "100"},
                      hot_seat=True)
    assert tablet.url.endswith(f"/rooms/{room}")
    tablet.goto(f"{server.url}/rooms/{room}?plain=1")  # the generic view's panels
    passes = 0
    for _ in range(300):
        tablet.wait_for_selector(f"#privacy:not([hidden]), {ENABLED}, #result:not([hidden])",
                                 timeout=60_000)
        if tablet.is_visible("#result"):
            break
        if tablet.is_visible("#privacy"):
            step, text = tablet.evaluate(PAGE_TEXT)
            name = tablet.inner_text("#privacy-text").removeprefix("Hand the device to ")
            assert name in ("Seat 1", "Seat 2")
            # Nothing private is on the page behind the privacy screen.
            hidden, seen = history(server, room, None)[int(step)]
            assert hidden and not [c for c in hidden - seen if mentions(text, c)]
            if passes == 1:
                SHOTS.mkdir(parents=True, exist_ok=True)
                tablet.screenshot(path=str(SHOTS / "hot-seat-privacy.png"))
            passes += 1
            if passes >= 3:
                break
            tablet.click("#reveal")
            tablet.wait_for_selector("#mine:not([hidden])")
            assert tablet.inner_text("#mine-title").startswith(name)
            continue
        try:
            tablet.locator(ENABLED).first.click(timeout=2000)
        except PlaywrightTimeout:
            continue  # the privacy screen came up between the look and the tap
    assert passes >= 3
    ctx.close()


def test_the_new_room_form_reads_in_words(server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport=TABLE)
    page = ctx.new_page()
    page.goto(server.url + "/games")
    page.click("button.newroom[data-game=manni]")
    form = page.inner_text("#newroom")
    # Options are named in words, their choices too; the ids stay the form's keys.
    assert "Dealer may swap" in form and "Ties" in form
    for code in ("dealer_may_swap", "dealers_choice", "play_on", "true", "false"):
        assert code not in form, code
    assert page.get_attribute("#opt-dealer_may_swap", "type") == "checkbox"
    assert page.is_checked("#opt-dealer_may_swap")
    assert page.inner_text("#opt-ties option[value='\"play_on\"']") == "play on"
    # Headings in sentence case, as written.
    assert page.eval_on_selector_all("#newroom h3", "hs => hs.map(h => h.innerText)") == [
        "Who sits where", "Options", "The table"]
    # Manni is for three players only: the number, no box to edit.
    assert not page.is_visible("#nr-seats")
    assert page.inner_text("#nr-seats-fixed") == "3 players (always)"
    assert "Seats" not in form
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#newroom").screenshot(path=str(SHOTS / "new-room-manni.png"))
    # A game with a range of seats keeps the box.
    page.click("button.newroom[data-game=pukk]")
    assert page.is_visible("#nr-seats") and not page.is_visible("#nr-seats-fixed")
    assert page.is_editable("#nr-seats")
    ctx.close()


def test_the_table_screen_warns_when_the_codes_point_at_localhost(server: Server,
                                                                  browser: Any) -> None:
    # The test server listens on loopback only, so the join links name 127.0.0.1.
    ctx = browser.new_context(viewport=TABLE)
    table = ctx.new_page()
    start_room(server, table, "kobbla", seats=2, fields={"#opt-max_turns": "60"}, people=1)
    table.wait_for_selector(".qrcard a.url")
    urls = [table.get_attribute(".qrcard a.url", "href") or ""]
    assert urls[0].startswith("http://127.0.0.1:")
    table.wait_for_selector("#joins-local:not([hidden])")
    warning = table.inner_text("#joins-local")
    assert "phone cannot reach" in warning and "--host 0.0.0.0" in warning
    assert "[kiosk]" in warning
    SHOTS.mkdir(parents=True, exist_ok=True)
    table.locator("#joins").screenshot(path=str(SHOTS / "table-localhost-warning.png"))
    ctx.close()
