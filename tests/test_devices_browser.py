"""One player on several browsers in a real Chromium (SPEC B6, S1 kept).

Browser A makes a link on "Use on another device"; browser B opens it, says yes, and is A's
player (their games with it); the link does not work for a third. A's recovery code brings
the player back in a fresh browser, and A signs B out: B's cookie then names nobody.
Screenshots at 390 px and 1366 px go to /tmp/chuhan-devices-*.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from web_fixtures import CHROMIUM_ARGS, checked_page, open_page  # noqa: F401

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]
SHOTS = Path("/tmp")
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1366, "height": 900}


def _context(chromium: Browser, url: str, viewport: dict[str, int] = WIDE) -> BrowserContext:
    return chromium.new_context(base_url=url, viewport=viewport, locale="en-US")


def _player(page: Page) -> str:
    return str(page.request.get("/api/me").json()["id"])


def _local_game(page: Page) -> str:
    answer = page.request.post("/api/games", data={"kind": "local"})
    assert answer.status == 201, answer.text()
    return str(answer.json()["id"])


def test_a_link_signs_browser_b_in_as_a_and_a_can_sign_it_out_b6(
    chromium: Browser, web_server: str
) -> None:
    a_pages = checked_page(_context(chromium, web_server))
    a = next(a_pages)
    open_page(a, "/device")
    a_id = _player(a)
    game = _local_game(a)
    a.click("[data-action=make-link]")
    expect(a.locator("[data-device-qr]")).to_be_visible()
    link = a.input_value("[data-link-url]")
    assert "/device#" in link
    a.screenshot(path=str(SHOTS / "chuhan-devices-link-1366.png"), full_page=True)

    b_pages = checked_page(_context(chromium, web_server, PHONE))
    b = next(b_pages)
    open_page(b, link)
    assert b.url.endswith("/device")  # the code left the address bar
    assert _player(b) != a_id
    b.screenshot(path=str(SHOTS / "chuhan-devices-sign-in-390.png"), full_page=True)
    b.click("[data-action=sign-in]")
    expect(b.locator("[data-devices-sign-in]")).to_have_attribute("data-signed-in", "true")
    assert _player(b) == a_id
    assert b.request.get(f"/api/games/{game}").status == 200  # A's game is B's to open
    expect(b.locator("[data-device][data-current=true]")).to_have_count(1)
    expect(b.locator("[data-device]")).to_have_count(2)
    b.screenshot(path=str(SHOTS / "chuhan-devices-list-390.png"), full_page=True)

    c_pages = checked_page(_context(chromium, web_server))
    c = next(c_pages)
    open_page(c, link)  # the same link, a second time
    c.click("[data-action=sign-in]")
    expect(c.locator("[data-sign-in-status]")).to_contain_text("used already")
    assert _player(c) != a_id

    # A makes a recovery code, and a fresh browser comes back as A with it.
    open_page(a, "/device")
    a.click("[data-action=make-recovery]")
    expect(a.locator("[data-recovery-code]")).to_be_visible()
    code = a.locator("[data-recovery-code]").inner_text()
    assert len(code) == 29
    a.screenshot(path=str(SHOTS / "chuhan-devices-recovery-1366.png"), full_page=True)
    d_pages = checked_page(_context(chromium, web_server, PHONE))
    d = next(d_pages)
    open_page(d, "/device")
    d.fill("[data-recovery-input]", code.lower())
    d.click("[data-action=restore]")
    d.click("[data-confirm-dialog] [data-action=confirm]")
    expect(d.locator("[data-restore-status]")).to_contain_text("now plays as")
    assert _player(d) == a_id

    # A signs B out: B's next visit is a new player.
    open_page(a, "/device")
    expect(a.locator("[data-device]")).to_have_count(3)
    b_device = b.locator("[data-device][data-current=true]").get_attribute("data-device")
    a.click(f"[data-device='{b_device}'] [data-action=sign-out-device]")
    a.click("[data-confirm-dialog] [data-action=confirm]")
    expect(a.locator("[data-device]")).to_have_count(2)
    a.screenshot(path=str(SHOTS / "chuhan-devices-list-1366.png"), full_page=True)
    open_page(b, "/")
    assert _player(b) != a_id
    assert b.request.get(f"/api/games/{game}").status == 404
    for pages in (d_pages, c_pages, b_pages, a_pages):
        next(pages, None)  # closes the context; fails on any JavaScript error


def test_the_settings_lead_to_use_on_another_device_b6(web_page: Page) -> None:
    open_page(web_page, "/")
    web_page.click("[data-action=settings]")
    web_page.click("[data-action=other-device]")
    web_page.wait_for_url("**/device")
    expect(web_page.locator("h1")).to_have_text("Use on another device")


def test_my_games_says_how_to_keep_them_b6(web_page: Page) -> None:
    open_page(web_page, "/games")
    expect(web_page.locator("[data-keep-games]")).to_contain_text("recovery code")
    web_page.click("[data-keep-games] [data-action=other-device]")
    web_page.wait_for_url("**/device")
    expect(web_page.locator("[data-action=make-link]")).to_be_visible()
