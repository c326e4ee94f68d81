"""Online rooms: two seats, ready, random colours, server clocks, draw offers, presence.

SPEC R1–R8, Z1–Z4. A room's own facts (seats, readiness, the janggi setup choice, which
game is current) live in the ``rooms`` table and change by conditional updates on its
version (:mod:`.core`). A room's game is an ordinary game of the game service (kind
``"online"``, no owner): its moves, draw offers, clock and end go through
:meth:`GameService.apply`, i.e. a conditional update on the game's ``seq`` plus logged
events, so reconnecting clients catch up from the event log like in any other game and a
change is never applied twice.

:class:`RoomService` is what the routes call. It puts the parts together: the room rules as
pure functions (:mod:`.rules`, :mod:`.scoring`), the lobby and seats (:mod:`.lobby`),
presence (:mod:`.presence`), the clock keeper (:mod:`.keeper`), the instance registry
(:mod:`.instances`), the steps between games (:mod:`.starting`), a game's actions
(:mod:`.actions`) and what the clock does at a deadline (:mod:`.deadlines`). What is left
here is the room's seats and lifecycle: its parts wired together, started and stopped, and
leaving a room.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..db.instances import InstanceStore
from ..games import changes as rules_of
from ..games.service import GameService
from ..players.rating_service import Ratings
from ..records import SYSTEM_CLOCK, Change, Clock, GameRecord, Player, RoomRecord
from ..refusal import GameActionError
from ..rules_config import ClockRules
from ..settings import RoomSettings
from . import rules
from .actions import AbortListener, GameActions
from .core import RoomCore, room_key
from .deadlines import Deadlines
from .instances import InstanceRegistry
from .keeper import ClockKeeper
from .lobby import Lobby
from .presence import Presence
from .ratelimit import JoinLimiter
from .rules import RoomError
from .scoring import ONLINE_WIN_POINTS, costs_nothing, scored
from .starting import GameStarts

__all__ = [
    "ONLINE_WIN_POINTS",
    "RoomError",
    "RoomService",
    "RoomSettings",
    "room_key",
]


class RoomService:
    def __init__(
        self,
        games: GameService,
        settings: RoomSettings,
        clock: Clock = SYSTEM_CLOCK,
        ratings: Ratings | None = None,
    ) -> None:
        """``ratings``: the app's (``create_app``); a test's rooms without it rate with the
        game service's database, hub and settings."""
        self.games = games
        self.ratings = ratings or Ratings(games.db, games.hub, games.known, games.settings.ratings)
        self.settings = settings
        self.instance_id = secrets.token_hex(8)  # marks the seats its connections hold
        self.core = RoomCore(games, settings, self.instance_id, clock)
        self.store = self.core.store
        self.limiter = JoinLimiter(self.store, settings.limits)
        self.keeper = ClockKeeper(self.core, self._enforce, settings.heartbeat_seconds / 2)
        self.presence = Presence(self.core, self._apply, self.keeper.keep_time, self.news)
        self.lobby = Lobby(self.core, self.limiter)
        self.registry = InstanceRegistry(self.core, self.presence.settle, self.keeper.keep_time)
        self.instances: InstanceStore = self.registry.store
        self.actions = GameActions(
            self.core, self.ratings, self.room_for, self.presence.lag_of, self.keeper, self.news
        )
        self.starts = GameStarts(self.core, self.room_for, self.presence.lag_of, self.keeper)
        self.deadlines = Deadlines(self.core, self.presence, self.starts, self.actions, self.news)

    @property
    def on_abort(self) -> AbortListener | None:
        """The pairing service's (Z8): told when a paired game ends abandoned."""
        return self.actions.on_abort

    @on_abort.setter
    def on_abort(self, listener: AbortListener | None) -> None:
        self.actions.on_abort = listener

    @property
    def clock_rules(self) -> ClockRules:
        return self.settings.clock

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.games.db(fn, *args)

    # A crash, as tests stage it: stop deciding, then cancel the keepers and the heartbeat.
    @property
    def _closing(self) -> bool:
        return self.core.closing

    @_closing.setter
    def _closing(self, value: bool) -> None:
        self.core.closing = value

    @property
    def _keepers(self) -> dict[str, Any]:
        return self.keeper.tasks

    @property
    def _heartbeat(self) -> Any:
        return self.registry.heartbeat

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Join the live instances, then keep the clocks of every room with a game or setup
        in progress.

        Z4: when no instance was alive for a while (this server restarted after a crash or a
        stop), the clocks move by that time first, so it is charged to no one. R7: the seats
        held by connections of dead instances are no longer connected, so both players away
        is seen again and another device of a player takes their seat without asking.
        """
        await self.registry.join()
        for room in await self.db(self.store.active):
            self.keep_time(room.id)
        self.registry.recovered = True

    async def stop(self) -> None:
        """Stop the clock keepers; a restart will not charge the time down to anyone (Z4)."""
        self.core.closing = True
        heartbeat = self.registry.heartbeat
        if heartbeat is not None:
            heartbeat.cancel()
            await asyncio.gather(heartbeat, return_exceptions=True)
        await self.keeper.stop()
        await self.registry.leave()

    # ------------------------------------------------------------------ lobby (R1, R2, R8)

    async def create(
        self,
        player: Player,
        variant: str,
        bikjang: str,
        password: str | None,
        rules: str = "casual",
        address: str = "",
        clock: str | None = None,
    ) -> RoomRecord:
        return await self.lobby.create(player, variant, bikjang, password, rules, address, clock)

    async def join_by_password(self, player: Player, password: str, address: str) -> RoomRecord:
        return await self.lobby.join_by_password(player, password, address)

    async def join_by_invite(self, player: Player, invite: str) -> RoomRecord:
        return await self.lobby.join_by_invite(player, invite)

    async def take_seat(self, player: Player, room_id: str) -> RoomRecord:
        return await self.lobby.take_seat(player, room_id)

    async def room_for(self, player: Player, room_id: str) -> RoomRecord:
        return await self.lobby.room_for(player, room_id)

    async def read_room(self, room_id: str) -> RoomRecord | None:
        """The room as stored now (remembered for the next game action here)."""
        return await self.core.read_room(room_id)

    async def leave(self, player: Player, room_id: str) -> None:
        """R8: give up the seat (resigning a game in progress); the last one closes the room.
        B1: a paired game left before the player's own first move ends abandoned instead,
        costing nothing."""
        room = await self.room_for(player, room_id)
        game = await self.core.current_game(room)
        # Z8: leaving a paired janggi room during the setup choice is leaving it unbegun too.
        unbegun = room.setup is not None and room.side_of(player.id) is not None
        if game is not None and game.ongoing and room.side_of(player.id) is not None:

            def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change:
                nonlocal unbegun
                unbegun = costs_nothing(g, side)
                if unbegun:
                    return rules_of.abandon(g)
                return scored(rules_of.resign(g, side), room.sides)

            with contextlib.suppress(GameActionError):
                after = await self.actions.act(player, room_id, act)
                if unbegun:
                    await self.actions.aborted(room, after, player.id)
        await self.lobby.vacate(player, room_id)
        if game is None and unbegun:
            await self.actions.aborted(room, None, player.id)

    # ------------------------------------------------------------------ presence (R7)

    async def attach(self, player: Player, room_id: str, device: str, take: bool) -> bool:
        return await self.presence.attach(player, room_id, device, take)

    async def detach(self, player: Player, room_id: str, device: str) -> None:
        await self.presence.detach(player, room_id, device)

    def record_lag(self, room_id: str, player_id: str, one_way_seconds: float) -> None:
        self.presence.record_lag(room_id, player_id, one_way_seconds)

    def keep_time(
        self, room_id: str, game: GameRecord | None = None, room: RoomRecord | None = None
    ) -> None:
        self.keeper.keep_time(room_id, game, room)

    # ------------------------------------------------------------------ between games (R3, R4, B4)

    async def ready(self, player: Player, room_id: str) -> RoomRecord:
        return await self.starts.ready(player, room_id)

    async def rematch(self, player: Player, room_id: str, action: str) -> RoomRecord:
        return await self.starts.rematch(player, room_id, action)

    async def choose_setup(self, player: Player, room_id: str, choice: str) -> RoomRecord:
        return await self.starts.choose_setup(player, room_id, choice)

    async def begin(self, room: RoomRecord) -> None:
        await self.starts.begin(room)

    # ------------------------------------------------------------------ playing (R4, R5, R6, B8)

    async def move(self, player: Player, room_id: str, ply: int, text: str) -> GameRecord:
        return await self.actions.move(player, room_id, ply, text)

    async def offer_draw(self, player: Player, room_id: str) -> GameRecord:
        return await self.actions.offer_draw(player, room_id)

    async def accept_draw(self, player: Player, room_id: str) -> GameRecord:
        return await self.actions.accept_draw(player, room_id)

    async def resign(self, player: Player, room_id: str) -> GameRecord:
        return await self.actions.resign(player, room_id)

    async def say(self, player: Player, room_id: str, phrase: str) -> None:
        await self.actions.say(player, room_id, phrase)

    # ------------------------------------------------------------------ the clock's actions

    def news(self, room: RoomRecord) -> rules.NewsWatch | None:
        """R4, Z4: whether the players' moves cross between instances, and what those
        instances say of it; None when both seats are held on one instance (or away)."""
        return self.registry.news(room)

    # The keeper and presence are made before the parts they call (which use them in turn).
    async def _enforce(self, room: RoomRecord) -> None:
        await self.deadlines.enforce(room)

    async def _apply(
        self, room: RoomRecord, decide: Callable[[GameRecord], Change | None]
    ) -> GameRecord:
        return await self.actions.apply(room, decide)
