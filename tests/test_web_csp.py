"""The front end under the server's strict Content-Security-Policy (SPEC Z5, guard.py).

Chromium reports every blocked script, style, image, font or connection as a
``securitypolicyviolation`` event and a console error; the home, game, room and learn
pages must cause none while they are used.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from web_fixtures import DESKTOP, open_page

pytest_plugins = ["web_fixtures"]

WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}`);
});
"""


@pytest.fixture
def watched(chromium: Browser, web_server: str) -> Iterator[tuple[Page, list[str]]]:
    context = chromium.new_context(base_url=web_server, viewport=DESKTOP, locale="en-US")
    context.add_init_script(WATCH_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(15000)
    reported: list[str] = []
    page.on("pageerror", lambda error: reported.append(f"error: {error}"))
    page.on(
        "console",
        lambda m: reported.append(m.text) if "Content Security Policy" in m.text else None,
    )
    yield page, reported
    context.close()


def violations(page: Page, reported: list[str]) -> list[str]:
    return [*reported, *page.evaluate("window.__violations")]


def test_home_game_room_and_learn_pages_break_no_csp_rule_Z5(
    watched: tuple[Page, list[str]],
) -> None:
    page, reported = watched
    answer = page.goto("/")
    assert answer is not None
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    page.wait_for_selector("body[data-ready=true]")
    assert violations(page, reported) == []

    open_page(page, "/play/ai?variant=jieqi&level=beginner&color=red")
    page.wait_for_selector("[data-game][data-my-turn=true]")
    page.click('[data-point="a1"]')  # selecting draws the destinations
    assert violations(page, reported) == []

    open_page(page, "/")
    page.click("[data-action=play-friend]")
    page.wait_for_selector("[data-room-home]")
    page.click("[data-action=create-room]")
    page.wait_for_selector("[data-room]")
    page.wait_for_selector("[data-invite-link]")
    assert violations(page, reported) == []

    for address in (
        "/static/learn/index.html",
        "/static/learn/index.html#/rules/janggi",
        "/static/learn/index.html#/tutorial",
    ):
        page.goto(address)
        page.wait_for_load_state("networkidle")
        assert page.locator("main, body").first.inner_text().strip()
    assert violations(page, reported) == []
