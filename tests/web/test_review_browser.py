"""The dispute review and the setup page in Debian's Chromium (Playwright), over the
seeded match of tests/web/pages.py: a keyboard reaches the match list, every correction
field has a label, reaction times are whole milliseconds, the page speaks in words,
timeline labels neither overlap nor leave the bar, giving a card to someone whose only
grab was wrong asks first, the PIN is asked in the page, and setup shows a refused
field's rule beside it. No browser dialog opens at any point."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from controller.knapp.cards import Figure
from tests.chromium import BROWSER_TESTS, chromium
from tests.web.pages import CLOSE_MS, PIN, ROOT, Seeded, get, serve
from tests.web.server import Server

pytestmark = BROWSER_TESTS

SHOTS = ROOT / "artifacts" / "screenshots" / "pages"
# Internal codes that must not reach the page: a card's text, a grab's source, a phase.
CODES = re.compile(r"\b\w+:\w+/\w+\+\w+\b|\bsim\+sim\b|\bclearing\b|\breveal \(shown\)")


class Tab:
    """One browser page with every dialog it tried to open recorded (and dismissed)."""

    def __init__(self, browser: Any, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.context.set_default_timeout(20_000)
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.console: list[str] = []
        self.page.on("dialog", self._dialog)
        self.page.on("console", lambda m: self.console.append(m.text))

    def _dialog(self, d: Any) -> None:
        self.dialogs.append(f"{d.type}: {d.message}")
        d.dismiss()

    def close(self) -> None:
        assert self.dialogs == [], self.dialogs
        assert not [m for m in self.console if "Content Security Policy" in m], self.console
        self.context.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Seeded, Any]]:
    server, seeded = serve(tmp_path_factory.mktemp("review-browser"))
    try:
        with chromium() as browser:
            yield server, seeded, browser
    finally:
        server.kill()


@pytest.fixture
def tab(served: tuple[Server, Seeded, Any]) -> Iterator[Tab]:
    t = Tab(served[2], {"width": 1280, "height": 900})
    yield t
    t.close()


def test_a_keyboard_reaches_the_match_list_and_opens_a_match(
        served: tuple[Server, Seeded, Any], tab: Tab) -> None:
    server, seeded, _ = served
    page = tab.page
    page.goto(server.url + "/review")
    page.wait_for_selector(f"#matches [data-id='{seeded.match_id}']")
    # The newest match (the one being played) is shown first; Tab to the seeded one.
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.id") == seeded.match_id:
            break
    else:
        raise AssertionError("Tab never reached the seeded match in the list")
    assert page.evaluate("document.activeElement.tagName") == "A"
    page.keyboard.press("Enter")
    page.wait_for_selector("#round-1")
    assert f"match={seeded.match_id}" in page.url
    assert page.get_attribute(f"#matches [data-id='{seeded.match_id}']", "aria-current")


def test_every_correction_field_has_a_label(served: tuple[Server, Seeded, Any],
                                            tab: Tab) -> None:
    server, seeded, _ = served
    page = tab.page
    page.goto(f"{server.url}/review?match={seeded.match_id}")
    page.wait_for_selector("#round-0 .corr")
    fields = page.evaluate("""() => [...document.querySelectorAll(
        '#detail input, #detail select, #detail textarea')].map((el) =>
        [el.className, [...el.labels].map((l) => l.textContent.trim()).join(' ')])""")
    assert len(fields) == 4, fields  # a seat and a reason on each of the two cards
    assert all(label for _, label in fields), fields
    assert {label for _, label in fields} == {"Give the card to", "Reason"}


def test_times_in_whole_ms_and_words_not_codes(served: tuple[Server, Seeded, Any],
                                               tab: Tab) -> None:
    server, seeded, _ = served
    page = tab.page
    page.goto(f"{server.url}/review?match={seeded.match_id}")
    page.wait_for_selector("#round-0 .grabs")
    reactions = page.locator("#round-0 td.reaction").all_inner_texts()
    assert reactions == ["600 ms", "700 ms", f"{700 + CLOSE_MS} ms"]
    text = page.inner_text("#detail")
    assert not CODES.search(text), CODES.search(text)
    review = get(f"{server.url}/api/matches/{seeded.match_id}")
    card = review["rounds"][0]["card"]  # e.g. "chest:white/blue+green"
    figure, paint = card.split(":")[0], card.split(":")[1].split("/")[0]
    assert paint in page.inner_text("#round-0 h3") and figure not in ("", card)
    assert "simulated pad, simulated player" in text
    assert f"by {CLOSE_MS} ms" in page.inner_text("#round-0 .verdict")
    assert "the match is over" in text


@pytest.mark.parametrize("viewport", [{"width": 360, "height": 740},
                                      {"width": 1280, "height": 900}],
                         ids=["phone", "desktop"])
def test_timeline_labels_neither_overlap_nor_leave_the_bar(
        served: tuple[Server, Seeded, Any], viewport: dict[str, int]) -> None:
    server, seeded, browser = served
    t = Tab(browser, viewport)
    try:
        t.page.goto(f"{server.url}/review?match={seeded.match_id}")
        t.page.wait_for_selector("#round-0 .timeline .label")
        boxes = t.page.evaluate("""() => {
          const bar = document.querySelector('#round-0 .bar').getBoundingClientRect();
          const labels = [...document.querySelectorAll('#round-0 .timeline .label')].map((el) => {
            const r = el.getBoundingClientRect();
            return { text: el.textContent, left: r.left, right: r.right, top: r.top,
                     bottom: r.bottom };
          });
          return { bar: { left: bar.left, right: bar.right }, labels };
        }""")
        labels = boxes["labels"]
        assert len(labels) == 4  # the card shown, Ada, Ben and Cleo
        for lab in labels:
            assert boxes["bar"]["left"] - 0.5 <= lab["left"], lab  # "card shown" not cut off
            assert lab["right"] <= boxes["bar"]["right"] + 0.5, lab
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                # Apart by at least the rounding of a sub-pixel layout.
                apart = (a["right"] <= b["left"] + 0.5 or b["right"] <= a["left"] + 0.5
                         or a["bottom"] <= b["top"] + 0.5 or b["bottom"] <= a["top"] + 0.5)
                assert apart, (a, b)
    finally:
        t.close()


def test_giving_a_card_to_a_wrong_grab_asks_first_and_the_pin_is_asked_in_the_page(
        served: tuple[Server, Seeded, Any], tab: Tab) -> None:
    server, seeded, _ = served
    page = tab.page
    url = f"{server.url}/api/matches/{seeded.match_id}"
    page.goto(f"{server.url}/review?match={seeded.match_id}")
    box = page.locator("#round-0 .corr")
    box.wait_for()
    # No reason: said in the page, next to the field.
    box.locator("button[data-k=award]").click()
    assert "needs a reason" in box.locator(".msg").inner_text()
    assert box.locator(".reason").get_attribute("aria-invalid") == "true"

    box.locator(".seat").select_option("Ada")
    box.locator(".reason").fill("the video shows Ada's hand first")
    box.locator("button[data-k=award]").click()
    ask = box.locator(".ask")
    ask.wait_for()
    ask.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "review-confirm-award.png"))
    wrong = Figure(seeded.wrong_figure).title
    assert f"Ada's only grab on this card was wrong (the {wrong}" in ask.inner_text()
    ask.locator("button.no").click()
    assert box.locator(".msg").inner_text() == "Not given."
    assert get(url)["rounds"][0]["winner"] == "Ben"  # nothing was changed

    # Confirmed: not logged in yet, so the PIN is asked in the page; a wrong one is refused.
    box.locator("button[data-k=award]").click()
    ask.locator("button.yes").click()
    pin = ask.locator("input[type=password]")
    pin.wait_for()
    assert pin.evaluate("(el) => el.labels[0].textContent") == "Table PIN"
    pin.fill("00000000")
    ask.locator("button.yes").click()
    page.wait_for_selector("#round-0 .ask .msg:text('wrong PIN')")
    pin.fill(PIN)
    ask.locator("button.yes").click()
    page.wait_for_selector("#round-0 >> text=Correction: awarded to Ada")
    assert get(url)["rounds"][0]["winner"] == "Ada"
    page.wait_for_selector("#staff-in:not([hidden])")  # the navigation knows too

    # A seat with a right grab is given a card without a question.
    box = page.locator("#round-0 .corr")
    box.locator(".seat").select_option("Cleo")
    box.locator(".reason").fill("Cleo's hand was first after all")
    box.locator("button[data-k=award]").click()
    page.wait_for_selector("#round-0 >> text=Correction: awarded to Cleo")
    assert get(url)["rounds"][0]["winner"] == "Cleo"


def test_setup_shows_a_refused_field_beside_it(served: tuple[Server, Seeded, Any],
                                                tab: Tab) -> None:
    server, _, _ = served
    page = tab.page
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(server.url + "/setup")
    page.fill("#pin", PIN)
    page.click("#login")
    page.wait_for_selector("#staff-in:not([hidden])")
    page.wait_for_function("() => document.getElementById('seats').value !== ''")
    # A simulated table says which seats its computer players take (the last ones).
    bots = get(server.url + "/api/state")["bots"]
    assert bots  # bots = 0 in the file: the default, every seat but the first
    assert page.inner_text("#seats-bots").endswith(
        f"(now {', '.join(bots)}); the others are people at the table.")
    page.fill("#seats", "Ada")
    page.fill("#target", "99")
    page.click("#apply")
    page.wait_for_selector("#seats-err:text('at least 2 players')")
    assert page.inner_text("#seats-err") == "At least 2 players"
    assert page.inner_text("#target-err") == "At most 60 cards"
    # The banner names the fields by their labels on the page, not the API's keys.
    assert page.inner_text("#msg") == ("Not applied (the match goes on). Players: at least 2 "
                                       "players; Cards to win: at most 60 cards")
    assert page.get_attribute("#seats", "aria-invalid") == "true"
    page.screenshot(path=str(SHOTS / "setup-refused-fields.png"))
    banner = page.inner_text("#msg")
    assert "[{" not in banner and "too_short" not in banner, banner
    # A name too long is named by its place in the list.
    page.fill("#seats", "Ada, " + "B" * 25)
    page.fill("#target", "3")
    page.click("#apply")
    page.wait_for_selector("#seats-err:text('Player 2: at most 24 characters')")
    assert page.inner_text("#target-err") == ""
    # Put right, the errors go and the match starts.
    page.fill("#seats", "Ada, Ben")
    page.fill("#target", "3")
    page.click("#apply")
    page.wait_for_selector("#msg >> text=New match started.")
    assert page.inner_text("#seats-err") == "" and page.inner_text("#target-err") == ""
