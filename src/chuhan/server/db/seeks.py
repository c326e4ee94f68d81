"""Seeks in the database: one row per waiting (or just paired) player (SPEC B1).

The table is the site's one pairing desk: every instance writes its players' seeks here, and
:meth:`SeekStore.match` pairs a pool's waiting seeks in one transaction that holds the
pool's lock (PostgreSQL: an advisory transaction lock, so two instances never pair one pool
at once; SQLite, one instance: a process lock), locks the rows it reads, claims both seeks of
each pair by conditional updates and inserts their room in the same transaction. A player
therefore has one seek (the primary key is the player), is never paired with themselves
(:mod:`.rules`) and never twice (a claimed seek is no longer ``waiting``).

A seek lives while a socket of its player waits (the socket's close withdraws it) on a live
instance: a seek held by an instance whose heartbeat (``server_instances``, rooms/
instances.py) is older than ``live_since`` or that stopped (it may have died with its
sockets) is not paired, so nobody is paired with a ghost, and is dropped once old.
Liveness is one row per instance, beaten by its own task: no per-seek refresh that a loaded
instance could fall behind on.
"""

from __future__ import annotations

import contextlib
import threading
import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from sqlalchemy import (
    and_,
    delete,
    func,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..pairing.rules import Seek, SeekError, Wish, pairs
from ..players.glicko2 import DEFAULT_RATING
from ..records import Pairing, RoomRecord, SeekState, aware
from .rooms import room_values
from .store import Store, seated_in_ongoing_game
from .tables import games, ratings, rooms, seeks, server_instances

_LOCK_BASE = 0x5EE6 << 32  # advisory lock ids of the pools: apart from the migration's
MATCH_BATCH = 1000  # waiting seeks read per pool and transaction (the oldest)


def _state(row: Any) -> SeekState:
    since = aware(row.created_at)
    return SeekState(row.status, row.variant, dict(row.options), since, row.room_id)


class SeekStore:
    """Synchronous seek storage on the server's :class:`~.store.Store` engine."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine
        self.reader = store.reader
        self._sqlite_lock = threading.Lock()  # SQLite: one instance, one pairing at a time

    # ------------------------------------------------------------------ a player's seek

    def put(
        self, player_id: str, wish: Wish, connection: str, instance: str, now: datetime
    ) -> SeekState:
        """The player seeks ``wish`` (idempotent: one seek per player, a second tab takes
        it over and keeps its waiting time when it asks for the same game).

        Returns the seek as stored: ``paired`` (with its room) when the player was paired
        and that game is still on. Raises SeekError ``already_playing`` (with ``room``) when
        the player has an online game going on elsewhere (B1: never paired twice)."""
        for _ in range(3):
            try:
                with self._serial():
                    return self._put(player_id, wish, connection, instance, now)
            except IntegrityError:
                continue  # two tabs inserted at once: the other row is there now
        raise SeekError("busy", "the seek is changing too fast; retry")

    def _put(
        self, player_id: str, wish: Wish, connection: str, instance: str, now: datetime
    ) -> SeekState:
        with self.engine.begin() as conn:
            row = conn.execute(
                self._locking(select(seeks).where(seeks.c.player_id == player_id))
            ).one_or_none()
            if row is not None and row.status == "paired" and _still_on(conn, row.room_id):
                return _state(row)
            playing = _room_of_ongoing_game(conn, player_id)
            if playing is not None:
                raise SeekError(
                    "already_playing", "you are playing an online game already", room=playing
                )
            values = {
                "pool": wish.pool,
                "variant": wish.variant,
                "options": wish.options,
                "rating": rating_of(conn, player_id, wish.variant),
                "status": "waiting",
                "room_id": None,
                "connection": connection,
                "instance": instance,
                "seen_at": now,
            }
            if row is None:
                conn.execute(seeks.insert().values(player_id=player_id, created_at=now, **values))
                since = now
            else:
                same = row.status == "waiting" and row.pool == wish.pool
                since = aware(row.created_at) if same else now
                conn.execute(
                    update(seeks)
                    .where(seeks.c.player_id == player_id)
                    .values(created_at=since, **values)
                )
            return SeekState("waiting", wish.variant, wish.options, since)

    def cancel(self, player_id: str, connection: str | None = None) -> SeekState | None:
        """Withdraw the player's waiting seek (``connection``: only if that socket still
        holds it). Returns what is left: None, or the seek as stored when it was already
        paired (the pairing stands) or is held by another socket."""
        with self._serial(), self.engine.begin() as conn:
            where = and_(seeks.c.player_id == player_id, seeks.c.status == "waiting")
            if connection is not None:
                where = and_(where, seeks.c.connection == connection)
            conn.execute(delete(seeks).where(where))
            row = conn.execute(select(seeks).where(seeks.c.player_id == player_id)).one_or_none()
        return _state(row) if row is not None else None

    def state(self, player_id: str) -> SeekState | None:
        row = self.store.row_by(seeks, "player_id", player_id)
        return _state(row) if row is not None else None

    def counts(self, live_since: datetime) -> dict[str, int]:
        """How many players wait for each variant (B1: shown while waiting)."""
        query = (
            select(seeks.c.variant, func.count())
            .where(seeks.c.status == "waiting", _held_live(live_since))
            .group_by(seeks.c.variant)
        )
        with self.reader.connect() as conn:
            return {variant: int(count) for variant, count in conn.execute(query)}

    def waiting_pools(self, live_since: datetime) -> list[str]:
        """The pools with at least two live waiting seeks (a sweep pairs them)."""
        query = (
            select(seeks.c.pool)
            .where(seeks.c.status == "waiting", _held_live(live_since))
            .group_by(seeks.c.pool)
            .having(func.count() >= 2)
        )
        with self.reader.connect() as conn:
            return [row[0] for row in conn.execute(query)]

    # ------------------------------------------------------------------ pairing

    def match(
        self,
        pool: str,
        live_since: datetime,
        gone_before: datetime,
        make_room: Callable[[Seek, Seek, str, dict[str, Any]], RoomRecord],
    ) -> list[Pairing]:
        """Pair the pool's waiting seeks (:func:`.rules.pairs`), site-wide atomically: the
        pool's lock, the rows locked, each pair's two seeks claimed and its room
        (``make_room(first, second, variant, options)``) inserted in one transaction.
        Seeks of instances not alive since ``live_since`` wait (a late instance's are
        paired once it beats again); those also not sought since ``gone_before`` are
        dropped. Returns the pairings made."""
        with self._serial(), self.engine.begin() as conn:
            if not self.store.is_sqlite:
                lock = _LOCK_BASE + zlib.crc32(pool.encode())
                conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": lock})
            waiting = and_(seeks.c.pool == pool, seeks.c.status == "waiting")
            gone = and_(seeks.c.seen_at < gone_before, ~_held_live(live_since))
            conn.execute(delete(seeks).where(waiting, gone))
            query = (
                select(seeks)
                .where(waiting, _held_live(live_since))
                .order_by(seeks.c.created_at)
                .limit(MATCH_BATCH)
            )
            rows = list(conn.execute(self._locking(query)))
            found = pairs([Seek(r.player_id, r.pool, r.rating, aware(r.created_at)) for r in rows])
            if not found:
                return []
            details = {r.player_id: r for r in rows}
            made = []
            for first, second in found:
                row = details[first.player_id]
                room = make_room(first, second, row.variant, dict(row.options))
                conn.execute(rooms.insert().values(**room_values(room)))
                claimed = conn.execute(
                    update(seeks)
                    .where(
                        seeks.c.player_id.in_([first.player_id, second.player_id]),
                        seeks.c.status == "waiting",
                    )
                    .values(status="paired", room_id=room.id)
                ).rowcount
                if claimed != 2:  # cannot happen under the lock; never pair half a pair
                    raise RuntimeError("a seek changed under the pool's lock")
                made.append(Pairing(first, second, room))
            return made

    def _serial(self) -> AbstractContextManager[Any]:
        """SQLite (one instance): the seeks' transactions one at a time, since a read that
        turns into a write in two at once would fail as locked; PostgreSQL: row and pool
        locks do it, nothing here."""
        return self._sqlite_lock if self.store.is_sqlite else contextlib.nullcontext()

    def _locking(self, query: Any) -> Any:
        return query if self.store.is_sqlite else query.with_for_update()


def _held_live(live_since: datetime) -> Any:
    """The seek's instance is alive: a heartbeat since ``live_since``, not stopped."""
    live = select(server_instances.c.id).where(
        server_instances.c.alive_at >= live_since, server_instances.c.stopped.is_(False)
    )
    return seeks.c.instance.in_(live)


