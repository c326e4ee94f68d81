"""The base of the three WebSockets (SPEC Z5, P5; docs/protocol.md): the game
socket (:mod:`.sockets.game`), the room socket (:mod:`.rooms.connection`) and the seek socket
(:mod:`.pairing.routes`) differ only in the messages they read and what they do with them.

:class:`Connection` reads frames until the socket closes, parses each into one message of
its socket's set and hands it to the subclass's :meth:`~Connection.dispatch`; a message that
cannot be read, an action refused and a bug each become one ``error`` reply (Z5). Every frame
goes out under one lock, so replies and events never interleave.

:class:`GameFollower` adds what both play sockets do with a game: its logged events rendered
for this connection's viewer (Z2), numbered by ``seq``, each sent once and in order; the news
of a change when it follows what was sent, else a read of the log (catch-up); and the replay
of what a reconnecting client missed, or the full state when that is more than
:data:`MAX_REPLAY` events (P5).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any, Generic, TypeVar

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..db.events import iter_events
from ..games import views
from ..games.service import GameService
from ..hub.local import News
from ..protocol.messages import (
    ClientMessage,
    MessageSet,
    ProtocolError,
    ServerModel,
    encode,
    error_reply,
    parse,
    state_event,
    type_of,
)
from ..records import GameRecord, StoredEvent
from ..refusal import GameActionError

log = logging.getLogger("chuhan.sockets")
# More missed events than this and a reconnecting client gets the full state instead: one
# message, rendered once, rather than hundreds (a long game re-opened after a night away).
MAX_REPLAY = 200
INTERNAL_ERROR = "the server could not handle this message"
M = TypeVar("M", bound=ClientMessage)


class Connection(Generic[M]):
    """One client's socket: its receive loop, its ordered sends, its error replies.

    A subclass names the messages it reads (:attr:`messages`) and implements
    :meth:`dispatch`; it may add fields to error replies (:meth:`refuse`)."""

    messages: MessageSet[M]

    def __init__(self, socket: WebSocket, max_message_bytes: int) -> None:
        self.socket = socket
        self.max_message_bytes = max_message_bytes
        self.closed = False  # the client left, or this side closed the socket
        self.close_code: int | None = None  # the code of the client's close frame
        self.log_fields: dict[str, Any] = {}  # what a failure's log line names (game, room)
        self._lock = asyncio.Lock()

    async def _send(self, message: ServerModel | dict[str, Any]) -> None:
        """Send one message; the caller holds the lock. A message is built from its model
        (a game event comes rendered as a dict by :mod:`.games.views`)."""
        if self.closed:
            return
        if isinstance(message, ServerModel):
            message = message.wire()
        await self.socket.send_text(encode(message))

    async def send(self, message: ServerModel | dict[str, Any]) -> None:
        """Send one message after whatever is being sent."""
        async with self._lock:
            await self._send(message)

    async def notice(self, message: dict[str, Any]) -> None:
        """A passing notice from the hub (``busy``; :class:`~.hub.local.Subscriber`)."""
        await self.send(message)

    async def serve(self) -> None:
        """Read the client's messages until it leaves or this side closes the socket."""
        try:
            while not self.closed:
                frame = await self.socket.receive()
                if frame["type"] == "websocket.disconnect":
                    self.close_code = frame.get("code")
                    break
                raw = frame.get("text")
                if raw is None:
                    raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
                await self.handle(raw)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the socket went away while it was read or written
        finally:
            self.closed = True

    async def handle(self, raw: str) -> None:
        """One frame: read it, dispatch it; any failure is answered, never fatal (Z5)."""
        try:
            message = parse(raw, self.max_message_bytes, self.messages)
        except ProtocolError as exc:
            await self.refuse(exc.code, exc.message, exc.reply_to)
            return
        try:
            await self.dispatch(message)
        except GameActionError as exc:  # the one refusal, with its fields (``retry_after``)
            await self.refuse(exc.code, exc.message, message.id, **exc.extra)
        except (WebSocketDisconnect, asyncio.CancelledError):
            raise
        except Exception:  # a bug must not take the connection down with it (SPEC Z5)
            log.exception(
                "socket message failed",
                extra={
                    "socket": self.messages.name,
                    "type": type_of(type(message)),
                    **self.log_fields,
                },
            )
            await self.refuse("internal", INTERNAL_ERROR, message.id)

    async def dispatch(self, message: M) -> None:
        """Act on one message of :attr:`messages` and send its reply (a ``match`` over the
        union, ending ``case _: assert_never(message)``: mypy proves it exhaustive)."""
        raise NotImplementedError

    async def refuse(self, code: str, text: str, reply_to: str | None, **fields: Any) -> None:
        """The error reply (the one shape, :func:`~.protocol.error_reply`)."""
        await self.send(error_reply(code, text, reply_to, **fields))


