"""Why a paired game was not rated, in a real browser (SPEC Z8, B2): two players on one
machine (one address: 127.0.0.1) play a paired game to its end; the end of the game and
"My games" say it was not rated because they share a network, in English, Spanish and
Portuguese. Screenshots at 390 px and 1366 px go to /tmp/chuhan-not-rated-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from test_pairing_browser import paired_pages, seek

pytest.register_assert_rewrite("web_fixtures")
from rooms_client import running_server  # noqa: E402
from web_fixtures import Friends, move, open_page, resign, wait_end  # noqa: E402

if TYPE_CHECKING:
    from playwright._impl._api_structures import SetCookieParam

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}
SAME_NETWORK = {
    "en-US": "Not rated: players seen on the same network are never rated against each other.",
    "es-ES": "Sin rating: las partidas entre jugadores de una misma red nunca cuentan",
    "pt-BR": "Sem rating: partidas entre jogadores da mesma rede nunca valem rating.",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("not-rated-web")) as url:
        yield url


def test_a_game_between_one_networks_players_says_why_it_was_not_rated_Z8_B2(
    chromium: Browser, server: str
) -> None:
    friends = Friends(chromium, server, viewport=PHONE)
    others = []
    try:
        first, second = friends.pages
        seek(first)
        seek(second)
        pages = paired_pages([first, second])
        move(pages["red"], "h3e3")
        move(pages["black"], "h10g8")
        resign(pages["black"])
        for page in pages.values():
            wait_end(page, "resignation")
            expect(page.locator("[data-rating-change]")).to_have_text(SAME_NETWORK["en-US"])
        pages["red"].locator("[data-rating-change]").scroll_into_view_if_needed()
        pages["red"].screenshot(path=str(SHOTS / "chuhan-not-rated-end-phone.png"))

        # "My games" says it too, in each language (the same player: its cookies).
        cookies = friends.contexts[list(pages.values()).index(pages["red"])].cookies()
        for locale, text in SAME_NETWORK.items():
            context = chromium.new_context(base_url=server, viewport=WIDE, locale=locale)
            others.append(context)
            context.add_cookies(cast("list[SetCookieParam]", cookies))
            page = context.new_page()
            open_page(page, "/games")
            page.wait_for_selector("[data-archive][data-loaded]")
            line = page.locator("[data-archive-list] > li").first
            expect(line).to_have_attribute("data-kind", "paired")
            expect(line.locator("[data-rating]")).to_contain_text(text)
            page.screenshot(path=str(SHOTS / f"chuhan-not-rated-games-{locale}-desktop.png"))
        # The game's review (read-only) says it too.
        line.locator("a").click()
        page.wait_for_selector("[data-game][data-read-only]")
        expect(page.locator("[data-rating-change]")).to_contain_text(SAME_NETWORK["pt-BR"])
    finally:
        for context in others:
            context.close()
        friends.close()
