"""A room game survives a broken link without losing or doubling a move (SPEC P5, R7).

Both players' WebSockets pass through a Playwright route, which forwards every message until
the test breaks the link: either right after a move reached the server (its answer is lost,
so the client must resend the same request after reconnecting and the server must not apply
it twice), or for a while before a move is made (the move waits in the client and is sent when
the link is back). Each player's screen and the server's stored game must then agree: every
move once, in order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from rooms_client import running_server

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    Friends,
    create_room,
    invite_link,
    ready_both,
    room_data,
)

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("room-resend")) as url:
        yield url


class Link:
    """One page's room socket, routed through the test: forwards, or breaks on demand.

    Both directions pass through the test, so a cut after a move is exact: the server's
    answers are dropped from before the move is forwarded. (Forwarded by Playwright itself,
    an answer could reach the page while the test was still cutting: on a loaded machine
    the move was then answered, and never sent again.)"""

    def __init__(self, page: Page) -> None:
        self.cut_after_move = False  # forward the next move, then drop both ends
        self.refuse = False  # new connections are closed at once (the player is offline)
        self.moves_sent: list[dict[str, Any]] = []  # every move request that reached the server
        self.connections = 0
        self.current: tuple[WebSocketRoute, WebSocketRoute] | None = None
        page.route_web_socket(re.compile(r"/ws/rooms/"), self.handle)

    def handle(self, ws: WebSocketRoute) -> None:
        if self.refuse:
            ws.close(code=4000, reason="offline")
            return
        self.connections += 1
        server = ws.connect_to_server()
        self.current = (ws, server)
        deaf = False  # this connection's answers no longer reach the page

        def from_server(message: str | bytes) -> None:
            if not deaf:
                ws.send(message)

        def from_page(message: str | bytes) -> None:
            nonlocal deaf
            data = json.loads(message)
            is_move = data.get("type") == "move"
            cutting = is_move and self.cut_after_move
            if cutting:
                # The move reaches the server; its ack and event never reach the page.
                self.cut_after_move = False
                deaf = True
            server.send(message)
            if is_move:
                self.moves_sent.append(data)
            if cutting:
                self.cut()

        server.on_message(from_server)
        ws.on_message(from_page)

    def cut(self) -> None:
        """Break the link at both ends, as a lost network does."""
        if self.current is not None:
            ws, server = self.current
            self.current = None
            server.close()
            ws.close(code=4000, reason="link broken")


def click_move(page: Page, text: str) -> None:
    page.wait_for_selector("[data-room][data-my-turn=true]")
    origin, target = re.findall(r"[a-i]\d+", text)
    page.click(f'[data-point="{origin}"]')
    page.click(f'[data-point="{target}"]')


def wait_ply(pages: list[Page], ply: int) -> None:
    for page in pages:
        page.wait_for_selector(f"[data-room][data-ply='{ply}']", timeout=30000)


def stored_moves(page: Page) -> list[str]:
    """The room's game as the server stores it, read over HTTP with this player's cookie."""
    room_id = room_data(page)["room"]
    room = page.request.get(f"/api/rooms/{room_id}")
    assert room.ok, room.text()
    game = page.request.get(f"/api/games/{room.json()['game_id']}/positions")
    assert game.ok, game.text()
    return [p["move"] for p in game.json()["positions"][1:]]


def test_a_lost_answer_and_an_offline_move_each_arrive_once_P5_R7(
    chromium: Browser, server: str
) -> None:
    pair = Friends(chromium, server)
    try:
        links = [Link(page) for page in pair.pages]
        creator, friend = pair.pages
        create_room(creator, "xiangqi")
        friend.goto(invite_link(creator))
        friend.wait_for_selector("[data-room] [data-seat=friend]")
        pages = ready_both([creator, friend])
        red, black = pages["red"], pages["black"]
        red_link, black_link = (links[pair.pages.index(p)] for p in (red, black))
        both = [red, black]

        # 1. Red's move reaches the server, and the answer is lost with the link: the client
        # reconnects, catches up and sends the same request again, which is not applied twice.
        connections = red_link.connections
        red_link.cut_after_move = True
        click_move(red, "h3e3")
        wait_ply(both, 1)

        def resent() -> list[dict[str, Any]]:
            return [m for m in red_link.moves_sent if m.get("move") == "h3e3"]

        # The reconnect and the resend, however busy the machine (a CI run beside another
        # CPU-bound job did not see the resend within 15 s).
        for _ in range(400):
            if red_link.connections > connections and len(resent()) >= 2:
                break
            red.wait_for_timeout(100)  # pumps the link's handlers meanwhile
        assert red_link.connections > connections, "red's client did not reconnect"
        sent = resent()
        assert len(sent) >= 2, "the unanswered move was not sent again"
        assert len({m["id"] for m in sent}) == 1, "a resend must reuse the request's id"

        # 2. Black's link is down when Black moves: the move waits and goes once it is back.
        black_link.refuse = True
        black_link.cut()
        expect(black.locator("[data-play] [data-notice]")).to_contain_text("Connection lost")
        click_move(black, "h10g8")
        # The move waits in Black's client, and nothing reached the server (every room
        # socket of the page passes through its link).
        expect(black.locator("[data-play] .status-line")).to_contain_text("Sending your move")
        assert black_link.moves_sent == [], "a move made offline reached the server"
        assert room_data(red)["ply"] == "1", "a move made offline reached the opponent"
        black_link.refuse = False
        wait_ply(both, 2)

        # Both screens and the stored game hold each move once, in order.
        for page in both:
            expect(page.locator("[data-play] .move-list .move")).to_have_count(2)
            expect(page.locator("[data-play] [data-notice]")).to_be_hidden()
        assert stored_moves(red) == ["h3e3", "h10g8"]
        assert [m["move"] for m in black_link.moves_sent] == ["h10g8"]
    finally:
        pair.close()
