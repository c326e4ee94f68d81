"""Between a room's games (SPEC R3, R4, R6, B1, B4): ready and the colours drawn, a
rematch offered and accepted, the janggi setup choice, a paired room's first game, and the
new game itself, made once the room names it.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable

from ...rules.janggi import SETUPS
from ..budget import Budget
from ..games import changes as rules_of
from ..games.service import new_id
from ..records import GameRecord, Player, RoomRecord
from ..rules_config import ClockRules
from . import rules
from .core import RoomCore, room_key
from .keeper import ClockKeeper
from .ratelimit import SeatLimiter
from .rules import RoomError
from .scoring import PAIR_WINDOW, PAIRED, unscored_reason

log = logging.getLogger("chuhan.rooms")

# B4: rematch offers, cancels and declines per seat: 10 a minute, one more every 6 s.
REMATCHES = Budget(10, 60.0)


class GameStarts:
    """How a room goes from no game (or a game over) to its next game."""

    def __init__(
        self,
        core: RoomCore,
        room_for: Callable[[Player, str], Awaitable[RoomRecord]],
        lag_of: Callable[[RoomRecord, int], float | None],
        keeper: ClockKeeper,
    ) -> None:
        self.core = core
        self.games = core.games
        self.room_for = room_for
        self.lag_of = lag_of
        self.keeper = keeper
        self.rematches = SeatLimiter(REMATCHES)

    @property
    def clock_rules(self) -> ClockRules:
        return self.core.settings.clock

    async def ready(self, player: Player, room_id: str) -> RoomRecord:
        """R3: the player is ready. With both ready, colours are drawn and the game (or the
        janggi setup choice) begins. Raises RoomError ``not_now`` during a game."""

        def press(room: RoomRecord, game_id: str, expected: str | None) -> RoomRecord | None:
            swap = bool(secrets.randbelow(2))
            return rules.press_ready(
                room,
                player.id,
                self.core.now(),
                self.clock_rules,
                swap=swap,
                game_id=game_id,
                expected_game_id=expected,
            )

        return await self._between_games_change(player, room_id, press)

    async def rematch(self, player: Player, room_id: str, action: str) -> RoomRecord:
        """B4: offer, accept, decline or cancel a rematch after a game; on acceptance the
        next game (or janggi setup choice) begins with the colours swapped. Raises RoomError
        ``not_now`` during a game, ``no_rematch`` or ``no_offer`` (:func:`.rules.rematch`),
        or ``too_many_rematches`` (with ``retry_after``) when the seat changed its offer too
        often: a flood of offers and cancels is refused before any read or write."""
        self.rematches.take_now(
            room_id,
            player.id,
            "too_many_rematches",
            "too many rematch offers and cancels; wait a little",
        )

        def decide(room: RoomRecord, game_id: str, expected: str | None) -> RoomRecord | None:
            return rules.rematch(
                room,
                player.id,
                action,
                self.core.now(),
                self.clock_rules,
                game_id=game_id,
                expected_game_id=expected,
            )

        return await self._between_games_change(player, room_id, decide)

    async def _between_games_change(
        self,
        player: Player,
        room_id: str,
        rule: Callable[[RoomRecord, str, str | None], RoomRecord | None],
    ) -> RoomRecord:
        """A change of the room between games (R3 ready, B4 rematch) by ``rule(room, new game
        id, the game the player saw)``; when it begins a game, the game is created and its
        clock kept. Raises RoomError ``not_now`` during a game, or the rule's refusal."""
        # As this instance knows the room and its game (its sockets hear of every change);
        # a refusal is believed only on a fresh read.
        current = self.core.known(room_id)
        if (
            current is None
            or current.seat_of(player.id) is None
            or not await self._between_games(current, fresh=False)
        ):
            current = await self.room_for(player, room_id)
            if not await self._between_games(current, fresh=True):
                raise RoomError("not_now", "a game is already in progress")
        game_id = new_id("g")
        moved_on = False  # the room, as last decided on, moved on since the player asked

        def decide(room: RoomRecord) -> RoomRecord | None:
            nonlocal moved_on
            moved_on = room.setup is not None or room.game_id != current.game_id
            return rule(room, game_id, current.game_id)

        # A room naming the new game is announced once the game exists (_create_game).
        room = await self.core.change_room(room_id, decide, lambda r: r.game_id != game_id)
        if moved_on and not await self._between_games(room, fresh=True):
            # The copy checked above was out of date: a game began meanwhile.
            raise RoomError("not_now", "a game is already in progress")
        started = room.game_id == game_id
        if started:
            await self._create_game(room, rules.GameStart(game_id))
        if room.setup is not None or started:
            self.keeper.keep_time(room.id, room=room)
        return room

    async def _between_games(self, room: RoomRecord, fresh: bool) -> bool:
        """No game or setup in progress in ``room``; its game as this instance knows it
        unless ``fresh`` (a game known to be over is over: the end is final)."""
        if room.setup is not None:
            return False
        if room.game_id is None:
            return True
        game = None if fresh else self.games.known.get(room.game_id)
        if game is None:
            game = await self.core.current_game(room)
        return game is None or not game.ongoing

    # ------------------------------------------------------------------ janggi setup (R4)

    async def choose_setup(self, player: Player, room_id: str, choice: str) -> RoomRecord:
        """R4, J3: Han chooses first, then Cho, seeing Han's choice; each within the turn
        time. Raises RoomError ``bad_request`` or ``not_your_turn``."""
        if choice not in SETUPS:
            raise RoomError("bad_request", f"setup must be one of {', '.join(SETUPS)}")
        return await self.setup_step(room_id, player.id, choice)

    async def setup_step(self, room_id: str, player_id: str | None, choice: str) -> RoomRecord:
        """Record a setup choice (``player_id`` None: the clock chose for the side to choose)."""
        game_id = new_id("g")
        start: rules.GameStart | None = None

        def decide(room: RoomRecord) -> RoomRecord | None:
            nonlocal start
            after, start = rules.choose_setup(
                room,
                player_id,
                choice,
                self.core.now(),
                self.clock_rules,
                game_id=game_id,
                lag_of_cho=self.lag_of(room, 0),
            )
            return after

        room = await self.core.change_room(
            room_id, decide, lambda r: start is None or r.game_id != start.game_id
        )
        if start is not None and room.game_id == start.game_id:
            await self._create_game(room, start)
        self.keeper.keep_time(room_id, room=room)
        return room

    # ------------------------------------------------------------------ the new game

    async def begin(self, room: RoomRecord) -> None:
        """A room stored with its game already drawn (a paired room, B1): the game is made
        (or, janggi, the setup choice announced) and its clock kept from now on (R3, R4)."""
        self.core.remember(room)
        if room.game_id is not None:
            await self._create_game(room, rules.GameStart(room.game_id))
        else:
            await self.games.hub.publish(room_key(room.id), room.version)
        self.keeper.keep_time(room.id, room=room)

    async def _create_game(self, room: RoomRecord, start: rules.GameStart) -> GameRecord:
        """The room's new game, its first turn's clock running (R3, R4); it scores nothing
        when its two players already scored too often against each other today (R6).

        The room naming the game is announced here, once the game exists (or could not be
        made): its sockets read the game when they hear of it."""
        try:
            game = await self._insert_game(room, start)
        finally:
            await self.games.hub.publish(room_key(room.id), room.version)
        log.info("room game started", extra={"room": room.id, "game": game.id})
        return game

    async def _insert_game(self, room: RoomRecord, start: rules.GameStart) -> GameRecord:
        sides = room.sides or []
        unscored = None
        if room.options.get("paired"):
            unscored = PAIRED  # B1: paired games are rated (B2), not scored
        elif len(set(sides)) == 2:
            recent = await self.core.db(
                self.games.store.scored_games_between,
                sides[0],
                sides[1],
                self.core.now() - PAIR_WINDOW,
            )
            unscored = unscored_reason(recent, self.core.settings.scored_games_per_pair)
        game = rules.new_game(
            room,
            start,
            self.core.now(),
            self.clock_rules,
            ttl_seconds=self.games.settings.game_ttl_seconds,
            lag_of_first=self.lag_of(room, 0),
            unscored=unscored,
        )
        start_event = rules_of.event("start")
        # S1: the players are stored with the game, so each one's online games can be listed.
        players = [(pid, side) for side, pid in enumerate(sides) if pid not in sides[:side]]
        await self.core.db(self.games.store.insert_game, game, [start_event], players)
        self.games.known.remember(game)  # its first move reads nothing
        return game
