"""A room with a game clock in real Chromium, phone (390 px) and desktop (1366 px) (SPEC B7,
R4, U9): the creation form offers the clocks, both players' clocks show, the mover's runs
while the other's waits, the increment is added, and a screen reader hears the time left.
The server's test-only scale makes 3+2 last 18 s + 0.2 s. Screenshots:
/tmp/chuhan-clock-<width>-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from rooms_client import FAST_SETTINGS, running_server

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import Friends, answer_naming, invite_link, move, ready_both  # noqa: E402

pytest_plugins = ["web_fixtures"]  # its Chromium

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

SHOTS = Path("/tmp")
SCALE = 0.1  # 3+2 plays as 18 s + 0.2 s a move


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = {**FAST_SETTINGS, "CHUHAN_ROOM_CLOCK_SCALE": str(SCALE)}
    with running_server(tmp_path_factory.mktemp("rooms-clock-web"), **settings) as url:
        yield url


def clocks_of(page: Page) -> dict[str, tuple[str, bool]]:
    """Each side's clock as shown beside its name: (text, running)."""
    shown: dict[str, list[Any]] = page.eval_on_selector_all(
        "[data-side]:has([data-player-clock])",
        """rows => Object.fromEntries(rows.map((row) => {
            const clock = row.querySelector('[data-player-clock]');
            return [row.dataset.side, [clock.textContent, clock.dataset.running === 'true']];
        }))""",
    )
    return {side: (text, running) for side, (text, running) in shown.items()}


def ticked(page: Page, side: str, shown: str, times: int = 2) -> None:
    """Until ``side``'s clock, shown as ``shown``, has changed ``times`` times: more than a
    second has passed on the page while it ran (a stopped clock never ticks: time out)."""
    for _ in range(times):
        page.wait_for_function(
            """([side, shown]) => {
                const clock = document.querySelector(`[data-side=${side}] [data-player-clock]`);
                return clock && clock.textContent !== shown;
            }""",
            arg=[side, shown],
            timeout=5000,
        )
        shown = clocks_of(page)[side][0]


def seconds(text: str) -> int:
    minutes, rest = text.split(":")
    return int(minutes) * 60 + int(rest)


def visible_in_viewport(page: Page, selector: str) -> bool:
    """Whether the element is shown, whole, in the window, found and measured at one moment:
    the players' rows are drawn again each time a clock's text changes, and an element found
    by one call can be gone by the next (a locator's bounding box is then None)."""
    return bool(
        page.evaluate(
            """selector => {
                const box = document.querySelector(selector)?.getBoundingClientRect();
                return Boolean(box && box.height > 0 && box.top >= 0
                    && box.bottom <= window.innerHeight);
            }""",
            selector,
        )
    )


@pytest.mark.parametrize("width", [390, 1366])
def test_a_room_on_a_clock_shows_both_clocks_running_in_turn_B7_U9(
    chromium: Browser, server: str, width: int
) -> None:
    viewport: ViewportSize = {"width": width, "height": 844 if width < 600 else 900}
    friends = Friends(chromium, server, viewport=viewport)
    try:
        creator, friend = friends.pages
        creator.goto("/room")
        creator.wait_for_selector("[data-room-home]")
        labels = creator.eval_on_selector_all("#room-clock option", "o => o.map((x) => x.value)")
        assert labels[:5] == ["turn", "3+2", "5+3", "10+5", "15+10"]
        assert "5m+3x30s" not in labels  # byoyomi is janggi's
        creator.check("#room-variant-janggi")
        janggi = creator.eval_on_selector_all("#room-clock option", "o => o.map((x) => x.value)")
        assert "5m+3x30s" in janggi
        creator.check("#room-variant-xiangqi")
        creator.select_option("#room-clock", "3+2")
        creator.screenshot(path=str(SHOTS / f"chuhan-clock-{width}-form.png"))
        creator.click("[data-action=create-room]")
        creator.wait_for_selector("[data-room]")
        assert creator.text_content("[data-room-length]") == "Game length: 3 min + 2 s per move"
        friend.goto(invite_link(creator))
        friend.wait_for_selector("[data-room] [data-seat=friend]")
        pages = ready_both([creator, friend])
        red, black = pages["red"], pages["black"]

        # Each side's first move runs on the turn time; both clocks show their full time.
        red.wait_for_selector("[data-side=red] [data-player-clock][data-running=true]")
        first = clocks_of(black)
        assert first["black"] == ("0:18", False)
        assert first["red"][0].startswith("first move")
        assert first["red"][1]
        move(red, "h3e3")
        move(black, "h10g8")

        # Now red's 18 s run while black's wait.
        red.wait_for_function(
            "() => document.querySelector('[data-side=red] [data-player-clock]')"
            "?.textContent?.match(/^0:1[0-7]$/)"
        )
        before = clocks_of(black)
        ticked(black, "red", before["red"][0])
        after = clocks_of(black)
        assert after["red"][1]
        assert not after["black"][1]
        assert seconds(after["red"][0]) < seconds(before["red"][0])  # red's runs
        assert after["black"] == before["black"] == ("0:18", False)  # black's waits
        assert visible_in_viewport(red, "[data-side=red] [data-player-clock]")
        assert visible_in_viewport(red, "[data-side=black] [data-player-clock]")
        red.screenshot(path=str(SHOTS / f"chuhan-clock-{width}-red.png"))

        move(red, "h1g3")
        black.wait_for_selector("[data-side=black] [data-player-clock][data-running=true]")
        start = clocks_of(red)
        ticked(red, "black", start["black"][0])
        later = clocks_of(red)
        assert seconds(later["black"][0]) < seconds(start["black"][0])  # now black's runs
        assert later["red"] == start["red"]
        assert not later["red"][1]  # red's waits (+0.2 s)
        black.screenshot(path=str(SHOTS / f"chuhan-clock-{width}-black.png"))

        # U9: the mover's screen reader hears 10 s left (black's 18 s run on).
        black.wait_for_function(
            "() => document.getElementById('announcer')?.textContent"
            "?.includes('10 seconds left on your clock')",
            timeout=15000,
        )
    finally:
        friends.close()


