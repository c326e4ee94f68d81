"""The game WebSocket ``/ws/games/{id}`` (SPEC Z1, Z4, Z5, P5; docs/protocol.md).

One :class:`GameConnection` per socket. Replies (``ack``, ``error``, ``hint``, ``pong``) carry
the client's message id; events come from the game's log, rendered for this connection's
viewer, numbered by ``seq``, each sent once and in order.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from . import views
from .db.store import iter_events
from .games import GameActionError
from .hub import News
from .identity import known_player
from .protocol import (
    GAME_MESSAGES,
    Hello,
    Move,
    ProtocolError,
    ack,
    encode,
    error_reply,
    hint_reply,
    parse,
    pong,
    state_event,
)
from .records import GameRecord, StoredEvent
from .service import GameService

log = logging.getLogger("chuhan.ws")
MAX_REPLAY = 200  # more missed events than this: a full state instead
NOT_FOUND_CLOSE = 4404


class GameConnection:
    """A player's socket on one of their games."""

    def __init__(self, socket: WebSocket, service: GameService, game: GameRecord) -> None:
        self.socket = socket
        self.service = service
        self.game_id = game.id
        self.viewer = views.viewer_of(game)
        self.sent_seq: int | None = None  # None until the client says hello
        self._lock = asyncio.Lock()

    async def _send(self, message: dict[str, Any]) -> None:
        await self.socket.send_text(encode(message))

    async def reply(self, message: dict[str, Any]) -> None:
        async with self._lock:
            await self._send(message)

    async def notice(self, message: dict[str, Any]) -> None:
        await self.reply(message)

    async def notify(self, game_id: str, seq: int, news: News | None = None) -> None:
        if self.sent_seq is not None and 0 <= seq <= self.sent_seq:
            return  # a negative seq: "read whatever you missed" (the hub resynchronises)
        async with self._lock:
            fresh = news.after(self.sent_seq) if news and self.sent_seq is not None else None
            usable = news is not None and not news.withheld and news.game.id == self.game_id
            if news is not None and fresh is not None and usable:
                # the change just committed follows what was sent
                await self._send_events(news.game, fresh)
                return
            await self._catch_up()

    async def _catch_up(self) -> None:
        """Send every logged event after ``sent_seq``, rendered for this viewer."""
        if self.sent_seq is None:
            return
        game = await self.service.db(self.service.store.game, self.game_id)
        if game is None or game.seq <= self.sent_seq:
            return
        events = await self.service.db(
            lambda: list(iter_events(self.service.store, self.game_id, self.sent_seq or 0))
        )
        await self._send_events(game, [e for e in events if e.seq <= game.seq])

    async def _send_events(self, game: GameRecord, events: list[StoredEvent]) -> None:
        """``events`` (the last ones of ``game``), as this viewer receives them (Z2)."""
        for message in views.render_events(game, events, self.viewer):
            await self._send(message)
            self.sent_seq = message["seq"]

    async def hello(self, message: Hello) -> None:
        """Resend what the client missed since ``last_seq``, or the full state (SPEC P5)."""
        game = await self.service.current_game(self.game_id)
        self.service.ensure_ai(game)  # after a failed AI attempt, a reconnect tries again
        async with self._lock:
            last = message.last_seq
            if last is None or last > game.seq or game.seq - last > MAX_REPLAY:
                state = await asyncio.to_thread(views.state_for, game, self.viewer)
                await self._send(state_event(game.seq, state, reply_to=message.id))
                self.sent_seq = game.seq
                return
            self.sent_seq = last
            await self._catch_up()
            await self._send(ack(message.id, last_seq=self.sent_seq))

    async def error(self, code: str, text: str, reply_to: str | None) -> None:
        state = None
        game = await self.service.db(self.service.store.game, self.game_id)
        if game is not None:
            state = await asyncio.to_thread(views.state_for, game, self.viewer)
        await self.reply(error_reply(code, text, reply_to, state=state))

    async def handle(self, raw: str) -> None:
        try:
            message = parse(raw, self.service.settings.max_message_bytes, GAME_MESSAGES)
        except ProtocolError as exc:
            await self.error(exc.code, exc.message, exc.reply_to)
            return
        try:
            await self._dispatch(message)
        except GameActionError as exc:
            await self.error(exc.code, exc.message, message.id)
        except (WebSocketDisconnect, asyncio.CancelledError):
            raise
        except Exception:  # a bug must not take the connection down with it (SPEC Z5)
            log.exception("message failed", extra={"game": self.game_id, "type": message.type})
            await self.error("internal", "the server could not handle this message", message.id)

    async def _dispatch(self, message: Any) -> None:
        service = self.service
        if message.type == "ping":
            await self.reply(pong(message.id))
            return
        if isinstance(message, Hello):
            await self.hello(message)
            return
        game = await service.current_game(self.game_id)
        if self.sent_seq is None:  # no hello yet: events start from here
            self.sent_seq = game.seq
        if isinstance(message, Move):
            _, ply = await service.move(game, message.ply, message.move)
            await self.reply(ack(message.id, ply=ply))
        elif message.type == "undo":
            await service.undo(game)
            await self.reply(ack(message.id))
        elif message.type == "resign":
            await service.resign(game)
            await self.reply(ack(message.id))
        elif message.type == "draw_offer":
            await service.offer_draw(game)
            await self.reply(ack(message.id))
        elif message.type == "hint":
            move = await service.hint(game)
            await self.reply(hint_reply(message.id, move))
        # Events the change produced reached this socket through the hub, like any other.


async def game_socket(socket: WebSocket, service: GameService, game_id: str) -> None:
    """Serve one game socket until the client leaves."""
    player = await known_player(service, socket.cookies)
    await socket.accept()
    try:
        game = await service.game_for(player, game_id)
    except GameActionError as exc:
        await socket.send_text(encode(error_reply(exc.code, exc.message, state=None)))
        await socket.close(NOT_FOUND_CLOSE)
        return
    connection = GameConnection(socket, service, game)
    await service.hub.follow(game.id, connection)  # before hello reads the state
    service.ensure_ai(game)  # its AI move may have been lost with another instance
    try:
        while True:
            frame = await socket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            raw = frame.get("text")
            if raw is None:
                raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
            await connection.handle(raw)
    except WebSocketDisconnect:
        pass
    finally:
        service.hub.unsubscribe(game.id, connection)
