"""A room game's actions (SPEC R4, R5, R6, Z1, B8): moves, draw offers, resigning and quick
messages, each a read, a rule (:mod:`.rules`), and a conditional update of the game through
:meth:`GameService.apply`; and what follows a game's end (its rating, B2, and a paired game
left unbegun, Z8).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from ..budget import Budget
from ..games import changes as rules_of
from ..players.rating_service import Ratings
from ..records import Change, GameRecord, Player, RoomRecord
from . import rules
from .core import RoomCore, room_key
from .keeper import ClockKeeper
from .ratelimit import SeatLimiter
from .rules import RoomError
from .scoring import scored

log = logging.getLogger("chuhan.rooms")

# A game action: the game as read, the room, the player's side, the moment.
Action = Callable[[GameRecord, RoomRecord, int, datetime], Change | None]
# Z8: told when a paired game ends abandoned: the room, and who left it unbegun.
AbortListener = Callable[[RoomRecord, str], Awaitable[None]]
# B8: quick messages per seat: 5 at once, then one every 4 s (a word, not a flood).
QUICK_MESSAGES = Budget(5, 20.0)


class GameActions:
    """The players' actions in a room's game, and the clock's way to apply its own."""

    def __init__(
        self,
        core: RoomCore,
        ratings: Ratings,
        room_for: Callable[[Player, str], Awaitable[RoomRecord]],
        lag_of: Callable[[RoomRecord, int], float | None],
        keeper: ClockKeeper,
        news: Callable[[RoomRecord], rules.NewsWatch | None],
    ) -> None:
        self.core = core
        self.ratings = ratings
        self.room_for = room_for
        self.lag_of = lag_of
        self.keeper = keeper
        self.news = news
        self.quick_messages = SeatLimiter(QUICK_MESSAGES)
        self.on_abort: AbortListener | None = None  # the pairing service's (Z8)

    async def move(self, player: Player, room_id: str, ply: int, text: str) -> GameRecord:
        """Play the player's move (Z1). Refused after the deadline: the clock flags instead."""

        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change | None:
            change = rules_of.play_move(g, ply, text, side)
            if change is None:
                return None
            lag = self.lag_of(room, 1 - side)
            clock_rules = self.core.settings.clock
            return rules.after_move(change, room.sides, side, now, clock_rules, lag)

        return await self.act(player, room_id, act)

    async def offer_draw(self, player: Player, room_id: str) -> GameRecord:
        """R5: only on your turn, 10 half-moves after your last offer; the clock runs on."""
        return await self.act(player, room_id, lambda g, room, side, now: rules.offer_draw(g, side))

    async def accept_draw(self, player: Player, room_id: str) -> GameRecord:
        """R5: the recipient accepts the open offer on their turn: a draw, no points."""
        return await self.act(
            player, room_id, lambda g, room, side, now: rules.accept_draw(g, side)
        )

    async def resign(self, player: Player, room_id: str) -> GameRecord:
        """The player's side loses; the opponent scores (R6)."""

        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change:
            return scored(rules_of.resign(g, side), room.sides)

        return await self.act(player, room_id, act)

    async def say(self, player: Player, room_id: str, phrase: str) -> None:
        """B8: a quick message (an id of :data:`..protocol.QUICK_MESSAGES`) to both seats'
        sockets, on any instance, as a passing notice: nothing is stored. Raises RoomError
        ``too_many_messages`` (with ``retry_after``) past the seat's budget, before anything
        is sent."""
        self.quick_messages.take_now(
            room_id, player.id, "too_many_messages", "too many quick messages; wait a little"
        )
        said = {"type": "said", "phrase": phrase, "player": player.id}  # each socket: ``you``
        await self.core.games.hub.notice(room_key(room_id), said)

    async def act(self, player: Player, room_id: str, act: Action) -> GameRecord:
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

        after = await self.apply(room, decide)
        if flagged:
            await self.aborted(room, after, self.mover(room, after))
            raise RoomError("time_out", "the time for this turn ran out")
        return after

    async def apply(
        self, room: RoomRecord, decide: Callable[[GameRecord], Change | None]
    ) -> GameRecord:
        """``decide`` on the room's game, through the game service's conditional update;
        the game's time kept from then on, and a game that ended rated (B2)."""
        assert room.game_id is not None
        after = await self.core.games.apply(room.game_id, decide)
        # Any instance that changes a room's game keeps its time from then on (scale-out).
        self.keeper.keep_time(room.id, after)
        if not after.ongoing:
            after = await self.ratings.settle(after)  # B2: a paired game rates once
        return after

    async def aborted(
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

    @staticmethod
    def mover(room: RoomRecord, game: GameRecord) -> str | None:
        """The player whose turn it is in ``game`` (the one a flag falls on)."""
        sides = room.sides or []
        side = rules_of.turn_of(game)
        return sides[side] if side < len(sides) else None
