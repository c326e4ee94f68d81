"""Fixtures for the browser tests: a real ``chuhan serve`` and a real Chromium.

The server runs as a subprocess on a free port with a temporary data directory (SQLite);
Chromium is the Debian one (no browser downloads). Each test gets a fresh browser context,
so a fresh player cookie and empty local storage.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from rooms_client import ServerProcess

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running server with its own SQLite database."""
    with ServerProcess(tmp_path_factory.mktemp("web-data")).running() as url:
        yield url


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Chromium for one test module: the sync API allows one Playwright per thread at a time,
    and other modules in the same worker start their own."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def checked_page(context: BrowserContext) -> Iterator[Page]:
    """A page of ``context`` (closed afterwards) that fails the test on any JavaScript error;
    for a fixture to ``yield from``."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(15000)
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def web_page(chromium: Browser, web_server: str) -> Iterator[Page]:
    """A page in a fresh context (new player, empty storage) with errors collected."""
    yield from checked_page(
        chromium.new_context(base_url=web_server, viewport=DESKTOP, locale="en-US")
    )


# ---------------------------------------------------------------------- helpers


def open_page(page: Page, address: str) -> None:
    """Go to address and wait until the app has drawn its screen."""
    page.goto(address)
    page.wait_for_selector("body[data-ready=true]")


def answer_naming(page: Page, name: str | None = None) -> None:
    """After "Play someone now": a player's first seek asks what the opponent should call them
    (B7); keep the default name, or write ``name``. Nothing to do once they were asked."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(PlaywrightError):  # the page may be on its way to the room
            if page.is_visible("[data-naming]"):
                if name is not None:
                    page.fill("[data-naming-input]", name)
                page.click("[data-action=naming-play]")
                page.wait_for_selector("[data-naming]", state="detached")
                return
            if "/room/" in page.url or page.is_visible("[data-seek-wait]"):
                return
        page.wait_for_timeout(50)
    raise AssertionError("the seek neither asked for a name nor started")


def game_data(page: Page) -> dict[str, str]:
    """The game screen's test hooks: ply, turn, status, myTurn, link."""
    data: dict[str, str] = page.eval_on_selector("[data-game]", "e => ({...e.dataset})")
    return data


def wait_my_turn(page: Page) -> None:
    """Wait until the confirmed state says the viewer may move, or the game is over."""
    page.wait_for_selector(
        "[data-game][data-my-turn=true], [data-game]:not([data-status=ongoing])", timeout=20000
    )


def piece_at(page: Page, point: str) -> str | None:
    """The FEN letter on a point, None when empty."""
    letter: str | None = page.eval_on_selector(
        f'[data-point="{point}"]', "e => e.querySelector('[data-piece]')?.dataset.piece ?? null"
    )
    return letter


def destinations(page: Page) -> set[str]:
    """The points highlighted as legal destinations."""
    script = "es => es.map(e => e.dataset.point)"
    return set(page.eval_on_selector_all("[data-point].is-destination", script))


def click_point(page: Page, point: str) -> None:
    page.click(f'[data-point="{point}"]')


def play(page: Page, move: str) -> None:
    """Play a move by clicking its two points and wait until the server confirmed it."""
    ply = int(game_data(page)["ply"])
    match = re.fullmatch(r"([a-i]\d+)([a-i]\d+)", move)
    assert match, move
    click_point(page, match[1])
    click_point(page, match[2])
    # Against the AI its reply may come in the same instant: wait for "past", not "at".
    page.wait_for_function(
        "ply => Number(document.querySelector('[data-game]').dataset.ply) > ply", arg=ply
    )


def server_state(page: Page) -> dict[str, Any]:
    """The game's state from the HTTP API, with the page's player cookie."""
    game_id = page.get_attribute("[data-game]", "data-game")
    answer = page.request.get(f"/api/games/{game_id}")
    assert answer.ok, answer.text()
    state: dict[str, Any] = answer.json()
    return state


# ---------------------------------------------------------------------- rooms (two players)


