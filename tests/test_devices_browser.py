"""One player on several browsers in a real Chromium (SPEC B6, S1 kept).

Browser A makes a link on "Use on another device"; browser B opens it, says yes, and is A's
player (their games with it); the link does not work for a third. A's recovery code brings
the player back in a fresh browser, and A signs B out: B's cookie then names nobody.
Screenshots at 390 px and 1366 px go to /tmp/chuhan-devices-*.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from test_web_csrf import foreign_site
from web_fixtures import checked_page, open_page

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]
SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}


def _context(chromium: Browser, url: str, viewport: ViewportSize = WIDE) -> BrowserContext:
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


def test_another_sites_page_cannot_sign_the_visitor_in_as_someone_else_b6_z6(
    chromium: Browser, web_server: str
) -> None:
    """Login CSRF: an attacker's own link, posted by a page of theirs from the visitor's
    browser, would swap the visitor's player for the attacker's (and their games out of
    reach). The guard refuses it; the visitor stays who they were."""
    attacker = _context(chromium, web_server)
    attacker_page = attacker.new_page()
    open_page(attacker_page, "/device")
    code = attacker_page.request.post("/api/devices/link").json()["url"].partition("#")[2]
    attacker.close()

    pages = checked_page(_context(chromium, web_server))
    victim = next(pages)
    open_page(victim, "/")
    before = _player(victim)
    sign_in = f"{web_server}/api/devices/sign-in"
    attack = f"""<!doctype html><script>
        fetch("{sign_in}", {{method: "POST", mode: "no-cors", credentials: "include",
            body: JSON.stringify({{link: "{code}"}})}});</script>"""
    form = f"""<!doctype html><form method="post" action="{sign_in}" enctype="text/plain">
        <input type="hidden" name='{{"link": "{code}", "x": "' value='"}}'></form>
        <script>document.forms[0].submit()</script>"""
    with foreign_site("127.0.0.2", {"/fetch": attack, "/form": form}) as evil:
        for path in ("/fetch", "/form"):
            with victim.expect_response(lambda r: r.url == sign_in) as posted:
                victim.goto(f"{evil}{path}")
            assert posted.value.status == 403
            assert posted.value.header_value("set-cookie") is None
            assert _player(victim) == before
    next(pages, None)
