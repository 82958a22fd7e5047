"""The table screen: what its view says (the verdict in words, the runner-up and
the margin, wrong grabs, an abandoned match, the card in words), what phones may
not see (the answer of a card still to be played), the simulated table waiting
for its players, and the page itself in Chromium at 1920x1080, 800x480 and
360x740 (no horizontal scroll; kiosk mode shows nothing but the table; the
verdict is an aria-live region), with screenshots in artifacts/screenshots/table/.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from controller.knapp.cards import Card, Figure
from controller.knapp.match import Phase
from controller.referee.service import TableService
from controller.referee.views import abandoned_words, card_words, seconds_words
from controller.sim.table import SimulatedTable
from controller.store import EventStore
from controller.web.app import create_app
from controller.web.auth import PinGuard
from tests.chromium import AUTOPLAY, NEEDS_CHROMIUM, chromium
from tests.web.conftest import make_service, run_until
from tests.web.roles import Table, make_table

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots" / "table"
SIZES = {"1920x1080": (1920, 1080), "800x480": (800, 480), "360x740": (360, 740)}


def open_card(svc: TableService) -> Figure:
    """Tick until a card is open; return its answer."""
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    rnd = svc.match.current
    assert rnd is not None
    return rnd.answer


def other(fig: Figure) -> Figure:
    return next(f for f in Figure if f is not fig)


def settle(svc: TableService) -> dict[str, Any]:
    run_until(svc, lambda s: s.match.phase is not Phase.OPEN)
    return svc.snapshot()


# -- the verdict in words -------------------------------------------------------------------


def test_the_verdict_names_the_winner_the_figure_the_runner_up_and_the_wrong_grab(
        tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    answer = open_card(svc)
    svc.clock.advance(0.6)  # type: ignore[attr-defined]
    svc.sim_grab("Ben", other(answer))
    svc.clock.advance(0.2)  # type: ignore[attr-defined]
    svc.sim_grab("Ada", answer)
    svc.clock.advance(0.25)  # type: ignore[attr-defined]
    svc.sim_grab("Cleo", answer)
    v = settle(svc)["verdict"]
    assert (v["kind"], v["winner"], v["figure"], v["figure_title"]) == (
        "won", "Ada", answer.value, answer.title)
    assert v["headline"] == "Ada wins the card"
    assert (v["runner_up"], v["runner_up_correct"], v["margin_ms"]) == ("Cleo", True, 250.0)
    assert v["margin_words"] == "Cleo by 0.25 s"
    assert [(w["seat"], w["figure"], w["counted"]) for w in v["wrong"]] == [
        ("Ben", other(answer).value, True)]
    assert v["wrong"][0]["words"] == (f"Ben took the {other(answer).title}: wrong, "
                                      "out for this card")


def test_a_lone_winner_is_told_that_nobody_else_grabbed(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    answer = open_card(svc)
    svc.clock.advance(0.7)  # type: ignore[attr-defined]
    svc.sim_grab("Cleo", answer)
    v = settle(svc)["verdict"]
    assert (v["winner"], v["runner_up"], v["margin_ms"]) == ("Cleo", None, None)
    assert v["margin_words"] == "nobody else grabbed"
    assert v["wrong"] == []


def test_the_next_hand_after_the_winner_with_a_wrong_figure_is_said_so(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    answer = open_card(svc)
    svc.clock.advance(0.7)  # type: ignore[attr-defined]
    svc.sim_grab("Ada", answer)
    svc.clock.advance(0.04)  # type: ignore[attr-defined]
    svc.sim_grab("Ben", other(answer))
    v = settle(svc)["verdict"]
    assert v["margin_words"] == "Ben 40 ms later, with the wrong figure"
    assert v["runner_up_correct"] is False
    # Taken after the card was won: no penalty, and the screen says why.
    assert v["wrong"][0]["counted"] is False
    assert "after the card was won" in v["wrong"][0]["words"]


def test_a_provisional_verdict_while_open_and_wrong_grabs_before_anyone_is_right(
        tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    answer = open_card(svc)
    assert svc.snapshot()["verdict"] is None
    svc.clock.advance(0.6)  # type: ignore[attr-defined]
    svc.sim_grab("Ben", other(answer))
    v = svc.snapshot()["verdict"]
    assert v["kind"] is None and v["headline"] == "Wrong figure" and v["wrong"][0]["seat"] == "Ben"
    svc.sim_grab("Ada", answer)
    v = svc.snapshot()["verdict"]
    assert (v["kind"], v["winner"], v["headline"]) == ("provisional", "Ada", "Ada has it…")


@pytest.mark.parametrize(("ns", "words"), [
    (249_500_000, "0.25 s"), (1_500_000_000, "1.50 s"), (100_000_000, "0.10 s"),
    (38_400_000, "38 ms"), (4_200_000, "4.2 ms"), (0, "0.0 ms")])
def test_margins_in_words(ns: int, words: str) -> None:
    assert seconds_words(ns) == words


def test_the_card_in_words_for_its_picture() -> None:
    assert card_words(Card.parse("ship:yellow/red+green")) == "a yellow ship on red and green"
    assert card_words(Card.parse("dog:white/blue+white")) == "a white dog on blue and white"


def test_the_round_view_carries_the_cards_words(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    rnd = svc.match.current
    assert rnd is not None
    assert svc.snapshot()["round"]["card_words"] == card_words(rnd.card)


# -- an abandoned match ----------------------------------------------------------------------


@pytest.mark.parametrize(("reason", "words"), [
    ("abandoned at the table", "Match abandoned at the table"),
    ("the café closes", "Match abandoned: the café closes"),
    ("", "Match abandoned")])
def test_abandoned_in_words(reason: str, words: str) -> None:
    assert abandoned_words(reason) == words


def test_an_abandoned_match_is_not_paused_reads_right_and_can_be_replaced(
        tmp_path: Path) -> None:
    t = make_table(tmp_path)
    assert t.screen.post("/api/control", json={"action": "pause"}).status_code == 200
    assert t.screen.get("/api/state").json()["paused"] is True
    assert t.staff.post("/api/control", json={"action": "abandon"}).status_code == 200
    s = t.phone.get("/api/state").json()
    assert s["phase"] == "ended" and s["paused"] is False
    assert s["abandoned_words"] == "Match abandoned at the table"
    first = s["match_id"]
    # The table screen offers a new match (the page's button posts this).
    assert t.screen.post("/api/control", json={"action": "rematch"}).status_code == 200
    s = t.phone.get("/api/state").json()
    assert s["match_id"] != first and s["phase"] == "ready" and s["abandoned_words"] is None


# -- issue 14: no answer of a card still to be played reaches a phone ---------------------------


def _undo_first_card(t: Table) -> Figure:
    answer = open_card(t.service)
    t.clock.advance(0.7)
    t.service.sim_grab("Ada", answer)
    settle(t.service)
    r = t.staff.post(f"/api/matches/{t.service.match_id}/corrections",
                     json={"kind": "undo", "round": 0, "reason": "the card fell over"})
    assert r.status_code == 200, r.text
    return answer


def _secret_everywhere(t: Table, client: Any, answer: Figure) -> None:
    s = client.get("/api/state").json()
    rnd = s["round"]
    assert rnd["outcome"] == "undone" and rnd["answer_secret"] is True
    assert rnd["answer"] is None and rnd["answer_title"] is None
    assert rnd["explanation"] is None and rnd["true_colour"] is None
    assert all(c["correct"] is None for c in rnd["claims"])
    assert s["last_verdict"]["answer"] is None and s["last_verdict"]["explanation"] is None
    assert s["verdict"]["figure"] is None and s["verdict"]["wrong"] == []
    review = client.get(f"/api/matches/{t.service.match_id}").json()
    assert review["rounds"][0]["answer"] is None
    assert [e["answer"] for e in review["timeline"] if e["kind"] == "revealed"] == [None]
    # Nor who had won it before the undo (with the grabs, everyone saw, that is the answer).
    assert [set(c) for c in rnd["corrections"]] == [{"kind", "reason"}]
    assert [set(c) for c in review["rounds"][0]["corrections"]] == [{"kind", "reason"}]
    told = {k: v for k, v in rnd.items() if k not in ("card", "card_words", "claims")}
    assert answer.value not in str(told) and answer.title not in str(s["verdict"])


def test_phones_never_see_the_answer_of_a_card_to_be_dealt_again(tmp_path: Path) -> None:
    t = make_table(tmp_path)
    answer = _undo_first_card(t)
    assert t.service.match.pile[0] == t.service.match.rounds[0].card  # back on top
    _secret_everywhere(t, t.phone, answer)
    with t.phone.websocket_connect("/ws") as ws:
        pushed = ws.receive_json()["state"]
    assert pushed["round"]["answer"] is None and pushed["last_verdict"]["answer"] is None
    # The table screen keeps it; the card, dealt again and decided, is public again.
    assert t.screen.get("/api/state").json()["round"]["answer"] == answer.value
    again = open_card(t.service)
    assert again is answer
    _ = t.phone.get("/api/state").json()
    review = t.phone.get(f"/api/matches/{t.service.match_id}").json()
    assert [r["answer"] for r in review["rounds"]] == [None, None]  # dealt, still open
    t.clock.advance(0.7)
    t.service.sim_grab("Ben", answer)
    settle(t.service)
    review = t.phone.get(f"/api/matches/{t.service.match_id}").json()
    assert [r["answer"] for r in review["rounds"]] == [answer.value, answer.value]
    assert [e["answer"] for e in review["timeline"] if e["kind"] == "revealed"] == [
        answer.value, answer.value]
    assert t.phone.get("/api/state").json()["round"]["answer"] == answer.value


def test_a_too_close_redeal_keeps_its_answer_from_phones(tmp_path: Path) -> None:
    t = make_table(tmp_path)
    answer = open_card(t.service)
    t.clock.advance(0.7)
    t.service.sim_grab("Ada", answer)
    t.service.sim_grab("Cleo", answer)  # the same instant: too close to call
    settle(t.service)
    assert t.service.match.rounds[0].outcome.value == "redeal"  # type: ignore[union-attr]
    s = t.phone.get("/api/state").json()
    assert s["round"]["answer"] is None and s["last_verdict"]["answer"] is None
    assert s["verdict"]["kind"] == "redeal" and s["verdict"]["figure"] is None
    assert s["verdict"]["margin_words"] == "Ada and Cleo: 0.0 ms apart"
    assert t.screen.get("/api/state").json()["round"]["answer"] == answer.value


# -- the simulated table waits for its players -------------------------------------------------


def _waiting_service(tmp_path: Path, bots: int) -> TableService:
    svc = make_service(tmp_path)
    svc.simulate(SimulatedTable(svc, svc.pads, bots=bots, wait_for_people=True))  # type: ignore[arg-type]
    return svc


def _idle(svc: TableService, seconds: int) -> None:
    for _ in range(seconds * 10):
        svc.clock.advance(0.1)  # type: ignore[attr-defined]
        svc.tick()


def test_a_table_with_a_person_deals_nothing_until_started(tmp_path: Path) -> None:
    t = make_table(tmp_path)
    svc = t.service
    svc.simulate(SimulatedTable(svc, svc.pads, bots=2, wait_for_people=True))  # type: ignore[arg-type]
    _idle(svc, 30)
    s = t.phone.get("/api/state").json()
    assert s["phase"] == "ready" and s["waiting"] is True and s["countdown_ms"] is None
    assert not svc.match.rounds
    # Anyone at the table may press Start (a phone too: it is a simulated table).
    assert t.phone.post("/api/sim/start").status_code == 200
    assert t.phone.get("/api/state").json()["waiting"] is False
    open_card(svc)


def test_a_new_setup_waits_for_start_again(tmp_path: Path) -> None:
    svc = _waiting_service(tmp_path, bots=1)
    svc.simulation.start()  # type: ignore[union-attr]
    open_card(svc)
    # Staff change the players on the setup page: the bots must not play the new match
    # while its people are still on their way to the table screen.
    svc.setup(["Maria", "Ben", "Cleo"], 3, "standard")
    assert svc.snapshot()["waiting"] is True
    _idle(svc, 30)
    assert not svc.match.rounds and svc.match.seats == ("Maria", "Ben", "Cleo")
    svc.sim_start()
    assert svc.snapshot()["waiting"] is False
    open_card(svc)


def test_a_first_grab_before_any_card_starts_the_table(tmp_path: Path) -> None:
    svc = _waiting_service(tmp_path, bots=0)
    _idle(svc, 5)
    assert svc.snapshot()["waiting"] is True
    svc.sim_grab("Ada", Figure.DOG)
    assert svc.snapshot()["waiting"] is False
    open_card(svc)


def test_a_table_of_bots_only_plays_by_itself(tmp_path: Path) -> None:
    svc = _waiting_service(tmp_path, bots=3)
    assert svc.snapshot()["waiting"] is False
    open_card(svc)


def test_start_is_refused_on_a_real_table(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    svc.simulation = None
    t_app = create_app(svc, PinGuard(tmp_path, "13572468", clock=svc.clock), autorun=False)
    from fastapi.testclient import TestClient
    with TestClient(t_app) as c:
        r = c.post("/api/sim/start")
    assert r.status_code == 409 and "simulated table" in r.json()["error"]


def test_a_resumed_match_is_said_so_until_its_next_card(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "knapp.db")
    svc = make_service(tmp_path, store=store)
    assert svc.snapshot()["resumed"] is None
    answer = open_card(svc)
    svc.clock.advance(0.7)  # type: ignore[attr-defined]
    svc.sim_grab("Ada", answer)
    run_until(svc, lambda s: s.match.phase is Phase.READY)
    again = make_service(tmp_path, store=store, clock=svc.clock)  # type: ignore[arg-type]
    assert again.match_id == svc.match_id
    assert again.snapshot()["resumed"] == ("Resumed the unfinished match after a restart: "
                                           "1 card played, Ada 1, Ben 0, Cleo 0")
    open_card(again)
    assert again.snapshot()["resumed"] is None


# -- the photo-finish strip of a close call ---------------------------------------------------


@pytest.mark.parametrize(("gap_s", "shown"), [(0.2, True), (0.6, False)])
def test_a_close_call_with_a_kept_strip_shows_it_on_the_table_screen_only(
        tmp_path: Path, gap_s: float, shown: bool) -> None:
    t = make_table(tmp_path)
    answer = open_card(t.service)
    t.clock.advance(0.7)
    t.service.sim_grab("Ada", answer)
    t.clock.advance(gap_s)
    t.service.sim_grab("Cleo", answer)
    settle(t.service)
    assert t.screen.get("/api/state").json()["verdict"]["photo_finish"] is None  # no camera
    t.service.match.evidence(0, "a" * 64, "photo-finish", "m-000-" + answer.value)
    t.service.tick()
    url = t.screen.get("/api/state").json()["verdict"]["photo_finish"]
    assert url == (f"/api/photo-finish/m-000-{answer.value}.jpg" if shown else None)
    assert t.phone.get("/api/state").json()["verdict"]["photo_finish"] is None


@pytest.mark.slow
def test_the_strip_itself_is_served_to_the_table_screen_and_staff_never_a_phone(
        tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from tests.web.roles import PHONE, PI, STAFF
    from tests.web.test_camera_service import camera_only_round

    svc, rnd = camera_only_round(tmp_path)
    ref = rnd.evidence[0]["ref"]
    guard = PinGuard(tmp_path, "13572468", clock=svc.clock)
    app = create_app(svc, guard, autorun=False)
    screen, phone, staff = (TestClient(app, client=a) for a in (PI, PHONE, STAFF))
    assert screen.get("/").status_code == 200  # the table screen's credential
    assert staff.post("/api/session", json={"pin": guard.pin}).status_code == 200
    strip = (tmp_path / "evidence" / ref / "strip.jpg").read_bytes()
    for client in (screen, staff):
        r = client.get(f"/api/photo-finish/{ref}.jpg")
        assert r.status_code == 200 and r.content == strip
        assert r.headers["content-type"] == "image/jpeg"
    assert phone.get(f"/api/photo-finish/{ref}.jpg").status_code == 403
    assert screen.get("/api/photo-finish/m-999-dog.jpg").status_code == 404
    assert screen.get(f"/api/photo-finish/{ref}").status_code == 404
    assert screen.get("/api/photo-finish/..%2F..%2Fpin.jpg").status_code == 404


# -- pictures and the page ----------------------------------------------------------------------


def test_figure_pictures_and_the_kiosk_switch(tmp_path: Path) -> None:
    t = make_table(tmp_path)
    r = t.phone.get("/api/figures/dog.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert 'aria-label="the white dog"' in r.text
    bad = t.phone.get("/api/figures/cat.svg")
    assert bad.status_code == 404 and "ship, viking, child, chest, dog" in bad.text
    assert '<main id="table" class="kiosk">' in t.phone.get("/?kiosk=1").text
    assert '<main id="table">' in t.phone.get("/").text
    page = t.phone.get("/").text
    assert 'id="verdict" class="verdict" aria-live="assertive"' in page
    assert 'id="status" class="status" role="status" aria-live="polite"' in page


# -- Chromium ----------------------------------------------------------------------------------


@dataclass
class Live:
    """The app served on a real socket in this process, around a fake-clock table."""

    service: TableService
    url: str


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    svc = make_service(tmp_path, target=2)
    svc.simulate(SimulatedTable(svc, svc.pads, bots=0, wait_for_people=True))  # type: ignore[arg-type]
    pin = PinGuard(tmp_path, "13572468", clock=svc.clock)
    app = create_app(svc, pin, autorun=False)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # listening before the thread starts: the browser's first request waits
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield Live(svc, f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        svc.store.close()


NO_SIDE_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"
# Where a person would click the dog button: on screen, and the button is what is there.
DOG_BUTTON = """() => { const b = document.querySelector('#simfigs button[data-fig=dog]');
  const r = b.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return `off screen at ${x},${y}`;
  const hit = document.elementFromPoint(x, y);
  return b.contains(hit) ? "ok" : `covered by ${hit ? hit.outerHTML.slice(0, 80) : "nothing"}`; }"""


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_the_table_screen_in_chromium_at_three_sizes(live: Live) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    svc = live.service
    blocked: list[str] = []
    with chromium(AUTOPLAY) as browser:
        pages = {}
        for name, (w, h) in SIZES.items():
            page = browser.new_page(viewport={"width": w, "height": h})
            page.on("console", lambda m: blocked.append(m.text)
                    if "Content Security Policy" in m.text else None)
            page.goto(live.url + "/?kiosk=1")
            pages[name] = page
        plain = browser.new_page(viewport={"width": 1920, "height": 1080})
        plain.goto(live.url + "/")
        laptop = browser.new_page(viewport={"width": 1366, "height": 768})
        laptop.goto(live.url + "/")

        def shot(what: str) -> None:
            for name, page in pages.items():
                assert page.evaluate(NO_SIDE_SCROLL), f"{what} at {name} scrolls sideways"
                page.screenshot(path=str(ARTIFACTS / f"after-{what}-{name}.png"))

        # Waiting for players: nothing is dealt; Start is offered.
        for page in pages.values():
            page.wait_for_selector("#waiting:not([hidden]) #start")
            # Kiosk mode: nothing but the table.
            assert page.is_hidden("nav") and page.is_hidden("#volume")
            assert page.is_hidden("#simctl")
            assert page.get_attribute("#verdict", "aria-live") == "assertive"
            assert page.get_attribute("#status", "aria-live") == "polite"
        # Without ?kiosk=1 the same page has its navigation and simulation panel.
        plain.wait_for_selector("#simctl:not([hidden])")
        assert plain.is_visible("nav") and plain.is_visible("#volume")
        phone = browser.new_page(viewport={"width": 360, "height": 740})
        phone.goto(live.url + "/")  # with its navigation bar, on a phone
        phone.wait_for_selector("#simctl:not([hidden])")
        assert phone.evaluate(NO_SIDE_SCROLL), "the table page with its bar scrolls sideways"
        shot("waiting")

        pages["1920x1080"].click("#start")
        answer = open_card(svc)
        rnd = svc.match.current
        assert rnd is not None
        for page in pages.values():
            page.wait_for_selector("#card:not([hidden])")
            page.wait_for_function("() => document.getElementById('card').complete")
            assert page.get_attribute("#card", "alt") == card_words(rnd.card)
            assert page.is_hidden("#waiting")
        # The card as large as the screen allows: the whole height of a landscape screen.
        box = pages["1920x1080"].locator("#card").bounding_box()
        assert box is not None and box["height"] >= 0.9 * 1080, box
        box = pages["800x480"].locator("#card").bounding_box()
        assert box is not None and box["height"] >= 0.9 * 480, box
        shot("card")

        svc.clock.advance(0.6)  # type: ignore[attr-defined]
        svc.sim_grab("Ben", other(answer))
        svc.clock.advance(0.2)  # type: ignore[attr-defined]
        svc.sim_grab("Ada", answer)
        svc.clock.advance(0.25)  # type: ignore[attr-defined]
        svc.sim_grab("Cleo", answer)
        settle(svc)
        for page in pages.values():
            page.wait_for_selector("#verdict[data-kind=won]")
            text = page.inner_text("#verdict")
            assert "Ada" in text and "Cleo by 0.25 s" in text, text
            assert f"Ben took the {other(answer).title}: wrong" in text, text
            assert page.get_attribute("#verdict img.fig", "alt") == f"the {answer.title}"
        shot("verdict")
        # Without ?kiosk=1 (`make run` on a laptop), a decided verdict with its small print
        # does not push the figure buttons out of the side column: they can still be clicked.
        for page in (plain, laptop):
            page.wait_for_selector("#verdict[data-kind=won] .why")
            assert page.evaluate(DOG_BUTTON) == "ok", page.viewport_size
            # The card's winner turns the next one, said in words ("turns" alone was not).
            assert "turns the card" in page.inner_text("#scores li.hot .tags")
        laptop.screenshot(path=str(ARTIFACTS / "after-verdict-1366x768-laptop.png"))

        run_until(svc, lambda s: s.match.phase is Phase.READY)
        answer = open_card(svc)
        svc.clock.advance(0.7)  # type: ignore[attr-defined]
        svc.sim_grab("Ada", answer)
        settle(svc)
        for page in pages.values():
            page.wait_for_selector("#winner:not([hidden]) >> text=Ada wins!")
            assert page.is_visible("#rematch")  # the Pi's own browser may start the next
        shot("winner")

        pages["1920x1080"].click("#rematch")
        for page in pages.values():
            page.wait_for_selector("#winner", state="hidden")
        svc.control("pause")
        svc.control("abandon")
        for page in pages.values():
            page.wait_for_selector("#winner:not([hidden]) >> text=Match abandoned at the table")
            assert page.is_visible("#rematch >> text=New match")
            assert "Paused" not in page.inner_text("#banners")
        shot("abandoned")
    assert blocked == [], blocked