class Friends:
    """Two pages in two browser contexts; JavaScript errors fail the test."""

    def __init__(
        self,
        browser: Browser,
        url: str,
        viewport: ViewportSize | None = None,
        locale: str = "en-US",
    ) -> None:
        self.errors: list[str] = []
        self.contexts = [
            browser.new_context(
                base_url=url, viewport=viewport or {"width": 1200, "height": 800}, locale=locale
            )
            for _ in range(2)
        ]
        self.pages = [context.new_page() for context in self.contexts]
        for page in self.pages:
            page.set_default_timeout(15000)
            page.on("pageerror", lambda error: self.errors.append(str(error)))

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        assert not self.errors, f"JavaScript errors: {self.errors}"


def room_data(page: Page) -> dict[str, str]:
    return dict(page.eval_on_selector("[data-room]", "e => ({...e.dataset})"))


def create_room(page: Page, variant: str = "xiangqi", password: str | None = None) -> None:
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]")
    page.click("[data-action=play-friend]")
    page.wait_for_selector("[data-room-home]")
    page.check(f"#room-variant-{variant}")
    if password is not None:
        page.check("#room-access-password")
        page.fill("#room-new-password", password)
    page.click("[data-action=create-room]")
    page.wait_for_selector("[data-room], [data-room-notice]:not([hidden])")


def invite_link(page: Page) -> str:
    return str(page.input_value("[data-invite-link]"))


def ready_both(pages: list[Page], variant: str = "xiangqi") -> dict[str, Page]:
    """Both press Ready; returns the pages by the side each player was given (R3)."""
    for page in pages:
        page.click("[data-action=ready]:not([disabled])")
    phase = "setup" if variant == "janggi" else "playing"
    for page in pages:
        page.wait_for_selector(f"[data-room][data-phase={phase}]")
    return {room_data(page)["you"]: page for page in pages}


def rematch_both(pages: dict[str, Page], variant: str = "xiangqi") -> dict[str, Page]:
    """After a room game, the side-0 player offers a rematch and the other accepts it (B4);
    returns the pages by the side each player has in the new game (the last game's
    colours swapped)."""
    offerer, accepter = pages.values()
    game_before = room_data(offerer)["gameId"]
    offerer.click("[data-action=rematch-offer]")
    accepter.click("[data-action=rematch-accept]")
    phase = "setup" if variant == "janggi" else "playing"
    for page in pages.values():
        page.wait_for_selector(f"[data-room][data-phase={phase}]")
        if variant != "janggi":
            page.wait_for_function(
                "before => document.querySelector('[data-room]').dataset.gameId !== before",
                arg=game_before,
            )
    return {room_data(page)["you"]: page for page in pages.values()}


def move(page: Page, text: str) -> None:
    """Play a move by clicking its two points, and wait until the server confirmed it.

    The ply is read once it is this player's turn: read before, it may be the ply before the
    opponent's move, and by the time the wait for "that ply + 1" begins both that move and this
    one may have landed (seen across two instances, where the opponent's move comes through
    Redis)."""
    page.wait_for_selector("[data-room][data-my-turn=true]")
    ply = int(room_data(page)["ply"])
    origin, target = re.findall(r"[a-i]\d+", text)
    page.click(f'[data-point="{origin}"]')
    page.click(f'[data-point="{target}"]')
    page.wait_for_selector(f"[data-room][data-ply='{ply + 1}']")


def resign(page: Page) -> None:
    page.click("[data-action=resign]")
    page.click("dialog[data-confirm-dialog] [data-action=confirm]")


def wait_end(page: Page, reason: str) -> dict[str, str]:
    """Wait until the room's game ended for ``reason``; the player then closes the result
    dialog (U6) to look at the board, and acts below it (rematch, new opponent, leave)."""
    page.wait_for_selector(f"[data-room][data-reason={reason}]", timeout=20000)
    close_end_dialog(page)
    return room_data(page)


def close_end_dialog(page: Page) -> None:
    """Close a room's result dialog, if the page showed it (not when the page opened on a
    finished game)."""
    if page.is_visible("dialog[data-end-dialog]"):
        page.click("dialog[data-end-dialog] [data-action=end-close]")
        page.wait_for_selector("dialog[data-end-dialog]", state="detached")


def own_side_at_bottom(page: Page, side: str) -> bool:
    """True when the player's home rank is drawn below the far rank (R3)."""
    near, far = ("e1", "e10") if side in ("red", "cho") else ("e10", "e1")
    boxes = [page.locator(f'[data-point="{p}"]').bounding_box() for p in (near, far)]
    return bool(boxes[0] and boxes[1] and boxes[0]["y"] > boxes[1]["y"])
