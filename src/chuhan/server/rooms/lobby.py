"""The lobby: creating rooms, joining them by password or invite, seats, leaving (SPEC R1,
R2, R8, Z3).

Each seat change is a pure function of the room as read (:func:`seated`, :func:`vacated`,
:func:`closed`) applied by :meth:`~.core.RoomCore.change_room`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from ..addresses import CLIENT_BLOCK
from ..games.service import new_id
from ..records import PasswordTakenError, Player, RoomOptions, RoomRecord
from . import timecontrols
from .core import RoomCore
from .passwords import PasswordError, normalize_password
from .ratelimit import JoinLimiter, LimitExceeded, Reservation
from .rules import RoomError

log = logging.getLogger("chuhan.rooms")
VARIANTS = ("xiangqi", "janggi", "jieqi")
MAX_ROOM_ID = 32
MAX_INVITE = 64


def new_seat(player_id: str) -> dict[str, Any]:
    return {"player": player_id, "ready": False, "device": None, "connected": False}


def new_room(
    variant: str,
    options: RoomOptions,
    seats: list[dict[str, Any]],
    now: datetime,
    *,
    password: str | None = None,
    invite: str | None = None,
) -> RoomRecord:
    """A room just opened (R1), by a player or by pairing (B1): open at version 1, no sides
    drawn, no setup, no game yet; its ``password`` stays findable until the room closes."""
    return RoomRecord(
        id=new_id("r"),
        invite=invite,
        password=password,
        open_password=password,
        variant=variant,
        options=options,
        status="open",
        seats=seats,
        sides=None,
        setup=None,
        game_id=None,
        version=1,
        created_at=now,
        updated_at=now,
    )


def closed(room: RoomRecord) -> RoomRecord:
    """The room closed: its password is free again (R2) and no setup goes on."""
    return replace(room, status="closed", open_password=None, setup=None)


def seated(room: RoomRecord, player_id: str) -> RoomRecord | None:
    """R1: the player takes the free seat (None: they already sit here). Raises RoomError
    ``room_closed`` or ``room_full``."""
    if room.seat_of(player_id) is not None:
        return None
    if not room.is_open:
        raise RoomError("room_closed", "this room is closed")
    if len(room.seats) >= 2:
        raise RoomError("room_full", "this room is full: it already has two players")
    return replace(room, seats=[*room.seats, new_seat(player_id)])


def vacated(room: RoomRecord, player_id: str) -> RoomRecord | None:
    """R8: the player gives up their seat; whoever stays is not ready, and the last one out
    closes the room."""
    if room.seat_of(player_id) is None:
        return None
    seats = [{**s, "ready": False} for s in room.seats if s["player"] != player_id]
    after = replace(room, seats=seats, setup=None)
    return closed(after) if not seats else after


def too_many(exc: LimitExceeded) -> RoomError:
    return RoomError(
        "too_many_attempts",
        "too many password attempts; wait a little before trying again",
        tries_left=0,
        retry_after=max(1, round(exc.retry_after)),
    )


class Lobby:
    def __init__(self, core: RoomCore, limiter: JoinLimiter) -> None:
        self.core = core
        self.limiter = limiter

    async def _attempt(self, player: Player, address: str) -> Reservation:
        """One password attempt (Z3, ratelimit.py): counted, waited for. Raises RoomError
        ``too_many_attempts``."""
        try:
            attempt: Reservation = await self.core.db(self.limiter.attempt, player.id, address)
        except LimitExceeded as exc:
            raise too_many(exc) from None
        if attempt.wait > 0:
            await asyncio.sleep(attempt.wait)  # a busy address block or site: its turn
        return attempt

    async def _found(self, attempt: Reservation, room_id: str) -> None:
        try:
            await self.core.db(self.limiter.found, attempt, room_id)
        except LimitExceeded as exc:
            raise too_many(exc) from None

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
        """A new open room with the creator in the first seat.

        With ``password`` the room is joined by it (R2), without, by an invite link of 192
        random bits (Z3). ``clock``: a game clock's id (B7, :mod:`.timecontrols`), None for
        R4's turn clock (the room's options then say nothing of it). Raises RoomError
        ``bad_request`` (a bad variant, option or clock), ``bad_password`` (the reason in
        the message), ``too_many_rooms``, ``too_many_attempts`` or ``password_taken``: a
        creation with a password is a password attempt like a join (ratelimit.py), so it
        tells a stranger no more than a join does.
        """
        if variant not in VARIANTS:
            raise RoomError("bad_request", "variant must be xiangqi, janggi or jieqi")
        if bikjang not in ("off", "points"):
            raise RoomError("bad_request", "bikjang must be off or points")
        if rules not in ("casual", "wxf") or (variant == "janggi" and rules != "casual"):
            raise RoomError("bad_request", "rules must be casual or wxf (xiangqi and jieqi)")
        try:
            control = timecontrols.choose(variant, clock)
        except timecontrols.TimeControlError as exc:
            raise RoomError("bad_request", str(exc)) from None
        normalized = None
        if password is not None:
            try:
                normalized = normalize_password(password)
            except PasswordError as exc:
                raise RoomError("bad_password", str(exc), reason=exc.reason) from None
        db, store = self.core.db, self.core.store
        most = self.limiter.limits.open_rooms_per_player
        if await db(store.open_rooms_of, player.id) >= most:
            raise RoomError(
                "too_many_rooms",
                f"you already have {most} open rooms; leave one before opening another",
            )
        address = address or CLIENT_BLOCK.get()
        attempt = await self._attempt(player, address) if normalized else None
        now = self.core.now()
        options: RoomOptions = {"bikjang": bikjang} if variant == "janggi" else {"rules": rules}
        if control is not None:
            options["clock"] = control
        room = new_room(
            variant,
            options,
            [new_seat(player.id)],
            now,
            password=normalized,
            invite=None if normalized else secrets.token_urlsafe(24),
        )
        try:
            await db(store.insert, room)
        except PasswordTakenError:
            if normalized is None or not await self._release_idle(normalized):
                holder = await db(store.by_open_password, normalized) if normalized else None
                if attempt is not None and holder is not None:
                    await self._found(attempt, holder.id)
                raise RoomError(
                    "password_taken",
                    "another open room uses this password; choose another one",
                ) from None
            await db(store.insert, room)
        self.core.remember(room)
        log.info("room created", extra={"room": room.id, "variant": variant})
        return room

    async def _release_idle(self, password: str) -> bool:
        """Close the open room holding ``password`` if nobody has been in it for long."""
        holder = await self.core.db(self.core.store.by_open_password, password)
        if holder is None:
            return True
        idle_for = timedelta(seconds=self.core.settings.idle_room_seconds)
        idle = self.core.now() - holder.updated_at > idle_for
        if not idle or any(seat["connected"] for seat in holder.seats):
            return False
        try:
            await self.core.change_room(holder.id, lambda r: closed(r) if r.is_open else None)
        except RoomError:
            return False
        return True

    async def join_by_password(self, player: Player, password: str, address: str) -> RoomRecord:
        """Z3: take a seat in the open room with this password; failed tries are limited.

        Raises RoomError ``too_many_attempts`` (429), ``wrong_password`` (404) with
        ``tries_left``, ``room_full``.
        """
        db = self.core.db
        attempt = await self._attempt(player, address)
        try:
            normalized = normalize_password(password)
        except PasswordError:
            normalized = None
        room = await db(self.core.store.by_open_password, normalized) if normalized else None
        if room is None:
            raise RoomError(
                "wrong_password",
                f"no open room has this password; {attempt.left} tries left",
                tries_left=attempt.left,
            )
        if room.seat_of(player.id) is None:  # not their own room: it was found
            await self._found(attempt, room.id)
        else:
            await db(self.limiter.limiter.refund, attempt)
        return await self.take_seat(player, room.id)

    async def join_by_invite(self, player: Player, invite: str) -> RoomRecord:
        """Take a seat in the room of an invite link. Raises RoomError ``not_found``,
        ``room_full``, ``room_closed``."""
        store = self.core.store
        room = await self.core.db(store.by_invite, invite) if len(invite) <= MAX_INVITE else None
        if room is None:
            raise RoomError("not_found", "this invite link leads to no room")
        return await self.take_seat(player, room.id)

    async def take_seat(self, player: Player, room_id: str) -> RoomRecord:
        room = await self.core.change_room(room_id, lambda r: seated(r, player.id))
        log.info("room joined", extra={"room": room.id, "player": player.id})
        return room

    async def room_for(self, player: Player, room_id: str) -> RoomRecord:
        """The room, for one of its two players only (R1: no spectators).

        Raises RoomError ``not_found`` (also for a room the player has no seat in).
        """
        room = await self.core.read_room(room_id) if len(room_id) <= MAX_ROOM_ID else None
        if room is None or room.seat_of(player.id) is None:
            raise RoomError("not_found", "no such room, or you have no seat in it")
        return room

    async def vacate(self, player: Player, room_id: str) -> None:
        """R8: the player's seat is given up (a game in progress was resigned first)."""
        await self.core.change_room(room_id, lambda r: vacated(r, player.id))
        log.info("room left", extra={"room": room_id, "player": player.id})
