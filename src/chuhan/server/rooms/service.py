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
presence (:mod:`.presence`), the clock keeper (:mod:`.keeper`) and the instance registry
(:mod:`.instances`); what is left here is a room game's actions, each a read, a rule, and a
conditional update.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from ...rules.janggi import SETUPS
from ..budget import Budget, LimitExceeded
from ..db.instances import InstanceStore
from ..games import changes as rules_of
from ..games.service import GameService, new_id
from ..players.rating_service import Ratings
from ..records import SYSTEM_CLOCK, Change, Clock, GameRecord, Player, RoomRecord
from ..refusal import GameActionError
from ..rules_config import ClockRules
from ..settings import RoomSettings
from . import rules
from .core import RoomCore, room_key
from .instances import InstanceRegistry
from .keeper import ClockKeeper
from .lobby import Lobby
from .presence import Presence
from .ratelimit import JoinLimiter, SeatLimiter
from .rules import JANGGI_DEFAULT_SETUP, RoomError
from .scoring import (
    ONLINE_WIN_POINTS,
    PAIR_WINDOW,
    PAIRED,
    costs_nothing,
    scored,
    unscored_reason,
)

__all__ = [
    "ONLINE_WIN_POINTS",
    "RoomError",
    "RoomService",
    "RoomSettings",
    "room_key",
]

log = logging.getLogger("chuhan.rooms")

