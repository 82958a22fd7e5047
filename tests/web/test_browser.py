"""Headless Chromium (Debian's package, driven by Playwright) logs in as staff,
plays a whole simulated match from setup to the winner screen, opens the
dispute review, makes a correction, and saves screenshots in
artifacts/screenshots/. The page runs under the app's Content-Security-Policy:
a blocked script or style fails the test."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from controller.knapp.cards import Card, solve
from tests.chromium import AUTOPLAY, BROWSER_TESTS, chromium
from tests.web.server import Server

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
PIN = "13572468"
KEYS = {"ship": "s", "viking": "v", "child": "c", "chest": "t", "dog": "d"}

pytestmark = BROWSER_TESTS


def state(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url + "/api/state", timeout=10) as r:
        data: dict[str, object] = json.loads(r.read())
        return data


@pytest.fixture
def server(tmp_path: Path) -> object:
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[table]\nname = "Browser table"\nseats = ["Ada", "Ben", "Cleo"]\n'
        "[match]\ntarget = 2\n"
        f'[kiosk]\npin = "{PIN}"\ncountdown_s = 0.6\nsim_return_s = 0.4\nbots = 2\n'
    )
    srv = Server(tmp_path / "data", cfg, "--seed", "5").start()
    yield srv
    srv.kill()


def test_whole_match_review_and_correction(server: Server) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    with chromium(AUTOPLAY) as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        dialogs: list[str] = []
        blocked: list[str] = []

        def on_dialog(d: object) -> None:
            dialogs.append(d.message)  # type: ignore[attr-defined]
            d.dismiss()  # type: ignore[attr-defined]

        page.on("dialog", on_dialog)
        page.on("console", lambda m: blocked.append(m.text)
                if "Content Security Policy" in m.text else None)

        # Staff log in once on this device: a wrong PIN is refused, the right one is kept
        # as an HttpOnly cookie (no script can read it, nothing in localStorage).
        page.goto(server.url + "/setup")
        page.click("#apply")  # not logged in yet: refused, and the login is offered
        page.wait_for_selector("#msg >> text=needs staff")
        page.fill("#pin", "00000000")
        page.click("#login")
        page.wait_for_selector("#login-msg >> text=wrong PIN")
        page.fill("#pin", PIN)
        page.click("#login")
        page.wait_for_selector("#staff-in:not([hidden])")
        assert page.is_hidden("#pin")
        assert "knapp_staff" not in page.evaluate("document.cookie")
        assert page.evaluate("JSON.stringify(localStorage)").find(PIN) < 0
        page.reload()  # the session outlives the page
        page.wait_for_selector("#staff-in:not([hidden])")

        # Setup: a new match with two players' names changed.
        page.fill("#seats", "Ada, Ben, Cleo")
        page.fill("#target", "2")
        page.click("#apply")
        page.wait_for_selector("text=New match started.")
        page.screenshot(path=str(ARTIFACTS / "setup.png"))

        # The table: Ada (human) grabs with the keyboard, bots play the others.
        page.goto(server.url + "/?kiosk=1")
        # Ada's seat is a person's: the simulated table waits for someone to start.
        page.click("#start")
        shot_card = False
        for _ in range(40):
            page.wait_for_function(
                "() => /grab!|Match over/.test(document.getElementById('status').textContent)",
                timeout=30_000)
            s = state(server.url)
            if s["winners"]:
                break
            rnd = s["round"]
            assert isinstance(rnd, dict)
            page.wait_for_selector("#card:not([hidden])")
            if not shot_card:
                page.screenshot(path=str(ARTIFACTS / "table-card.png"))
                shot_card = True
            page.keyboard.press("1")
            # A spectator's state has no answer while the card is open: solve the card.
            assert rnd["answer"] is None
            page.keyboard.press(KEYS[solve(Card.parse(str(rnd["card"]))).answer.value])
            page.wait_for_function(
                f"() => !/Card {rnd['index'] + 1}: grab!/"
                ".test(document.getElementById('status').textContent)", timeout=30_000)
            page.wait_for_selector("#verdict:not([hidden])", timeout=30_000)
            if not (ARTIFACTS / "table-verdict.png").exists() or rnd["index"] == 0:
                page.screenshot(path=str(ARTIFACTS / "table-verdict.png"))
        page.wait_for_selector("#winner:not([hidden])", timeout=30_000)
        winner_text = page.inner_text("#winner")
        assert "wins" in winner_text or "share" in winner_text
        page.screenshot(path=str(ARTIFACTS / "table-winner.png"))
        final = state(server.url)
        assert final["phase"] == "ended" and final["winners"]

        # Dispute review: the first round's timeline, then give its card to Ben.
        page.goto(server.url + "/review")
        page.wait_for_selector("#round-0")
        page.screenshot(path=str(ARTIFACTS / "review.png"), full_page=True)
        with urllib.request.urlopen(f"{server.url}/api/matches/{final['match_id']}") as r:
            rounds = json.loads(r.read())["rounds"]
        # A too-close round went back to the pile and cannot be given away: pick a decided one.
        target = next(r for r in rounds if r["outcome"] in ("won", "boxed"))
        other = next(s for s in ("Ada", "Ben", "Cleo") if s != target["winner"])
        box = page.locator(f"#round-{target['index']} .corr")
        box.locator("select").select_option(other)
        box.locator("input").fill(f"video shows {other}'s hand first")
        dialogs.clear()
        box.locator("button[data-k=award]").click()
        if not any(c["seat"] == other and c["correct"] for c in target["claims"]):
            # No right grab of theirs on this card: the page asks to confirm, in the page.
            box.locator(".ask .yes").click()
        try:
            page.wait_for_selector(
                f"#round-{target['index']} >> text=Correction: awarded to {other}")
        except Exception as exc:
            raise AssertionError(f"correction not shown; dialogs: {dialogs}") from exc
        page.screenshot(path=str(ARTIFACTS / "review-corrected.png"), full_page=True)
        assert dialogs == [], dialogs  # no prompt() for a PIN, no error alert

        # Log out: a staff change is refused again (pause would not do: the Pi's own
        # browser is the table screen, which may pause).
        page.click("#logout")
        page.wait_for_selector("#login:not([hidden])")
        page.goto(server.url + "/setup")
        page.click("#apply")
        page.wait_for_selector("#msg >> text=needs staff")
        assert blocked == [], blocked
    assert (ARTIFACTS / "table-winner.png").stat().st_size > 10_000
