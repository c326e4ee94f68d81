"""Which seat of a running game a room socket is for (SPEC Z8): what lets a seated player
back in though their address has no socket left (``guard.py``).

A NAT neighbour (a school's, a café's address) can hold every socket the address may have;
a player seated in a running game there must still reach it, or their clock runs out. The
guard asks :class:`SeatLookup` only when the address is full, so the reads it costs (the
cookie's player, the room, its game) are made for refused sockets alone.
"""

from __future__ import annotations

import re
from http.cookies import CookieError, SimpleCookie
from typing import TYPE_CHECKING

from starlette.types import Scope

from ..db.rooms import RoomStore
from ..identity import COOKIE

if TYPE_CHECKING:
    from ..db.database import Database
    from ..players.service import Players

ROOM_SOCKET = re.compile(r"^/ws/rooms/([A-Za-z0-9_-]{1,64})$")


def _cookie(scope: Scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == b"cookie":
            try:
                jar = SimpleCookie(value.decode("latin-1"))
            except CookieError:
                return None
            morsel = jar.get(COOKIE)
            return morsel.value if morsel is not None else None
    return None


class SeatLookup:
    """The guard's ``seat_of``: ``"room:player"`` when the socket asks for the room of a
    running game in which its cookie's player holds a side, else None."""

    def __init__(self, db: Database, players: Players) -> None:
        self.db = db
        self.players = players
        self.rooms = RoomStore(db.store)

    async def __call__(self, scope: Scope) -> str | None:
        found = ROOM_SOCKET.match(scope.get("path", ""))
        if found is None:
            return None
        player = await self.players.player_for_token(_cookie(scope))
        if player is None:
            return None
        room = await self.db(self.rooms.get, found.group(1))
        if room is None or room.game_id is None or room.side_of(player.id) is None:
            return None
        game = await self.db(self.db.store.game, room.game_id)
        if game is None or not game.ongoing:
            return None
        return f"{room.id}:{player.id}"
