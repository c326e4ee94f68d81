"""A live game is one tap away, and no dead ends, in real Chromium (SPEC B5, B4, B1): two
strangers paired by "Play someone now" leave their game's page, and every page (home, My
games, the learn pages, a review address) shows "your game is on" with the opponent and the
clock, linking back to the room; the same across two instances on PostgreSQL + Redis. After
the game: Rematch and "New opponent" side by side; a withdrawn rematch offer is said; the one
who stays when the other leaves is told so and offered a new opponent or the computer.
Phone (390 px) and desktop (1366 px), in English, Spanish and Portuguese. Screenshots:
/tmp/chuhan-live-*.png.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize
from playwright.sync_api import Error as PlaywrightError

from test_scale_support import cluster

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    Friends,
    answer_naming,
    create_room,
    invite_link,
    move,
    ready_both,
    resign,
    room_data,
    wait_end,
)

pytest_plugins = ["web_fixtures"]  # its Chromium and the session's server

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1366, "height": 900}
CLOCK = re.compile(r"\b[01]:\d\d\b")


class Strangers:
    """Two players in two browser contexts, named, each on its own base address; JavaScript
    errors fail the test."""

    def __init__(
        self, browser: Browser, urls: list[str], viewport: ViewportSize, locale: str
    ) -> None:
        self.errors: list[str] = []
        self.contexts: list[BrowserContext] = []
        self.pages: list[Page] = []
        for url, name in zip(urls, ("Ana", "Ben"), strict=True):
            context = browser.new_context(base_url=url, viewport=viewport, locale=locale)
            page = context.new_page()
            page.set_default_timeout(15000)
            page.on("pageerror", lambda error: self.errors.append(str(error)))
            page.goto("/")
            page.wait_for_selector("body[data-ready=true]")
            status = page.evaluate(
                """name => fetch('/api/me', {method: 'PATCH', body: JSON.stringify({name}),
                    headers: {'Content-Type': 'application/json'}}).then((r) => r.status)""",
                name,
            )
            assert status == 200
            self.contexts.append(context)
            self.pages.append(page)

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        assert not self.errors, f"JavaScript errors: {self.errors}"


@contextlib.contextmanager
def strangers(
    browser: Browser, urls: list[str], viewport: ViewportSize, locale: str = "en-US"
) -> Iterator[Strangers]:
    pair = Strangers(browser, urls, viewport, locale)
    try:
        yield pair
    finally:
        pair.close()


def seek(page: Page, variant: str = "xiangqi", clock: str | None = None) -> None:
    """Click "Play someone now" on the home page (already open), for ``variant`` and, given,
    the game ``clock`` (B7); returns once the page waits or is on its way to the room."""
    page.check(f"#seek-variant-{variant}")
    if clock is not None:
        page.select_option("#seek-clock", clock)
    page.click("[data-action=seek]")
    answer_naming(page)  # B7: a player's first pairing asks for a name
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if "/room/" in page.url:
            return
        with contextlib.suppress(PlaywrightError):  # the page may be navigating away
            if page.is_visible("[data-seek-wait]"):
                return
        page.wait_for_timeout(50)
    raise AssertionError("the page neither waits nor went to a room")


def paired(pair: Strangers, variant: str = "xiangqi", clock: str | None = None) -> dict[str, Page]:
    """Both strangers seek and land in their room, the game begun: pages by side."""
    for page in pair.pages:
        seek(page, variant, clock)
    for page in pair.pages:
        page.wait_for_url("**/room/r*")
        phase = "setup" if variant == "janggi" else "playing"
        page.wait_for_selector(f"[data-room][data-phase={phase}]")
    return {room_data(page)["you"]: page for page in pair.pages}


def banner(page: Page) -> str:
    """The text of the "your game is on" line of an online game, once shown with its clock."""
    page.wait_for_selector("[data-live-game=online] [data-live-clock]:not(:empty)")
    return page.inner_text("[data-live-game=online]")


def test_every_page_shows_the_live_game_with_opponent_and_clock_and_leads_back_B5(
    chromium: Browser, web_server: str
) -> None:
    with strangers(chromium, [web_server, web_server], DESKTOP) as pair:
        pages = paired(pair)
        red, black = pages["red"], pages["black"]
        room = red.url
        game_id = room_data(red)["gameId"]
        move(red, "h3e3")
        assert red.is_hidden("[data-live]")  # the game's own page does not show it
        # Red taps the logo: home says the game is on, with the opponent and the clock.
        red.click("a.brand")
        red.wait_for_selector("body[data-ready=true]")
        text = banner(red)
        ben = "Ben" if "Ben" in text else "Ana"
        assert f"Your game is on: Xiangqi against {ben}" in text
        assert "Their move" in text, text
        assert CLOCK.search(text), text
        assert red.get_attribute("[data-live-game=online]", "href") == room.removeprefix(web_server)
        red.screenshot(path=str(SHOTS / "chuhan-live-home-desktop.png"))
        # The home page's list of online games opens the room, never a review.
        red.click("[data-games=online] summary")
        link = red.locator(f"[data-games=online] [data-game='{game_id}'] a")
        assert link.get_attribute("href") == room.removeprefix(web_server)
        assert "Waiting for the computer" not in red.inner_text("main")
        # Black moved meanwhile: the next page asks again, and it is Red's move.
        move(black, "h8e8")
        red.goto("/games")
        red.wait_for_selector("[data-archive][data-loaded]")
        assert "Your move" in banner(red)
        # My games lists it as going on, opening its room.
        listed = red.locator(f"[data-archive-game='{game_id}'] a")
        assert listed.get_attribute("href") == room.removeprefix(web_server)
        assert listed.get_attribute("data-action") == "play"
        assert "Back to the game" in listed.inner_text()
        # The line follows a change of language at once.
        red.select_option("#language-switch", "es")
        red.wait_for_selector("[data-live-game=online]:has-text('Tu partida sigue')")
        assert "Te toca mover" in banner(red)
        red.select_option("#language-switch", "en")
        red.wait_for_selector("[data-live-game=online]:has-text('Your game is on')")
        red.goto("/learn")
        red.wait_for_selector("body[data-ready=true]")
        assert f"against {ben}" in banner(red)
        red.screenshot(path=str(SHOTS / "chuhan-live-learn-desktop.png"))
        for address in ("/puzzles", "/review/import", "/play/local?variant=janggi"):
            red.goto(address)
            red.wait_for_selector("body[data-ready=true]")
            assert f"against {ben}" in banner(red), address
        # An old review address of the live game leads to its room.
        red.goto(f"/review/game/{game_id}")
        red.wait_for_url(room)
        red.wait_for_selector("[data-room][data-phase=playing]")
        # And from anywhere, one tap on the line is back in the room.
        black.goto("/")
        black.wait_for_selector("body[data-ready=true]")
        banner(black)
        black.click("[data-live-game=online]")
        black.wait_for_url(room)
        black.wait_for_selector("[data-room][data-my-turn=false]")
        assert black.is_hidden("[data-live]")
        # Over: no page shows it any more.
        resign(black)
        wait_end(red, "resignation")
        red.goto("/games")
        # The one-device game opened above is left to resume; the online game is gone.
        red.wait_for_selector("[data-live-game=local]")
        assert red.locator("[data-live-game=online]").count() == 0


def test_the_live_line_on_a_phone_in_spanish_and_the_computer_game_to_resume_B5(
    chromium: Browser, web_server: str
) -> None:
    with strangers(chromium, [web_server, web_server], PHONE, "es-ES") as pair:
        pages = paired(pair, "janggi")  # straight into the setup choice, on its clock
        cho = pages["cho"]
        cho.goto("/games")
        cho.wait_for_selector("body[data-ready=true]")
        text = banner(cho)
        assert "Tu partida sigue: Janggi contra" in text
        assert "Volver a la partida" in text
        assert CLOCK.search(text), text
        box = cho.locator("[data-live-game=online]").bounding_box()
        assert box is not None
        assert box["y"] < 120
        assert box["x"] + box["width"] <= 390
        cho.screenshot(path=str(SHOTS / "chuhan-live-games-phone-es.png"))
    # A game against the computer left for another page: "resume" from anywhere.
    context = chromium.new_context(base_url=web_server, viewport=PHONE, locale="pt-BR")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/play/ai?variant=xiangqi&level=beginner&color=red")
        page.wait_for_selector("[data-game][data-my-turn=true]")
        assert page.is_hidden("[data-live]")  # its own page
        page.goto("/games")
        page.wait_for_selector("[data-live-game=ai]")
        text = page.inner_text("[data-live-game=ai]")
        assert "Partida contra o computador: Xiangqi" in text
        assert "Continuar" in text
        page.screenshot(path=str(SHOTS / "chuhan-live-ai-phone-pt.png"))
        page.click("[data-live-game=ai]")
        page.wait_for_url("**/play/ai?*")
        page.wait_for_selector("[data-game][data-my-turn=true]")
        assert errors == []
    finally:
        context.close()


def test_the_live_line_across_two_instances_on_postgresql_and_redis_B5(
    chromium: Browser, tmp_path: Path
) -> None:
    with (
        cluster(tmp_path) as running,
        strangers(chromium, [i.url for i in running.instances], PHONE, "pt-BR") as pair,
    ):
        pages = paired(pair)
        red, black = pages["red"], pages["black"]
        room = red.url.split("/room/")[1]
        # Black leaves the room's page on instance b (Red stays: the clock runs, R7).
        black.goto("/")
        black.wait_for_selector("body[data-ready=true]")
        text = banner(black)
        assert "Sua partida continua: Xiangqi contra" in text
        assert "Vez do adversário" in text
        assert CLOCK.search(text)
        assert black.get_attribute("[data-live-game=online]", "href") == f"/room/{room}"
        black.screenshot(path=str(SHOTS / "chuhan-live-home-phone-pt.png"))
        # Red moves on instance a; Black's next page on b says it is Black's move.
        move(red, "h3e3")
        black.reload()
        black.wait_for_selector("body[data-ready=true]")
        assert "Sua vez" in banner(black)
        black.click("[data-live-game=online]")
        black.wait_for_url(f"**/room/{room}")
        move(black, "h8e8")
        red.goto("/games")
        red.wait_for_selector("[data-archive][data-loaded]")
        assert "Sua vez" in banner(red)


DEAD_ENDS = {  # where: (viewport, locale, game clock, what is said)
    "phone-es": (
        PHONE,
        "es-ES",
        None,
        ("Nuevo rival", "retiró la oferta de revancha", "rechazó la revancha", "salió de la sala"),
    ),
    "desktop-pt": (
        DESKTOP,
        "pt-BR",
        "5+3",
        ("Novo adversário", "retirou a oferta de revanche", "recusou a revanche", "saiu da sala"),
    ),
}


@pytest.mark.parametrize("where", list(DEAD_ENDS))
def test_after_a_paired_game_rematch_and_new_opponent_and_what_the_other_did_B4_B5(
    chromium: Browser, web_server: str, where: str
) -> None:
    viewport, locale, clock, (new_text, withdrawn, declined, left) = DEAD_ENDS[where]
    with strangers(chromium, [web_server, web_server], viewport, locale) as pair:
        pages = paired(pair, clock=clock)
        red, black = pages["red"], pages["black"]
        resign(black)
        for page in (red, black):
            wait_end(page, "resignation")
        # Side by side, in view on the phone.
        offer, new = (red.locator(f"[data-action={a}]") for a in ("rematch-offer", "new-opponent"))
        offer.wait_for()
        assert new.inner_text() == new_text
        new.scroll_into_view_if_needed()
        first, second = offer.bounding_box(), new.bounding_box()
        assert first
        assert second
        assert abs(first["y"] - second["y"]) < 4
        assert second["x"] + second["width"] <= viewport["width"]
        red.screenshot(path=str(SHOTS / f"chuhan-live-rematch-{where}.png"))
        # An offer withdrawn is said to the other.
        offer.click()
        black.wait_for_selector("[data-rematch=received]")
        red.click("[data-action=rematch-cancel]")
        black.wait_for_selector("[data-rematch-withdrawn]")
        assert withdrawn in black.inner_text("[data-rematch-withdrawn]")
        # A declined one too (B4).
        red.click("[data-action=rematch-offer]")
        black.click("[data-action=rematch-decline]")
        red.wait_for_selector("[data-rematch-declined]")
        assert declined in red.inner_text("[data-rematch-declined]")
        # Black wants someone new: the same seek again, from the home page.
        black.click("[data-action=new-opponent]")
        black.wait_for_url(lambda url: "/room" not in url)
        black.wait_for_selector("[data-seek-wait]:not([hidden])")
        assert "Xiangqi" in black.inner_text("[data-seek-choice]")
        if clock is not None:  # the same game length too (B7)
            assert black.input_value("#seek-clock") == clock
        # Red is told, and offered a new opponent or the computer, not a dead "Ready".
        red.wait_for_selector("[data-opponent-left]")
        said = red.inner_text("[data-opponent-left]")
        assert left in said, said
        assert "Ana" in said or "Ben" in said, said
        assert red.is_visible("[data-action=new-opponent]")
        assert red.is_hidden("[data-action=ready]")
        red.screenshot(path=str(SHOTS / f"chuhan-live-left-{where}.png"))
        red.click("[data-action=play-ai]")
        red.wait_for_url("**/play/ai?*")
        assert "variant=xiangqi" in red.url
        black.click("[data-action=seek-cancel]")


def test_a_friend_who_leaves_a_private_room_after_the_game_is_said_to_have_left_B5_R8(
    chromium: Browser, web_server: str
) -> None:
    friends = Friends(chromium, web_server, viewport=PHONE, locale="pt-BR")
    try:
        host, guest = friends.pages
        create_room(host)
        guest.goto(invite_link(host))
        guest.wait_for_selector("[data-room]")
        pages = ready_both([host, guest])
        resign(pages["black"])
        for page in (host, guest):
            wait_end(page, "resignation")
        guest.click("[data-action=leave]")
        guest.wait_for_url(lambda url: "/room" not in url)
        host.wait_for_selector("[data-opponent-left]")
        assert "saiu da sala" in host.inner_text("[data-opponent-left]")
        # A private room waits for another friend by its invite (R1): no stranger offered.
        assert host.locator("[data-opponent-left] [data-action=new-opponent]").count() == 0
        assert host.is_visible("[data-invite-link]")
        assert host.is_visible("[data-action=ready]")
        host.screenshot(path=str(SHOTS / "chuhan-live-friend-left-phone-pt.png"))
    finally:
        friends.close()
