"""The clock keeper: one task per room sleeps until the room's next deadline (SPEC R4, R7).

Deadlines are data (the game's ``options["clock"]``, the room's janggi ``setup``); a keeper
only compares them with the time and, when one has passed, calls ``enforce``, which applies
the clock's decision through the same conditional update as a move. Whichever instance sees
a deadline first flags; the others find the game already over and do nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from ..background import cancel_all, release
from ..records import GameRecord, RoomRecord
from . import clocks
from .core import RoomCore

log = logging.getLogger("chuhan.rooms")


class ClockKeeper:
    def __init__(
        self,
        core: RoomCore,
        enforce: Callable[[RoomRecord], Awaitable[None]],
        poll_seconds: float = 0.5,
    ) -> None:
        self.core = core
        self.enforce = enforce
        # A moment passed and nothing was decided (the clock waits for news to cross, Z4):
        # look again this often.
        self.poll_seconds = poll_seconds
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._wake: dict[str, asyncio.Event] = {}
        # What the next wake of a room's keeper knows: the game just committed here, or
        # None when something else changed and the room must be read again.
        self._hints: dict[str, GameRecord | None] = {}
        # Or the room as a socket here just heard of it (its game as this instance knows it).
        self._rooms: dict[str, RoomRecord] = {}

    def keep_time(
        self, room_id: str, game: GameRecord | None = None, room: RoomRecord | None = None
    ) -> None:
        """Make sure a task watches the room's deadlines (idempotent).

        ``game``: the room's game as just committed here; its clock gives the next moment
        without reading the room and the game again. ``room``: the room as just announced
        (or read) here; the next moment comes from it and its game as this instance knows
        it (``games/known.py``). Without either, the keeper reads both. A copy out of date gives
        a moment too early, never too late (a move, a pause, a credit only move a deadline
        later; an end or a new game is announced to the room's sockets): when it comes, the
        keeper decides on a fresh read.
        """
        if self.core.closing:
            return
        known = room_id not in self._hints or self._hints[room_id] is not None
        self._hints[room_id] = game if game is not None and game.ongoing and known else None
        if game is None and room is not None and room.id == room_id:
            self._rooms[room_id] = room
        else:
            self._rooms.pop(room_id, None)
        task = self.tasks.get(room_id)
        if task is not None and not task.done():
            wake = self._wake.get(room_id)
            if wake is not None:
                wake.set()
            return
        self._wake.setdefault(room_id, asyncio.Event())
        self.tasks[room_id] = asyncio.get_running_loop().create_task(self._keep(room_id))

    async def stop(self) -> None:
        await cancel_all(self.tasks.values())

    async def _keep(self, room_id: str) -> None:
        wake = self._wake[room_id]
        room: RoomRecord | None = None  # as last read
        enforced: datetime | None = None  # the moment last enforced
        try:
            while not self.core.closing:
                wake.clear()
                hint = self._hints.pop(room_id, None)
                heard = self._rooms.pop(room_id, None)
                if (
                    room is not None
                    and hint is not None
                    and hint.id == room.game_id
                    and room.setup is None
                ):
                    moment: datetime | None = clocks.due(hint.options["clock"])[0]
                else:
                    room = heard or await self.core.read_room(room_id)
                    if room is None or not room.is_open:
                        return
                    moment = await self._next_moment(room, known=heard is not None)
                if moment is None:
                    return
                if moment == enforced:  # still due: enforcing it decided nothing
                    enforced, room = None, None
                    await _wait(wake, self.poll_seconds)
                    continue
                delay = (moment - self.core.now()).total_seconds()
                if delay > 0:
                    if not await _wait(wake, delay):
                        room = None  # the moment came: decide on a fresh read
                    continue
                await self.enforce(room)
                enforced, room = moment, None
        except Exception:  # a cancel (stop) is a BaseException and passes through
            log.exception("room clock failed", extra={"room": room_id})
        finally:
            if release(self.tasks, room_id):
                self._hints.pop(room_id, None)
                self._rooms.pop(room_id, None)

    async def _next_moment(self, room: RoomRecord, known: bool = False) -> datetime | None:
        """The room's next deadline; its game as this instance knows it if ``known``."""
        if room.setup is not None:
            return clocks.due(room.setup)[0]
        game = None
        if known and room.game_id is not None:
            game = self.core.games.known.get(room.game_id)
        if game is None:
            game = await self.core.current_game(room)
        if game is None or not game.ongoing:
            return None
        return clocks.due(game.options["clock"])[0]


async def _wait(wake: asyncio.Event, seconds: float) -> bool:
    """Wait for ``wake`` at most ``seconds``; True when it was set. A timer, not the task
    ``asyncio.wait_for`` makes on each call: every move wakes its room's keeper."""
    try:
        async with asyncio.timeout(seconds):
            await wake.wait()
    except TimeoutError:
        return False
    return True
