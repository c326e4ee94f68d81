"""Play a stranger (SPEC B1): seeks, pairing site-wide, and the paired game as a room game.

A player seeks a variant and its rule option (:func:`.rules.wish`); the seek is stored
(:mod:`.store`, one per player) and the seek's pool is paired at once, in one site-wide
transaction. Each pair gets a room of its own, made here as the lobby and "ready" would
make it (:func:`rooms.rules.press_ready` with both seats ready: colours drawn at random, the
game, or in janggi the setup choice, begins at once, R3) but with no password and no invite
link: nobody else can join it, nobody watches it (R1). From then on it *is* a room game (the
room service runs it: 90 s turns R4, draw rules R5, reconnection R7). Its options say
``"paired": true``, and so do its game's (the ratings read that, B2).

Decisions where the issue left them open:

- Paired games score no online points (R6): their game is ``unscored: "paired"``; ratings
  (B2) are what paired games are for, and points stay a friends' and AI affair.
- Leaving a paired game before one's own first move (or letting that first turn's clock run
  out) ends it *abandoned*, no winner and no loss (:func:`rooms.scoring.costs_nothing`);
  after it, leaving loses as in rooms. Z8: such an abort costs time instead, whoever the
  opponent was (:mod:`.rules`, aborts): the leaver's next seek is refused
  ``abort_cooldown`` (with ``retry_after``) for a wait that doubles with each abort, per
  player and per address block, their waiting seeks are not paired meanwhile, and the pair
  is not paired together again at once.

The waiting player hears of the pairing through the hub (topic :func:`seek_key`), so a
player waiting on another instance is told at once; the hub is a doorbell: the socket then
reads its seek from the database. A seek is paired only while its instance beats (a beat
within :data:`PAIRED_BEATS` heartbeats: a killed instance's seeks stop being paired within
seconds, long before the rooms take it for dead) and its socket answers: a socket silent for
``silent_seconds`` (a phone asleep: the page pings every third of that, ``seeking`` says
how often) has its seek withdrawn by its instance, so nobody is paired with a ghost. A seek
of an instance taken for dead (its heartbeat ``RoomSettings.dead_after_seconds`` old, as the
rooms judge it) is not counted (one merely late under load is paired for again once it
beats) and is dropped once :data:`GONE_SECONDS` old. Every
:data:`BEAT_SECONDS` each instance pairs again any pool that still has two waiting (a
pairing that failed on a database error) and pushes the waiting counts to its sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Protocol, cast

from ..addresses import address_block, network_block
from ..budget import Budget, LimitExceeded
from ..db.limits import Limiter
from ..db.seeks import Origin, PoolCount, SeekStore
from ..games.service import new_id
from ..protocol.messages import WaitingNotice
from ..records import Pairing, Player, RoomOptions, RoomRecord, Seek, SeekState
from ..refusal import SeekError
from ..rooms import rules as room_rules
from ..rooms.lobby import new_room, new_seat
from ..rooms.service import RoomService
from .rules import RULES, wish

log = logging.getLogger("chuhan.pairing")
BEAT_SECONDS = 2.0
GONE_SECONDS = 300.0  # a seek this old of an instance not alive is dropped
PAIRED_BEATS = 2.5  # a seek is paired while its instance beat within so many heartbeats
SILENT_SECONDS = 10.0  # a seek whose socket said nothing for so long is withdrawn


def gone_before(now: datetime) -> datetime:
    """A seek not sought since then whose instance is not alive is dropped: its instance
    died (one merely late, taken for dead under load, keeps its seeks meanwhile)."""
    return now - timedelta(seconds=GONE_SECONDS)


@dataclass
class _Desk:
    """One pool's pairing on this instance: runs one at a time, each covering the calls
    made before it began (``asked``: calls so far; ``covered``: calls the last run
    covered)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    asked: int = 0
    covered: int = 0


def seek_key(player_id: str) -> str:
    """The hub topic a player's waiting sockets follow: rung when the player is paired."""
    return f"seek:{player_id}"


class Waiter(Protocol):
    """A socket of a waiting player on this instance: ``connection`` names it in its seek,
    ``heard`` is when it last said anything (``time.monotonic()``), ``holds`` whether it
    holds its player's seek, ``own_pool`` the pool its player waits in (shown to it)."""

    connection: str
    heard: float
    own_pool: str | None

    @property
    def holds(self) -> bool: ...

    async def notice(self, message: dict[str, Any]) -> None: ...


