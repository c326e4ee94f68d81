"""Seeks in the database: one row per waiting (or just paired) player (SPEC B1).

The table is the site's one pairing desk: every instance writes its players' seeks here, and
:meth:`SeekStore.match` pairs a pool's waiting seeks in one transaction that holds the
pool's lock (PostgreSQL: an advisory transaction lock, so two instances never pair one pool
at once; SQLite, one instance: a process lock), locks the rows it reads, claims both seeks of
each pair by conditional updates and inserts their room in the same transaction. A player
therefore has one seek (the primary key is the player), is never paired with themselves
and never twice (a claimed seek is no longer ``waiting``). Who is paired with whom, and what
an abort costs, the store does not decide: the pairing rules handed to it (:class:`Rules`,
``pairing/rules.py``) do, inside its transactions.

A seek lives while a socket of its player waits (the socket's close withdraws it) on a live
instance: a seek held by an instance whose heartbeat (``server_instances``, rooms/
instances.py) is older than ``live_since`` or that stopped (it may have died with its
sockets) is not paired, so nobody is paired with a ghost, and is dropped once old.
Liveness is one row per instance, beaten by its own task: no per-seek refresh that a loaded
instance could fall behind on. A socket that stops answering has its seek withdrawn by its
own instance (:meth:`SeekStore.withdraw`, pairing/service.py).

Z8: a seek keeps the address block (and IPv6 /48) it came from; an abort (a paired game left
before the leaver's first move) is one row of ``seek_aborts``. A seek is refused while its
player's or address's cooldown runs (``pairing/rules.py``), a waiting seek
of a cooling player or address is not paired, and a pair that just aborted is kept apart
(the waits: ``pairing/rules.py``, aborts).
"""

from __future__ import annotations

import contextlib
import math
import threading
import zlib
from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Protocol

