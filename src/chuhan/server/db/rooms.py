"""Rooms in the database (SPEC R1–R3; password attempts: ``ratelimit.py``).

Every change of a room is a conditional update on its ``version``, so that several server
instances sharing one database change a room one at a time: a change computed from a stale
copy is refused (:class:`StaleRoomError`) and recomputed from a fresh read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import (
    String,
    cast,
    or_,
    select,
)
from sqlalchemy.exc import IntegrityError

from ..records import ROOM_FIELDS, PasswordTakenError, RoomRecord, StaleRoomError, aware, utcnow
from .engine import update_unless_moved
from .store import Store
from .tables import rooms


def room_values(room: RoomRecord) -> dict[str, Any]:
    """The ``rooms`` row of ``room`` (to insert it, also inside another transaction)."""
    return {name: getattr(room, name) for name in ROOM_FIELDS}


def _room_from_row(row: Any) -> RoomRecord:
    values = {name: getattr(row, name) for name in ROOM_FIELDS}
    values["created_at"] = aware(values["created_at"])
    values["updated_at"] = aware(values["updated_at"])
    values["seats"] = [dict(seat) for seat in values["seats"]]
    return RoomRecord(**values)


class RoomStore:
    """Synchronous room storage on the server's :class:`~.store.Store` engine."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine
        self.reader = store.reader  # reads outside a transaction (PostgreSQL)

    def insert(self, room: RoomRecord) -> None:
        """Store a new room. Raises PasswordTakenError when an open room has its password."""
        values = room_values(room)
        try:
            with self.engine.begin() as conn:
                conn.execute(rooms.insert().values(**values))
        except IntegrityError:
            raise PasswordTakenError(room.open_password) from None

    def get(self, room_id: str) -> RoomRecord | None:
        row = self.store.row_by(rooms, "id", room_id)
        return _room_from_row(row) if row else None

    def by_invite(self, invite: str) -> RoomRecord | None:
        with self.reader.connect() as conn:
            row = conn.execute(select(rooms).where(rooms.c.invite == invite)).one_or_none()
        return _room_from_row(row) if row else None

    def by_open_password(self, password: str) -> RoomRecord | None:
        with self.reader.connect() as conn:
            row = conn.execute(select(rooms).where(rooms.c.open_password == password)).one_or_none()
        return _room_from_row(row) if row else None

    def open_rooms_of(self, player_id: str) -> int:
        """How many open rooms the player has a seat in (the seats' text narrows the rows,
        the seats themselves decide)."""
        query = select(rooms.c.seats).where(
            rooms.c.status == "open", cast(rooms.c.seats, String).contains(player_id)
        )
        with self.reader.connect() as conn:
            rows = list(conn.execute(query))
        return sum(1 for row in rows if any(s.get("player") == player_id for s in row[0]))

    def active(self) -> list[RoomRecord]:
        """Open rooms with a game or a setup in progress (their clocks need a keeper)."""
        query = select(rooms).where(
            rooms.c.status == "open",
            or_(rooms.c.game_id.is_not(None), rooms.c.setup.is_not(None)),
        )
        with self.reader.connect() as conn:
            return [_room_from_row(row) for row in conn.execute(query)]

    def open_rooms(self) -> list[RoomRecord]:
        """Every open room (to clear the seats of a dead instance's connections, R7)."""
        with self.reader.connect() as conn:
            return [
                _room_from_row(row)
                for row in conn.execute(select(rooms).where(rooms.c.status == "open"))
            ]

    def replace(self, before: RoomRecord, after: RoomRecord) -> RoomRecord:
        """Store ``after`` in place of ``before``; returns it with the next version.

        Raises StaleRoomError (changing nothing) when the room is no longer at
        ``before.version``.
        """
        stored = replace(after, version=before.version + 1, updated_at=utcnow())
        values = {name: getattr(stored, name) for name in ROOM_FIELDS}
        del values["id"]
        at = (rooms.c.id == before.id, rooms.c.version == before.version)
        with self.engine.begin() as conn:
            update_unless_moved(conn, rooms, at, values, StaleRoomError(before.id))
        return stored
