"""What the clock does when a deadline passes (SPEC R4, R7, Z1, Z4): the janggi setup chosen
for the side that did not choose, a flag, an interruption. The clock keeper
(:mod:`.keeper`) calls :meth:`Deadlines.enforce` when a room's deadline has come; whichever
instance sees it first decides, through the same conditional update as a move.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..records import Change, GameRecord, RoomRecord
from ..refusal import GameActionError
from . import rules
from .actions import GameActions
from .core import RoomCore
from .presence import Presence
from .rules import JANGGI_DEFAULT_SETUP
from .starting import GameStarts

log = logging.getLogger("chuhan.rooms")


class Deadlines:
    def __init__(
        self,
        core: RoomCore,
        presence: Presence,
        starts: GameStarts,
        actions: GameActions,
        news: Callable[[RoomRecord], rules.NewsWatch | None],
    ) -> None:
        self.core = core
        self.presence = presence
        self.starts = starts
        self.actions = actions
        self.news = news

    async def enforce(self, room: RoomRecord) -> None:
        """Whatever is due now: a setup chosen by the clock, a flag, an interruption."""
        try:
            if room.setup is not None:
                # A wait only while both are away (R7).
                await self.presence.settle_setup(room.id)
                await self.starts.setup_step(room.id, None, JANGGI_DEFAULT_SETUP)
                return
            # A pause is only honoured while both players are really away (R7).
            fresh = await self.core.read_room(room.id) or room
            await self.presence.settle(fresh)
            news = self.news(fresh)
            ended = False

            def decide(g: GameRecord) -> Change | None:
                nonlocal ended
                change = rules.overdue(g, room.sides, self.core.now(), news) if g.ongoing else None
                ended = change is not None and not change.after.ongoing
                return change

            after = await self.actions.apply(room, decide)
            if ended:
                await self.actions.aborted(room, after, self.actions.mover(room, after))
        except GameActionError as exc:
            log.info("clock action refused", extra={"room": room.id, "code": exc.code})
