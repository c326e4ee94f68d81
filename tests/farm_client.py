"""A rating farm as a hostile client runs one (SPEC Z8): a booster and throwaway identities
that lose to it on purpose, each a real cookie on its own (forwarded) address, playing real
paired games over the seek and room sockets of a running server.

Used by ``tests/test_rating_farm.py`` and ``bench/rating_farm.py``. The server must trust
the client's ``X-Forwarded-For`` (``CHUHAN_TRUSTED_PROXIES=127.0.0.1``), as behind nginx.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import httpx
from websockets.sync.client import connect

from rooms_client import WAIT, RoomSocket

OPENING = ["h3e3", "h10g8"]  # both moved: the game is played for (B2), then the farm resigns
_devices = itertools.count(1)


class LenientSocket(RoomSocket):
    """A socket that does not check messages against this checkout's protocol: for a bench
    against another commit's server, whose messages may differ (the farm reads only a few
    fields)."""

    @property
    def invalid(self) -> list[str]:
        return []

    @invalid.setter
    def invalid(self, value: list[str]) -> None:
        pass


def is_type(kind: str) -> Any:
    return lambda message: message.get("type") == kind


class Identity:
    """One cookie (a player identity, SPEC S1) whose requests come from ``address``."""

    def __init__(self, base_url: str, address: str, strict: bool = True) -> None:
        self.base_url = base_url
        self.address = address
        self.strict = strict
        self.http = httpx.Client(
            base_url=base_url, headers={"X-Forwarded-For": address}, timeout=WAIT
        )
        self.http.get("/api/me").raise_for_status()
        self.device = f"farm{next(_devices)}"

    @property
    def cookie(self) -> str:
        return f"chuhan_player={self.http.cookies['chuhan_player']}"

    def socket(self, path: str) -> RoomSocket:
        url = self.base_url.replace("http", "ws", 1) + path
        headers = {"Cookie": self.cookie, "X-Forwarded-For": self.address}
        kind = RoomSocket if self.strict else LenientSocket
        return kind(connect(url, additional_headers=headers).__enter__())

    def rating(self, variant: str = "xiangqi") -> dict[str, Any]:
        return dict(self.http.get("/api/me").json()["ratings"][variant])

    def close(self) -> None:
        self.http.close()


def lose_on_purpose(booster: Identity, cookie: Identity) -> dict[str, Any]:
    """One paired xiangqi game: both seek, both play one move, ``cookie`` resigns. Returns
    the game's ``rated`` event as the booster's room socket received it, with ``booster``:
    the booster's side name."""
    sockets: list[RoomSocket] = []
    try:
        seekers = [booster.socket("/ws/seek"), cookie.socket("/ws/seek")]
        sockets += seekers
        for seeker in seekers:
            answer = seeker.request("seek", variant="xiangqi", options={"rules": "casual"})
            assert answer["type"] == "ack", answer
        room_id = seekers[1].wait_for(is_type("paired"))["room"]
        assert seekers[0].wait_for(is_type("paired"))["room"] == room_id
        rooms = {}
        for player in (booster, cookie):
            room = player.socket(f"/ws/rooms/{room_id}")
            sockets.append(room)
            room.request("hello", device=player.device)
            rooms[player] = room
        sides = {
            player: room.wait_for(lambda m: bool(m.get("state")))["state"]["you"]
            for player, room in rooms.items()
        }
        by_side = {side: rooms[player] for player, side in sides.items()}
        for ply, move in enumerate(OPENING):
            mover = by_side["red" if ply % 2 == 0 else "black"]
            answer = mover.request("move", ply=ply, move=move)
            assert answer["type"] == "ack", answer
        assert rooms[cookie].request("resign")["type"] == "ack"
        rated = rooms[booster].wait_for(is_type("rated"))["rated"]
        return {**rated, "booster": sides[booster]}
    finally:
        for sock in sockets:
            with contextlib.suppress(Exception):
                sock.close()
