"""Online rooms: two seats, ready, random colours, server clocks, draw offers, presence.

SPEC R1–R8, Z1–Z3. A room's own facts (seats, readiness, the janggi setup choice, which
game is current) live in the ``rooms`` table and change by conditional updates on its
version. A room's game is an ordinary game of the game service (kind ``"online"``, no
owner): its moves, draw offers, clock and end go through :meth:`GameService.apply`, i.e. a
conditional update on the game's ``seq`` plus logged events, so reconnecting clients catch
up from the event log like in any other game and a change is never applied twice.

The clock is stored with the game (``options["clock"]``): deadlines are data, and the
keeper task of a room only compares them with the time. Whichever server instance sees a
deadline first flags; the others find the game already over and do nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from ...rules import make_board
from .. import games as rules_of
from ..games import Change, GameActionError
from ..service import GameService, new_id
from ..storage import Award, GameRecord, Player, utcnow
from . import clocks
from .clocks import ClockRules
from .instances import Instance, InstanceStore, outage_since
from .passwords import PasswordError, normalize_password
from .ratelimit import JoinLimiter, JoinLimits
from .store import PasswordTakenError, RoomRecord, RoomStore, StaleRoomError

log = logging.getLogger("chuhan.rooms")
ONLINE_WIN_POINTS = 50  # SPEC R6
DRAW_OFFER_GAP = 10  # SPEC R5: half-moves between one player's offers
JANGGI_DEFAULT_SETUP = "HEHE"  # SPEC R4: what a side that runs out of setup time gets
SETUPS = rules_of.JANGGI_SETUPS
_RETRIES = 20


class RoomError(GameActionError):
    """A room action refused; ``status`` is the HTTP status, ``extra`` more answer fields."""

    def __init__(self, code: str, message: str, status: int = 409, **extra: Any) -> None:
        super().__init__(code, message)
        self.status = status
        self.extra = extra


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


@dataclass(frozen=True)
class RoomSettings:
    """Room timings and limits. The environment may shorten them for tests only; a client
    never can.

    ``CHUHAN_ROOM_TURN_SECONDS`` (90), ``CHUHAN_ROOM_AWAY_BUDGET_SECONDS`` (120),
    ``CHUHAN_ROOM_LAG_CAP_SECONDS`` (2), ``CHUHAN_ROOM_JOIN_TRIES_PER_PLAYER`` (10),
    ``CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS`` (30), ``CHUHAN_ROOM_JOIN_WINDOW_SECONDS`` (900),
    ``CHUHAN_ROOM_HEARTBEAT_SECONDS`` (1), ``CHUHAN_ROOM_DEAD_AFTER_SECONDS`` (5).
    """

    clock: ClockRules = field(default_factory=ClockRules)
    limits: JoinLimits = field(default_factory=JoinLimits)
    idle_room_seconds: float = 3600.0  # an unattended open room gives its password back
    # Z4, R7: every instance says it is alive this often; silent this long, it is dead.
    heartbeat_seconds: float = 1.0
    dead_after_seconds: float = 5.0

    @classmethod
    def from_env(cls) -> RoomSettings:
        return cls(
            clock=ClockRules(
                turn_seconds=_env_float("CHUHAN_ROOM_TURN_SECONDS", 90.0),
                lag_cap_seconds=_env_float("CHUHAN_ROOM_LAG_CAP_SECONDS", 2.0),
                away_budget_seconds=_env_float("CHUHAN_ROOM_AWAY_BUDGET_SECONDS", 120.0),
            ),
            limits=JoinLimits(
                per_player=int(_env_float("CHUHAN_ROOM_JOIN_TRIES_PER_PLAYER", 10)),
                per_address=int(_env_float("CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS", 30)),
                window_seconds=_env_float("CHUHAN_ROOM_JOIN_WINDOW_SECONDS", 900.0),
            ),
            heartbeat_seconds=_env_float("CHUHAN_ROOM_HEARTBEAT_SECONDS", 1.0),
            dead_after_seconds=_env_float("CHUHAN_ROOM_DEAD_AFTER_SECONDS", 5.0),
        )


def room_key(room_id: str) -> str:
    """The hub topic of a room's own changes (its games have their own topics)."""
    return f"room:{room_id}"


def _names(variant: str) -> tuple[str, str]:
    return rules_of.side_names(variant)


