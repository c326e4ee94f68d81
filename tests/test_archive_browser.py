"""My games and ratings in a real browser (SPEC B2, B3).

A player plays the AI, a game on one device and imports a record, then finds them all in
"My games", filters, pages, opens a review and downloads everything as one PGN file that
reads back. Two strangers paired by "Play someone now" finish their game: each sees their
new rating and its change at the end of the game and on the home page, and finds the game
in "My games". Screenshots at
390 px and 1366 px go to /tmp/chuhan-archive-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from chuhan.rules.record import read_records
from chuhan.server import glicko2
from chuhan.server.rating_rules import rated
from test_pairing_browser import paired_pages, seek
from test_record import PLAYED_ON

pytest.register_assert_rewrite("web_fixtures")
from rooms_client import running_server  # noqa: E402
from web_fixtures import (  # noqa: E402
    Friends,
    answer_naming,
    checked_page,
    move,
    open_page,
    play,
    resign,
    wait_end,
    wait_my_turn,
)

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]


# Every page here is a fresh player on 127.0.0.1: Z8's rules would leave their paired games
# unrated (same address, no games against the AI yet); tests/test_rating_farm.py tests those.
RATED_ON_ONE_MACHINE = {"CHUHAN_RATED_AFTER_AI_GAMES": "0", "CHUHAN_RATING_NETWORK_DAYS": "0"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(
        tmp_path_factory.mktemp("archive-web"),
        CHUHAN_ANALYSIS_NODES="1500",
        **RATED_ON_ONE_MACHINE,
    ) as url:
        yield url


@pytest.fixture
def page(chromium: Browser, server: str) -> Iterator[Page]:
    yield from checked_page(chromium.new_context(base_url=server, viewport=WIDE, locale="en-US"))


def archive_ids(page: Page) -> list[str]:
    script = "es => es.map(e => e.dataset.archiveGame)"
    return list(page.eval_on_selector_all("[data-archive-list] > li", script))


def change_filter(page: Page, name: str, value: str) -> None:
    """Choose a filter and wait for the list it asks for."""
    loaded = page.get_attribute("[data-archive]", "data-loaded")
    page.select_option(f"[data-filter={name}]", value)
    page.wait_for_function(
        "before => document.querySelector('[data-archive]').dataset.loaded !== before",
        arg=loaded,
    )


def test_my_games_lists_every_game_filters_pages_opens_reviews_and_downloads_B3(
    page: Page,
) -> None:
    # An AI game left unfinished, a game on one device played to mate, an imported record.
    open_page(page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    wait_my_turn(page)
    play(page, "h3e3")
    ai_game = page.get_attribute("[data-game]", "data-game")
    open_page(page, "/play/local?variant=xiangqi")
    for text in CANNON_MATE:
        play(page, text)
    local_game = page.get_attribute("[data-game]", "data-game")
    open_page(page, "/review/import")
    page.fill("[data-import-text]", PLAYED_ON)
    page.click("[data-import-submit]")
    page.wait_for_url("**/review/game/*")
    imported = page.url.rsplit("/", 1)[1]

    # The home page leads to "My games"; the newest first, each kind said.
    open_page(page, "/")
    page.click("[data-action=my-games]")
    page.wait_for_selector("[data-archive][data-loaded]")
    assert archive_ids(page) == [imported, local_game, ai_game]
    imported_line = page.inner_text(f"[data-archive-game={imported}]")
    assert "Imported record" in imported_line
    assert "Xiangqi · 俱乐部快棋赛" in imported_line
    local_line = page.inner_text(f"[data-archive-game={local_game}]")
    assert "two players on one device" in local_line
    assert "Red won. Checkmate." in local_line
    ai_line = page.locator(f"[data-archive-game={ai_game}] a")
    assert "against the computer (Beginner)" in ai_line.inner_text()
    assert f"game={ai_game}" in (ai_line.get_attribute("href") or "")  # back to the game

    # Filters: by kind, by variant (none: said so), and back to all.
    change_filter(page, "kind", "local")
    assert archive_ids(page) == [local_game]
    change_filter(page, "kind", "")
    change_filter(page, "variant", "janggi")
    assert archive_ids(page) == []
    expect(page.locator("[data-archive-empty]")).to_be_visible()
    change_filter(page, "variant", "")

    # Pages of 20: 20 more records imported, the 23rd game comes with "More games".
    for _ in range(20):
        assert page.request.post("/api/records", data=PLAYED_ON.encode()).status == 201
    page.reload()
    page.wait_for_selector("[data-archive][data-loaded]")
    assert len(archive_ids(page)) == 20
    page.click("[data-action=archive-more]")
    page.wait_for_function(
        "() => document.querySelectorAll('[data-archive-list] > li').length > 20"
    )
    assert len(archive_ids(page)) == 23
    assert archive_ids(page)[-3:] == [
        imported,
        local_game,
        ai_game,
    ]
    expect(page.locator("[data-action=archive-more]")).to_be_hidden()
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "chuhan-archive-desktop.png"))
    page.set_viewport_size(PHONE)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "chuhan-archive-phone.png"))
    page.locator("[data-action=download-all]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "chuhan-archive-download-phone.png"))
    # Nothing wider than the phone: no sideways scrolling.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size(WIDE)

    # Download all: one PGN file, every finished game in it, readable again.
    with page.expect_download() as download:
        page.click("[data-action=download-all]")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    records = read_records(text)
    assert len(records) == 22  # the unfinished AI game is not a record yet
    assert text.count('[Format "ICCS"]') == 22
    assert [str(m) for m in records[-1].moves] == CANNON_MATE
    page.select_option("[data-filter=notation]", "wxf")
    with page.expect_download() as download:
        page.click("[data-action=download-all]")
    wxf = Path(download.value.path()).read_text(encoding="utf-8")
    assert wxf.count('[Format "WXF"]') == 22
    assert len(read_records(wxf)) == 22

    # An entry opens the game's review, with its analysis.
    page.click(f"[data-archive-game={local_game}] a")
    page.wait_for_url(f"**/review/game/{local_game}")
    page.wait_for_selector("[data-game][data-read-only]")
    expect(page.locator("[data-analysis=start]")).to_be_visible()


def test_a_paired_game_changes_both_ratings_shown_after_the_game_and_at_home_B1_B2(
    chromium: Browser, server: str
) -> None:
    friends = Friends(chromium, server, viewport=PHONE)
    try:
        first, second = friends.pages
        seek(first)
        seek(second)
        pages = paired_pages([first, second])
        move(pages["red"], "h3e3")
        move(pages["black"], "h10g8")
        resign(pages["black"])
        won, _ = rated(glicko2.Rating(), glicko2.Rating(), 1)  # two newcomers: half (Z8)
        gain = round(won.rating) - 1500
        for side, page in pages.items():
            wait_end(page, "resignation")
            shown = page.locator("[data-rating-change]")
            expect(shown).to_be_visible()
            won_it = side == "red"
            mine, theirs = (1500 + gain, 1500 - gain) if won_it else (1500 - gain, 1500 + gain)
            sign = "+" if won_it else "−"
            expect(shown).to_contain_text(f"Your rating: {mine}? ({sign}{gain})")
            expect(shown).to_contain_text(f"{theirs}?")
        pages["red"].locator("[data-rating-change]").scroll_into_view_if_needed()
        pages["red"].screenshot(path=str(SHOTS / "chuhan-archive-rated-phone.png"))

        # The home page: the new rating per variant, provisional ("?").
        red = pages["red"]
        open_page(red, "/")
        expect(red.locator("[data-ratings]")).to_have_text(
            f"Xiangqi {1500 + gain}? · Janggi 1500? · Jieqi 1500?"
        )
        red.screenshot(path=str(SHOTS / "chuhan-archive-home-phone.png"), full_page=True)

        # "My games": the paired game, its rating change, and its review.
        red.click("[data-action=my-games]")
        red.wait_for_selector("[data-archive][data-loaded]")
        line = red.locator("[data-archive-list] > li").first
        expect(line).to_have_attribute("data-kind", "paired")
        expect(line).to_contain_text(f"Rating {1500 + gain}? (+{gain})")
        expect(line).to_contain_text("Won. Resignation.")
        line.locator("a").click()
        red.wait_for_url("**/review/game/*")
        red.wait_for_selector("[data-game][data-read-only]")
        expect(red.locator("[data-rating-change]")).to_contain_text(f"{1500 + gain}?")
        expect(red.locator("[data-analysis=start]")).to_be_visible()
    finally:
        friends.close()


@pytest.mark.parametrize(
    ("locale", "heading", "empty", "download"),
    [
        ("pt-BR", "Minhas partidas", "Ainda não há partidas aqui.", "Baixar (.pgn)"),
        ("es-ES", "Mis partidas", "Todavía no hay partidas aquí.", "Descargar (.pgn)"),
    ],
)
def test_my_games_speaks_the_players_language_B3_U8(
    chromium: Browser, server: str, locale: str, heading: str, empty: str, download: str
) -> None:
    context = chromium.new_context(base_url=server, viewport=PHONE, locale=locale)
    try:
        page = context.new_page()
        open_page(page, "/")
        page.click("[data-action=my-games]")
        page.wait_for_selector("[data-archive][data-loaded]")
        assert page.inner_text("#archive-heading") == heading
        expect(page.locator("[data-archive-empty]")).to_have_text(empty)
        expect(page.locator("[data-action=download-all]")).to_have_text(download)
        assert "archive." not in page.inner_text("[data-archive]")  # no raw keys
    finally:
        context.close()


def test_a_paired_game_across_two_instances_shows_both_players_their_rating_B1_B2(
    chromium: Browser, tmp_path: Path
) -> None:
    """The players sit on two instances (PostgreSQL + Redis): the instance that ends the game
    rates it, and the other one's player sees the change at once, through Redis."""
    from test_scale_support import cluster

    with cluster(tmp_path, ("a", "b"), **RATED_ON_ONE_MACHINE) as running:
        contexts = [
            chromium.new_context(base_url=instance.url, viewport=WIDE, locale="en-US")
            for instance in running.instances
        ]
        errors: list[str] = []
        try:
            pages = [context.new_page() for context in contexts]
            for one in pages:
                one.set_default_timeout(15000)
                one.on("pageerror", lambda error: errors.append(str(error)))
            seek(pages[0], "jieqi")
            # The second is paired at once: its page may go to the room before any wait.
            pages[1].goto("/")
            pages[1].wait_for_selector("body[data-ready=true]")
            pages[1].check("#seek-variant-jieqi")
            pages[1].click("[data-action=seek]")
            answer_naming(pages[1])  # B7: their first pairing
            by_side = paired_pages(pages)
            move(by_side["red"], "e1e2")  # the generals: no face-down piece turned up
            move(by_side["black"], "e10e9")
            resign(by_side["red"])
            lost, _ = rated(glicko2.Rating(), glicko2.Rating(), 0)
            for side, page in by_side.items():
                wait_end(page, "resignation")
                mine = round(lost.rating) if side == "red" else 3000 - round(lost.rating)
                expect(page.locator("[data-rating-change]")).to_contain_text(
                    f"Your rating: {mine}?"
                )
        finally:
            for context in contexts:
                context.close()
        assert not errors, errors
