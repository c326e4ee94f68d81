"""The seek socket ``/ws/seek`` (SPEC B1; docs/protocol.md, Seek socket).

Why a WebSocket rather than HTTP long-polling: a seek lives exactly as long as a page waits
for it. The socket's close (the tab closed, the phone asleep, the network gone) withdraws
the seek at once, so nobody is paired with a player who left; the pairing, the waiting
counts and a refusal reach the page the moment they happen, on any instance (the hub rings
the player's topic); and it speaks the messages and error replies of the other two sockets
(:mod:`..protocol`). ``GET /api/seeks/waiting`` gives the counts without a socket.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, assert_never

from fastapi import APIRouter, Request, WebSocket
from starlette.websockets import WebSocketDisconnect

from ..addresses import CLIENT_BLOCK
from ..games.service import new_id
from ..hub.local import News
from ..identity import known_player, no_player
from ..players.service import Players
from ..protocol.messages import (
    SEEK_MESSAGES,
    AckReply,
    CancelledNotice,
    CancelSeek,
    PairedNotice,
    Ping,
    PongReply,
    SeekingNotice,
    SeekMessage,
    SeekRequest,
    encode,
    error_reply,
)
from ..records import Player, SeekState, utcnow
from ..sockets.base import Connection
from .rules import wish
from .service import PairingService, seek_key

log = logging.getLogger("chuhan.pairing")
NO_PLAYER_CLOSE = 4404


def pairing_router(pairing: PairingService, players: Players) -> APIRouter:
    """The seek socket and the waiting counts on ``pairing`` (its beat started and stopped
    by the app, ``create_app``)."""
    router = APIRouter()

    @router.get("/api/seeks/waiting")
    async def waiting(request: Request) -> dict[str, Any]:
        """B1: how many players wait for each variant and each pool (read at most every
        half second), not counting the asking player; ``seek``: their own waiting seek
        (another tab's), so that every tab shows it."""
        player = await known_player(players, request.cookies)
        state = await pairing.state(player) if player is not None else None
        mine = state if state is not None and state.status == "waiting" else None
        own = wish(mine.variant, mine.options).pool if mine is not None else None
        counts = (await pairing.fresh_counts(max_age=0.5, own_pool=own)).wire()
        seek = None
        if mine is not None:
            seek = {"variant": mine.variant, "options": mine.options, "waited": waited(mine)}
        return {"counts": counts["counts"], "pools": counts["pools"], "seek": seek}

    @router.websocket("/ws/seek")
    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        player = await known_player(players, websocket.cookies)
        if player is None:
            refused = no_player()
            await websocket.send_text(encode(error_reply(refused.code, refused.message)))
            await websocket.close(NO_PLAYER_CLOSE)
            return
        # The client's own address (as a trusted proxy forwarded it): its block and, IPv6,
        # its /48 pay for aborts (Z8).
        address = websocket.client.host if websocket.client else CLIENT_BLOCK.get()
        await SeekConnection(websocket, pairing, player, address).serve()

    return router


def waited(state: SeekState) -> float:
    """Seconds since the seek began, to a tenth."""
    return round(max(0.0, (utcnow() - state.since).total_seconds()), 1)


class SeekConnection(Connection[SeekMessage]):
    """One page waiting for a stranger: its seek, its notices; the seek ends with it.

    Every tab of the player shows the one seek (issue: a second tab's seek replaced the
    first's while the first still showed its own): a socket is told the seek there is when
    it opens and whenever another tab changes it (the player's topic rings), and a socket
    shown a seek may cancel it. The socket holding the seek must keep answering (pings every
    ``heartbeat`` seconds): silent, its seek is withdrawn (:meth:`PairingService.beat`)."""

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
        self.heard = time.monotonic()  # when the page last said anything
        self.own_pool: str | None = None  # the pool of the seek this page shows
        self._shown: tuple[str, str] | None = None  # (variant, options) of the seek shown

    @property
    def holds(self) -> bool:
        """This socket sent the player's seek (its silence withdraws it)."""
        return self.sought

    async def handle(self, raw: str) -> None:
        self.heard = time.monotonic()
        await super().handle(raw)

    async def notify(self, key: str, seq: int, news: News | None = None) -> None:
        """The player's topic rang (paired, perhaps on another instance; or another tab
        sought or cancelled): read the seek and show it, if it changed."""
        try:
            await self._tell(await self.pairing.state(self.player), again=False)
        except Exception:
            log.debug("seek notify failed", exc_info=True)

    async def _tell(self, state: SeekState | None, again: bool = True) -> None:
        """Show ``state``; not ``again``: only what this page does not show already."""
        if state is None:
            if again or self._shown is not None:
                self._shown, self.own_pool = None, None
                self.sought = False
                await self.send(CancelledNotice())
        elif state.status == "paired" and state.room_id is not None:
            self._shown, self.own_pool = None, None
            if self.paired_room != state.room_id:
                self.paired_room = state.room_id
                await self.send(PairedNotice(room=state.room_id))
        else:
            shown = (state.variant, json.dumps(state.options, sort_keys=True))
            if not again and shown == self._shown:
                return
            self._shown = shown
            self.own_pool = wish(state.variant, state.options).pool
            await self.send(
                SeekingNotice(
                    variant=state.variant,
                    options=state.options,
                    waited=waited(state),
                    heartbeat=self.pairing.heartbeat_seconds,
                )
            )

    async def serve(self) -> None:
        hub = self.pairing.games.hub
        key = seek_key(self.player.id)
        await hub.follow(key, self)
        self.pairing.waiters.add(self)
        try:
            state = await self.pairing.state(self.player)
            if state is not None and state.status == "waiting":
                await self._tell(state)  # another tab's seek: this page shows it too
            await self.send(self.pairing.counts(self.own_pool))
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

    async def dispatch(self, message: SeekMessage) -> None:
        state: SeekState | None
        match message:
            case Ping():
                await self.send(PongReply(reply_to=message.id))
                return
            case SeekRequest():
                state = await self.pairing.seek(
                    self.player, message.variant, message.options, self.connection, self.address
                )
                self.sought = True
            case CancelSeek():
                # Z7: only a socket that sought, or was shown a seek, reaches the database to
                # withdraw, once (a flood of cancels costs nothing more); seeks are limited per
                # address.
                if not (self.sought or self._shown is not None):
                    await self.send(AckReply(reply_to=message.id))
                    return
                self._shown = None  # this answer says "cancelled", not the topic's ring too
                state = await self.pairing.cancel(self.player)
                self.sought = False
            case _:
                assert_never(message)
        await self.send(AckReply(reply_to=message.id))
        if state is None:  # withdrawn: the counts without this player, then "cancelled"
            self.own_pool = None
            await self.send(await self.pairing.fresh_counts())
        await self._tell(state)
        if state is not None and state.status == "waiting":
            counts = await self.pairing.fresh_counts(max_age=0.5, own_pool=self.own_pool)
            await self.send(counts)