# A game action: the game as read, the room, the player's side, the moment.
Action = Callable[[GameRecord, RoomRecord, int, datetime], Change | None]
# Z8: told when a paired game ends abandoned: the room, and who left it unbegun.
AbortListener = Callable[[RoomRecord, str], Awaitable[None]]
# B4: rematch offers, cancels and declines per seat: 10 a minute, one more every 6 s.
REMATCHES = Budget(10, 60.0)
# B8: quick messages per seat: 5 at once, then one every 4 s (a word, not a flood).
QUICK_MESSAGES = Budget(5, 20.0)


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
        self.rematches = SeatLimiter(REMATCHES)
        self.quick_messages = SeatLimiter(QUICK_MESSAGES)
        self.on_abort: AbortListener | None = None  # the pairing service's (Z8)

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
                after = await self._act(player, room_id, act)
                if unbegun:
                    await self._aborted(room, after, player.id)
        await self.lobby.vacate(player, room_id)
        if game is None and unbegun:
            await self._aborted(room, None, player.id)

    async def _aborted(
        self, room: RoomRecord, game: GameRecord | None, player_id: str | None
    ) -> None:
        """Z8: a paired game ``player_id`` left (or let run out) before their first move
        ended abandoned (``game`` None: left during the janggi setup choice): the pairing
        makes them pay for it."""
        reason = (game.result or {}).get("reason") if game is not None else "abandoned"
        if not room.options.get("paired") or reason != "abandoned" or player_id is None:
            return
        if self.on_abort is not None:
            try:
                await self.on_abort(room, player_id)
            except Exception:
                log.exception("abort not recorded", extra={"room": room.id})

    def _mover(self, room: RoomRecord, game: GameRecord) -> str | None:
        """The player whose turn it is in ``game`` (the one a flag falls on)."""
        sides = room.sides or []
        side = rules_of.turn_of(game)
        return sides[side] if side < len(sides) else None

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

    # ------------------------------------------------------------------ ready, colours (R3)

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
        _take(
            self.rematches,
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

    async def say(self, player: Player, room_id: str, phrase: str) -> None:
        """B8: a quick message (an id of :data:`..protocol.QUICK_MESSAGES`) to both seats'
        sockets, on any instance, as a passing notice: nothing is stored. Raises RoomError
        ``too_many_messages`` (with ``retry_after``) past the seat's budget, before anything
        is sent."""
        _take(
            self.quick_messages,
            room_id,
            player.id,
            "too_many_messages",
            "too many quick messages; wait a little",
        )
        said = {"type": "said", "phrase": phrase, "player": player.id}  # each socket: ``you``
        await self.games.hub.notice(room_key(room_id), said)

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
            self.keep_time(room.id, room=room)
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
        return await self._setup_step(room_id, player.id, choice)

    async def _setup_step(self, room_id: str, player_id: str | None, choice: str) -> RoomRecord:
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
                lag_of_cho=self.presence.lag_of(room, 0),
            )
            return after

        room = await self.core.change_room(
            room_id, decide, lambda r: start is None or r.game_id != start.game_id
        )
        if start is not None and room.game_id == start.game_id:
            await self._create_game(room, start)
        self.keep_time(room_id, room=room)
        return room

    async def begin(self, room: RoomRecord) -> None:
        """A room stored with its game already drawn (a paired room, B1): the game is made
        (or, janggi, the setup choice announced) and its clock kept from now on (R3, R4)."""
        self.core.remember(room)
        if room.game_id is not None:
            await self._create_game(room, rules.GameStart(room.game_id))
        else:
            await self.games.hub.publish(room_key(room.id), room.version)
        self.keep_time(room.id, room=room)

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
            recent = await self.db(
                self.games.store.scored_games_between,
                sides[0],
                sides[1],
                self.core.now() - PAIR_WINDOW,
            )
            unscored = unscored_reason(recent, self.settings.scored_games_per_pair)
        game = rules.new_game(
            room,
            start,
            self.core.now(),
            self.clock_rules,
            ttl_seconds=self.games.settings.game_ttl_seconds,
            lag_of_first=self.presence.lag_of(room, 0),
            unscored=unscored,
        )
        start_event = rules_of.event("start")
        # S1: the players are stored with the game, so each one's online games can be listed.
        players = [(pid, side) for side, pid in enumerate(sides) if pid not in sides[:side]]
        await self.db(self.games.store.insert_game, game, [start_event], players)
        self.games.known.remember(game)  # its first move reads nothing
        return game

    # ------------------------------------------------------------------ playing (R4, R5, R6)

    async def move(self, player: Player, room_id: str, ply: int, text: str) -> GameRecord:
        """Play the player's move (Z1). Refused after the deadline: the clock flags instead."""

        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change | None:
            change = rules_of.play_move(g, ply, text, side)
            if change is None:
                return None
            lag = self.presence.lag_of(room, 1 - side)
            return rules.after_move(change, room.sides, side, now, self.clock_rules, lag)

        return await self._act(player, room_id, act)

    async def offer_draw(self, player: Player, room_id: str) -> GameRecord:
        """R5: only on your turn, 10 half-moves after your last offer; the clock runs on."""
        return await self._act(
            player, room_id, lambda g, room, side, now: rules.offer_draw(g, side)
        )

    async def accept_draw(self, player: Player, room_id: str) -> GameRecord:
        """R5: the recipient accepts the open offer on their turn: a draw, no points."""
        return await self._act(
            player, room_id, lambda g, room, side, now: rules.accept_draw(g, side)
        )

    async def resign(self, player: Player, room_id: str) -> GameRecord:
        """The player's side loses; the opponent scores (R6)."""

        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change:
            return scored(rules_of.resign(g, side), room.sides)

        return await self._act(player, room_id, act)

    async def _act(self, player: Player, room_id: str, act: Action) -> GameRecord:
        """Apply a player's game action, unless their time already ran out (Z1).

        It starts from the room as this instance knows it (no read: its sockets read every
        change), and once more from a fresh read if that was out of date (a new game).
        Raises GameActionError ``not_now`` (no game), ``game_over``, ``time_out`` or the
        action's own refusal.
        """
        known = self.core.known(room_id)
        if known is not None and known.seat_of(player.id) is not None:
            try:
                return await self._act_in(known, player, act)
            except RoomError as exc:
                if exc.code not in ("not_now", "game_over"):
                    raise
        return await self._act_in(await self.room_for(player, room_id), player, act)

    async def _act_in(self, room: RoomRecord, player: Player, act: Action) -> GameRecord:
        side = room.side_of(player.id)
        if room.game_id is None or side is None or room.setup is not None:
            raise RoomError("not_now", "no game is in progress in this room")
        flagged = False
        news = self.news(room)

        def decide(g: GameRecord) -> Change | None:
            nonlocal flagged
            flagged = False  # decided again (an out-of-date copy): only the last one counts
            if not g.ongoing:
                raise RoomError("game_over", "the game is over")
            now = self.core.now()
            # Acting on their turn, the player has seen the move: an outage of the news so
            # far is added to the deadline (Z4), there is nothing more to wait for.
            decided = rules.overdue(g, room.sides, now, news, sure=False)
            if decided is None:
                return act(g, room, side, now)
            if decided.after.ongoing:
                return rules.chained(decided, lambda credited: act(credited, room, side, now))
            flagged = True
            return decided

        after = await self._apply(room, decide)
        if flagged:
            await self._aborted(room, after, self._mover(room, after))
            raise RoomError("time_out", "the time for this turn ran out")
        return after

    async def _apply(
        self, room: RoomRecord, decide: Callable[[GameRecord], Change | None]
    ) -> GameRecord:
        assert room.game_id is not None
        after = await self.games.apply(room.game_id, decide)
        # Any instance that changes a room's game keeps its time from then on (scale-out).
        self.keep_time(room.id, after)
        if not after.ongoing:
            after = await self.ratings.settle(after)  # B2: a paired game rates once
        return after

    # ------------------------------------------------------------------ the clock's actions

    def news(self, room: RoomRecord) -> rules.NewsWatch | None:
        """R4, Z4: whether the players' moves cross between instances, and what those
        instances say of it; None when both seats are held on one instance (or away)."""
        return self.registry.news(room)

    async def _enforce(self, room: RoomRecord) -> None:
        """Whatever is due now: a setup chosen by the clock, a flag, an interruption."""
        try:
            if room.setup is not None:
                # A wait only while both are away (R7).
                await self.presence.settle_setup(room.id)
                await self._setup_step(room.id, None, JANGGI_DEFAULT_SETUP)
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

            after = await self._apply(room, decide)
            if ended:
                await self._aborted(room, after, self._mover(room, after))
        except GameActionError as exc:
            log.info("clock action refused", extra={"room": room.id, "code": exc.code})


def _take(limiter: SeatLimiter, room_id: str, player_id: str, code: str, message: str) -> None:
    """One change of the seat from ``limiter``'s budget now (B4, B8). Raises RoomError
    ``code`` (with ``retry_after``, whole seconds, at least 1) when the budget is spent."""
    try:
        limiter.take(room_id, player_id, time.monotonic())
    except LimitExceeded as exc:
        raise RoomError(code, message, retry_after=max(1, round(exc.retry_after))) from None
