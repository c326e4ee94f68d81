"""The room WebSocket ``/ws/rooms/{id}`` (SPEC R1–R8; docs/protocol.md, Rooms).

It speaks the game socket's language (``hello`` with ``last_seq``, ``move`` with ``ply``,
replies with ``reply_to``, events with ``seq``) for the room's current game, and adds the
room's own messages; the loop, the replay and the catch-up are the base's (:mod:`..sockets.base`).
Every game event is rendered for the receiving player's side and names its game.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, assert_never

from starlette.websockets import WebSocket

from ..games import views
from ..games.service import new_id
from ..hub.local import News
from ..protocol.messages import (
    ROOM_MESSAGES,
    AckReply,
    DetachedNotice,
    DrawAccept,
    DrawOffer,
    ElsewhereNotice,
    Leave,
    LeftNotice,
    Move,
    Ping,
    PongReply,
    Probe,
    ProbeNotice,
    Ready,
    Rematch,
    Resign,
    RoomHello,
    RoomMessage,
    RoomNotice,
    SaidNotice,
    Say,
    Setup,
    TakeSeat,
)
from ..records import Player, RoomRecord
from ..sockets.base import GameFollower
from .core import room_key
from .rules import RoomError
from .service import RoomService

log = logging.getLogger("chuhan.rooms")
DETACHED_CLOSE = 4409
SERVER_STOPPING_CLOSE = 1012  # uvicorn closes every socket with it when the server stops


class RoomConnection(GameFollower[RoomMessage]):
    """One socket of a seated player. It holds the seat, or waits for "take_seat" (R7)."""

    messages = ROOM_MESSAGES
    names_game = True

    def __init__(
        self,
        socket: WebSocket,
        rooms: RoomService,
        player: Player,
        room_id: str,
        names_of: Any,
    ) -> None:
        super().__init__(socket, rooms.games)
        self.rooms = rooms
        self.player = player
        self.room_id = room_id
        self.names_of = names_of
        self.log_fields = {"room": room_id}
        # "<the client's device id>/<this connection>": a device that reconnects after its
        # socket dropped takes its seat back at once (R7); another device has to ask. The
        # connection part is this socket's for its whole life: its close frees its seat.
        self.connection = new_id("c")
        self.device = f"anonymous/{self.connection}"
        self.holds_seat = False
        self.greeted = False  # its hello was answered: from then on it follows the room's game
        self._side: tuple[str, int] | None = None  # (game id, this player's side in it)
        self._probes: dict[int, float] = {}
        self._room_shown: tuple[int, bool] | None = None  # (version, holds_seat) last sent

    @property
    def hub(self) -> Any:
        return self.rooms.games.hub

    async def notify(self, key: str, seq: int, news: News | None = None) -> None:
        try:
            if key != room_key(self.room_id):
                await super().notify(key, seq, news)  # the room's game
                return
            async with self._lock:
                # A resync (a negative seq: news may have been missed) reads the room.
                room = await self._send_room(version=seq if seq >= 0 else None, again=False)
                # The change (a game begun…) may come from another instance: this one
                # keeps the clock too, so a deadline is enforced even if that instance
                # dies; whichever sees it first flags, the others find the game over.
                self.rooms.keep_time(self.room_id, room=room)
        except Exception:
            log.debug("room notify failed", exc_info=True)

    async def notice(self, message: dict[str, Any]) -> None:
        """A passing notice; a quick message (B8) says to this socket whether its own player
        said it, and nothing else of who did."""
        if message.get("type") == "said":
            you = message.get("player") == self.player.id
            await self.send(SaidNotice(phrase=str(message.get("phrase")), you=you))
            return
        await super().notice(message)

    async def serve(self, room: RoomRecord | None = None) -> None:
        """Serve the socket until it closes (``room``: as just read, for the clock keeper)."""
        await self.hub.follow(room_key(self.room_id), self)  # before hello reads the room
        self.rooms.keep_time(self.room_id, room=room)  # e.g. after the instance that kept it died
        prober = asyncio.get_running_loop().create_task(self._probe_loop())
        try:
            await super().serve()
        finally:
            prober.cancel()
            self.hub.unsubscribe(room_key(self.room_id), self)
            if self.game_id is not None:
                self.hub.unsubscribe(self.game_id, self)
            # Z4: a socket closed by a stopping server keeps its seat until this instance,
            # marked stopped, has its seats cleared by the restart (or by a live instance),
            # so the time down is not drawn from the shared away budget (R7). Otherwise the
            # seat this socket holds is freed, whatever the socket said (per socket, R7).
            if self.close_code != SERVER_STOPPING_CLOSE:
                await self.rooms.detach(self.player, self.room_id, self.device)

    async def _probe_loop(self) -> None:
        """Measure the round trip now and then: half of it is the lag allowance (R4)."""
        number = 0
        while not self.closed:
            number += 1
            self._probes = {number: time.monotonic()}
            try:
                await self.send(ProbeNotice(n=number))
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
            await self._send(LeftNotice())
            self.closed = True
            await self.socket.close()
            return None
        if self.holds_seat and room.seats[seat]["device"] != self.device:
            self.holds_seat = False
            await self._send(DetachedNotice(message="this room continues on another device"))
            self.closed = True
            await self.socket.close(DETACHED_CLOSE)
            return None
        shown = (room.version, self.holds_seat)
        if again or shown != self._room_shown:
            names = await self.names_of(room)  # and ratings in a paired room (B7)
            turn_seconds = self.rooms.clock_rules.turn_seconds
            view = views.room_view(room, self.player.id, names, turn_seconds)
            # Unknown (None) until the hello is answered: a notice crossing it (this socket's
            # own attach announced) must not say the seat is held elsewhere (R7).
            view["holds_seat"] = self.holds_seat if self.greeted else None
            await self._send(RoomNotice(room=view))
            self._room_shown = shown
        if (
            follow
            and self.greeted
            and room.game_id
            and (room.game_id != self.game_id or self.sent_seq is None)
        ):
            await self._follow(room.game_id, None)
        return room

    async def _follow(self, game_id: str, last_seq: int | None) -> bool:
        """Follow the room's game ``game_id`` from ``last_seq`` (None: a full state).
        True when the events after ``last_seq`` were replayed (:meth:`replay`)."""
        if self.game_id != game_id:
            if self.game_id is not None:
                self.hub.unsubscribe(self.game_id, self)
                last_seq = None  # a new game: its whole state
            self.game_id = game_id
            await self.hub.follow(game_id, self)  # before the game is read below
        game = await self.rooms.db(self.rooms.games.store.game, game_id)
        if game is None:  # being created: its room announcement comes next
            self.sent_seq = None
            return False
        self.rooms.games.known.remember(game)  # the next change here starts from it
        return await self.replay(game, last_seq)

    async def viewer(self) -> int | None:
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

    # ------------------------------------------------------------------ receiving

    async def dispatch(self, message: RoomMessage) -> None:
        rooms, player, room_id = self.rooms, self.player, self.room_id
        match message:
            case Ping():
                await self.send(PongReply(reply_to=message.id))
                return
            case Probe():
                sent = self._probes.pop(message.n or 0, None)
                if sent is not None:
                    rooms.record_lag(room_id, player.id, (time.monotonic() - sent) / 2)
                return
            case RoomHello() | TakeSeat():
                await self._hello(message)
                return
        if not self.holds_seat:
            raise RoomError("elsewhere", "this room is open on another device")
        match message:
            case Ready():
                await rooms.ready(player, room_id)
            case Rematch():
                await rooms.rematch(player, room_id, message.action)
            case Say():
                await rooms.say(player, room_id, message.phrase)
            case Setup():
                await rooms.choose_setup(player, room_id, message.setup)
            case Move():
                await rooms.move(player, room_id, message.ply, message.move)
                await self.send(AckReply(reply_to=message.id, ply=message.ply))
                return
            case DrawOffer():
                await rooms.offer_draw(player, room_id)
            case DrawAccept():
                await rooms.accept_draw(player, room_id)
            case Resign():
                await rooms.resign(player, room_id)
            case Leave():
                # Acknowledged first: leaving closes this socket with a "left" message (R8).
                await self.send(AckReply(reply_to=message.id))
                await rooms.leave(player, room_id)
                return
            case _:
                assert_never(message)
        await self.send(AckReply(reply_to=message.id))

    async def _hello(self, message: RoomHello | TakeSeat) -> None:
        """R7, P5: attach (take the seat back, or ask for it); answer with the room, then
        the game: the events missed since ``last_seq`` when ``game_id`` names the room's
        game and an ``ack`` with ``last_seq`` as the game socket does, else its full state
        and a plain ``ack``."""
        hello = message if isinstance(message, RoomHello) else None
        if hello is not None and hello.device is not None:
            self.device = f"{hello.device}/{self.connection}"
        self.holds_seat = await self.rooms.attach(
            self.player, self.room_id, self.device, hello is None
        )
        async with self._lock:
            # The hello is answered from here on: its own room view says whether this
            # socket holds the seat (a reconnecting device waits for exactly that, R7).
            self.greeted = True
            # The room as attach left it (or later): changes from now on are announced.
            room = await self._send_room(follow=False, version=0)
            replayed = False
            if room is not None and room.game_id is not None:
                same = hello is not None and hello.game_id == room.game_id
                last_seq = hello.last_seq if hello is not None and same else None
                replayed = await self._follow(room.game_id, last_seq)
            if not self.holds_seat:
                await self._send(ElsewhereNotice(message="this room is open on another device"))
            if replayed:
                await self._send(AckReply(reply_to=message.id, last_seq=self.sent_seq))
            else:
                await self._send(AckReply(reply_to=message.id))
