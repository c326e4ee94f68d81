"""Phone and polish (SPEC U6, U8, N4, J8, R1), each in a real Chromium against a real server
at 390 px, in es, pt and en where text changed: the review's texts say what they mean (how
much better the better move was, that a janggi evaluation counts Han's 1.5 points, that ICCS
counts its ranks from 0), an empty import says it is empty, the invite box of a running room
and the review's record format picker fit a phone. A room game's end and the janggi setup
countdown: tests/test_room_end_browser.py.

Screenshots go to /tmp/chuhan-phone-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

pytest.register_assert_rewrite("web_fixtures")
from rooms_client import running_server  # noqa: E402
from web_fixtures import (  # noqa: E402
    Friends,
    create_room,
    invite_link,
    open_page,
    ready_both,
)

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}
# Every page here is a fresh player on 127.0.0.1: Z8's rules would leave a paired game
# between them unrated (tests/test_rating_farm.py tests those rules).
RATED_ON_ONE_MACHINE = {"CHUHAN_RATED_AFTER_AI_GAMES": "0", "CHUHAN_RATING_NETWORK_DAYS": "0"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(
        tmp_path_factory.mktemp("phone-web"), CHUHAN_ANALYSIS_NODES="1500", **RATED_ON_ONE_MACHINE
    ) as url:
        yield url


def in_view(page: Page, target: Locator) -> None:
    """``target`` lies wholly inside the page's viewport, as it is scrolled now."""
    box = target.bounding_box()
    size = page.viewport_size
    assert box is not None
    assert size is not None
    assert box["y"] >= 0, box
    assert box["y"] + box["height"] <= size["height"], box
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= size["width"], box


def fits_the_width(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width  # type: ignore[index]


def test_the_invite_box_of_a_running_room_fits_a_phone_R1(chromium: Browser, server: str) -> None:
    friends = Friends(chromium, server, viewport=PHONE)
    try:
        creator, friend = friends.pages
        create_room(creator)
        friend.goto(invite_link(creator))
        friend.wait_for_selector("[data-room] [data-seat=friend]")
        pages = ready_both([creator, friend])
        for page in pages.values():
            open_page(page, page.url)  # the room again, its game running
            page.wait_for_selector("[data-room][data-phase=playing]")
            fits_the_width(page)
            share = page.locator("[data-share]")
            box = share.bounding_box()
            assert box is not None, box
            assert box["x"] >= 0, box
            assert box["x"] + box["width"] <= 390, box
            for part in ("[data-invite-link]", "[data-action=copy-link]"):
                part_box = page.locator(part).bounding_box()
                assert part_box is not None, part
                assert part_box["x"] + part_box["width"] <= 390, part
        pages["red"].locator("[data-share]").scroll_into_view_if_needed()
        pages["red"].screenshot(path=str(SHOTS / "chuhan-phone-invite.png"))
    finally:
        friends.close()


def analysed(page: Page, game_id: str) -> dict[str, Any]:
    """The finished analysis of a game (started over HTTP, as the page's player)."""
    assert page.request.post(f"/api/games/{game_id}/analysis").status == 202
    for _ in range(600):
        answer = page.request.get(f"/api/games/{game_id}/analysis").json()
        if answer["status"] == "done":
            return dict(answer)
        page.wait_for_timeout(100)
    raise AssertionError("the analysis did not finish")


def imported(page: Page, record: str) -> str:
    """A record imported as the page's player: a finished game to analyse and review."""
    answer = page.request.post("/api/records", data=record, headers={"x-chuhan-client": "web"})
    assert answer.status == 201, answer.text()
    return str(answer.json()["id"])


BETTER = {
    "en-US": "({pawns} pawns better than the move played)",
    "es-ES": "({pawns} peones mejor que la jugada hecha)",
    "pt-BR": "({pawns} peões melhor que o lance jogado)",
}
HAN_COUNTED = {
    "en-US": "with Han's 1.5 points for moving second",
    "es-ES": "contados los 1,5 puntos de Han por mover segundo",
    "pt-BR": "contando os 1,5 pontos de Han por jogar em segundo",
}
ICCS_RANKS = {"en-US": "ranks from 0", "es-ES": "filas desde 0", "pt-BR": "fileiras a partir de 0"}


@pytest.mark.parametrize("locale", ["en-US", "es-ES", "pt-BR"])
def test_the_review_says_what_its_numbers_mean_U6_U8_J8_N4(
    chromium: Browser, server: str, locale: str
) -> None:
    """A marked move's better one says by how much it was better; a janggi evaluation says
    that Han's 1.5 points are counted; the ICCS format beside a board ranked 1 to 10 says
    that its ranks count from 0."""
    context = chromium.new_context(base_url=server, viewport=PHONE, locale=locale)
    page = context.new_page()
    try:
        # 1... C2=7?? puts Black's cannon where Red's horse and chariot take it for nothing.
        open_page(page, "/")
        game_id = imported(page, "1. h3e3 h8h3\n")
        blunder = analysed(page, game_id)["plies"][2]
        assert blunder["class"]
        assert blunder["mate"] is None
        assert blunder["gain"] >= 150
        open_page(page, f"/review/game/{game_id}")
        expect(page.locator("[data-game]")).to_have_attribute("data-analysis", "done")
        expect(page.locator("[data-eval-better]")).to_be_visible()
        said = BETTER[locale].format(pawns=f"{blunder['gain'] / 100:.1f}")
        expect(page.locator("[data-eval-better-gain]")).to_have_text(said)
        page.locator("[data-analysis-explain]").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"chuhan-phone-better-{locale}.png"))
        iccs = page.locator("[data-review=record-format] option[value=iccs]")
        expect(iccs).to_contain_text(ICCS_RANKS[locale])
        expect(iccs).to_contain_text("h3-e3")  # as the board and the move list rank it
        fits_the_width(page)

        janggi = imported(page, '[Variant "janggi"]\n\n1. e2d2 e9d9 2. d2e2\n')
        assert analysed(page, janggi)["engine"] == "chuhan"
        open_page(page, f"/review/game/{janggi}")
        expect(page.locator("[data-game]")).to_have_attribute("data-analysis", "done")
        expect(page.locator("[data-eval-legend]")).to_contain_text(HAN_COUNTED[locale])
        expect(page.locator("[data-analysis-legend]")).to_contain_text(HAN_COUNTED[locale])
        page.locator("[data-analysis-explain]").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"chuhan-phone-janggi-legend-{locale}.png"))
        fits_the_width(page)
    finally:
        context.close()


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "The record is empty"),
        ("es-ES", "El registro está vacío"),
        ("pt-BR", "O registro está vazio"),
    ],
)
def test_an_empty_import_says_it_is_empty_N4_U8(
    chromium: Browser, server: str, locale: str, said: str
) -> None:
    context = chromium.new_context(base_url=server, viewport=PHONE, locale=locale)
    page = context.new_page()
    try:
        open_page(page, "/review/import")
        for text in ("", "  \n\t\n"):
            page.fill("[data-import-text]", text)
            page.click("[data-import-submit]")
            error = page.locator("[data-import-error]")
            expect(error).to_contain_text(said)
            expect(error).not_to_contain_text("line 1")
            page.fill("[data-import-text]", "")
        assert page.url.endswith("/review/import")  # nothing was made
        fits_the_width(page)
        page.screenshot(path=str(SHOTS / f"chuhan-phone-import-empty-{locale}.png"))
    finally:
        context.close()