@pytest.fixture(scope="module")
def byoyomi_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # 5 min + 3 × 30 s plays as 6 s + 3 × 0.6 s.
    settings = {**FAST_SETTINGS, "CHUHAN_ROOM_CLOCK_SCALE": "0.02"}
    with running_server(tmp_path_factory.mktemp("rooms-byoyomi-web"), **settings) as url:
        yield url


def test_janggi_byoyomi_shows_its_periods_then_flags_on_a_phone_B7(
    chromium: Browser, byoyomi_server: str
) -> None:
    friends = Friends(chromium, byoyomi_server, viewport={"width": 390, "height": 844})
    try:
        creator, friend = friends.pages
        creator.goto("/room")
        creator.wait_for_selector("[data-room-home]")
        creator.check("#room-variant-janggi")
        creator.select_option("#room-clock", "5m+3x30s")
        creator.click("[data-action=create-room]")
        creator.wait_for_selector("[data-room]")
        assert creator.text_content("[data-room-length]") == (
            "Game length: 5 min + byoyomi 3 × 30 s"
        )
        friend.goto(invite_link(creator))
        friend.wait_for_selector("[data-room] [data-seat=friend]")
        pages = ready_both([creator, friend], "janggi")
        pages["han"].click("[data-action=choose-setup]")
        pages["cho"].wait_for_selector("[data-han-setup]")
        pages["cho"].click("[data-action=choose-setup]")
        for page in pages.values():
            page.wait_for_selector("[data-room][data-phase=playing]")
        move(pages["cho"], "a4a5")
        move(pages["han"], "a7a6")
        han = pages["han"]
        assert clocks_of(han)["han"] == ("0:06 + 3 × 0.6 s", False)
        # Cho's 6 s base runs out: the periods are shown, then the last one flags.
        han.wait_for_function(
            "() => document.querySelector('[data-side=cho] [data-player-clock]')"
            "?.textContent?.includes('byoyomi')"
        )
        text, running = clocks_of(han)["cho"]
        assert running
        assert text.startswith("0:0")
        assert text.endswith("byoyomi 3 × 0.6 s")
        han.screenshot(path=str(SHOTS / "chuhan-clock-390-byoyomi.png"))
        han.wait_for_selector("[data-room][data-reason=timeout]", timeout=20000)
        assert han.eval_on_selector("[data-room]", "e => e.dataset.winner") == "han"
    finally:
        friends.close()


def test_play_someone_now_on_a_clock_pairs_into_a_room_on_that_clock_B1_B7(
    chromium: Browser, server: str
) -> None:
    friends = Friends(chromium, server, viewport={"width": 1366, "height": 900})
    try:
        first, second = friends.pages
        for page in friends.pages:
            page.goto("/")
            page.wait_for_selector("body[data-ready=true]")
            page.check("#seek-variant-jieqi")
            assert "5m+3x30s" not in page.eval_on_selector_all(
                "#seek-clock option", "o => o.map((x) => x.value)"
            )
            page.select_option("#seek-clock", "5+3")
            page.click("[data-action=seek]")
            answer_naming(page)
            if page is first:
                # Read while the first waits alone: once the second seeks, both go to the room
                # (on a loaded machine, before the first's wait panel was read).
                assert "5 min + 3 s per move" in first.inner_text("[data-seek-choice]")
        for page in friends.pages:
            page.wait_for_url("**/room/r*")
            page.wait_for_selector("[data-room][data-phase=playing]")
            assert page.text_content("[data-room-length]") == ("Game length: 5 min + 3 s per move")
        shown = clocks_of(second)
        assert shown["black"] == ("0:30", False)  # 5 min shortened tenfold, black waiting
        assert shown["red"][0].startswith("first move")
        assert shown["red"][1]
        second.screenshot(path=str(SHOTS / "chuhan-clock-1366-paired.png"))
    finally:
        friends.close()


@pytest.mark.parametrize(
    ("locale", "label", "length"),
    [
        ("es-ES", "Duración de la partida", "Duración de la partida: 10 min + 5 s por jugada"),
        ("pt-BR", "Duração da partida", "Duração da partida: 10 min + 5 s por lance"),
    ],
)
def test_the_game_length_reads_naturally_in_spanish_and_portuguese_B7_U8(
    chromium: Browser, server: str, locale: str, label: str, length: str
) -> None:
    friends = Friends(chromium, server, viewport={"width": 390, "height": 844}, locale=locale)
    try:
        page = friends.pages[0]
        page.goto("/room")
        page.wait_for_selector("[data-room-home]")
        assert page.text_content("label[for=room-clock]") == label
        page.select_option("#room-clock", "10+5")
        page.click("[data-action=create-room]")
        page.wait_for_selector("[data-room]")
        assert page.text_content("[data-room-length]") == length
        page.screenshot(path=str(SHOTS / f"chuhan-clock-390-{locale}.png"))
    finally:
        friends.close()
