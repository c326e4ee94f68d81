"""HTTP routes and the room WebSocket ``/ws/rooms/{id}`` (SPEC R1–R8; docs/protocol.md, Rooms).

The socket's connection, :class:`~.connection.RoomConnection`, has its own module.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, WebSocket

from ..db.database import Database
from ..games import views
from ..games.service import GameService
from ..identity import Known, known_player, no_player
from ..players.service import Players
from ..protocol.bodies import CreateRoomBody, JoinBody
from ..protocol.messages import encode, error_reply
from ..records import Player, RoomRecord
from ..refusal import GameActionError
from .connection import RoomConnection
from .service import RoomService

NOT_FOUND_CLOSE = 4404


def rooms_router(
    rooms: RoomService, games: GameService, players: Players, db: Database
) -> APIRouter:
    """The rooms' routes on ``rooms`` (started and stopped by the app, ``create_app``)."""
    router = APIRouter()

    async def names_of(room: RoomRecord) -> dict[str, dict[str, Any]]:
        """Each seated player's name and, in a paired room, their rating in its variant (B7:
        the room shows both players' before the first move)."""
        seated = [seat["player"] for seat in room.seats]
        variant = room.variant if room.options.get("paired") else None
        names: dict[str, str | None] = await db(db.store.player_names, seated)
        shown: dict[str, dict[str, Any]] = {}
        for player_id, name in names.items():
            rating = None
            if variant:  # one read, no rating work on the way (as the profile's read does)
                rating = (await db(rooms.ratings.store.of_player, player_id))[variant]
            shown[player_id] = {"name": name, "rating": rating.to_json() if rating else None}
        return shown

    async def view(room_id: str, player: Player, room: RoomRecord | None = None) -> dict[str, Any]:
        """The room as ``player`` sees it: ``room`` as their action just stored it, else read."""
        if room is None:
            room = await rooms.room_for(player, room_id)
        names = await names_of(room)
        return views.room_view(room, player.id, names, rooms.clock_rules.turn_seconds)

    @router.post("/api/rooms", status_code=201)
    async def create(body: CreateRoomBody, request: Request, player: Known) -> dict[str, Any]:
        address = request.client.host if request.client else "unknown"
        room = await rooms.create(
            player,
            body.variant,
            body.bikjang,
            body.password,
            rules=body.rules,
            address=address,
            clock=body.clock,
        )
        return await view(room.id, player, room)

    @router.post("/api/rooms/join")
    async def join(body: JoinBody, request: Request, player: Known) -> dict[str, Any]:
        address = request.client.host if request.client else "unknown"
        room = await rooms.join_by_password(player, body.password, address)
        return await view(room.id, player, room)

    @router.post("/api/rooms/invite/{invite}")
    async def join_invite(invite: str, player: Known) -> dict[str, Any]:
        room = await rooms.join_by_invite(player, invite)
        return await view(room.id, player, room)

    @router.get("/api/rooms/{room_id}")
    async def get_room(room_id: str, player: Known) -> dict[str, Any]:
        return await view(room_id, player)

    @router.post("/api/rooms/{room_id}/leave")
    async def leave(room_id: str, player: Known) -> dict[str, Any]:
        """R8: the answer names the player's pending AI game to go back to, if any."""
        await rooms.leave(player, room_id)
        pending = await games.pending_game(player)
        return {"pending": await games.state(pending) if pending else None}

    @router.websocket("/ws/rooms/{room_id}")
    async def socket(websocket: WebSocket, room_id: str) -> None:
        await websocket.accept()
        try:
            player = await known_player(players, websocket.cookies)
            if player is None:
                raise no_player()
            room = await rooms.room_for(player, room_id)
        except GameActionError as exc:
            await websocket.send_text(encode(error_reply(exc.code, exc.message)))
            await websocket.close(NOT_FOUND_CLOSE)
            return
        connection = RoomConnection(websocket, rooms, player, room.id, names_of)
        await connection.serve(room)

    return router
