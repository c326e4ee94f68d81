"""What every part of the room service shares: the games, the rooms' storage, the settings.

A room's own facts change by :meth:`RoomCore.change_room`: read, decide (a pure function of
the room as read, :mod:`.rules`), store conditionally on the room's version, announce on the
room's hub topic; a change computed from a stale copy is decided again on a fresh read.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from ..db.rooms import RoomStore
from ..games.known import CHANGE_RETRIES, decide_and_commit
from ..records import SYSTEM_CLOCK, Clock, GameRecord, RoomRecord, StaleRoomError
from .rules import RoomError

if TYPE_CHECKING:
    from ..games.service import GameService
    from ..hub.local import Hub
    from ..settings import RoomSettings

RETRIES = CHANGE_RETRIES
KNOWN_ROOMS = 32_768  # rooms remembered per instance (each followed by its sockets)


def room_key(room_id: str) -> str:
    """The hub topic of a room's own changes (its games have their own topics)."""
    return f"room:{room_id}"


class RoomCore:
    def __init__(
        self,
        games: GameService,
        settings: RoomSettings,
        instance_id: str,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.games = games
        # Where every room decision reads the time (deadlines, presence, heartbeats): a
        # test hands in a ManualClock and moves it instead of sleeping.
        self.clock = clock
        self.settings = settings
        self.store = RoomStore(games.store)
        self.instance_id = instance_id  # marks the seats its connections hold (R7)
        self.closing = False
        # Each room as last read or stored here. A socket of the room on this instance
        # reads it again on every change announced (from any instance), so a game action
        # may start from it without a read (and reads once more if it was out of date).
        self._known: OrderedDict[str, RoomRecord] = OrderedDict()

    def now(self) -> datetime:
        return self.clock.now()

    @property
    def hub(self) -> Hub:
        return self.games.hub

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.games.db(fn, *args)

    def remember(self, room: RoomRecord) -> None:
        known = self._known.get(room.id)
        if known is not None and known.version > room.version:
            return
        self._known[room.id] = room
        self._known.move_to_end(room.id)
        while len(self._known) > KNOWN_ROOMS:
            self._known.popitem(last=False)

    def known(self, room_id: str) -> RoomRecord | None:
        """The room as this instance last read or stored it (perhaps out of date)."""
        return self._known.get(room_id)

    async def read_room(self, room_id: str) -> RoomRecord | None:
        """The room as stored now (remembered)."""
        room: RoomRecord | None = await self.db(self.store.get, room_id)
        if room is not None:
            self.remember(room)
        return room

    async def current_game(self, room: RoomRecord) -> GameRecord | None:
        if room.game_id is None:
            return None
        game: GameRecord | None = await self.db(self.games.store.game, room.game_id)
        return game

    async def change_room(
        self,
        room_id: str,
        decide: Callable[[RoomRecord], RoomRecord | None],
        announce: Callable[[RoomRecord], bool] = lambda stored: True,
    ) -> RoomRecord:
        """Decide, store conditionally, announce; retried on a concurrent change.

        The first decision starts from the room as this instance knows it (no read: its
        sockets hear of every change); a change decided on an out-of-date copy is refused
        by the conditional update, and a refusal or a "nothing to do" decided on a copy is
        decided again on a fresh read before it counts (like a game's, ``games/known.py``).

        ``announce(stored)`` False: the caller announces the change itself (a room that
        names a game being created is announced once the game exists).

        Returns the room as stored (as read when ``decide`` changed nothing). Raises
        RoomError ``not_found``, ``busy`` or ``decide``'s own refusal."""

        async def commit(room: RoomRecord, after: RoomRecord) -> RoomRecord | None:
            try:
                stored: RoomRecord = await self.db(self.store.replace, room, after)
            except StaleRoomError:
                return None
            return stored

        room, stored = await decide_and_commit(
            partial(self.known, room_id),
            partial(self.read_room, room_id),
            decide,
            commit,
            RoomError,
            "room",
        )
        if stored is None:
            return room
        self.remember(stored)
        if announce(stored):
            await self.hub.publish(room_key(room_id), stored.version)
        return stored
