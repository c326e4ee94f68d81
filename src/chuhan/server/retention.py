"""The retention job (issue 27 #8): rows nobody can reach any more are deleted.

What is deleted, each pass (``CHUHAN_RETENTION_DAYS`` = N, 30 by default):

- **local games left unfinished**: a game on one device whose 24 hours (``expires_at``,
  SPEC P2) are over and that never ended on the board — still ``ongoing``, or ``finished``
  with the reason ``expired`` — with its events and analysis. Not if it has a share link
  (someone else may hold it).
- **players who never played**: created more than N days ago, with no game of any kind
  (their own AI, local or imported games, a seat in an online game), no points, no rating,
  not seated in a room that is not closed and not seeking a game. Their cookie then opens a
  new identity; nothing of theirs was visible anywhere.
- **limit buckets** (``limit_buckets``) that have regained every use: a missing bucket is an
  unused one.

Everything else is kept: every finished game (AI, online, imported, local) of a player who
exists, every ongoing AI or online game, every share-linked game, and every player with a
game or points.

Each pass deletes in batches, one short transaction each, run in the database's worker
threads (never on the event loop). Every instance runs the job (``retention_interval``
apart); it is idempotent, and on PostgreSQL two instances running it at once skip each
other's rows (``FOR UPDATE SKIP LOCKED``). A player or game that gains a reference between
the choice and the delete (a share link made that instant) makes its batch fail on the
foreign key and roll back whole: it is chosen again, correctly, next pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import and_, delete, exists, or_, select
from sqlalchemy.engine import Connection

from .db.store import Store
from .db.tables import (
    game_analyses,
    game_events,
    game_players,
    game_shares,
    games,
    limit_buckets,
    players,
    rating_changes,
    ratings,
    rooms,
    seeks,
)
from .records import utcnow

log = logging.getLogger("chuhan.retention")
T = TypeVar("T")
BATCH = 500  # rows chosen per transaction: short enough that live writes never wait long
BUCKET_GRACE_SECONDS = 60.0  # a bucket whole again this long ago is surely not in use


class Retention:
    """The deletions of one pass (blocking: run them off the event loop)."""

    def __init__(self, store: Store, days: float, batch: int = BATCH) -> None:
        self.store = store
        self.days = days
        self.batch = batch

    def _lock(self, query: Any) -> Any:
        if self.store.engine.dialect.name == "sqlite":
            return query  # one writer at a time already
        return query.with_for_update(skip_locked=True)

    def purge_local_games(self, now: datetime) -> int:
        """One batch of unfinished local games past their 24 hours; returns how many."""
        shared = exists().where(game_shares.c.game_id == games.c.id)
        unfinished = or_(
            games.c.status == "ongoing",
            and_(games.c.status == "finished", games.c.result["reason"].as_string() == "expired"),
        )
        query = (
            select(games.c.id)
            .where(games.c.kind == "local", games.c.expires_at < now, unfinished, ~shared)
            .limit(self.batch)
        )
        with self.store.engine.begin() as conn:
            ids = list(conn.execute(self._lock(query)).scalars())
            if ids:
                _delete_games(conn, ids)
        return len(ids)

    def purge_players(self, now: datetime) -> int:
        """One batch of players who never played, created more than ``days`` ago."""
        me = players.c.id
        query = (
            select(me)
            .where(
                players.c.created_at < now - timedelta(days=self.days),
                players.c.ai_points == 0,
                players.c.online_points == 0,
                ~exists().where(games.c.player_id == me),
                ~exists().where(game_players.c.player_id == me),
                ~exists().where(ratings.c.player_id == me),
                ~exists().where(rating_changes.c.player_id == me),
                ~exists().where(rating_changes.c.opponent_id == me),
                ~exists().where(seeks.c.player_id == me),
            )
            .limit(self.batch)
        )
        with self.store.engine.begin() as conn:
            seated = _seated_in_rooms(conn)
            if seated:
                query = query.where(me.not_in(seated))
            ids = list(conn.execute(self._lock(query)).scalars())
            if ids:
                conn.execute(delete(players).where(players.c.id.in_(ids)))
        return len(ids)

    def purge_buckets(self, now: float) -> int:
        with self.store.engine.begin() as conn:
            gone = conn.execute(
                delete(limit_buckets).where(limit_buckets.c.tat < now - BUCKET_GRACE_SECONDS)
            )
        return int(gone.rowcount or 0)


def _delete_games(conn: Connection, ids: list[str]) -> None:
    for table in (game_events, game_analyses, game_players, rating_changes):
        conn.execute(delete(table).where(table.c.game_id.in_(ids)))
    conn.execute(delete(games).where(games.c.id.in_(ids)))


def _seated_in_rooms(conn: Connection) -> set[str]:
    """The players seated in, or playing in, a room that is not closed."""
    seated: set[str] = set()
    query = select(rooms.c.seats, rooms.c.sides).where(rooms.c.status != "closed")
    for row in conn.execute(query):
        seated.update(seat.get("player") for seat in row.seats or [] if seat.get("player"))
        seated.update(row.sides or [])
    return seated


class RetentionJob:
    """The server's periodic pass of :class:`Retention` (``retention_days`` 0: none)."""

    def __init__(
        self,
        store: Store,
        days: float,
        interval_seconds: float,
        run: Callable[..., Awaitable[Any]],
    ) -> None:
        self.retention = Retention(store, days)
        self.interval = interval_seconds
        self.run = run  # the service's ``db``: a blocking call in its worker threads
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.retention.days > 0 and self.interval > 0:
            self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        # Instances started together do not all purge at the same moment.
        await asyncio.sleep(self.interval * random.uniform(0.1, 1.0))
        while True:
            try:
                await self.pass_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("retention pass failed; trying again next time")
            await asyncio.sleep(self.interval)

    async def pass_once(self) -> dict[str, int]:
        """One pass: every batch until none is full. Returns the rows deleted by kind."""
        retention = self.retention
        done = {
            "local_games": await self._batches(retention.purge_local_games),
            "players": await self._batches(retention.purge_players),
            "limit_buckets": await self.run(retention.purge_buckets, time.time()),
        }
        if any(done.values()):
            log.info("retention pass", extra=done)
        return done

    async def _batches(self, purge: Callable[[datetime], int]) -> int:
        total = 0
        while True:
            count = await self.run(purge, utcnow())
            total += count
            if count < self.retention.batch:
                return total
            await asyncio.sleep(0)  # live requests' database calls go between batches
