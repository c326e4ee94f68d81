"""A room's game on a phone (SPEC U6, B2, B4, B5, R4, J3), in a real Chromium against a real
server: it ends with a result dialog as an AI game does, the rating change in view at 390 px
and at 1366 px, Rematch and New opponent beside it; the janggi setup choice keeps its
countdown on screen while the player chooses.

Screenshots go to /tmp/chuhan-phone-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from test_pairing_browser import paired_pages, seek
from test_phone_polish_browser import PHONE, SHOTS, WIDE, fits_the_width, in_view, server

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    Friends,
    create_room,
    invite_link,
    move,
    ready_both,
    resign,
    room_data,
)

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
__all__ = ["server"]  # the module's server: paired games rated on one machine


@pytest.mark.parametrize(("viewport", "locale"), [(PHONE, "es-ES"), (WIDE, "en-US")])
def test_a_paired_game_ends_in_a_result_dialog_with_the_rating_change_U6_B2(
    chromium: Browser, server: str, viewport: ViewportSize, locale: str
) -> None:
    """The end of a paired game as an AI game's: a dialog with the result and the rating
    change, in view without scrolling, and Rematch and New opponent beside it."""
    strangers = Friends(chromium, server, viewport=viewport, locale=locale)
    try:
        first, second = strangers.pages
        seek(first)
        seek(second)
        pages = paired_pages([first, second])
        move(pages["red"], "h3e3")
        move(pages["black"], "h10g8")
        resign(pages["black"])
        words = {"es-ES": ("Tu rating", "Revancha"), "en-US": ("Your rating", "Rematch")}[locale]
        for page in pages.values():
            dialog = page.locator("dialog[data-end-dialog]")
            expect(dialog).to_be_visible()
            change = dialog.locator("[data-rating-change]")
            expect(change).to_contain_text(words[0])
            in_view(page, change)
            expect(dialog.locator("[data-action=end-rematch]")).to_have_text(words[1])
            in_view(page, dialog.locator("[data-action=end-new-opponent]"))
        where = "phone" if viewport is PHONE else "desktop"
        pages["red"].screenshot(path=str(SHOTS / f"chuhan-phone-room-end-{where}.png"))
        before = room_data(pages["red"])["gameId"]
        pages["red"].click("[data-action=end-rematch]")  # an offer…
        pages["black"].click("[data-action=end-rematch]")  # …that the other's accepts
        for page in pages.values():
            page.wait_for_function(
                "before => document.querySelector('[data-room]').dataset.gameId !== before",
                arg=before,
            )
            expect(page.locator("dialog[data-end-dialog]")).to_have_count(0)
            expect(page.locator("[data-room]")).to_have_attribute("data-phase", "playing")
    finally:
        strangers.close()


def test_the_janggi_setup_countdown_stays_on_screen_while_choosing_R4_J3(
    chromium: Browser, server: str
) -> None:
    friends = Friends(chromium, server, viewport=PHONE, locale="pt-BR")
    try:
        creator, friend = friends.pages
        create_room(creator, "janggi")
        friend.goto(invite_link(creator))
        friend.wait_for_selector("[data-room] [data-seat=friend]")
        pages = ready_both([creator, friend], "janggi")
        han = pages["han"]
        han.wait_for_selector("[data-action=choose-setup]")
        countdown = han.locator("[data-setup-clock]")
        expect(countdown).to_have_text(re.compile(r"^\d+ s para escolher$"))
        in_view(han, countdown)
        in_view(han, han.locator("[data-action=choose-setup]"))
        fits_the_width(han)
        han.screenshot(path=str(SHOTS / "chuhan-phone-janggi-setup.png"))
        han.click("[data-action=choose-setup]")
        cho = pages["cho"]
        expect(cho.locator("[data-setup-clock]")).to_be_visible()
        in_view(cho, cho.locator("[data-setup-clock]"))
    finally:
        friends.close()
