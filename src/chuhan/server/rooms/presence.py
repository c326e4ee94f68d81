"""Presence (SPEC R7): which connection holds each seat, and the game's wait while both
players are away.

A seat is held by one connection, ``"<device id>/<connection id>"``: the connection id is
the socket's own, whatever device id the socket says it has (and says again), so the close
of the socket frees the seat it holds. A connection of the same device takes the seat back
at once (a dropped socket reconnecting), another device only with "Continue on this device".
While no seat of the game's players is connected the turn waits on the shared away budget;
one back, it goes on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ..records import Change, GameRecord, Player, RoomRecord
from ..refusal import GameActionError
from . import rules
from .core import RETRIES, RoomCore
from .rules import RoomError

Apply = Callable[[RoomRecord, Callable[[GameRecord], Change | None]], Awaitable[GameRecord]]


def connection_of(device: str | None) -> str:
    """The connection part of a seat's ``device`` (the socket that holds it)."""
    return (device or "").rsplit("/", 1)[-1]


def attached(
    room: RoomRecord, player_id: str, device: str, take: bool, instance_id: str
) -> RoomRecord | None:
    """The connection ``device`` of the player holds the seat when no connected device does,
    when it comes from the device that holds it, or when ``take`` moves the seat to it.
    None: nothing changes (it holds the seat already, or another device does). Raises
    RoomError ``not_found`` for a player without a seat."""
    index = room.seat_of(player_id)
    if index is None:
        raise RoomError("not_found", "you have no seat in this room")
    seat = room.seats[index]
    if seat["device"] == device and seat["connected"]:
        return None
    held_by = (seat["device"] or "").split("/")[0]
    same_device = held_by == device.split("/")[0] and held_by != "anonymous"
    same_socket = connection_of(seat["device"]) == connection_of(device)
    if seat["connected"] and not (take or same_device or same_socket):
        return None
    seats = [dict(s) for s in room.seats]
    # ``instance``: the seat is cleared if this instance dies (R7, Z4).
    seats[index] = {**seat, "device": device, "connected": True, "instance": instance_id}
    return replace(room, seats=seats)


def detached(room: RoomRecord, player_id: str, device: str) -> RoomRecord | None:
    """The connection of ``device`` closed: its seat, if it held it, is away (whatever
    device id the connection gave last)."""
    index = room.seat_of(player_id)
    if index is None or connection_of(room.seats[index]["device"]) != connection_of(device):
        return None
    seats = [dict(s) for s in room.seats]
    seats[index]["connected"] = False
    return replace(room, seats=seats)


def without_instances(room: RoomRecord, gone: set[str | None]) -> RoomRecord | None:
    """R7: the seats held by connections of the instances ``gone`` are no longer connected."""

    def held_by_gone(seat: dict[str, Any]) -> bool:
        return bool(seat["connected"]) and seat.get("instance") in gone

    if not any(held_by_gone(seat) for seat in room.seats):
        return None
    seats = [{**s, "connected": False} if held_by_gone(s) else s for s in room.seats]
    return replace(room, seats=seats)


class Presence:
    def __init__(
        self,
        core: RoomCore,
        apply: Apply,
        keep_time: Callable[[str], None],
        news: Callable[[RoomRecord], rules.NewsWatch | None] = lambda room: None,
    ) -> None:
        self.core = core
        self.apply = apply
        self.keep_time = keep_time
        self.news = news
        self._lag: dict[tuple[str, str], float] = {}

    async def attach(self, player: Player, room_id: str, device: str, take: bool) -> bool:
        """A connection of the player opens the room (see :func:`attached`).

        Returns True when ``device`` now holds the seat."""
        core = self.core
        room = await core.change_room(
            room_id, lambda r: attached(r, player.id, device, take, core.instance_id)
        )
        index = room.seat_of(player.id)
        holds = index is not None and room.seats[index]["device"] == device
        if holds:
            await self.settle(room)
        return holds

    async def detach(self, player: Player, room_id: str, device: str) -> None:
        """The connection ``device`` closed: its seat, if it held it, is away."""
        freed = False

        def decide(room: RoomRecord) -> RoomRecord | None:
            nonlocal freed
            after = detached(room, player.id, device)
            freed = after is not None
            return after

        try:
            room = await self.core.change_room(room_id, decide)
        except GameActionError:
            return
        if freed:
            await self.settle(room)

    # ------------------------------------------------------------------ lag (R4)

    def record_lag(self, room_id: str, player_id: str, one_way_seconds: float) -> None:
        self._lag[(room_id, player_id)] = one_way_seconds

    def lag_of(self, room: RoomRecord, side: int) -> float | None:
        """The measured one-way lag of the player of ``side`` (None: not measured)."""
        if room.sides is None:
            return None
        return self._lag.get((room.id, room.sides[side]))

    # ------------------------------------------------------------------ both away (R7)

    async def settle(self, room: RoomRecord) -> None:
        """R7: both players away: the game waits on the shared budget; one back: it goes on.

        Presence is read again after the change: a connection that came or went meanwhile
        (perhaps on another instance) is taken into account before returning.
        """
        if room.setup is not None:
            await self.settle_setup(room.id)
            return
        for _ in range(RETRIES):
            game = await self.core.current_game(room)
            if game is None or not game.ongoing or room.sides is None:
                return
            away = rules.both_away(room)
            news = self.news(room)

            def decide(
                g: GameRecord,
                away: bool = away,
                sides: list[str] = room.sides,
                news: rules.NewsWatch | None = news,
            ) -> Change | None:
                return rules.presence(g, away, sides, self.core.now(), news)

            await self.apply(room, decide)
            fresh = await self.core.read_room(room.id)
            if fresh is None or rules.both_away(fresh) == away:
                return
            room = fresh

    async def settle_setup(self, room_id: str) -> None:
        """R7 during the janggi setup choice (:func:`.rules.setup_presence`)."""
        clock = self.core.settings.clock
        await self.core.change_room(
            room_id, lambda r: rules.setup_presence(r, self.core.now(), clock)
        )
        self.keep_time(room_id)
