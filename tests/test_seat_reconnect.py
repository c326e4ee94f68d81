"""A NAT neighbour cannot make a seated player lose on time (SPEC Z8, Z5): whoever holds
every socket of an address, a player seated in a running game there can always reconnect
to it.

Everything here comes from 127.0.0.1, one address as behind a school's or a café's NAT: a
real server, two players seated in a room whose game has begun, and a neighbour who opens
WebSockets until the address has no more, then bare TCP connections besides. The victim's
network blips (its socket drops) and the neighbour takes that place too; the victim's
reconnection must still come through and find its game.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import connect

from rooms_client import WAIT, Player, running_server

pytestmark = pytest.mark.timeout(180)
SOCKETS = 12  # WebSockets per address in this server
CONNECTIONS = 16  # connections per address (sockets and HTTP requests)
LIMITS = {
    "CHUHAN_SOCKETS_PER_ADDRESS": str(SOCKETS),
    "CHUHAN_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("seat-reconnect"), **LIMITS) as url:
        yield url


def _seated(url: str) -> tuple[Player, Player, str]:
    victim, friend = Player(url), Player(url)
    room = victim.create_room(variant="xiangqi")
    assert friend.join_invite(room["invite"]).status_code == 200
    return victim, friend, room["id"]


def _begin(victim: Player, friend: Player, room_id: str) -> list[Any]:
    sockets = [victim.open(room_id), friend.open(room_id)]
    for sock in sockets:
        assert sock.request("ready")["type"] == "ack"
    for sock in sockets:
        sock.wait_for(lambda m: m.get("type") == "state")
    for player in (victim, friend):
        player.http.close()  # their keep-alive connections would count too
    return sockets


class Neighbour:
    """Someone behind the same address who takes every socket and connection there."""

    def __init__(self, url: str, stack: contextlib.ExitStack) -> None:
        self.url = url
        self.stack = stack
        self.players = [Player(url) for _ in range(4)]
        self.games = [
            p.http.post("/api/games", json={"kind": "local"}).json()["id"] for p in self.players
        ]
        for player in self.players:
            player.http.close()
        self.sockets: list[Any] = []
        self.bare: list[socket.socket] = []

    def take_sockets(self) -> int:
        """Opens WebSockets until the address has none left; returns how many it holds."""
        while True:
            player = self.players[len(self.sockets) % len(self.players)]
            game = self.games[len(self.sockets) % len(self.players)]
            address = self.url.replace("http", "ws", 1) + f"/ws/games/{game}"
            try:
                ws = connect(
                    address, additional_headers={"Cookie": player.cookie}, open_timeout=WAIT
                )
            except (OSError, InvalidHandshake, ConnectionClosed):  # the address is full
                return len(self.sockets)
            self.stack.enter_context(ws)
            ws.send('{"type": "ping", "id": "held"}')
            ws.recv(timeout=WAIT)
            self.sockets.append(ws)

    def take_connections(self, count: int) -> None:
        """Bare TCP connections that never send a request."""
        port = int(self.url.rsplit(":", 1)[1])
        for _ in range(count):
            bare = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            self.stack.callback(bare.close)
            self.bare.append(bare)


def test_a_seated_player_reconnects_though_a_neighbour_holds_every_socket_Z8(
    site: str,
) -> None:
    victim, friend, room_id = _seated(site)
    with contextlib.ExitStack() as stack:
        sockets = _begin(victim, friend, room_id)
        neighbour = Neighbour(site, stack)
        held = neighbour.take_sockets()
        assert held >= SOCKETS - len(sockets)  # every socket the address had left
        neighbour.take_connections(CONNECTIONS)
        sockets[0].close()  # the victim's network blips
        sockets[0].wait_closed()
        deadline = time.monotonic() + WAIT
        while neighbour.take_sockets() == held:  # and the neighbour takes that place too
            assert time.monotonic() < deadline, "the victim's place was never given back"
            time.sleep(0.05)

        back, before = [], None
        for _ in range(3):  # the victim's page tries again: every try comes through,
            try:  # though the socket before went stale (its network gone, never closed)
                sock = victim.open(room_id)
            except (OSError, InvalidHandshake, ConnectionClosed) as exc:
                back.append(type(exc).__name__)
                continue
            stack.callback(sock.close)
            state = sock.wait_for(lambda m: m.get("type") == "state")
            back.append(state["state"]["status"] if state.get("state") else "state")
            if before is not None:
                before.wait_closed()  # the server let the stale one go for the new one
            before = sock
        assert back == ["ongoing"] * 3, back

        # A stranger to the game gets no such place: the address is full for them.
        stranger = neighbour.players[0]
        with pytest.raises((OSError, InvalidHandshake, ConnectionClosed)) as refused:
            connect(
                site.replace("http", "ws", 1) + f"/ws/rooms/{room_id}",
                additional_headers={"Cookie": stranger.cookie},
                open_timeout=WAIT,
            )
        if isinstance(refused.value, InvalidStatus):
            assert refused.value.response.status_code == 429