class GameFollower(Connection[M]):
    """A connection that sends one game's events (the game socket's game, the room's
    current game), each once and in order, rendered for its viewer (:meth:`viewer`)."""

    names_game = False  # the room socket: every event names its game (``game_id``)

    def __init__(self, socket: WebSocket, games: GameService) -> None:
        super().__init__(socket, games.settings.max_message_bytes)
        self.games = games
        self.game_id: str | None = None  # the game followed
        self.sent_seq: int | None = None  # its last event sent; None until the hello
        self._secret: tuple[str, dict[str, Any] | None] | None = None  # (game id, its secret)

    async def viewer(self) -> int | None:
        """This connection's side in the followed game (None: a local game, both sides)."""
        raise NotImplementedError

    async def notify(self, key: str, seq: int, news: News | None = None) -> None:
        """The followed game has events up to ``seq`` (negative: a resync, read whatever was
        missed); ``news``: what the change logged (:class:`~.hub.local.Subscriber`)."""
        if self.sent_seq is not None and 0 <= seq <= self.sent_seq:
            return
        async with self._lock:
            await self._catch_up(news)

    async def replay(self, game: GameRecord, last_seq: int | None, **state_fields: Any) -> bool:
        """P5: send what a client that holds ``game``'s events up to ``last_seq`` missed, or
        the full state when it holds none (None), is ahead of the game, or missed more than
        :data:`MAX_REPLAY` (``state_fields``: the state's ``reply_to``). ``game`` is read
        after this connection followed it: later news comes to :meth:`notify`. True when
        the missed events were replayed. The caller holds the lock."""
        if last_seq is None or last_seq > game.seq or game.seq - last_seq > MAX_REPLAY:
            state = await asyncio.to_thread(views.state_for, game, await self.viewer())
            if self.names_game:
                state_fields["game_id"] = game.id
            await self._send(state_event(game.seq, state, **state_fields))
            self.sent_seq = game.seq
            return False
        self.sent_seq = last_seq
        await self._catch_up()
        return True

    async def _catch_up(self, news: News | None = None) -> None:
        """Z2: every event of the followed game after ``sent_seq``, rendered for this viewer.

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
        store = self.games.store
        game = await self.games.db(store.game, game_id)
        if game is None or game.seq <= self.sent_seq:
            return
        events = await self.games.db(lambda: list(iter_events(store, game_id, self.sent_seq or 0)))
        await self._send_events(game, [e for e in events if e.seq <= game.seq])

    async def _with_secret(self, news: News) -> GameRecord:
        """The news' game with its secret (a jieqi arrangement, fixed for the whole game),
        which does not travel between instances: read from the database once per game."""
        if not news.withheld:
            return news.game
        if self._secret is None or self._secret[0] != news.game.id:
            stored = await self.games.db(self.games.store.game, news.game.id)
            self._secret = (news.game.id, stored.secret if stored is not None else None)
        return replace(news.game, secret=self._secret[1])

    async def _send_events(self, game: GameRecord, events: list[StoredEvent]) -> None:
        """``events`` (the last ones of ``game``), as this viewer receives them (Z2)."""
        if not events:
            return
        viewer = await self.viewer()
        for event in views.render_events(game, events, viewer):
            if self.names_game:
                event["game_id"] = game.id
            await self._send(event)
            self.sent_seq = event["seq"]