def _still_on(conn: Connection, room_id: str | None) -> bool:
    """The paired room's game (or janggi setup) has not ended, or is being created."""
    if room_id is None:
        return False
    room = conn.execute(
        select(rooms.c.status, rooms.c.game_id, rooms.c.setup).where(rooms.c.id == room_id)
    ).one_or_none()
    if room is None or room.status != "open":
        return False
    if room.setup is not None:
        return True
    if room.game_id is None:
        return False
    status = conn.execute(select(games.c.status).where(games.c.id == room.game_id)).scalar()
    return status is None or status == "ongoing"


def _room_of_ongoing_game(conn: Connection, player_id: str) -> str | None:
    """The open room of an online game the player is playing now, if any."""
    query = (
        seated_in_ongoing_game(player_id, rooms.c.id)
        .join(rooms, rooms.c.game_id == games.c.id)
        .where(rooms.c.status == "open")
        .limit(1)
    )
    found: str | None = conn.execute(query).scalar()
    return found


def rating_of(conn: Connection, player_id: str, variant: str) -> float:
    """The rating a seek is paired by (SPEC B1 "nearest in rating", B2): the player's
    Glicko-2 rating in ``variant`` (read on ``conn``), or Glicko-2's starting rating."""
    found = conn.execute(
        select(ratings.c.rating).where(
            ratings.c.player_id == player_id, ratings.c.variant == variant
        )
    ).scalar()
    return float(found) if found is not None else DEFAULT_RATING
