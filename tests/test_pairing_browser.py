"""Play a stranger in real Chromium (SPEC B1): two strangers (two browser contexts, two
cookies) click "Play someone now", are paired, land in the room with the game already begun
and play; the same across two instances on PostgreSQL + Redis; the waiting panel counts the
time, offers the computer after 30 s (the page's clock fast-forwarded) and cancels.
Screenshots (phone 390 px, desktop 1366 px) go to /tmp/chuhan-pairing-*.png.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize
from playwright.sync_api import Error as PlaywrightError

from rooms_client import running_server
from test_scale_support import cluster

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    Friends,
    answer_naming,
    move,
    rematch_both,
    resign,
    room_data,
    wait_end,
)

pytest_plugins = ["web_fixtures"]  # its Chromium

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1366, "height": 900}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("pairing-web")) as url:
        yield url


def seek(page: Page, variant: str = "xiangqi", waits: bool = False) -> None:
    """Click "Play someone now"; returns once the page waits (its panel shows) or, someone
    compatible waiting already, is on its way to the room. ``waits``: it must wait."""
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]")
    page.check(f"#seek-variant-{variant}")
    page.click("[data-action=seek]")
    answer_naming(page)
    if waits:
        page.wait_for_selector("[data-seek-wait]:not([hidden])")
        return
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if "/room/" in page.url:
            return
        with contextlib.suppress(PlaywrightError):  # the page may be navigating away
            if page.is_visible("[data-seek-wait]"):
                return
        page.wait_for_timeout(50)
    raise AssertionError("the page neither waits nor went to a room")


def paired_pages(pages: list[Page]) -> dict[str, Page]:
    """Both pages moved to the room, the game begun without Ready (R3): pages by side."""
    for page in pages:
        page.wait_for_url("**/room/r*")
        page.wait_for_selector("[data-room][data-phase=playing]")
    return {room_data(page)["you"]: page for page in pages}


def test_two_strangers_are_paired_play_and_rematch_B1_B4(chromium: Browser, server: str) -> None:
    strangers = Friends(chromium, server, viewport=DESKTOP)
    try:
        first, second = strangers.pages
        seek(first, waits=True)
        first.wait_for_selector("[data-seek-clock]:has-text('0:0')")
        assert "Xiangqi" in first.inner_text("[data-seek-choice]")
        first.wait_for_function(  # the player is not counted among those waiting
            "() => /Xiangqi 0/.test(document.querySelector('[data-seek-counts]').textContent)"
        )
        first.screenshot(path=str(SHOTS / "chuhan-pairing-waiting-desktop.png"))
        seek(second)
        pages = paired_pages([first, second])
        assert pages["red"] is not pages["black"]
        assert "stranger" in pages["red"].inner_text("[data-paired]")
        move(pages["red"], "h3e3")
        move(pages["black"], "h8e8")
        move(pages["red"], "h1g3")
        for page in pages.values():
            page.wait_for_selector("[data-room][data-ply='3']")
        pages["black"].screenshot(path=str(SHOTS / "chuhan-pairing-room-desktop.png"))
        # Leaving aside, the game ends as a room game does, and a rematch (B4) swaps colours.
        resign(pages["black"])
        for page in pages.values():
            assert wait_end(page, "resignation")["you"] in ("red", "black")
        again = rematch_both(pages)
        assert again["red"] is pages["black"]
        assert again["black"] is pages["red"]
        assert again["red"].is_visible("[data-paired]")  # still the strangers' own room
    finally:
        strangers.close()


def test_the_waiting_panel_on_a_phone_offers_the_computer_after_30_seconds_B1(
    chromium: Browser, server: str
) -> None:
    context = chromium.new_context(base_url=server, viewport=PHONE, locale="es-ES")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.clock.install()
        page.goto("/")
        page.wait_for_selector("body[data-ready=true]")
        assert page.inner_text("#seek-heading") == "Jugar ahora con alguien"
        page.check("#level-intermediate")  # the computer's level, chosen on the home page
        page.check("#seek-variant-janggi")
        page.check("#seek-bikjang")
        # The page's time stands still but for what the test runs (a busy machine's seconds
        # would count too).
        page.clock.pause_at(datetime.now() + timedelta(seconds=5))
        page.click("[data-action=seek]")
        answer_naming(page)  # B7: the first pairing asks for a name
        page.wait_for_selector("[data-seek-wait]:not([hidden])")
        assert "bikjang por puntos" in page.inner_text("[data-seek-choice]")
        page.wait_for_selector("[data-seek-counts]:has-text('Janggi 0')")  # not oneself
        assert page.is_hidden("[data-seek-ai]")
        page.clock.run_for(29_000)
        assert page.is_hidden("[data-seek-ai]")  # not before 30 s
        page.clock.run_for(2_000)
        page.wait_for_selector("[data-seek-ai]:not([hidden])")
        assert "0:3" in page.inner_text("[data-seek-clock]")
        page.screenshot(path=str(SHOTS / "chuhan-pairing-waiting-phone.png"))
        page.click("[data-action=seek-ai]")
        page.wait_for_url("**/play/ai?*")
        address = page.url
        assert "variant=janggi" in address
        assert "level=intermediate" in address
        assert "bikjang=points" in address
    finally:
        context.close()
    assert not errors, errors


def test_a_cancelled_wait_pairs_nobody_B1(chromium: Browser, server: str) -> None:
    strangers = Friends(chromium, server, viewport=PHONE)
    try:
        first, second = strangers.pages
        seek(first, "jieqi", waits=True)
        first.click("[data-action=seek-cancel]")
        first.wait_for_selector("[data-form=seek]:not([hidden])")
        assert first.is_hidden("[data-seek-wait]")
        # The counts say at once that nobody waits any more.
        first.wait_for_selector("[data-seek-counts]:has-text('Jieqi 0')")
        first.screenshot(path=str(SHOTS / "chuhan-pairing-home-phone.png"))
        seek(second, "jieqi", waits=True)  # the first one no longer waits: nobody to pair with
        second.wait_for_selector("[data-seek-clock]:has-text('0:02')", timeout=10000)
        assert "/room" not in second.url
        assert "/room" not in first.url
        second.click("[data-action=seek-cancel]")
    finally:
        strangers.close()


def test_two_strangers_on_two_instances_are_paired_and_play_B1(
    chromium: Browser, tmp_path: Path
) -> None:
    with cluster(tmp_path) as running:
        a, b = running.instances
        contexts = [
            chromium.new_context(base_url=instance.url, viewport=viewport, locale="pt-BR")
            for instance, viewport in ((a, PHONE), (b, DESKTOP))
        ]
        errors: list[str] = []
        try:
            pages = [context.new_page() for context in contexts]
            for page in pages:
                page.set_default_timeout(15000)
                page.on("pageerror", lambda error: errors.append(str(error)))
            seek(pages[0])
            seek(pages[1])
            by_side = paired_pages(pages)
            move(by_side["red"], "h3e3")
            move(by_side["black"], "h8e8")
            for page in pages:
                page.wait_for_selector("[data-room][data-ply='2']")
            pages[0].screenshot(path=str(SHOTS / "chuhan-pairing-room-phone.png"))
        finally:
            for context in contexts:
                context.close()
        assert not errors, errors


def test_leaving_a_paired_game_before_ones_first_move_says_it_ends_unrated_and_costs_a_wait_B1_Z8(
    chromium: Browser, server: str
) -> None:
    strangers = Friends(chromium, server, viewport=PHONE)
    try:
        first, second = strangers.pages
        seek(first)
        seek(second)
        pages = paired_pages([first, second])
        move(pages["red"], "h3e3")
        pages["black"].click("[data-action=leave]")
        dialog = pages["black"].locator("dialog[data-confirm-dialog]")
        assert "without a result" in dialog.inner_text()
        assert "you will have to wait a little" in dialog.inner_text()  # Z8: no longer free
        pages["black"].screenshot(path=str(SHOTS / "chuhan-pairing-leave-phone.png"))
        dialog.locator("[data-action=confirm]").click()
        pages["black"].wait_for_url(lambda url: "/room" not in url)
        ended = wait_end(pages["red"], "abandoned")  # no winner, no rating: Black waits instead
        assert ended["reason"] == "abandoned"
    finally:
        strangers.close()
