"""The ``puzzle_ratings`` table (SPEC B9, migration 0011): a puzzle rating per player and
variant, with the streak of puzzles solved unaided and the last puzzle served (never the same
one twice in a row). Written inside an attempt's transactions (:mod:`.puzzle_attempts`): its
start makes the puzzle the last one, its end moves the rating and the streak.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from .. import glicko2
from .engine import update_unless_moved
from .store import Store
from .tables import puzzle_ratings


@dataclass(frozen=True)
class PuzzleRating:
    """A player's puzzle rating in one variant, their streak of puzzles solved unaided, and
    the last puzzle they were given."""

    rating: glicko2.Rating
    attempts: int = 0  # rated attempts finished
    streak: int = 0
    best_streak: int = 0
    last_puzzle: str | None = None


NEWCOMER = PuzzleRating(glicko2.Rating())


def rating_of(row: Any) -> PuzzleRating:
    """A rating row as a :class:`PuzzleRating`."""
    return PuzzleRating(
        glicko2.Rating(row.rating, row.deviation, row.volatility),
        row.attempts,
        row.streak,
        row.best_streak,
        row.last_puzzle,
    )


# The statements of a begin and of each answer, built once (SQLAlchemy then skips building
# each one and its cache key on every use). Named binds: "player_id" and "variant" are the
# columns' own names, which an UPDATE's binds may not take.
_MINE = (
    puzzle_ratings.c.player_id == bindparam("player"),
    puzzle_ratings.c.variant == bindparam("in_variant"),
)
_INSERT = puzzle_ratings.insert()
_ROW = select(puzzle_ratings).where(*_MINE)
_ALL = select(puzzle_ratings).where(puzzle_ratings.c.player_id == bindparam("player"))
_LAST = puzzle_ratings.update().where(*_MINE).values(last_puzzle=bindparam("puzzle"))


def rating_row(conn: Connection, player_id: str, variant: str) -> Any:
    """The player's rating row in ``variant`` (None: they have none yet)."""
    return conn.execute(_ROW, {"player": player_id, "in_variant": variant}).one_or_none()


def read_rating(conn: Connection, player_id: str, variant: str) -> PuzzleRating:
    """The player's rating in ``variant``, a newcomer's when they have none yet."""
    row = rating_row(conn, player_id, variant)
    return NEWCOMER if row is None else rating_of(row)


def keep_last_puzzle(
    conn: Connection, player_id: str, variant: str, puzzle_id: str, now: datetime, known: bool
) -> None:
    """Make ``puzzle_id`` the player's last puzzle in ``variant`` (``known``: the player has
    a rating row there; else a newcomer's row is made, and a row made meanwhile raises
    IntegrityError)."""
    if not known:
        fresh = NEWCOMER.rating
        conn.execute(
            _INSERT,
            {
                "player_id": player_id,
                "variant": variant,
                "rating": fresh.rating,
                "deviation": fresh.deviation,
                "volatility": fresh.volatility,
                "attempts": 0,
                "streak": 0,
                "best_streak": 0,
                "last_puzzle": puzzle_id,
                "updated_at": now,
            },
        )
    else:
        conn.execute(_LAST, {"player": player_id, "in_variant": variant, "puzzle": puzzle_id})


def change_rating(
    conn: Connection,
    player_id: str,
    variant: str,
    mine: PuzzleRating,
    changed: PuzzleRating,
    now: datetime,
    moved: Exception,
) -> None:
    """Replace the player's rating ``mine`` (as read) by ``changed``; raises ``moved`` when
    the row changed since it was read."""
    update_unless_moved(
        conn,
        puzzle_ratings,
        (
            puzzle_ratings.c.player_id == player_id,
            puzzle_ratings.c.variant == variant,
            puzzle_ratings.c.attempts == mine.attempts,
            puzzle_ratings.c.streak == mine.streak,
        ),
        {
            "rating": changed.rating.rating,
            "deviation": changed.rating.deviation,
            "volatility": changed.rating.volatility,
            "attempts": changed.attempts,
            "streak": changed.streak,
            "best_streak": changed.best_streak,
            "updated_at": now,
        },
        moved,
    )


class PuzzleRatingStorage:
    """The ratings' part of the :class:`~.puzzle_store.PuzzleStore`."""

    store: Store

    def rating(self, player_id: str, variant: str) -> PuzzleRating:
        with self.store.reader.connect() as conn:
            return read_rating(conn, player_id, variant)

    def ratings(self, player_id: str) -> dict[str, PuzzleRating]:
        """The player's puzzle rating in every variant they tried."""
        with self.store.reader.connect() as conn:
            return {
                row.variant: rating_of(row) for row in conn.execute(_ALL, {"player": player_id})
            }
