"""Which server instances are alive: heartbeats in the database (SPEC Z4, R7).

Every instance keeps one row: when it started and when it last said it was alive (every
``heartbeat`` seconds, and once more when it stops gracefully, then marked ``stopped``).
An instance whose heartbeat is older than ``dead_after`` seconds, or that stopped, is dead:
the room seats its connections held are no longer connected (R7 presence). When no instance
was alive for a while (a single server restarted, or every instance of a cluster), the room
clocks were kept by no one: that time is charged to no one (Z4), see :func:`outage_since`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..db.instances import InstanceStore
from ..hub.local import RESYNC_SEQ
from ..records import Instance, RoomRecord, parse_iso
from ..refusal import GameActionError
from . import clocks, rules
from .core import RoomCore, room_key
from .presence import without_instances

if TYPE_CHECKING:
    from ..settings import RoomSettings

log = logging.getLogger("chuhan.rooms")


def outage_since(live: list[Instance], dead: list[Instance]) -> datetime | None:
    """The start of the time no instance was alive (nobody kept the clocks), or None.

    It begins at the last heartbeat of the dead instances and lasts until an instance
    starts again; there was none when an instance still alive had started before it (that
    instance kept the clocks all along). ``live`` are the other instances seen alive now.
    """
    if not dead:
        return None
    since = max(instance.alive_at for instance in dead)
    if any(instance.started_at <= since for instance in live):
        return None
    return since


NEWS_OUTAGES_KEPT_SECONDS = 900.0  # longer than any turn: older outages concern no clock


class InstanceRegistry:
    """This instance among the others: its heartbeat, the outage before it started (Z4),
    the seats of dead instances (R7), and whether news crosses between instances (R4, Z4:
    each instance records its hub's outages with its heartbeat, and reads the others').

    ``settle``: presence after seats changed (both away makes the game wait);
    ``keep_time``: a room whose clock this instance now keeps.
    """

    def __init__(
        self,
        core: RoomCore,
        settle: Callable[[RoomRecord], Awaitable[None]],
        keep_time: Callable[[str], None],
    ) -> None:
        self.core = core
        self.settle = settle
        self.keep_time = keep_time
        self.store = InstanceStore(core.games.store)
        self.heartbeat: asyncio.Task[None] | None = None
        self.recovered = False
        self.peers: dict[str, Instance] = {}  # as read at the last heartbeat
        self._outages: list[list[datetime | None]] = []  # this instance's hub, recent

    # ------------------------------------------------------------------ news (R4, Z4)

    def _observe(self, now: datetime) -> None:
        """Record the start or the end of an outage of this instance's hub."""
        down = self.core.hub.down_since()
        going_on = bool(self._outages) and self._outages[-1][1] is None
        if down is not None and not going_on:
            self._outages.append([down, None])
        elif down is None and going_on:
            self._outages[-1][1] = now
        oldest = now - timedelta(seconds=NEWS_OUTAGES_KEPT_SECONDS)
        self._outages = [o for o in self._outages if o[1] is None or o[1] > oldest]

    def hub_state(self, now: datetime) -> dict[str, Any]:
        """What this instance says of its hub, stored with its heartbeat."""
        self._observe(now)
        checked = self.core.hub.news_checked_at()
        return {
            "checked_until": clocks.iso(checked) if checked else None,
            "outages": [
                [clocks.iso(start), clocks.iso(end) if end else None]
                for start, end in self._outages
                if start is not None
            ],
        }

    def news(self, room: RoomRecord) -> rules.NewsWatch | None:
        """R4, Z4: whether the players' moves cross between instances, and what those
        instances say of it; None when both seats are held on one instance (or away)."""
        holders = seat_holders(room)
        return self.watch(holders) if len(holders) >= 2 else None

    def watch(self, instance_ids: set[str | None]) -> rules.NewsWatch:
        """What the instances ``instance_ids`` (holding the players' seats) say about news
        crossing between them: this one's at once, the others' as of their last heartbeat.
        An instance that says nothing cannot vouch for anything (``checked_until`` None)."""
        now = self.core.now()
        outages: list[clocks.Outage] = []
        checked: list[datetime | None] = []
        for instance_id in instance_ids:
            if instance_id == self.core.instance_id:
                state: dict[str, Any] | None = self.hub_state(now)
            else:
                peer = self.peers.get(instance_id or "")
                state = peer.hub if peer is not None else None
            if not state:
                checked.append(None)
                continue
            until = state.get("checked_until")
            checked.append(parse_iso(until) if until else None)
            for start, end in state.get("outages") or []:
                outages.append((parse_iso(start), parse_iso(end) if end else None))
        known = [moment for moment in checked if moment is not None]
        return rules.NewsWatch(
            tuple(outages), min(known) if len(known) == len(checked) and known else None
        )

    # ------------------------------------------------------------------ heartbeats

    @property
    def settings(self) -> RoomSettings:
        return self.core.settings

    async def join(self) -> None:
        """Say this instance is alive, then move the clocks by an outage of every instance
        (Z4) and clear the seats dead instances held (R7)."""
        core = self.core
        now = self.core.now()
        await core.db(self.store.beat, core.instance_id, now, self.hub_state(now))
        self.heartbeat = asyncio.get_running_loop().create_task(self._beat())
        live, dead = await self._other_instances()
        self.peers = {i.id: i for i in [*live, *dead]}
        since = outage_since(live, dead)
        if since is not None:
            await self._after_outage(since)
        # After an outage of every instance, its time is charged to no one already.
        await self._bury(dead, legacy_seats=True, news_lost=since is None)

    async def leave(self) -> None:
        """A graceful stop (the heartbeat task was stopped already)."""
        try:
            await self.core.db(self.store.stop, self.core.instance_id, self.core.now())
        except Exception:  # the database is gone: the heartbeat ages instead
            log.exception("could not record this instance's stop")

    async def _beat(self) -> None:
        """Say this instance is alive; once started, bury the instances that died.

        Only after beating without a failure for ``dead_after_seconds``: when the database
        was out of reach, every instance's heartbeat aged alike, and the others need that
        long to be heard again.
        """
        core = self.core
        beating_since = self.core.now()
        while not core.closing:
            await asyncio.sleep(self.settings.heartbeat_seconds)
            try:
                now = self.core.now()
                if not await core.db(self.store.beat, core.instance_id, now, self.hub_state(now)):
                    log.warning("this instance was taken for dead; its heartbeat is back")
                self.peers = {i.id: i for i in await core.db(self.store.all)}
                steady = (self.core.now() - beating_since).total_seconds()
                if self.recovered and steady >= self.settings.dead_after_seconds:
                    await self._bury_dead_peers()
            except Exception:
                beating_since = self.core.now()
                log.exception("heartbeat failed")

    async def _other_instances(self) -> tuple[list[Instance], list[Instance]]:
        """The other instances, alive and dead, as seen at start-up.

        One whose heartbeat is recent may have just died (this server restarted right after
        a crash): it is watched until it beats again (alive) or its heartbeat ages (dead),
        at most ``dead_after_seconds``.
        """
        first = {i.id: i for i in await self.core.db(self.store.all)}
        while True:
            now = self.core.now()
            live, dead, unsure = [], [], []
            for instance in await self.core.db(self.store.all):
                seen = first.get(instance.id)
                if instance.id == self.core.instance_id:
                    continue
                if instance.is_dead(now, self.settings.dead_after_seconds):
                    dead.append(instance)
                elif seen is None or instance.alive_at > seen.alive_at:
                    live.append(instance)
                else:
                    unsure.append(instance)
            if not unsure:
                return live, dead
            await asyncio.sleep(self.settings.heartbeat_seconds / 2)

    async def _after_outage(self, since: datetime) -> None:
        """Z4: move every running clock and setup deadline by the time no instance was
        alive (each once, even with several instances starting together)."""
        log.warning("no server was alive since %s: the room clocks wait that long", since)
        core = self.core
        for room in await core.db(core.store.active):
            try:
                if room.setup is not None:
                    await core.change_room(
                        room.id, lambda r: rules.setup_after_outage(r, since, self.core.now())
                    )
                elif room.game_id is not None:
                    await core.games.apply(
                        room.game_id, lambda g: rules.clock_after_outage(g, since, self.core.now())
                    )
            except GameActionError as exc:
                log.warning("clock not moved", extra={"room": room.id, "code": exc.code})

    async def _bury_dead_peers(self) -> None:
        now = self.core.now()
        dead = [
            instance
            for instance in self.peers.values()
            if instance.id != self.core.instance_id
            and instance.is_dead(now, self.settings.dead_after_seconds)
        ]
        if dead:
            await self._bury(dead, legacy_seats=False, news_lost=True)
            # Their clock keepers died with them: this instance keeps those clocks now.
            for room in await self.core.db(self.core.store.active):
                self.keep_time(room.id)

    async def _bury(self, dead: list[Instance], legacy_seats: bool, news_lost: bool) -> None:
        """R7: seats held by connections of ``dead`` instances are no longer connected (with
        ``legacy_seats``, also seats marked before instances were recorded); then both
        players away makes the game wait. The dead instances' rows are forgotten.

        What a dead instance committed and never announced (a move, a game
        begun) is read by every socket of its rooms and their games (a resync), and, with
        ``news_lost``, the time it may have kept a turn from being shown is charged to no
        one first (:meth:`_charge_lost_news`): no turn is flagged that was not shown."""
        gone: set[str | None] = {instance.id for instance in dead}
        if legacy_seats:
            gone.add(None)
        core = self.core
        for room in await core.db(core.store.open_rooms):
            if without_instances(room, gone) is None:
                continue
            try:
                if news_lost:
                    await self._charge_lost_news(room, dead)
                await self.settle(
                    await core.change_room(room.id, lambda r: without_instances(r, gone))
                )
            except GameActionError as exc:
                log.warning("seats not cleared", extra={"room": room.id, "code": exc.code})
            await self._resync(room)
        for instance in dead:
            if await core.db(self.store.forget, instance):
                log.info("instance buried", extra={"instance": instance.id})

    async def _charge_lost_news(self, room: RoomRecord, dead: list[Instance]) -> None:
        """R4, Z4: a dead instance held one player's seat while the other's was held
        elsewhere: from its last word until now, the player to move may not have been shown
        their turn; that time is charged to no one as a Redis outage's is
        (:func:`.rules.instance_lost`). Done before the seats are cleared, which would let
        the clock flag at once."""
        holders = seat_holders(room)
        lost = [instance for instance in dead if instance.id in holders]
        if len(holders) < 2 or not lost:
            return
        since = min(instance.last_word() for instance in lost)
        if room.setup is not None:
            await self.core.change_room(
                room.id, lambda r: rules.setup_instance_lost(r, since, self.core.now())
            )
            return
        if room.game_id is None:
            return
        news = self.watch(holders)
        games = self.core.games
        games.known.forget(room.game_id)  # the dead instance may have changed it unheard
        await games.apply(
            room.game_id, lambda g: rules.instance_lost(g, since, self.core.now(), news)
        )

    async def _resync(self, room: RoomRecord) -> None:
        """Every socket of the room and of its game, on every instance, reads what it
        missed: news the dead instance committed but never sent (a doorbell twice is
        harmless)."""
        hub = self.core.hub
        try:
            await hub.publish(room_key(room.id), RESYNC_SEQ)
            if room.game_id is not None:
                await hub.publish(room.game_id, RESYNC_SEQ)
        except Exception:  # a socket's failure is its own; the next news rings it again
            log.exception("resync failed", extra={"room": room.id})


def seat_holders(room: RoomRecord) -> set[str | None]:
    """The instances whose connections hold the seats of the room's players."""
    sides = room.sides or []
    return {
        seat.get("instance") for seat in room.seats if seat["connected"] and seat["player"] in sides
    }
