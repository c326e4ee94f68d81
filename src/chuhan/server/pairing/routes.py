"""The seek socket ``/ws/seek`` (SPEC B1; docs/protocol.md, Seek socket).

Why a WebSocket rather than HTTP long-polling: a seek lives exactly as long as a page waits
for it. The socket's close (the tab closed, the phone asleep, the network gone) withdraws
the seek at once, so nobody is paired with a player who left; the pairing, the waiting
counts and a refusal reach the page the moment they happen, on any instance (the hub rings
the player's topic); and it speaks the messages and error replies of the other two sockets
(:mod:`..protocol`). ``GET /api/seeks/waiting`` gives the counts without a socket.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

from ..games.service import GameService, new_id
from ..http.connections import CLIENT_BLOCK
from ..http.identity import known_player, no_player
from ..hub.local import News
from ..protocol import (
    SEEK_MESSAGES,
    AckReply,
    CancelledNotice,
    PairedNotice,
    Ping,
    PongReply,
    SeekingNotice,
    SeekRequest,
    WaitingNotice,
    encode,
    error_reply,
)
from ..records import Player, SeekState, utcnow
from ..sockets.base import Connection
from .service import PairingService, seek_key

log = logging.getLogger("chuhan.pairing")
NO_PLAYER_CLOSE = 4404


def pairing_router(games: GameService) -> APIRouter:
    """The seek socket; the pairing beat starts and stops with the app (after the rooms,
    whose service it uses: ``app.state.rooms``)."""
    holder: dict[str, PairingService] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings = games.settings.rooms
        pairing = PairingService(app.state.rooms, settings.seeks_per_address)
        holder["service"] = pairing
        app.state.pairing = pairing
        pairing.start()
        yield
        await pairing.stop()

    router = APIRouter(lifespan=lifespan)

    @router.get("/api/seeks/waiting")
    async def waiting() -> dict[str, Any]:
        """B1: how many players wait for each variant (read at most every half second)."""
        return {"counts": await holder["service"].fresh_counts(max_age=0.5)}

    @router.websocket("/ws/seek")
    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        player = await known_player(games, websocket.cookies)
        if player is None:
            refused = no_player()
            await websocket.send_text(encode(error_reply(refused.code, refused.message)))
            await websocket.close(NO_PLAYER_CLOSE)
            return
        address = CLIENT_BLOCK.get() or (websocket.client.host if websocket.client else "")
        await SeekConnection(websocket, holder["service"], player, address).serve()

    return router


class SeekConnection(Connection):
    """One page waiting for a stranger: its seek, its notices; the seek ends with it."""

    messages = SEEK_MESSAGES

    def __init__(
        self, socket: WebSocket, pairing: PairingService, player: Player, address: str
    ) -> None:
        super().__init__(socket, pairing.games.settings.max_message_bytes)
        self.pairing = pairing
        self.player = player
        self.address = address
        self.connection = new_id("s")
        self.paired_room: str | None = None
        self.sought = False  # this socket sent a seek that was taken

    async def notify(self, key: str, seq: int, news: News | None = None) -> None:
        """The player's topic rang (paired, perhaps on another instance): read the seek."""
        try:
            state = await self.pairing.state(self.player)
            if state is not None and state.status == "paired":
                await self._tell(state)
        except Exception:
            log.debug("seek notify failed", exc_info=True)

    async def _tell(self, state: SeekState | None) -> None:
        if state is None:
            await self.send(CancelledNotice())
        elif state.status == "paired" and state.room_id is not None:
            if self.paired_room != state.room_id:
                self.paired_room = state.room_id
                await self.send(PairedNotice(room=state.room_id))
        else:
            waited = max(0.0, (utcnow() - state.since).total_seconds())
            await self.send(
                SeekingNotice(variant=state.variant, options=state.options, waited=round(waited, 1))
            )

    async def serve(self) -> None:
        hub = self.pairing.games.hub
        key = seek_key(self.player.id)
        await hub.follow(key, self)
        self.pairing.waiters.add(self)
        try:
            await self.send(WaitingNotice(counts=self.pairing.counts()))
            await super().serve()
        except (WebSocketDisconnect, RuntimeError):
            pass  # gone before its first notice
        finally:
            self.closed = True
            self.pairing.waiters.discard(self)
            hub.unsubscribe(key, self)
            # The page is gone: its seek goes with it (not another tab's).
            try:
                await self.pairing.cancel(self.player, self.connection)
            except Exception:
                log.warning("seek not withdrawn", exc_info=True)

    async def dispatch(self, message: Any) -> None:
        if isinstance(message, Ping):
            await self.send(PongReply(reply_to=message.id))
            return
        if isinstance(message, SeekRequest):
            state: SeekState | None = await self.pairing.seek(
                self.player, message.variant, message.options, self.connection, self.address
            )
            self.sought = True
        else:
            # Z7: only a socket that sought reaches the database to withdraw (a flood of
            # cancels from any other costs nothing); seeks are limited per address.
            state = await self.pairing.cancel(self.player) if self.sought else None
            self.sought = False
        await self.send(AckReply(reply_to=message.id))
        if state is None:  # withdrawn: the counts without this player, then "cancelled"
            await self.send(WaitingNotice(counts=await self.pairing.fresh_counts()))
        await self._tell(state)
        if state is not None and state.status == "waiting":
            counts = await self.pairing.fresh_counts(max_age=0.5)
            await self.send(WaitingNotice(counts=counts))