from sqlalchemy import (
    and_,
    delete,
    func,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..glicko2 import DEFAULT_RATING
from ..records import Pairing, RoomRecord, Seek, SeekState, aware
from ..refusal import SeekError
from .games import seated_in_ongoing_game
from .rooms import room_values
from .store import Store
from .tables import games, ratings, rooms, seek_aborts, seeks, server_instances

_LOCK_BASE = 0x5EE6 << 32  # advisory lock ids of the pools: apart from the migration's
MATCH_BATCH = 1000  # waiting seeks read per pool and transaction (the oldest)


class PoolCount(NamedTuple):
    """How many live seeks wait in one pool (B1), with the game they ask for."""

    pool: str
    variant: str
    options: dict[str, str]
    waiting: int


class Origin(NamedTuple):
    """Where a seek comes from (Z8): its player, address block and IPv6 /48 (or None)."""

    player_id: str
    block: str | None = None
    network: str | None = None


class Abort(NamedTuple):
    """An abort remembered (a ``seek_aborts`` row, Z8): who left, from where, against whom."""

    player_id: str
    block: str | None
    network: str | None
    opponent_id: str
    at: datetime


class Wanted(Protocol):
    """The game a seek asks for (``pairing/rules.py``: ``Wish``)."""

    @property
    def variant(self) -> str: ...
    @property
    def options(self) -> dict[str, str]: ...
    @property
    def pool(self) -> str: ...


class Cooling(Protocol):
    """The waits after aborting of some seeks' players and addresses (Z8)."""

    @property
    def apart(self) -> Collection[frozenset[str]]: ...
    def until(self, origin: Origin) -> datetime | None: ...


class Rules(Protocol):
    """The pure pairing rules the store runs in its transactions (``pairing/rules.py``:
    ``RULES``): how long an abort counts, the waits it makes, who is paired with whom."""

    @property
    def abort_memory(self) -> timedelta: ...
    def cooldowns(self, aborts: Iterable[Abort], now: datetime) -> Cooling: ...
    def pairs(
        self, waiting: Sequence[Seek], apart: Collection[frozenset[str]]
    ) -> list[tuple[Seek, Seek]]: ...


def _state(row: Any) -> SeekState:
    since = aware(row.created_at)
    return SeekState(row.status, row.variant, dict(row.options), since, row.room_id)


class SeekStore:
    """Synchronous seek storage on the server's :class:`~.store.Store` engine, pairing by
    ``rules``."""

    def __init__(self, store: Store, rules: Rules) -> None:
        self.store = store
        self.rules = rules
        self.engine = store.engine
        self.reader = store.reader
        self._sqlite_lock = threading.Lock()  # SQLite: one instance, one pairing at a time

    # ------------------------------------------------------------------ a player's seek

    def put(
        self,
        player_id: str,
        wish: Wanted,
        connection: str,
        instance: str,
        now: datetime,
        origin: Origin | None = None,
    ) -> SeekState:
        """The player seeks ``wish`` (idempotent: one seek per player, a second tab takes
        it over and keeps its waiting time when it asks for the same game); ``origin``:
        where from (Z8: the address block an abort's cost is counted on).

        Returns the seek as stored: ``paired`` (with its room) when the player was paired
        and that game is still on. Raises SeekError ``already_playing`` (with ``room``) when
        the player has an online game going on elsewhere (B1: never paired twice), or
        ``abort_cooldown`` (with ``retry_after`` seconds) while the player's or address's
        wait after aborting runs (Z8)."""
        origin = origin or Origin(player_id)
        for _ in range(3):
            try:
                with self._serial():
                    return self._put(player_id, wish, connection, instance, now, origin)
            except IntegrityError:
                continue  # two tabs inserted at once: the other row is there now
        raise SeekError("busy", "the seek is changing too fast; retry")

    def _put(
        self,
        player_id: str,
        wish: Wanted,
        connection: str,
        instance: str,
        now: datetime,
        origin: Origin,
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
            until = self._cooldowns(conn, [origin], now).until(origin)
            if until is not None and until > now:
                raise SeekError(
                    "abort_cooldown",
                    "you left paired games before your first move; wait before seeking again",
                    retry_after=max(1, math.ceil((until - now).total_seconds())),
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
                "block": origin.block,
                "network": origin.network,
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

    def withdraw(self, connections: list[str]) -> list[str]:
        """Withdraw the waiting seeks these sockets hold (they stopped answering: a phone
        asleep is not paired). Returns the players whose seek was withdrawn."""
        if not connections:
            return []
        where = and_(seeks.c.connection.in_(connections), seeks.c.status == "waiting")
        with self._serial(), self.engine.begin() as conn:
            players = [row[0] for row in conn.execute(select(seeks.c.player_id).where(where))]
            conn.execute(delete(seeks).where(where, seeks.c.player_id.in_(players)))
        return players

    def record_abort(self, room_id: str, player_id: str, opponent_id: str, now: datetime) -> None:
        """Z8: ``player_id`` left the paired game of ``room_id`` (against ``opponent_id``)
        before their first move. Counted on the address their seek came from; aborts older
        than anything reads are deleted meanwhile."""
        with self._serial(), self.engine.begin() as conn:
            row = conn.execute(
                select(seeks.c.block, seeks.c.network).where(
                    seeks.c.player_id == player_id, seeks.c.room_id == room_id
                )
            ).one_or_none()
            conn.execute(
                delete(seek_aborts).where(seek_aborts.c.at < now - self.rules.abort_memory)
            )
            conn.execute(
                seek_aborts.insert().values(
                    player_id=player_id,
                    block=row.block if row is not None else None,
                    network=row.network if row is not None else None,
                    opponent_id=opponent_id,
                    room_id=room_id,
                    at=now,
                )
            )

    def cooling(self, origin: Origin, now: datetime) -> datetime | None:
        """Z8: when the wait after aborting ends for this player and address (None: none)."""
        with self.reader.connect() as conn:
            until = self._cooldowns(conn, [origin], now).until(origin)
        return until if until is not None and until > now else None

    def waiting_pool(self, player_id: str) -> str | None:
        """The pool the player's seek waits in (None: no waiting seek)."""
        query = select(seeks.c.pool).where(
            seeks.c.player_id == player_id, seeks.c.status == "waiting"
        )
        with self.reader.connect() as conn:
            found: str | None = conn.execute(query).scalar()
        return found

    def state(self, player_id: str) -> SeekState | None:
        row = self.store.row_by(seeks, "player_id", player_id)
        return _state(row) if row is not None else None

    def counts(self, live_since: datetime) -> list[PoolCount]:
        """How many players wait in each pool, with the game it is (B1: shown while
        waiting, for the rule option and clock asked for)."""
        live = and_(seeks.c.status == "waiting", _held_live(live_since))
        query = (
            select(seeks.c.pool, seeks.c.variant, func.count(), func.min(seeks.c.player_id))
            .where(live)
            .group_by(seeks.c.pool, seeks.c.variant)
        )
        with self.reader.connect() as conn:
            found = list(conn.execute(query))
            if not found:
                return []
            one_each = [row[3] for row in found]
            options = dict(
                conn.execute(
                    select(seeks.c.pool, seeks.c.options).where(seeks.c.player_id.in_(one_each))
                ).all()
            )
        return [
            PoolCount(pool, variant, dict(options.get(pool) or {}), int(count))
            for pool, variant, count, _ in found
        ]

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
        now: datetime | None = None,
        beat_since: datetime | None = None,
    ) -> list[Pairing]:
        """Pair the pool's waiting seeks (``rules.pairs``), site-wide atomically: the
        pool's lock, the rows locked, each pair's two seeks claimed and its room
        (``make_room(first, second, variant, options)``) inserted in one transaction.
        Seeks of instances not alive since ``live_since`` wait (a late instance's are
        paired once it beats again); those also not sought since ``gone_before`` are
        dropped. ``beat_since``: only seeks of instances that beat since then are paired
        (tighter than ``live_since``: a killed instance's seeks stop being paired within a
        few beats). Z8: a seek of a player or address whose wait after aborting runs at
        ``now`` waits, and a pair that just aborted is not paired again. Returns the
        pairings made."""
        now = now or gone_before
        with self._serial(), self.engine.begin() as conn:
            if not self.store.is_sqlite:
                lock = _LOCK_BASE + zlib.crc32(pool.encode())
                conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": lock})
            waiting = and_(seeks.c.pool == pool, seeks.c.status == "waiting")
            gone = and_(seeks.c.seen_at < gone_before, ~_held_live(live_since))
            conn.execute(delete(seeks).where(waiting, gone))
            query = (
                select(seeks)
                .where(waiting, _held_live(max(live_since, beat_since or live_since)))
                .order_by(seeks.c.created_at)
                .limit(MATCH_BATCH)
            )
            rows = list(conn.execute(self._locking(query)))
            if len(rows) < 2:
                return []
            origins = {r.player_id: Origin(r.player_id, r.block, r.network) for r in rows}
            cooldowns = self._cooldowns(conn, list(origins.values()), now)
            free = [r for r in rows if not _cooling(cooldowns, origins[r.player_id], now)]
            found = self.rules.pairs(
                [Seek(r.player_id, r.pool, r.rating, aware(r.created_at)) for r in free],
                cooldowns.apart,
            )
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

    def _cooldowns(self, conn: Connection, origins: list[Origin], now: datetime) -> Cooling:
        """The waits after the aborts that count against these seeks' players and addresses
        at ``now`` (read on ``conn``, judged by the rules)."""
        players = sorted({o.player_id for o in origins})
        blocks = sorted({o.block for o in origins if o.block is not None})
        networks = sorted({o.network for o in origins if o.network is not None})
        whose = [seek_aborts.c.player_id.in_(players)]
        if blocks:
            whose.append(seek_aborts.c.block.in_(blocks))
        if networks:
            whose.append(seek_aborts.c.network.in_(networks))
        since = now - self.rules.abort_memory
        query = select(seek_aborts).where(seek_aborts.c.at >= since, or_(*whose))
        aborts = [
            Abort(row.player_id, row.block, row.network, row.opponent_id, aware(row.at))
            for row in conn.execute(query)
        ]
        return self.rules.cooldowns(aborts, now)

    def _serial(self) -> AbstractContextManager[Any]:
        """SQLite (one instance): the seeks' transactions one at a time, since a read that
        turns into a write in two at once would fail as locked; PostgreSQL: row and pool
        locks do it, nothing here."""
        return self._sqlite_lock if self.store.is_sqlite else contextlib.nullcontext()

    def _locking(self, query: Any) -> Any:
        return query if self.store.is_sqlite else query.with_for_update()


def _cooling(cooldowns: Cooling, origin: Origin, now: datetime) -> bool:
    until = cooldowns.until(origin)
    return until is not None and until > now


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
