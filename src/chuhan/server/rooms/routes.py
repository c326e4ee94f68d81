"""HTTP routes and the room WebSocket ``/ws/rooms/{id}`` (SPEC R1–R8; docs/protocol.md, Rooms).

The socket speaks the game socket's language (``hello`` with ``last_seq``, ``move`` with
``ply``, replies with ``reply_to``, events with ``seq``) for the room's current game, and adds
the room's own messages. Every game event is rendered for the receiving player's side.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from fastapi import APIRouter, FastAPI, Request, WebSocket
from starlette.websockets import WebSocketDisconnect

from .. import views
from ..db.store import iter_events
from ..games import GameActionError
from ..hub import News
from ..identity import Known, known_player, no_player
from ..protocol import (
    ROOM_MESSAGES,
    CreateRoomBody,
    JoinBody,
    Move,
    Probe,
    ProtocolError,
    Rematch,
    RoomHello,
    Setup,
    TakeSeat,
    ack,
    encode,
    error_reply,
    parse,
    state_event,
)
from ..records import GameRecord, Player, RoomRecord, StoredEvent
from ..service import GameService, new_id
from ..settings import RoomSettings
from .core import room_key
from .rules import RoomError
from .service import RoomService

log = logging.getLogger("chuhan.rooms")
NOT_FOUND_CLOSE = 4404
DETACHED_CLOSE = 4409
SERVER_STOPPING_CLOSE = 1012  # uvicorn closes every socket with it when the server stops
MAX_REPLAY = 200


def rooms_router(games: GameService, settings: RoomSettings | None = None) -> APIRouter:
    """The rooms' routes; their clock keepers start and stop with the app. ``settings``:
    the game service's own (``Settings.rooms``) unless given."""
    rooms = RoomService(games, settings or games.settings.rooms)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.rooms = rooms
        await rooms.start()
        yield
        await rooms.stop()

    router = APIRouter(lifespan=lifespan)

    async def names_of(room_seats: list[dict[str, Any]]) -> dict[str, str | None]:
        names: dict[str, str | None] = await games.db(
            games.store.player_names, [seat["player"] for seat in room_seats]
        )
        return names

    async def view(room_id: str, player: Player, room: RoomRecord | None = None) -> dict[str, Any]:
        """The room as ``player`` sees it: ``room`` as their action just stored it, else read."""
        if room is None:
            room = await rooms.room_for(player, room_id)
        names = await names_of(room.seats)
        return views.room_view(room, player.id, names, rooms.clock_rules.turn_seconds)

    @router.post("/api/rooms", status_code=201)
    async def create(body: CreateRoomBody, request: Request, player: Known) -> dict[str, Any]:
        address = request.client.host if request.client else "unknown"
        room = await rooms.create(
            player, body.variant, body.bikjang, body.password, rules=body.rules, address=address
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
            player = await known_player(games, websocket.cookies)
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


class RoomConnection:
    """One socket of a seated player. It holds the seat, or waits for "take_seat" (R7)."""

    def __init__(
        self,
        socket: WebSocket,
        rooms: RoomService,
        player: Player,
        room_id: str,
        names_of: Any,
    ) -> None:
        self.socket = socket
        self.rooms = rooms
        self.player = player
        self.room_id = room_id
        self.names_of = names_of
        # "<the client's device id>/<this connection>": a device that reconnects after its
        # socket dropped takes its seat back at once (R7); another device has to ask. The
        # connection part is this socket's for its whole life: its close frees its seat.
        self.connection = new_id("c")
        self.device = f"anonymous/{self.connection}"
        self.holds_seat = False
        self.greeted = False  # its hello was answered: from then on it follows the room's game
        self.game_id: str | None = None
        self.sent_seq: int | None = None
        self._side: tuple[str, int] | None = None  # (game id, this player's side in it)
        self._secret: tuple[str, dict[str, Any] | None] | None = None  # (game id, its secret)
        self.closed = False
        self._lock = asyncio.Lock()
        self._probes: dict[int, float] = {}
        self._room_shown: tuple[int, bool] | None = None  # (version, holds_seat) last sent

    @property
    def hub(self) -> Any:
        return self.rooms.games.hub

    async def _send(self, message: dict[str, Any]) -> None:
        if not self.closed:
            await self.socket.send_text(encode(message))

    async def notice(self, message: dict[str, Any]) -> None:
        async with self._lock:
            await self._send(message)

    async def notify(self, key: str, seq: int, news: News | None = None) -> None:
        try:
            async with self._lock:
                if key == room_key(self.room_id):
                    # A resync (a negative seq: news may have been missed) reads the room.
                    room = await self._send_room(version=seq if seq >= 0 else None, again=False)
                    # The change (a game begun…) may come from another instance: this one
                    # keeps the clock too, so a deadline is enforced even if that instance
                    # dies; whichever sees it first flags, the others find the game over.
                    self.rooms.keep_time(self.room_id, room=room)
                else:
                    await self._catch_up(news)
        except Exception:
            log.debug("room notify failed", exc_info=True)

    async def serve(self, room: RoomRecord | None = None) -> None:
        """Serve the socket until it closes (``room``: as just read, for the clock keeper)."""
        await self.hub.follow(room_key(self.room_id), self)  # before hello reads the room
        self.rooms.keep_time(self.room_id, room=room)  # e.g. after the instance that kept it died
        prober = asyncio.get_running_loop().create_task(self._probe_loop())
        server_stopping = False
        try:
            while True:
                frame = await self.socket.receive()
                if frame["type"] == "websocket.disconnect":
                    server_stopping = frame.get("code") == SERVER_STOPPING_CLOSE
                    break
                raw = frame.get("text")
                if raw is None:
                    raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
                await self.handle(raw)
                if self.closed:
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.closed = True
            prober.cancel()
            self.hub.unsubscribe(room_key(self.room_id), self)
            if self.game_id is not None:
                self.hub.unsubscribe(self.game_id, self)
            # Z4: a socket closed by a stopping server keeps its seat until this instance,
            # marked stopped, has its seats cleared by the restart (or by a live instance),
            # so the time down is not drawn from the shared away budget (R7). Otherwise the
            # seat this socket holds is freed, whatever the socket said (per socket, R7).
            if not server_stopping:
                await self.rooms.detach(self.player, self.room_id, self.device)

    async def _probe_loop(self) -> None:
        """Measure the round trip now and then: half of it is the lag allowance (R4)."""
        number = 0
        while not self.closed:
            number += 1
            self._probes = {number: time.monotonic()}
            try:
                await self.notice({"type": "probe", "n": number})
            except Exception:
                return
            await asyncio.sleep(self.rooms.settings.probe_seconds)

    # ------------------------------------------------------------------ sending

    async def _room(self, version: int | None) -> RoomRecord | None:
        """The room at ``version`` or later: as this instance knows it when that is recent
        enough (it stored or read it since), else read (None: read in any case)."""
        known = self.rooms.core.known(self.room_id)
        if version is not None and known is not None and known.version >= version:
            return known
        return await self.rooms.read_room(self.room_id)

    async def _send_room(
        self, follow: bool = True, version: int | None = None, again: bool = True
    ) -> RoomRecord | None:
        """The room as this player sees it (at ``version`` or later, see :meth:`_room`),
        then the room's game if this socket holds the seat and does not follow it yet.
        Not ``again``: nothing is sent when this socket was last sent the same (the
        announcement of a change it already showed, e.g. its own seat taken).
        Returns the room (None: none, or this socket was closed).

        R7: a socket that does not hold the seat (another device of the same player) follows
        the game too, read-only, so that it shows the live game beside "Continue on this
        device" (its player's own side: nothing hidden from them, Z2)."""
        room = await self._room(version)
        if room is None:
            return None
        seat = room.seat_of(self.player.id)
        if seat is None:
            await self._send({"type": "left"})
            self.closed = True
            await self.socket.close()
            return None
        if self.holds_seat and room.seats[seat]["device"] != self.device:
            self.holds_seat = False
            await self._send(
                {"type": "detached", "message": "this room continues on another device"}
            )
            self.closed = True
            await self.socket.close(DETACHED_CLOSE)
            return None
        shown = (room.version, self.holds_seat)
        if again or shown != self._room_shown:
            names = await self.names_of(room.seats)
            turn_seconds = self.rooms.clock_rules.turn_seconds
            view = views.room_view(room, self.player.id, names, turn_seconds)
            # Unknown (None) until the hello is answered: a notice crossing it (this socket's
            # own attach announced) must not say the seat is held elsewhere (R7).
            view["holds_seat"] = self.holds_seat if self.greeted else None
            await self._send({"type": "room", "room": view})
            self._room_shown = shown
        if (
            follow
            and self.greeted
            and room.game_id
            and (room.game_id != self.game_id or self.sent_seq is None)
        ):
            await self._follow(room.game_id, None)
        return room

    async def _follow(self, game_id: str, last_seq: int | None) -> None:
        """Follow the room's game ``game_id`` from ``last_seq`` (None: a full state)."""
        if self.game_id != game_id:
            if self.game_id is not None:
                self.hub.unsubscribe(self.game_id, self)
                last_seq = None  # a new game: its whole state
            self.game_id = game_id
            await self.hub.follow(game_id, self)  # before the game is read below
        game = await self.rooms.db(self.rooms.games.store.game, game_id)
        if game is None:  # being created: its room announcement comes next
            self.sent_seq = None
            return
        self.rooms.games.known.remember(game)  # the next change here starts from it
        if last_seq is None or last_seq > game.seq or game.seq - last_seq > MAX_REPLAY:
            viewer = await self._viewer()
            state = await asyncio.to_thread(views.state_for, game, viewer)
            await self._send(state_event(game.seq, state, game_id=game_id))
            self.sent_seq = game.seq  # read after the subscription: later news comes to notify
        else:
            self.sent_seq = last_seq
            await self._catch_up()

    async def _viewer(self) -> int | None:
        """This player's side in the followed game. Sides are drawn with the game and never
        change during it, so the answer is kept for that game once the room names it."""
        if self._side is not None and self._side[0] == self.game_id:
            return self._side[1]
        known = self.rooms.core.known(self.room_id)
        if known is not None and known.game_id == self.game_id and known.sides is not None:
            room: RoomRecord | None = known  # it names the game: its sides are the game's
        else:
            room = await self.rooms.read_room(self.room_id)
        side = room.side_of(self.player.id) if room is not None else None
        game_id = room.game_id if room is not None else None
        if game_id is not None and side is not None and game_id == self.game_id:
            self._side = (game_id, side)
        return side

    async def _catch_up(self, news: News | None = None) -> None:
        """Z2: every missed event of the game, rendered for this player's side only.

        ``news`` (a change just committed, perhaps on another instance) saves the reads when
        it follows what this socket sent; otherwise the event log is read."""
        if self.sent_seq is None or self.game_id is None:
            return
        game_id = self.game_id
        if news is not None and news.game.id == game_id:
            fresh = news.after(self.sent_seq)
            if fresh is not None:
                await self._send_events(await self._with_secret(news), fresh)
                return
        store = self.rooms.games.store
        game = await self.rooms.db(store.game, game_id)
        if game is None or game.seq <= self.sent_seq:
            return
        events = await self.rooms.db(lambda: list(iter_events(store, game_id, self.sent_seq or 0)))
        await self._send_events(game, [e for e in events if e.seq <= game.seq])

    async def _with_secret(self, news: News) -> GameRecord:
        """The news' game with its secret (a jieqi arrangement), which does not travel
        between instances: read from the database once per game."""
        if not news.withheld:
            return news.game
        if self._secret is None or self._secret[0] != news.game.id:
            stored = await self.rooms.db(self.rooms.games.store.game, news.game.id)
            self._secret = (news.game.id, stored.secret if stored is not None else None)
        return replace(news.game, secret=self._secret[1])

    async def _send_events(self, game: GameRecord, events: list[StoredEvent]) -> None:
        if not events:
            return
        viewer = await self._viewer()
        for event in views.render_events(game, events, viewer):
            event["game_id"] = game.id
            await self._send(event)
            self.sent_seq = event["seq"]

    # ------------------------------------------------------------------ receiving

    async def handle(self, raw: str) -> None:
        try:
            message = parse(raw, self.rooms.games.settings.max_message_bytes, ROOM_MESSAGES)
        except ProtocolError as exc:
            await self.notice(error_reply(exc.code, exc.message, exc.reply_to))
            return
        reply_to = message.id
        try:
            answer = await self._dispatch(message)
        except GameActionError as exc:
            await self.notice(error_reply(exc.code, exc.message, reply_to))
            return
        except Exception:  # a bug must not take the connection down with it (SPEC Z5)
            log.exception("room action failed", extra={"room": self.room_id})
            await self.notice(
                error_reply("internal", "the server could not handle this message", reply_to)
            )
            return
        if answer is not None:
            await self.notice({**answer, "reply_to": reply_to})

    async def _dispatch(self, message: Any) -> dict[str, Any] | None:
        kind = message.type
        rooms, player, room_id = self.rooms, self.player, self.room_id
        if kind == "ping":
            return {"type": "pong"}
        if isinstance(message, Probe):
            sent = self._probes.pop(message.n or 0, None)
            if sent is not None:
                rooms.record_lag(room_id, player.id, (time.monotonic() - sent) / 2)
            return None
        if isinstance(message, RoomHello | TakeSeat):
            if isinstance(message, RoomHello) and message.device is not None:
                self.device = f"{message.device}/{self.connection}"
            self.holds_seat = await rooms.attach(player, room_id, self.device, kind == "take_seat")
            async with self._lock:
                # The hello is answered from here on: its own room view says whether this
                # socket holds the seat (a reconnecting device waits for exactly that, R7).
                self.greeted = True
                # The room as attach left it (or later): changes from now on are announced.
                room = await self._send_room(follow=False, version=0)
                if room is not None and room.game_id is not None:
                    same = isinstance(message, RoomHello) and message.game_id == room.game_id
                    last_seq = message.last_seq if isinstance(message, RoomHello) else None
                    await self._follow(room.game_id, last_seq if same else None)
                if not self.holds_seat:
                    await self._send(
                        {"type": "elsewhere", "message": "this room is open on another device"}
                    )
            return {"type": "ack"}
        if not self.holds_seat:
            raise RoomError("elsewhere", "this room is open on another device")
        if kind == "ready":
            await rooms.ready(player, room_id)
        elif isinstance(message, Rematch):
            await rooms.rematch(player, room_id, message.action)
        elif isinstance(message, Setup):
            await rooms.choose_setup(player, room_id, message.setup)
        elif isinstance(message, Move):
            await rooms.move(player, room_id, message.ply, message.move)
            return {"type": "ack", "ply": message.ply}
        elif kind == "draw_offer":
            await rooms.offer_draw(player, room_id)
        elif kind == "draw_accept":
            await rooms.accept_draw(player, room_id)
        elif kind == "resign":
            await rooms.resign(player, room_id)
        elif kind == "leave":
            # Acknowledged first: leaving closes this socket with a "left" message (R8).
            await self.notice(ack(message.id))
            await rooms.leave(player, room_id)
            return None
        return {"type": "ack"}
