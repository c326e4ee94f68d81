"""An expired game is unfinished, not drawn, in a real browser (SPEC B3, P2): a game against
the computer and a game on one device run out of time (the server's game time shortened to
a few seconds); "My games" says "Unfinished" and "The game expired", in English, Spanish and
Portuguese, and the home page's list "No winner", never "Draw". Screenshots at 390 px and
1366 px go to /tmp/chuhan-expired-*.png."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest
from playwright.sync_api import Browser, ViewportSize, expect

pytest.register_assert_rewrite("web_fixtures")
from rooms_client import running_server  # noqa: E402
from web_fixtures import open_page, play, wait_my_turn  # noqa: E402

if TYPE_CHECKING:
    from playwright._impl._api_structures import SetCookieParam

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}
TTL = 4.0
SAID = {  # (unfinished, expired, drawn) as each language says them
    "en-US": ("Unfinished", "The game expired.", "Draw"),
    "es-ES": ("Sin terminar", None, None),
    "pt-BR": ("Não terminada", None, None),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(
        tmp_path_factory.mktemp("expired-web"), CHUHAN_GAME_TTL_SECONDS=str(TTL)
    ) as url:
        yield url


def test_expired_games_are_unfinished_at_home_and_in_my_games_B3_P2(
    chromium: Browser, server: str
) -> None:
    context = chromium.new_context(base_url=server, viewport=PHONE, locale="en-US")
    others = []
    try:
        page = context.new_page()
        open_page(page, "/play/ai?variant=xiangqi&level=beginner&color=red")
        wait_my_turn(page)
        play(page, "h3e3")
        open_page(page, "/play/local?variant=janggi")
        page.wait_for_selector("[data-game]")

        def ongoing() -> list[str]:  # each game read: once its time ran out, expired (P2)
            games = context.request.get("/api/archive").json()["games"]
            return [
                game["id"]
                for game in games
                if context.request.get(f"/api/games/{game['id']}").json()["status"] == "ongoing"
            ]

        deadline = time.monotonic() + TTL + 30  # the server's game time runs out
        while ongoing():
            assert time.monotonic() < deadline, "a game did not expire"
            page.wait_for_timeout(100)

        open_page(page, "/")
        ai_list = page.locator("[data-games=ai]")
        ai_list.locator("summary").click()
        expect(ai_list).to_contain_text("No winner. The game expired.")  # the home's words
        expect(ai_list).not_to_contain_text("Draw")
        page.screenshot(path=str(SHOTS / "chuhan-expired-home-phone.png"), full_page=True)

        cookies = context.cookies()
        for locale, (unfinished, expired, drawn) in SAID.items():
            wide = chromium.new_context(base_url=server, viewport=WIDE, locale=locale)
            others.append(wide)
            wide.add_cookies(cast("list[SetCookieParam]", cookies))
            games = wide.new_page()
            open_page(games, "/games")
            games.wait_for_selector("[data-archive][data-loaded]")
            outcomes = games.locator("[data-archive-list] .archive-outcome")
            expect(outcomes).to_have_count(2)
            for index in range(2):
                expect(outcomes.nth(index)).to_contain_text(unfinished)
                if expired:
                    expect(outcomes.nth(index)).to_contain_text(expired)
                if drawn:
                    expect(outcomes.nth(index)).not_to_contain_text(drawn)
            games.screenshot(path=str(SHOTS / f"chuhan-expired-games-{locale}-desktop.png"))
    finally:
        for other in others:
            other.close()
        context.close()
