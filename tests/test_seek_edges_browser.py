"""Seek edges in real Chromium (SPEC B1; issue: a second tab's janggi seek replaced the first
tab's xiangqi seek while the first still said xiangqi; a language switch showed the empty
form while the seek lived on; "Waiting now" counted the player and ignored the rule option).

One seek per player, shown the same in every tab; a language switch keeps the live seek on
screen (and it still pairs); the counts never include the player and are for the rule option
chosen. At 1366 px (en) and 390 px (es → pt)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize
from playwright.sync_api import Error as PlaywrightError

from rooms_client import running_server
from web_fixtures import answer_naming, open_page

pytest_plugins = ["web_fixtures"]  # its server and Chromium

SHOTS = Path("/tmp")
DESKTOP: ViewportSize = {"width": 1366, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture
def contexts(chromium: Browser, web_server: str) -> Iterator[list[BrowserContext]]:
    made: list[BrowserContext] = []
    yield made
    for context in made:
        context.close()


def new_context(
    chromium: Browser, url: str, made: list[BrowserContext], viewport: ViewportSize, locale: str
) -> tuple[BrowserContext, list[str]]:
    context = chromium.new_context(base_url=url, viewport=viewport, locale=locale)
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    made.append(context)
    return context, errors


def seek(page: Page) -> None:
    """Press "Play someone now" (naming oneself first if asked, B7) until the wait shows, or
    until the page is already in its room (a compatible player was waiting: paired at once)."""
    page.click("[data-action=seek]")
    answer_naming(page)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(PlaywrightError):  # the page may be on its way to the room
            if "/room/" in page.url or page.is_visible("[data-seek-wait]:not([hidden])"):
                return
        page.wait_for_timeout(50)
    raise AssertionError("the seek neither showed its wait nor led to a room")


def counts(page: Page) -> str:
    return page.inner_text("[data-seek-counts]")


def test_one_seek_is_shown_the_same_in_every_tab_and_counts_exclude_the_player_B1(
    chromium: Browser, web_server: str, contexts: list[BrowserContext]
) -> None:
    mine, errors = new_context(chromium, web_server, contexts, DESKTOP, "en-US")
    one, two = mine.new_page(), mine.new_page()
    open_page(one, "/")
    open_page(two, "/")  # opened before anything is sought: the form

    one.check("#seek-rules")
    seek(one)
    one.wait_for_selector("[data-seek-choice]:has-text('Xiangqi · WXF rules')")
    one.wait_for_selector("[data-seek-counts]:has-text('Xiangqi 0')")  # not oneself

    # The second tab asks for janggi: the one seek is janggi now, in both tabs.
    two.check("#seek-variant-janggi")
    seek(two)
    two.wait_for_selector("[data-seek-choice]:text-is('Janggi')")
    one.wait_for_selector("[data-seek-choice]:text-is('Janggi')")
    # A tab opened now shows that seek too, its waiting time going on.
    three = mine.new_page()
    open_page(three, "/")
    three.wait_for_selector("[data-seek-wait]:not([hidden]) [data-seek-choice]:text-is('Janggi')")
    assert three.is_hidden("[data-form=seek]")
    three.screenshot(path=str(SHOTS / "chuhan-seek-third-tab-desktop.png"))

    # Cancelled in one tab, it is cancelled in all of them.
    three.click("[data-action=seek-cancel]")
    for page in (one, two, three):
        page.wait_for_selector("[data-form=seek]:not([hidden])")
        assert page.is_hidden("[data-seek-wait]")

    # Someone else waits for casual xiangqi: counted for casual, not for WXF.
    other, other_errors = new_context(chromium, web_server, contexts, DESKTOP, "en-US")
    stranger = other.new_page()
    open_page(stranger, "/")
    seek(stranger)
    stranger.wait_for_selector("[data-seek-counts]:has-text('Xiangqi 0')")  # not themselves
    for _ in range(20):  # the counts a page reads when it opens are at most 0.5 s old
        one.reload()
        one.wait_for_selector("body[data-ready=true]")
        one.wait_for_selector("[data-seek-counts]:has-text('Waiting now')")
        if "Xiangqi 1" in counts(one):
            break
        one.wait_for_timeout(300)
    assert "Xiangqi 1" in counts(one)
    one.check("#seek-rules")
    one.wait_for_selector("[data-seek-counts]:has-text('Xiangqi 0')")
    one.screenshot(path=str(SHOTS / "chuhan-seek-counts-desktop.png"))
    stranger.click("[data-action=seek-cancel]")
    stranger.wait_for_selector("[data-form=seek]:not([hidden])")
    assert not errors, errors + other_errors
    assert not other_errors, errors + other_errors


def test_a_language_switch_keeps_the_live_seek_on_screen_and_it_still_pairs_B1_U8(
    chromium: Browser, web_server: str, contexts: list[BrowserContext]
) -> None:
    mine, errors = new_context(chromium, web_server, contexts, PHONE, "es-ES")
    page = mine.new_page()
    open_page(page, "/")
    page.check("#seek-variant-jieqi")
    seek(page)
    page.wait_for_selector("[data-seek-wait]:has-text('Buscando un rival…')")

    page.select_option("#language-switch", "pt")
    page.wait_for_selector("[data-seek-wait]:not([hidden]):has-text('Procurando um adversário…')")
    assert page.inner_text("[data-seek-choice]") == "Jieqi"
    assert page.is_hidden("[data-form=seek]")
    assert "Jieqi 0" in counts(page)
    page.screenshot(path=str(SHOTS / "chuhan-seek-language-phone.png"))

    # The seek the page shows is the one that pairs: a stranger's jieqi seek meets it.
    other, other_errors = new_context(chromium, web_server, contexts, PHONE, "es-ES")
    stranger = other.new_page()
    open_page(stranger, "/")
    stranger.check("#seek-variant-jieqi")
    seek(stranger)
    page.wait_for_url("**/room/*")
    stranger.wait_for_url("**/room/*")
    assert page.url.split("/room/")[1] == stranger.url.split("/room/")[1]
    assert not errors, errors + other_errors
    assert not other_errors, errors + other_errors


def test_leaving_a_paired_game_unbegun_makes_the_next_seek_wait_with_the_seconds_shown_Z8(
    chromium: Browser, tmp_path: Path
) -> None:
    """Its own server: the wait falls on the address block, and every browser here is
    127.0.0.1 (the session's server would make other tests wait)."""
    with running_server(tmp_path) as url:
        made: list[BrowserContext] = []
        try:
            leaver_context, errors = new_context(chromium, url, made, PHONE, "es-ES")
            stayer_context, other_errors = new_context(chromium, url, made, DESKTOP, "en-US")
            leaver, stayer = leaver_context.new_page(), stayer_context.new_page()
            for page in (leaver, stayer):
                open_page(page, "/")
            seek(leaver)
            seek(stayer)
            for page in (leaver, stayer):
                page.wait_for_selector("[data-room][data-phase=playing]")
            leaver.click("[data-action=leave]")
            question = leaver.inner_text("dialog")
            assert "tendrás que esperar un poco" in question  # no longer "no te cuesta nada"
            leaver.click("dialog [data-action=confirm]")
            leaver.wait_for_url(f"{url}/")
            leaver.wait_for_selector("body[data-ready=true]")
            leaver.click("[data-action=seek]")
            shown = leaver.wait_for_selector("[data-seek-error]:not([hidden])")
            assert shown is not None
            refusal = shown.inner_text()
            assert "Podrás volver a jugar con alguien en" in refusal
            seconds = int(refusal.split(" en ")[1].split(" s")[0])
            assert 1 <= seconds <= 15
            assert leaver.is_visible("[data-form=seek]")  # the form again, nothing waiting
            leaver.screenshot(path=str(SHOTS / "chuhan-seek-abort-cooldown-phone.png"))
            assert not errors, errors + other_errors
            assert not other_errors, errors + other_errors
        finally:
            for context in made:
                context.close()
