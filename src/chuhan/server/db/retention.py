"""The retention job's deletions (what is deleted and why:
``server/ops/retention.py``).

Each method deletes one batch in one short transaction; on PostgreSQL two instances running
at once skip each other's rows (``FOR UPDATE SKIP LOCKED``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, exists, or_, select
from sqlalchemy.engine import Connection

from .store import Store
from .tables import (
    game_analyses,
    game_events,
    game_players,
    game_shares,
    games,
    limit_buckets,
    player_devices,
    player_secrets,
    players,
    puzzle_attempts,
    puzzle_ratings,
    rating_changes,
    ratings,
    rooms,
    seeks,
)

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
        """One batch of players who never played (no game, no puzzle attempt), created more
        than ``days`` ago, with the rows that hold their id (devices, codes, puzzle rating)."""
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
                ~exists().where(puzzle_attempts.c.player_id == me),  # B9: puzzles are play
            )
            .limit(self.batch)
        )
        with self.store.engine.begin() as conn:
            seated = _seated_in_rooms(conn)
            if seated:
                query = query.where(me.not_in(seated))
            ids = list(conn.execute(self._lock(query)).scalars())
            if ids:
                # B6: their devices and codes; B9: a puzzle rating left without attempts
                for owned in (player_devices, player_secrets, puzzle_ratings, puzzle_attempts):
                    conn.execute(delete(owned).where(owned.c.player_id.in_(ids)))
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