class RoomService:
    def __init__(self, games: GameService, settings: RoomSettings) -> None:
        self.games = games
        self.settings = settings
        self.store = RoomStore(games.store)
        self.limiter = JoinLimiter(self.store, settings.limits)
        self._keepers: dict[str, asyncio.Task[None]] = {}
        self._wake: dict[str, asyncio.Event] = {}
        # What the next wake of a room's keeper knows: the game just committed here, or
        # None when something else changed and the room must be read again.
        self._hints: dict[str, GameRecord | None] = {}
        self._lag: dict[tuple[str, str], float] = {}
        self._closing = False
        self.instance_id = secrets.token_hex(8)  # marks the seats its connections hold
        self.instances = InstanceStore(games.store)
        self._heartbeat: asyncio.Task[None] | None = None
        self._recovered = False

    @property
    def clock_rules(self) -> ClockRules:
        return self.settings.clock

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.games.db(fn, *args)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Join the live instances, then keep the clocks of every room with a game or setup
        in progress.

        Z4: when no instance was alive for a while (this server restarted after a crash or a
        stop), the clocks move by that time first, so it is charged to no one. R7: the seats
        held by connections of dead instances are no longer connected, so both players away
        is seen again and another device of a player takes their seat without asking.
        """
        await self.db(self.instances.beat, self.instance_id, utcnow())
        self._heartbeat = asyncio.get_running_loop().create_task(self._beat())
        live, dead = await self._other_instances()
        since = outage_since(live, dead)
        if since is not None:
            await self._after_outage(since)
        await self._bury(dead, legacy_seats=True)
        for room in await self.db(self.store.active):
            self.keep_time(room.id)
        self._recovered = True

    async def stop(self) -> None:
        """Stop the clock keepers; a restart will not charge the time down to anyone (Z4)."""
        self._closing = True
        tasks = list(self._keepers.values())
        if self._heartbeat is not None:
            tasks.append(self._heartbeat)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            await self.db(self.instances.stop, self.instance_id, utcnow())
        except Exception:  # the database is gone: the heartbeat ages instead
            log.exception("could not record this instance's stop")

    # ------------------------------------------------------------------ instances (Z4, R7)

    async def _beat(self) -> None:
        """Say this instance is alive; once started, bury the instances that died.

        Only after beating without a failure for ``dead_after_seconds``: when the database
        was out of reach, every instance's heartbeat aged alike, and the others need that
        long to be heard again.
        """
        beating_since = utcnow()
        while not self._closing:
            await asyncio.sleep(self.settings.heartbeat_seconds)
            try:
                if not await self.db(self.instances.beat, self.instance_id, utcnow()):
                    log.warning("this instance was taken for dead; its heartbeat is back")
                steady = (utcnow() - beating_since).total_seconds()
                if self._recovered and steady >= self.settings.dead_after_seconds:
                    await self._bury_dead_peers()
            except Exception:
                beating_since = utcnow()
                log.exception("heartbeat failed")

    async def _other_instances(self) -> tuple[list[Instance], list[Instance]]:
        """The other instances, alive and dead, as seen at start-up.

        One whose heartbeat is recent may have just died (this server restarted right after
        a crash): it is watched until it beats again (alive) or its heartbeat ages (dead),
        at most ``dead_after_seconds``.
        """
        first = {i.id: i for i in await self.db(self.instances.all)}
        while True:
            now = utcnow()
            live, dead, unsure = [], [], []
            for instance in await self.db(self.instances.all):
                seen = first.get(instance.id)
                if instance.id == self.instance_id:
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

        def moved_setup(room: RoomRecord) -> RoomRecord | None:
            setup = room.setup and clocks.after_outage(room.setup, since, utcnow())
            return replace(room, setup=setup) if setup else None

        def moved_clock(g: GameRecord) -> Change | None:
            clock = g.options.get("clock")
            if clock is None or not g.ongoing:
                return None
            moved = clocks.after_outage(clock, since, utcnow())
            if moved is None:
                return None
            down = clocks.parse_iso(moved["deadline"]) - clocks.parse_iso(clock["deadline"])
            return _with_options(g, "outage", {"seconds": down.total_seconds()}, clock=moved)

        for room in await self.db(self.store.active):
            try:
                if room.setup is not None:
                    await self._change_room(room.id, moved_setup)
                elif room.game_id is not None:
                    await self.games.apply(room.game_id, moved_clock)
            except GameActionError as exc:
                log.warning("clock not moved", extra={"room": room.id, "code": exc.code})

    async def _bury_dead_peers(self) -> None:
        now = utcnow()
        dead = [
            instance
            for instance in await self.db(self.instances.all)
            if instance.id != self.instance_id
            and instance.is_dead(now, self.settings.dead_after_seconds)
        ]
        if dead:
            await self._bury(dead, legacy_seats=False)
            # Their clock keepers died with them: this instance keeps those clocks now.
            for room in await self.db(self.store.active):
                self.keep_time(room.id)

    async def _bury(self, dead: list[Instance], legacy_seats: bool) -> None:
        """R7: seats held by connections of ``dead`` instances are no longer connected (with
        ``legacy_seats``, also seats marked before instances were recorded); then both
        players away makes the game wait. The dead instances' rows are forgotten."""
        gone: set[str | None] = {instance.id for instance in dead}
        if legacy_seats:
            gone.add(None)

        def held_by_dead(seat: dict[str, Any]) -> bool:
            return bool(seat["connected"]) and seat.get("instance") in gone

        def cleared(room: RoomRecord) -> RoomRecord | None:
            if not any(held_by_dead(seat) for seat in room.seats):
                return None
            seats = [{**s, "connected": False} if held_by_dead(s) else s for s in room.seats]
            return replace(room, seats=seats)

        for room in await self.db(self.store.open_rooms):
            if not any(held_by_dead(seat) for seat in room.seats):
                continue
            try:
                await self._presence(await self._change_room(room.id, cleared))
            except GameActionError as exc:
                log.warning("seats not cleared", extra={"room": room.id, "code": exc.code})
        for instance in dead:
            if await self.db(self.instances.forget, instance):
                log.info("instance buried", extra={"instance": instance.id})

    # ------------------------------------------------------------------ rooms (R1, R2)

    async def create(
        self, player: Player, variant: str, bikjang: str, password: str | None
    ) -> RoomRecord:
        """A new open room with the creator in the first seat.

        With ``password`` the room is joined by it (R2), without, by an invite link of 192
        random bits (Z3). Raises RoomError ``bad_password`` (the reason in the message) or
        ``password_taken``.
        """
        if variant not in ("xiangqi", "janggi", "jieqi"):
            raise RoomError("bad_request", "variant must be xiangqi, janggi or jieqi", 400)
        if bikjang not in ("off", "points"):
            raise RoomError("bad_request", "bikjang must be off or points", 400)
        normalized = None
        if password is not None:
            try:
                normalized = normalize_password(password)
            except PasswordError as exc:
                raise RoomError("bad_password", str(exc), 400, reason=exc.reason) from None
        now = utcnow()
        room = RoomRecord(
            id=new_id("r"),
            invite=None if normalized else secrets.token_urlsafe(24),
            password=normalized,
            open_password=normalized,
            variant=variant,
            options={"bikjang": bikjang} if variant == "janggi" else {},
            status="open",
            seats=[_seat(player.id)],
            sides=None,
            setup=None,
            game_id=None,
            version=1,
            created_at=now,
            updated_at=now,
        )
        try:
            await self.db(self.store.insert, room)
        except PasswordTakenError:
            if normalized is None or not await self._release_idle(normalized):
                raise RoomError(
                    "password_taken",
                    "another open room uses this password; choose another one",
                ) from None
            await self.db(self.store.insert, room)
        log.info("room created", extra={"room": room.id, "variant": variant})
        return room

    async def _release_idle(self, password: str) -> bool:
        """Close the open room holding ``password`` if nobody has been in it for long."""
        holder = await self.db(self.store.by_open_password, password)
        if holder is None:
            return True
        idle = utcnow() - holder.updated_at > timedelta(seconds=self.settings.idle_room_seconds)
        if not idle or any(seat["connected"] for seat in holder.seats):
            return False
        try:
            await self._change_room(holder.id, lambda r: _closed(r) if r.is_open else None)
        except RoomError:
            return False
        return True

    async def join_by_password(self, player: Player, password: str, address: str) -> RoomRecord:
        """Z3: take a seat in the open room with this password; failed tries are limited.

        Raises RoomError ``too_many_attempts`` (429), ``wrong_password`` (404) with
        ``tries_left``, ``room_full``.
        """
        left = await self.db(self.limiter.remaining, player.id, address)
        if left <= 0:
            raise RoomError(
                "too_many_attempts",
                "too many wrong passwords; wait a few minutes before trying again",
                429,
                tries_left=0,
                retry_after=self.settings.limits.window_seconds,
            )
        try:
            normalized = normalize_password(password)
        except PasswordError:
            normalized = None
        room = await self.db(self.store.by_open_password, normalized) if normalized else None
        if room is None:
            left = await self.db(self.limiter.failed, player.id, address)
            raise RoomError(
                "wrong_password",
                f"no open room has this password; {left} tries left",
                404,
                tries_left=left,
            )
        return await self.take_seat(player, room.id)

    async def join_by_invite(self, player: Player, invite: str) -> RoomRecord:
        """Take a seat in the room of an invite link. Raises RoomError ``not_found``,
        ``room_full``, ``room_closed``."""
        room = await self.db(self.store.by_invite, invite) if len(invite) <= 64 else None
        if room is None:
            raise RoomError("not_found", "this invite link leads to no room", 404)
        return await self.take_seat(player, room.id)

    async def take_seat(self, player: Player, room_id: str) -> RoomRecord:
        def decide(room: RoomRecord) -> RoomRecord | None:
            if room.seat_of(player.id) is not None:
                return None
            if not room.is_open:
                raise RoomError("room_closed", "this room is closed", 410)
            if len(room.seats) >= 2:
                raise RoomError("room_full", "this room is full: it already has two players")
            return replace(room, seats=[*room.seats, _seat(player.id)])

        room = await self._change_room(room_id, decide)
        log.info("room joined", extra={"room": room.id, "player": player.id})
        return room

    async def room_for(self, player: Player, room_id: str) -> RoomRecord:
        """The room, for one of its two players only (R1: no spectators).

        Raises RoomError ``not_found`` (also for a room the player has no seat in).
        """
        room = await self.db(self.store.get, room_id) if len(room_id) <= 32 else None
        if room is None or room.seat_of(player.id) is None:
            raise RoomError("not_found", "no such room, or you have no seat in it", 404)
        return room

    async def leave(self, player: Player, room_id: str) -> None:
        """R8: give up the seat (resigning a game in progress); the last one closes the room."""
        room = await self.room_for(player, room_id)
        game = await self._current_game(room)
        if game is not None and game.ongoing and room.side_of(player.id) is not None:
            with contextlib.suppress(GameActionError):
                await self.resign(player, room_id)

        def decide(room: RoomRecord) -> RoomRecord | None:
            index = room.seat_of(player.id)
            if index is None:
                return None
            seats = [s for s in room.seats if s["player"] != player.id]
            for seat in seats:
                seat["ready"] = False
            after = replace(room, seats=seats, setup=None)
            return _closed(after) if not seats else after

        await self._change_room(room_id, decide)
        log.info("room left", extra={"room": room_id, "player": player.id})

    # ------------------------------------------------------------------ devices (R7)

    async def attach(self, player: Player, room_id: str, device: str, take: bool) -> bool:
        """A connection of the player opens the room. It holds the seat when no connected
        device does, when it comes from the device that holds it (a dropped socket
        reconnecting), or when ``take`` ("Continue on this device") moves the seat to it.
        ``device`` is ``"<device id>/<connection id>"``.

        Returns True when ``device`` now holds the seat.
        """

        def decide(room: RoomRecord) -> RoomRecord | None:
            index = room.seat_of(player.id)
            if index is None:
                raise RoomError("not_found", "you have no seat in this room", 404)
            seat = room.seats[index]
            if seat["device"] == device and seat["connected"]:
                return None
            held_by = (seat["device"] or "").split("/")[0]
            same_device = held_by == device.split("/")[0] and held_by != "anonymous"
            if seat["connected"] and not (take or same_device):
                return None
            seats = [dict(s) for s in room.seats]
            seats[index] = {
                **seat,
                "device": device,
                "connected": True,
                "instance": self.instance_id,  # cleared if this instance dies (R7)
            }
            return replace(room, seats=seats)

        room = await self._change_room(room_id, decide)
        index = room.seat_of(player.id)
        holds = index is not None and room.seats[index]["device"] == device
        if holds:
            await self._presence(room)
        return holds

    async def detach(self, player: Player, room_id: str, device: str) -> None:
        """The connection ``device`` closed: its seat, if it held it, is away."""

        def decide(room: RoomRecord) -> RoomRecord | None:
            index = room.seat_of(player.id)
            if index is None or room.seats[index]["device"] != device:
                return None
            seats = [dict(s) for s in room.seats]
            seats[index]["connected"] = False
            return replace(room, seats=seats)

        try:
            room = await self._change_room(room_id, decide)
        except GameActionError:
            return
        await self._presence(room)

    def record_lag(self, room_id: str, player_id: str, one_way_seconds: float) -> None:
        self._lag[(room_id, player_id)] = one_way_seconds

    def _lag_of(self, room: RoomRecord, side: int) -> float | None:
        if room.sides is None:
            return None
        return self._lag.get((room.id, room.sides[side]))

    async def _presence(self, room: RoomRecord) -> None:
        """R7: both players away: the game waits on the shared budget; one back: it goes on.

        Presence is read again after the change: a connection that came or went meanwhile
        (perhaps on another instance) is taken into account before returning.
        """
        if room.setup is not None:
            await self._setup_presence(room.id)
            return
        for _ in range(_RETRIES):
            game = await self._current_game(room)
            if game is None or not game.ongoing or room.sides is None:
                return
            away = _both_away(room)

            def decide(g: GameRecord, away: bool = away, room: RoomRecord = room) -> Change | None:
                if not g.ongoing:
                    return None
                clock = g.options["clock"]
                now = utcnow()
                overdue = self._overdue(g, room, now)
                if overdue is not None:
                    return overdue
                if away and not clock["both_away_since"]:
                    return _with_options(g, "paused", clock=clocks.pause(clock, now))
                if not away and clock["both_away_since"]:
                    return _with_options(g, "resumed", clock=clocks.resume(clock, now))
                return None

            await self._apply(room, decide)
            fresh = await self.db(self.store.get, room.id)
            if fresh is None or _both_away(fresh) == away:
                return
            room = fresh

    async def _setup_presence(self, room_id: str) -> None:
        """R7 during the janggi setup choice: it waits like a turn while both are away, on
        the same shared budget (what is left goes on to the game)."""

        def decide(room: RoomRecord) -> RoomRecord | None:
            setup = room.setup
            if setup is None or room.sides is None:
                return None
            now = utcnow()
            away = _both_away(room)
            if away and not setup.get("both_away_since"):
                budget = setup.get("away_budget", self.clock_rules.away_budget_seconds)
                return replace(room, setup=clocks.pause({**setup, "away_budget": budget}, now))
            if not away and setup.get("both_away_since"):
                return replace(room, setup=clocks.resume(setup, now))
            return None

        await self._change_room(room_id, decide)
        self.keep_time(room_id)

    # ------------------------------------------------------------------ ready, colours (R3)

    async def ready(self, player: Player, room_id: str) -> RoomRecord:
        """R3: the player is ready. With both ready, colours are drawn and the game (or the
        janggi setup choice) begins. Raises RoomError ``not_now`` during a game."""
        current = await self.room_for(player, room_id)
        game = await self._current_game(current)
        if current.setup is not None or (game is not None and game.ongoing):
            raise RoomError("not_now", "a game is already in progress")
        started: dict[str, Any] = {}

        def decide(room: RoomRecord) -> RoomRecord | None:
            index = room.seat_of(player.id)
            if index is None:
                raise RoomError("not_found", "you have no seat in this room", 404)
            if room.setup is not None or room.game_id != current.game_id:
                return None
            seats = [dict(s) for s in room.seats]
            seats[index]["ready"] = True
            if len(seats) < 2 or not all(s["ready"] for s in seats):
                return replace(room, seats=seats)
            for seat in seats:
                seat["ready"] = False
            players = [s["player"] for s in seats]
            if secrets.randbelow(2):
                players.reverse()
            now = utcnow()
            if room.variant == "janggi":
                setup = {
                    "turn": "han",
                    "han": None,
                    "cho": None,
                    "deadline": clocks.iso(self.clock_rules.deadline(now, None)),
                    "away_budget": self.clock_rules.away_budget_seconds,
                    "both_away_since": None,
                }
                return replace(room, seats=seats, sides=players, setup=setup, game_id=None)
            started["game_id"] = new_id("g")
            return replace(room, seats=seats, sides=players, game_id=started["game_id"])

        room = await self._change_room(room_id, decide)
        if started:
            await self._create_game(room, started["game_id"], None)
        if room.setup is not None or started:
            self.keep_time(room.id)
        return room

    async def choose_setup(self, player: Player, room_id: str, choice: str) -> RoomRecord:
        """R4, J3: Han chooses first, then Cho, seeing Han's choice; each within the turn
        time. Raises RoomError ``bad_request`` or ``not_your_turn``."""
        if choice not in SETUPS:
            raise RoomError("bad_request", f"setup must be one of {', '.join(SETUPS)}", 400)
        return await self._setup_step(room_id, player.id, choice)

    async def _setup_step(self, room_id: str, player_id: str | None, choice: str) -> RoomRecord:
        """Record a setup choice (``player_id`` None: the clock chose for the side to choose)."""
        started: dict[str, Any] = {}

        def decide(room: RoomRecord) -> RoomRecord | None:
            setup = room.setup
            if setup is None or room.sides is None:
                if player_id is None:
                    return None
                raise RoomError("not_now", "no setup choice is being made")
            turn = setup["turn"]
            side = _names(room.variant).index(turn)
            now = utcnow()
            if player_id is None:
                moment, what = clocks.due(setup)
                if now < moment:
                    return None
                if what == "interrupted":
                    # R7: both away until the budget is spent: the game begins waiting with
                    # no budget left, so its clock ends it as interrupted at once.
                    started["game_id"] = new_id("g")
                    started["setups"] = {
                        "cho": setup["cho"] or JANGGI_DEFAULT_SETUP,
                        "han": setup["han"] or JANGGI_DEFAULT_SETUP,
                    }
                    started["away"] = {"away_budget": 0.0, "both_away_since": clocks.iso(now)}
                    return replace(room, setup=None, game_id=started["game_id"])
            elif room.sides[side] != player_id:
                raise RoomError("not_your_turn", "it is not your turn to choose a setup")
            setup = {**clocks.resume(setup, now), turn: choice}
            if turn == "han":
                deadline = self.clock_rules.deadline(now, self._lag_of(room, 0))
                setup = {**setup, "turn": "cho", "deadline": clocks.iso(deadline)}
                return replace(room, setup=setup)
            started["game_id"] = new_id("g")
            started["setups"] = {"cho": setup["cho"], "han": setup["han"]}
            if "away_budget" in setup:
                started["away"] = {"away_budget": setup["away_budget"]}
            return replace(room, setup=None, game_id=started["game_id"])

        room = await self._change_room(room_id, decide)
        if started:
            await self._create_game(
                room, started["game_id"], started["setups"], started.get("away")
            )
        self.keep_time(room_id)
        return room

    async def _create_game(
        self,
        room: RoomRecord,
        game_id: str,
        setups: dict[str, str] | None,
        away: dict[str, Any] | None = None,
    ) -> GameRecord:
        """The room's new game, its first turn's clock running (R3, R4); ``away``: what the
        janggi setup choice left of the shared away budget, or its wait (R7)."""
        options: dict[str, Any] = {}
        board_options: dict[str, Any] = {}
        if room.variant == "janggi":
            assert setups is not None
            bikjang = room.options.get("bikjang", "off")
            options = {"setup": setups, "bikjang": bikjang}
            board_options = {"setup": f"{setups['cho']}:{setups['han']}", "bikjang": bikjang}
        board = make_board(room.variant, **board_options)
        secret = None
        if room.variant == "jieqi":
            arrangement, salt = board.reveal()  # type: ignore[attr-defined]
            secret = {"arrangement": arrangement, "salt": salt}
        now = utcnow()
        names = _names(room.variant)
        options["clock"] = {
            **clocks.new_clock(self.clock_rules, now, self._lag_of(room, 0)),
            **(away or {}),
        }
        options["draw"] = {"offer_by": None, "last_offer_ply": {names[0]: None, names[1]: None}}
        game = GameRecord(
            id=game_id,
            kind="online",
            variant=room.variant,
            level=None,
            player_id=None,
            human_side=None,
            options=options,
            secret=secret,
            start_fen=board.fen(),
            moves=[],
            status="ongoing",
            result=None,
            practice=False,
            points_awarded=0,
            seq=1,
            created_at=now,
            expires_at=now + timedelta(seconds=self.games.settings.game_ttl_seconds),
            updated_at=now,
        )
        start_event = {"type": "start", "snapshot": rules_of.snapshot(game)}
        # S1: the players are stored with the game, so each one's online games can be listed.
        sides = room.sides or []
        players = [(pid, side) for side, pid in enumerate(sides) if pid not in sides[:side]]
        await self.db(self.games.store.insert_game, game, [start_event], players)
        await self.games.hub.publish(room_key(room.id), room.version)
        log.info("room game started", extra={"room": room.id, "game": game_id})
        return game

    # ------------------------------------------------------------------ playing (R4, R5, R6)

    async def move(self, player: Player, room_id: str, ply: int, text: str) -> GameRecord:
        """Play the player's move (Z1). Refused after the deadline: the clock flags instead."""

        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change | None:
            change = rules_of.play_move(g, ply, text, side)
            if change is None:
                return None
            return self._after_move(change, room, side, now)

        return await self._act(player, room_id, act)

    def _after_move(self, change: Change, room: RoomRecord, mover: int, now: datetime) -> Change:
        """The clock's next turn, and R5: a pending offer is rejected by its recipient's move."""
        names = _names(change.before.variant)
        events = list(change.events)
        after = change.after
        draw = dict(after.options["draw"])
        if draw["offer_by"] is not None and draw["offer_by"] != names[mover]:
            draw["offer_by"] = None
            rejected = {"type": "draw_rejected", "by": names[mover]}
            events.insert(1, _resnap(rejected, after))
        clock = after.options["clock"]
        if after.ongoing:
            clock = clocks.next_turn(clock, self.clock_rules, now, self._lag_of(room, 1 - mover))
        after = replace(
            after,
            options={**after.options, "clock": clock, "draw": draw},
            seq=change.before.seq + len(events),
        )
        return self._scored(Change(change.before, after, events), room)

    async def offer_draw(self, player: Player, room_id: str) -> GameRecord:
        """R5: only on your turn, 10 half-moves after your last offer; the clock runs on."""

        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change:
            names = _names(g.variant)
            draw = g.options["draw"]
            if rules_of.turn_of(g) != side:
                raise RoomError("not_your_turn", "a draw can be offered only on your own turn")
            if draw["offer_by"] == names[side]:
                raise RoomError("already_offered", "your draw offer is still open")
            if draw["offer_by"] is not None:
                raise RoomError(
                    "offer_pending", "your opponent offers a draw: accept it or play a move"
                )
            last = draw["last_offer_ply"][names[side]]
            if last is not None and g.ply - last < DRAW_OFFER_GAP:
                wait = DRAW_OFFER_GAP - (g.ply - last)
                raise RoomError(
                    "too_soon",
                    f"{DRAW_OFFER_GAP} half-moves must pass between your offers; {wait} to go",
                )
            offered = {
                "offer_by": names[side],
                "last_offer_ply": {**draw["last_offer_ply"], names[side]: g.ply},
            }
            return _with_options(g, "draw_offered", {"by": names[side]}, draw=offered)

        return await self._act(player, room_id, act)

    async def accept_draw(self, player: Player, room_id: str) -> GameRecord:
        """R5: the recipient accepts the open offer on their turn: a draw, no points."""

        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change:
            names = _names(g.variant)
            offer_by = g.options["draw"]["offer_by"]
            if offer_by is None or offer_by == names[side]:
                raise RoomError("no_offer", "there is no draw offer to accept")
            if rules_of.turn_of(g) != side:
                raise RoomError("not_your_turn", "accept the offer on your turn")
            return rules_of.agree_draw(g)

        return await self._act(player, room_id, act)

    async def resign(self, player: Player, room_id: str) -> GameRecord:
        def act(g: GameRecord, room: RoomRecord, side: int, now: datetime) -> Change:
            return self._scored(rules_of.resign(g, side), room)

        return await self._act(player, room_id, act)

    async def _act(
        self,
        player: Player,
        room_id: str,
        act: Callable[[GameRecord, RoomRecord, int, datetime], Change | None],
    ) -> GameRecord:
        """Apply a player's game action, unless their time already ran out (Z1).

        Raises GameActionError ``not_now`` (no game), ``game_over``, ``time_out`` or the
        action's own refusal.
        """
        room = await self.room_for(player, room_id)
        side = room.side_of(player.id)
        if room.game_id is None or side is None or room.setup is not None:
            raise RoomError("not_now", "no game is in progress in this room")
        flagged = False

        def decide(g: GameRecord) -> Change | None:
            nonlocal flagged
            if not g.ongoing:
                raise RoomError("game_over", "the game is over")
            now = utcnow()
            overdue = self._overdue(g, room, now)
            if overdue is not None:
                flagged = True
                return overdue
            return act(g, room, side, now)

        after = await self._apply(room, decide)
        if flagged:
            raise RoomError("time_out", "the time for this turn ran out")
        return after

    async def _apply(
        self, room: RoomRecord, decide: Callable[[GameRecord], Change | None]
    ) -> GameRecord:
        assert room.game_id is not None
        after = await self.games.apply(room.game_id, decide)
        # Any instance that changes a room's game keeps its time from then on (scale-out).
        self.keep_time(room.id, after)
        return after

    def _overdue(self, g: GameRecord, room: RoomRecord, now: datetime) -> Change | None:
        """The clock's decision when its moment has passed (R4 timeout, R7 interruption)."""
        clock = g.options.get("clock")
        if not g.ongoing or clock is None:
            return None
        moment, what = clocks.due(clock)
        if now < moment:
            return None
        if what == "interrupted":
            finished = rules_of._finish(g, g, [], None, "interrupted")
            return replace(finished, after=_set_clock(finished.after, {**clock, "away_budget": 0}))
        loser = rules_of.turn_of(g)
        return self._scored(rules_of._finish(g, g, [], 1 - loser, "timeout"), room)

    def _scored(self, change: Change, room: RoomRecord) -> Change:
        """R6: an online win scores 50 points for the winner, kept apart from AI points."""
        after = change.after
        winner = (after.result or {}).get("winner")
        if after.ongoing or winner is None or room.sides is None:
            return change
        winner_id = room.sides[_names(after.variant).index(winner)]
        after = replace(after, points_awarded=ONLINE_WIN_POINTS)
        events = [
            _resnap({**e, "points_awarded": ONLINE_WIN_POINTS}, after) if e["type"] == "end" else e
            for e in change.events
        ]
        award = Award(winner_id, "online", ONLINE_WIN_POINTS)
        return Change(change.before, after, events, award)

    # ------------------------------------------------------------------ the clock keeper

    def keep_time(self, room_id: str, game: GameRecord | None = None) -> None:
        """Make sure a task watches the room's deadlines (idempotent).

        ``game``: the room's game as just committed here; its clock gives the next moment
        without reading the room and the game again. Without it, the keeper reads both.
        """
        if self._closing:
            return
        known = room_id not in self._hints or self._hints[room_id] is not None
        self._hints[room_id] = game if game is not None and game.ongoing and known else None
        task = self._keepers.get(room_id)
        if task is not None and not task.done():
            self._wake_keeper(room_id)
            return
        self._wake.setdefault(room_id, asyncio.Event())
        self._keepers[room_id] = asyncio.get_running_loop().create_task(self._keep(room_id))

    def _wake_keeper(self, room_id: str) -> None:
        wake = self._wake.get(room_id)
        if wake is not None:
            wake.set()

    async def _keep(self, room_id: str) -> None:
        wake = self._wake[room_id]
        room: RoomRecord | None = None  # as last read
        try:
            while not self._closing:
                wake.clear()
                hint = self._hints.pop(room_id, None)
                if (
                    room is not None
                    and hint is not None
                    and hint.id == room.game_id
                    and room.setup is None
                ):
                    moment: datetime | None = clocks.due(hint.options["clock"])[0]
                else:
                    room = await self.db(self.store.get, room_id)
                    if room is None or not room.is_open:
                        return
                    moment = await self._next_moment(room)
                if moment is None:
                    return
                delay = (moment - utcnow()).total_seconds()
                if delay > 0:
                    try:
                        await asyncio.wait_for(wake.wait(), timeout=delay)
                    except TimeoutError:
                        room = None  # the moment came: decide on a fresh read
                    continue
                await self._enforce(room)
                room = None
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room clock failed", extra={"room": room_id})
        finally:
            if self._keepers.get(room_id) is asyncio.current_task():
                del self._keepers[room_id]
                self._hints.pop(room_id, None)

    async def _next_moment(self, room: RoomRecord) -> datetime | None:
        if room.setup is not None:
            return clocks.due(room.setup)[0]
        game = await self._current_game(room)
        if game is None or not game.ongoing:
            return None
        return clocks.due(game.options["clock"])[0]

    async def _enforce(self, room: RoomRecord) -> None:
        """Whatever is due now: a setup chosen by the clock, a flag, an interruption."""
        try:
            if room.setup is not None:
                await self._setup_presence(room.id)  # a wait only while both are away (R7)
                await self._setup_step(room.id, None, JANGGI_DEFAULT_SETUP)
                return
            # A pause is only honoured while both players are really away (R7).
            await self._presence(await self.db(self.store.get, room.id) or room)
            await self._apply(
                room, lambda g: self._overdue(g, room, utcnow()) if g.ongoing else None
            )
        except GameActionError as exc:
            log.info("clock action refused", extra={"room": room.id, "code": exc.code})

    # ------------------------------------------------------------------ helpers

    async def _current_game(self, room: RoomRecord) -> GameRecord | None:
        if room.game_id is None:
            return None
        game: GameRecord | None = await self.db(self.games.store.game, room.game_id)
        return game

    async def _change_room(
        self, room_id: str, decide: Callable[[RoomRecord], RoomRecord | None]
    ) -> RoomRecord:
        """Read, decide, store conditionally, announce; retried on a concurrent change."""
        for _ in range(_RETRIES):
            room = await self.db(self.store.get, room_id)
            if room is None:
                raise RoomError("not_found", "no such room", 404)
            after = decide(room)
            if after is None:
                return room
            try:
                stored: RoomRecord = await self.db(self.store.replace, room, after)
            except StaleRoomError:
                continue
            await self.games.hub.publish(room_key(room_id), stored.version)
            return stored
        raise RoomError("busy", "the room is changing too fast; retry", 503)

    def room_view(self, room: RoomRecord, player: Player, names: dict[str, str | None]) -> dict:
        """The room as one of its players sees it (no other player's secrets: ids stay)."""
        seat_index = room.seat_of(player.id)
        side_names = _names(room.variant)
        side = room.side_of(player.id)
        seats = []
        for seat in room.seats:
            their_side = room.side_of(seat["player"])
            seats.append(
                {
                    "you": seat["player"] == player.id,
                    "name": names.get(seat["player"]),
                    "ready": seat["ready"],
                    "connected": seat["connected"],
                    "side": side_names[their_side] if their_side is not None else None,
                }
            )
        setup = None
        if room.setup is not None:
            setup = {
                "turn": room.setup["turn"],
                "han": room.setup["han"],
                "deadline": room.setup["deadline"],
                "both_away_since": room.setup.get("both_away_since"),  # waiting (R7)
                "away_budget": room.setup.get("away_budget"),
            }
        return {
            "id": room.id,
            "variant": room.variant,
            "options": room.options,
            "access": "password" if room.password else "invite",
            "password": room.password,
            "invite": room.invite,
            "status": room.status,
            "seats": seats,
            "seat": seat_index,
            "you": side_names[side] if side is not None else None,
            "setup": setup,
            "game_id": room.game_id,
            "turn_seconds": self.clock_rules.turn_seconds,
            "now": clocks.iso(utcnow()),
        }


def _both_away(room: RoomRecord) -> bool:
    """True when no seat of the current game's players has a connected device."""
    sides = room.sides or []
    return all(not seat["connected"] for seat in room.seats if seat["player"] in sides)


def _seat(player_id: str) -> dict[str, Any]:
    return {"player": player_id, "ready": False, "device": None, "connected": False}


def _closed(room: RoomRecord) -> RoomRecord:
    return replace(room, status="closed", open_password=None, setup=None)


def _set_clock(game: GameRecord, clock: dict[str, Any]) -> GameRecord:
    return replace(game, options={**game.options, "clock": clock})


def _resnap(event: dict[str, Any], after: GameRecord) -> dict[str, Any]:
    """The event with the snapshot of ``after``."""
    return {**event, "snapshot": rules_of.snapshot(after)}


def _with_options(
    game: GameRecord, kind: str, fields: dict[str, Any] | None = None, **options: Any
) -> Change:
    """A change of the game's room options alone, logged as one ``kind`` event."""
    after = replace(game, options={**game.options, **options}, seq=game.seq + 1)
    event = {"type": kind, **(fields or {}), "snapshot": rules_of.snapshot(after)}
    return Change(game, after, [event])
