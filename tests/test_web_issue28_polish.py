"""What a new player from lichess or pychess noticed in one session (issue 28, "Also found in
the same session"), each fixed with a real Chromium against a real server (SPEC P4, R6, U6,
N1–N4, J8, R5, R7).

Screenshots of the screens changed go to /tmp/chuhan-polish-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import game_data, open_page, play, server_state  # noqa: E402

pytest_plugins = ["web_fixtures"]

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

SHOTS = Path("/tmp")
I18N = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "i18n"
PHONE = {"width": 390, "height": 844}


def strings(language: str) -> dict[str, str]:
    return dict(json.loads((I18N / f"{language}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("language", ["en", "es", "pt"])
def test_the_home_page_names_online_play_and_every_points_rule_P4_R6(
    chromium: Browser, web_server: str, language: str
) -> None:
    """The lead names online play; the points note names the AI's 10/30/80 and the online 50."""
    context = chromium.new_context(base_url=web_server, locale=language, viewport=PHONE)
    page = context.new_page()
    try:
        open_page(page, "/")
        lead = page.inner_text(".home > .lead")
        online = {"en": "online", "es": "en línea", "pt": "online"}[language]
        assert online in lead.lower(), lead
        rule = page.inner_text("[data-points-rule]")
        for points in ("10", "30", "80", "50"):
            assert points in rule, rule
        if language == "en":
            page.screenshot(path=str(SHOTS / "chuhan-polish-home-phone.png"), full_page=True)
    finally:
        context.close()


def test_captured_pieces_have_a_heading_U6(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    expect(web_page.locator("[data-captured] h2")).to_have_count(0)  # nothing captured yet
    for move in ["h3h10"]:  # the cannon takes the horse
        play(web_page, move)
    expect(web_page.locator("[data-captured] h2")).to_have_text("Captured pieces")
    expect(web_page.locator("[data-captured-side=black]")).to_have_attribute("data-letters", "n")


def test_no_move_counter_nor_analyse_before_the_first_move_U6(
    chromium: Browser, web_server: str
) -> None:
    """A live game without moves shows neither "Move 0 of 0" nor "Analyse"; the counter comes
    with the first move, "Analyse" only once the game is over."""
    for viewport, name in ((PHONE, "phone"), ({"width": 1366, "height": 900}, "desktop")):
        context = chromium.new_context(base_url=web_server, viewport=viewport, locale="en-US")
        page = context.new_page()
        try:
            open_page(page, "/play/local?variant=xiangqi")
            expect(page.locator("[data-review-bar]")).to_be_hidden()
            expect(page.locator("[data-analysis=start]")).to_be_hidden()
            page.screenshot(path=str(SHOTS / f"chuhan-polish-live-{name}.png"))
            play(page, "h3e3")
            expect(page.locator(".review-counter")).to_have_text("Move 1 of 1")
            expect(page.locator("[data-analysis=start]")).to_be_hidden()
            page.click("[data-action=resign]")
            page.click("dialog[data-confirm-dialog] [data-action=confirm]")
            page.click("dialog[data-end-dialog] button:last-child")  # "Review"
            expect(page.locator("[data-analysis=start]")).to_be_visible()
        finally:
            context.close()


def test_janggi_shows_both_points_totals_during_play_J8(chromium: Browser, web_server: str) -> None:
    """Points decide janggi games (J8): both totals show while playing, Han's with its 1.5."""
    for viewport, name in ((PHONE, "phone"), ({"width": 1366, "height": 900}, "desktop")):
        context = chromium.new_context(base_url=web_server, viewport=viewport, locale="en-US")
        page = context.new_page()
        try:
            open_page(page, "/play/local?variant=janggi")
            totals = page.locator("[data-janggi-points]")
            expect(totals).to_be_visible()
            expect(totals.locator("[data-points-side=cho]")).to_have_text("72")
            expect(totals.locator("[data-points-side=han]")).to_have_text("73.5")
            page.screenshot(path=str(SHOTS / f"chuhan-polish-janggi-points-{name}.png"))
        finally:
            context.close()


def test_offering_a_draw_to_the_ai_asks_first_P4_A5(web_page: Page) -> None:
    """A draw the AI may accept ends a scored game: the offer asks to confirm."""
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    web_page.wait_for_selector("[data-game][data-my-turn=true]")
    web_page.click("[data-action=draw]")
    dialog = web_page.locator("dialog[data-confirm-dialog]")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("points")
    dialog.locator("[data-action=cancel]").click()
    web_page.wait_for_timeout(300)  # nothing was sent: the game goes on, as it was
    assert game_data(web_page)["status"] == "ongoing"
    assert server_state(web_page)["status"] == "ongoing"
