"""The game WebSocket ``/ws/games/{id}`` (SPEC Z1, Z4, Z5, P5; docs/protocol.md).

One :class:`GameConnection` per socket; the loop, the replay and the catch-up are the base's
(:mod:`.sockets.base`). Replies (``ack``, ``error``, ``hint``, ``pong``) carry the client's message
id; events come from the game's log, rendered for this connection's viewer, numbered by
``seq``, each sent once and in order.
"""

from __future__ import annotations

import asyncio
from typing import Any, assert_never

from starlette.websockets import WebSocket

from ..games import views
from ..games.service import GameService
from ..protocol.messages import (
    GAME_MESSAGES,
    AckReply,
    DrawOffer,
    GameMessage,
    Hello,
    Hint,
    HintReply,
    Move,
    Ping,
    PongReply,
    Resign,
    Undo,
    encode,
    error_reply,
)
from ..records import GameRecord, Player
from ..refusal import GameActionError
from .base import GameFollower

NOT_FOUND_CLOSE = 4404


class GameConnection(GameFollower[GameMessage]):
    """A player's socket on one of their games."""

    messages = GAME_MESSAGES

    def __init__(self, socket: WebSocket, service: GameService, game: GameRecord) -> None:
        super().__init__(socket, service)
        self.game_id = game.id
        self.side = views.viewer_of(game)
        self.log_fields = {"game": game.id}

    async def viewer(self) -> int | None:
        return self.side

    async def _game(self) -> GameRecord:
        """The game as it is now (refused with ``not_found`` once it is gone)."""
        assert self.game_id is not None  # set for the connection's whole life
        return await self.games.current_game(self.game_id)

    async def refuse(self, code: str, text: str, reply_to: str | None, **fields: Any) -> None:
        """A refusal carries the state as it is now: the client adopts it (a stale move)."""
        state = None
        game = await self.games.db(self.games.store.game, self.game_id)
        if game is not None:
            state = await asyncio.to_thread(views.state_for, game, self.side)
        await super().refuse(code, text, reply_to, **{"state": state, **fields})

    async def hello(self, message: Hello) -> None:
        """Resend what the client missed since ``last_seq`` and acknowledge, or answer with
        the full state (SPEC P5)."""
        game = await self._game()
        self.games.ensure_ai(game)  # after a failed AI attempt, a reconnect tries again
        async with self._lock:
            if await self.replay(game, message.last_seq, reply_to=message.id):
                await self._send(AckReply(reply_to=message.id, last_seq=self.sent_seq))

    async def dispatch(self, message: GameMessage) -> None:
        games = self.games
        match message:
            case Ping():
                await self.send(PongReply(reply_to=message.id))
                return
            case Hello():
                await self.hello(message)
                return
        game = await self._game()
        if self.sent_seq is None:  # no hello yet: events start from here
            self.sent_seq = game.seq
        match message:
            case Move():
                _, ply = await games.move(game, message.ply, message.move)
                await self.send(AckReply(reply_to=message.id, ply=ply))
            case Undo():
                await games.undo(game)
                await self.send(AckReply(reply_to=message.id))
            case Resign():
                await games.resign(game)
                await self.send(AckReply(reply_to=message.id))
            case DrawOffer():
                await games.offer_draw(game)
                await self.send(AckReply(reply_to=message.id))
            case Hint():
                move = await games.hint(game)
                await self.send(HintReply(reply_to=message.id, move=move))
            case _:
                assert_never(message)
        # Events the change produced reached this socket through the hub, like any other.


async def game_socket(
    socket: WebSocket, service: GameService, player: Player | None, game_id: str
) -> None:
    """Serve one game socket of ``player`` (the cookie's, None: unknown) until the client
    leaves."""
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
        await connection.serve()
    finally:
        service.hub.unsubscribe(game.id, connection)
