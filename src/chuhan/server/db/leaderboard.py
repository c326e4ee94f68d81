"""What the ratings show to others and to their owner (SPEC B8; the ratings themselves:
``db/ratings.py``): the leaderboard of a variant, the best established ratings (one indexed
walk of ``ratings`` by (variant, rating), migration 0015), and a player's own rating history
(their counted ``rating_changes``). Public facts only: names, ratings, numbers of games;
never a player's id or anything of a game."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from ..records import PROVISIONAL_DEVIATION, aware
from .store import Store
from .tables import players, rating_changes, ratings


@dataclass(frozen=True)
class Leader:
    """One line of a leaderboard; ``player_id`` only to mark the asker's own line."""

    player_id: str
    name: str | None
    rating: float
    games: int


@dataclass(frozen=True)
class RatingPoint:
    """A rated game of the player: their rating in ``variant`` before and after it."""

    variant: str
    before: float
    after: float
    deviation_after: float
    at: datetime


class LeaderboardStore:
    """Reads for the leaderboard and the rating history. Synchronous: run with
    ``service.db``."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def leaders(self, variant: str, min_games: int, limit: int) -> list[Leader]:
        """The ``limit`` best ratings of ``variant`` that are established (not provisional,
        SPEC B2) and rest on at least ``min_games`` rated games, best first (ties: more
        games first)."""
        query = (
            select(ratings.c.player_id, players.c.name, ratings.c.rating, ratings.c.games)
            .join(players, players.c.id == ratings.c.player_id)
            .where(ratings.c.variant == variant)
            .where(ratings.c.deviation <= PROVISIONAL_DEVIATION)
            .where(ratings.c.games >= min_games)
            .order_by(ratings.c.rating.desc(), ratings.c.games.desc(), ratings.c.player_id)
            .limit(limit)
        )
        with self.store.reader.connect() as conn:
            return [Leader(*row) for row in conn.execute(query)]

    def history(self, player_id: str, limit: int) -> list[RatingPoint]:
        """The player's last ``limit`` counted rating changes, oldest first (a game that
        changed nothing, Z8, is not a point of the history)."""
        query = (
            select(
                rating_changes.c.variant,
                rating_changes.c.before,
                rating_changes.c.after,
                rating_changes.c.deviation_after,
                rating_changes.c.created_at,
            )
            .where(rating_changes.c.player_id == player_id)
            .where(rating_changes.c.counted.is_(True))
            .order_by(rating_changes.c.created_at.desc(), rating_changes.c.game_id.desc())
            .limit(limit)
        )
        with self.store.reader.connect() as conn:
            rows = list(conn.execute(query))
        return [
            RatingPoint(
                row.variant, row.before, row.after, row.deviation_after, aware(row.created_at)
            )
            for row in reversed(rows)
        ]