class PairingService:
    def __init__(
        self,
        rooms: RoomService,
        seeks_per_address: int = 60,
        window_seconds: float = 60.0,
        silent_seconds: float = SILENT_SECONDS,
    ) -> None:
        self.rooms = rooms
        self.silent_seconds = silent_seconds
        rooms.on_abort = self.aborted  # Z8: what leaving a paired game unbegun costs
        self.games = rooms.games
        self.store = SeekStore(self.games.store, RULES)  # B1, Z8: the pure rules decide
        self.instance_id = rooms.instance_id
        self.limiter = Limiter(self.games.store.engine)
        # 0: no limit (a bench whose thousands of players share one address).
        self._per_address = Budget(seeks_per_address, window_seconds) if seeks_per_address else None
        self.waiters: set[Waiter] = set()
        self._counts: list[PoolCount] = []
        self._counted_at = -1e9  # time.monotonic() of the last read of the counts
        self._beat: asyncio.Task[None] | None = None
        self._desks: dict[str, _Desk] = {}

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.games.db(fn, *args)

    def live_since(self) -> datetime:
        """The oldest heartbeat of an instance whose seeks are paired: one older is taken
        for dead, as the rooms take it (R7)."""
        return self.rooms.core.now() - timedelta(seconds=self.rooms.settings.dead_after_seconds)

    def beat_since(self) -> datetime:
        """The oldest heartbeat of an instance whose seeks are paired: a few heartbeats, so
        that a killed instance's seeks stop being paired long before the rooms take it for
        dead (a merely late one's are paired again once it beats)."""
        settings = self.rooms.settings
        seconds = min(settings.dead_after_seconds, PAIRED_BEATS * settings.heartbeat_seconds)
        return self.rooms.core.now() - timedelta(seconds=seconds)

    @property
    def heartbeat_seconds(self) -> float:
        """How often a waiting page pings its seek socket (a third of the silence allowed)."""
        return round(self.silent_seconds / 3, 1)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        self._beat = asyncio.get_running_loop().create_task(self._beat_loop())

    async def stop(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            await asyncio.gather(self._beat, return_exceptions=True)

    # ------------------------------------------------------------------ a player's seek

    async def seek(
        self,
        player: Player,
        variant: Any,
        options: Any,
        connection: str,
        address: str,
    ) -> SeekState:
        """B1: the player waits for a stranger, or is paired at once. Returns the seek as
        stored after this instance paired its pool (``paired``, with the room, or
        ``waiting``). Raises SeekError ``bad_seek`` (Z5), ``too_many_seeks`` (Z7, with
        ``retry_after``), ``abort_cooldown`` (Z8, with ``retry_after``) or
        ``already_playing`` (with ``room``). ``address``: the client's (its block and IPv6
        /48 pay for aborts, Z8)."""
        wanted = wish(variant, options)
        origin = Origin(player.id, address_block(address), network_block(address))
        try:
            if self._per_address is not None:
                await self.db(
                    self.limiter.reserve,
                    [(f"seek:address:{address_block(address)}", self._per_address)],
                )
        except LimitExceeded as exc:
            raise SeekError(
                "too_many_seeks",
                "too many seeks from your address; wait a little",
                retry_after=max(1, round(exc.retry_after)),
            ) from None
        await self.rooms.ratings.saw(player.id, address)  # Z8: one block's identities unrated
        state: SeekState = await self.db(
            self.store.put,
            player.id,
            wanted,
            connection,
            self.instance_id,
            self.rooms.core.now(),
            origin,
        )
        if state.status == "waiting":
            await self.pair(wanted.pool)
            state = await self.db(self.store.state, player.id) or state
            if state.status == "waiting":  # every other tab of the player shows it
                await self.games.hub.publish(seek_key(player.id), 3)
        return state

    async def cancel(self, player: Player, connection: str | None = None) -> SeekState | None:
        """Stop waiting (``connection``: only if that socket holds the seek). Returns what
        is left: None, or the seek when it was paired already (or another tab holds it)."""
        state: SeekState | None = await self.db(self.store.cancel, player.id, connection)
        await self.games.hub.publish(seek_key(player.id), 2)  # every tab shows the same
        return state

    async def aborted(self, room: RoomRecord, player_id: str) -> None:
        """Z8: ``player_id`` left the paired game of ``room`` (or let its first turn run
        out) before their first move: their cooldown grows, whoever the opponent was."""
        seated = [seat["player"] for seat in room.seats]
        opponent = next((p for p in room.sides or seated if p != player_id), player_id)
        await self.db(self.store.record_abort, room.id, player_id, opponent, self.rooms.core.now())
        log.info("paired game aborted", extra={"room": room.id})

    async def state(self, player: Player) -> SeekState | None:
        found: SeekState | None = await self.db(self.store.state, player.id)
        return found

    # ------------------------------------------------------------------ pairing

    async def pair(self, pool: str) -> list[Pairing]:
        """Pair whoever waits in ``pool`` (site-wide atomic, :meth:`SeekStore.match`), tell
        both players of each pair, wherever they wait, and start their games.

        Calls for one pool run one at a time on this instance, and a run covers every call
        made before it began (their seeks were stored by then): a thousand seeks arriving
        together make a few runs, not a thousand transactions queued on the pool's lock,
        and the database threads stay free for everything else (moves, heartbeats).
        Returns the pairings made by the run that covered this call (perhaps another's)."""
        desk = self._desks.setdefault(pool, _Desk())
        desk.asked += 1
        ticket = desk.asked
        async with desk.lock:
            if desk.covered >= ticket:
                return []  # a run that began after this call paired for it
            covers = desk.asked
            now = self.rooms.core.now()
            made: list[Pairing] = await self.db(
                self.store.match,
                pool,
                self.live_since(),
                gone_before(now),
                self._new_room,
                now,
                self.beat_since(),
            )
            desk.covered = covers
        for pairing in made:
            for seek in (pairing.first, pairing.second):
                await self.games.hub.publish(seek_key(seek.player_id), 1)
        await asyncio.gather(*(self._begin(pairing, pool) for pairing in made))
        return made

    async def _begin(self, pairing: Pairing, pool: str) -> None:
        try:
            await self.rooms.begin(pairing.room)
        except Exception:
            log.exception("paired game not started", extra={"room": pairing.room.id})
            return
        log.info("paired", extra={"room": pairing.room.id, "pool": pool})

    def _new_room(
        self, first: Seek, second: Seek, variant: str, options: dict[str, Any]
    ) -> RoomRecord:
        """The room of two paired players: both seats taken and ready, so the colours are
        drawn and the game (janggi: the setup choice) begins at once (R3), as "ready" does;
        no password, no invite link (nobody else can join, R1)."""
        now = self.rooms.core.now()
        seats = [{**new_seat(first.player_id), "ready": True}, new_seat(second.player_id)]
        # The seek's options, as wish() checked them (the rule option, a clock): the room's.
        room = new_room(variant, cast(RoomOptions, {**options, "paired": True}), seats, now)
        started = room_rules.press_ready(
            room,
            second.player_id,
            now,
            self.rooms.clock_rules,
            swap=bool(secrets.randbelow(2)),
            game_id=new_id("g"),
            expected_game_id=None,
        )
        assert started is not None  # both seats ready in a fresh room: it always starts
        return replace(started, version=1)

    # ------------------------------------------------------------------ the beat

    def counts(self, own_pool: str | None = None) -> WaitingNotice:
        """How many wait, site-wide, as of the last read: per variant and per pool (the
        game with its rule option and clock), not counting the player's own seek in
        ``own_pool`` (issue: a player never counts themselves among those waiting)."""
        per_variant: dict[str, int] = {}
        pools = []
        for found in self._counts:
            waiting = found.waiting - (1 if found.pool == own_pool else 0)
            if waiting <= 0:
                continue
            per_variant[found.variant] = per_variant.get(found.variant, 0) + waiting
            pools.append({"variant": found.variant, "options": found.options, "waiting": waiting})
        return WaitingNotice(counts=per_variant, pools=pools)

    async def fresh_counts(
        self, max_age: float = 0.0, own_pool: str | None = None
    ) -> WaitingNotice:
        """:meth:`counts` now, or as read less than ``max_age`` seconds ago (a new seek sees
        itself counted at once; a burst of seeks reads them once)."""
        if time.monotonic() - self._counted_at >= max_age:
            self._counted_at = time.monotonic()
            self._counts = await self.db(self.store.counts, self.live_since())
        return self.counts(own_pool)

    async def own_pool(self, player: Player | None) -> str | None:
        """The pool the player waits in (None: not waiting), so as not to count them."""
        if player is None:
            return None
        pool: str | None = await self.db(self.store.waiting_pool, player.id)
        return pool

    async def beat(self) -> None:
        """Withdraw the seeks of silent sockets, pair any pool left with two waiting, and
        tell the waiting sockets how many wait."""
        await self.withdraw_silent()
        for pool in await self.db(self.store.waiting_pools, self.live_since()):
            await self.pair(pool)
        await self.fresh_counts()
        for waiter in list(self.waiters):
            with contextlib.suppress(Exception):
                await waiter.notice(self.counts(waiter.own_pool).wire())

    async def withdraw_silent(self) -> None:
        """A seek is paired only while its socket answers: the seeks held by sockets here
        that said nothing for ``silent_seconds`` are withdrawn, and every tab of their
        players told so."""
        quiet_since = time.monotonic() - self.silent_seconds
        silent = [w.connection for w in self.waiters if w.holds and w.heard < quiet_since]
        if not silent:
            return
        for player_id in await self.db(self.store.withdraw, silent):
            log.info("silent seek withdrawn")
            await self.games.hub.publish(seek_key(player_id), 2)

    async def _beat_loop(self) -> None:
        while True:
            started = time.monotonic()
            try:
                await self.beat()
            except Exception:
                log.warning("pairing beat failed", exc_info=True)
            await asyncio.sleep(max(0.1, BEAT_SECONDS - (time.monotonic() - started)))
