"""The ``puzzle_attempts`` table (SPEC B9, migration 0011): one player's try at one puzzle,
the moves played so far (``ply`` counts them: every step is a conditional update on it, so a
move is judged once), whether a hint or the solution was asked for, and whether it is rated
(only a player's first attempt at a puzzle is: a puzzle seen once cannot be farmed).

An attempt begins in one transaction with the choice of its puzzle and the player's last
puzzle (:meth:`PuzzleAttemptStorage.begin`), and ends in one with the player's rating, the
puzzle's and the attempt's end (:meth:`PuzzleAttemptStorage.finish`). These transactions do
not wait for the disk (:func:`~.engine.lazy_begin`): a power cut may take the last
moment's attempts, a crash of the server none; at 100 starts a second the fsync under
SQLite's write lock was what made the slowest answers slow (``bench/puzzles_load.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from .. import glicko2
from ..records import AttemptStatus, aware
from .engine import lazy_begin, update_unless_moved
from .puzzle_ratings import (
    NEWCOMER,
    PuzzleRating,
    change_rating,
    keep_last_puzzle,
    rating_of,
    rating_row,
    read_rating,
)
from .puzzles import Puzzle, nearest_puzzle, puzzle_of, rate_puzzle, read_puzzle
from .store import Store
from .tables import puzzle_attempts, puzzles

T = TypeVar("T")
_ATTEMPTS = 5  # a conditional update that lost its race is tried again this many times
# The statements of a begin and of every move, built once (SQLAlchemy then skips building
# each one and its cache key on every use).
_BY_ID = select(puzzle_attempts).where(puzzle_attempts.c.id == bindparam("attempt_id"))
_TRIED = (
    select(puzzle_attempts.c.id)
    .where(
        puzzle_attempts.c.player_id == bindparam("player"),
        puzzle_attempts.c.puzzle_id == bindparam("puzzle"),
    )
    .limit(1)
)
_INSERT = puzzle_attempts.insert()


@dataclass(frozen=True)
class Attempt:
    """One player's try at one puzzle. ``status``: ``playing``, ``solved`` or ``failed``."""

    id: str
    player_id: str
    puzzle_id: str
    variant: str
    status: AttemptStatus
    played: list[str]
    hinted: bool
    shown: bool
    rated: bool
    daily: bool
    rating_before: float | None
    rating_after: float | None
    created_at: datetime
    updated_at: datetime

    @property
    def over(self) -> bool:
        return self.status != "playing"


@dataclass(frozen=True)
class Ending:
    """How an attempt ends: its status, the score it counts as (1 solved, ½ solved with a
    hint, 0 failed or solution shown) and whether the streak goes on, stops or stays."""

    status: AttemptStatus
    score: float
    streak: str  # "grow", "reset" or "keep"
    shown: bool = False


@dataclass(frozen=True)
class Begun:
    """What :meth:`PuzzleAttemptStorage.begin` did: the player's rating as it read it (before
    the attempt), the puzzle (None: there was none to give) and the attempt stored."""

    rating: PuzzleRating
    puzzle: Puzzle | None
    attempt: Attempt | None


class Moved(Exception):
    """A row changed since this transaction read it (another request came first)."""


class _RatingMoved(Exception):
    """A rating (the player's or the puzzle's) moved since this transaction read it."""


def _attempt(row: Any) -> Attempt:
    return Attempt(
        id=row.id,
        player_id=row.player_id,
        puzzle_id=row.puzzle_id,
        variant=row.variant,
        status=row.status,
        played=list(row.played),
        hinted=bool(row.hinted),
        shown=bool(row.shown),
        rated=bool(row.rated),
        daily=bool(row.daily),
        rating_before=row.rating_before,
        rating_after=row.rating_after,
        created_at=aware(row.created_at),
        updated_at=aware(row.updated_at),
    )


class PuzzleAttemptStorage:
    """The attempts' part of the :class:`~.puzzle_store.PuzzleStore`."""

    store: Store

    def _retried(
        self,
        work: Callable[[Connection], T],
        again: tuple[type[Exception], ...],
        failure: str,
    ) -> T:
        """``work`` in one transaction, tried again (up to ``_ATTEMPTS`` times in all) when it
        raises one of ``again`` (a race lost: nothing was kept), and on SQLite when the
        database is locked (OperationalError; elsewhere it is raised). Raises RuntimeError
        ``failure`` when no try went through."""
        for _ in range(_ATTEMPTS):
            try:
                with lazy_begin(self.store.engine) as conn:
                    return work(conn)
            except again:
                continue
            except OperationalError:
                if not self.store.is_sqlite:
                    raise
        raise RuntimeError(failure)

    def begin(
        self,
        attempt: Attempt,
        pick: Puzzle | str | None,
        offset: float,
        spend: Callable[[Connection], object] | None = None,
    ) -> Begun:
        """A player's new attempt in one transaction (one commit): their rating in the
        attempt's variant, the puzzle (``pick``: this one; an id, read here and kept only if
        of the attempt's variant; None: the one :meth:`~.puzzles.PuzzleStorage.nearest` to
        the rating plus ``offset``), the attempt stored as :meth:`_start` stores it
        (``attempt.puzzle_id`` is set here), and last ``spend(conn)``: the budgets taken in
        the same transaction (whatever it raises rolls everything back). No puzzle: nothing
        is stored but what ``spend`` takes."""
        return self._retried(
            lambda conn: self._begin(conn, attempt, pick, offset, spend),
            (IntegrityError, Moved),  # the player's rating row was made or moved meanwhile
            f"could not start attempt {attempt.id}",
        )

    def _begin(
        self,
        conn: Connection,
        attempt: Attempt,
        pick: Puzzle | str | None,
        offset: float,
        spend: Callable[[Connection], object] | None,
    ) -> Begun:
        row = rating_row(conn, attempt.player_id, attempt.variant)
        mine = NEWCOMER if row is None else rating_of(row)
        puzzle: Puzzle | None
        seen: bool | None = None  # not known: :meth:`_start` looks
        if isinstance(pick, Puzzle):
            puzzle = pick
        elif pick is not None:
            puzzle = read_puzzle(conn, pick)
            if puzzle is not None and puzzle.variant != attempt.variant:
                puzzle = None
        else:
            target = mine.rating.rating + offset
            puzzle, unseen = nearest_puzzle(
                conn, attempt.player_id, attempt.variant, target, mine.last_puzzle
            )
            seen = False if unseen else None  # among the tried ones: :meth:`_start` looks
        stored = None
        if puzzle is not None:
            attempt = replace(attempt, puzzle_id=puzzle.id)
            stored = self._start(conn, attempt, seen, known=row is not None)
        if spend is not None:
            spend(conn)
        return Begun(mine, puzzle, stored)

    @staticmethod
    def _start(conn: Connection, attempt: Attempt, seen: bool | None, known: bool) -> Attempt:
        """Store a new attempt, rated unless the player tried this puzzle before (``seen``;
        None: looked up here), and make its puzzle the player's last one (``known``: the
        player has a rating row in the variant). Returns the attempt as stored."""
        if seen is None:
            tried = {"player": attempt.player_id, "puzzle": attempt.puzzle_id}
            seen = conn.execute(_TRIED, tried).first() is not None
        stored = Attempt(**{**attempt.__dict__, "rated": not seen})
        conn.execute(_INSERT, _attempt_values(stored))
        # A newcomer's row made meanwhile: IntegrityError, and begin again.
        keep_last_puzzle(
            conn, attempt.player_id, attempt.variant, attempt.puzzle_id, attempt.created_at, known
        )
        return stored

    def attempt(self, attempt_id: str) -> Attempt | None:
        with self.store.reader.connect() as conn:
            row = conn.execute(_BY_ID, {"attempt_id": attempt_id}).one_or_none()
        return None if row is None else _attempt(row)

    def attempt_and_puzzle(self, attempt_id: str) -> tuple[Attempt | None, Puzzle | None]:
        """The attempt and its puzzle, read on one connection."""
        with self.store.reader.connect() as conn:
            row = conn.execute(_BY_ID, {"attempt_id": attempt_id}).one_or_none()
            if row is None:
                return None, None
            attempt = _attempt(row)
            return attempt, read_puzzle(conn, attempt.puzzle_id)

    def step(self, attempt: Attempt, played: list[str], hinted: bool, now: datetime) -> Attempt:
        """The attempt goes on with ``played`` (and the hint flag). Raises Moved when the
        attempt changed since ``attempt`` was read."""
        values = {"played": played, "ply": len(played), "hinted": hinted, "updated_at": now}
        with lazy_begin(self.store.engine) as conn:
            update_unless_moved(conn, puzzle_attempts, _unchanged(attempt), values, Moved())
        return Attempt(
            **{**attempt.__dict__, "played": played, "hinted": hinted, "updated_at": now}
        )

    def finish(
        self,
        attempt: Attempt,
        played: list[str],
        ending: Ending,
        now: datetime,
        rate: Callable[[glicko2.Rating, glicko2.Rating, float], glicko2.Rating],
        gain_per_hour: float = 0.0,
    ) -> tuple[Attempt, PuzzleRating]:
        """End the attempt: its status, the player's streak, and for a rated attempt the
        player's and the puzzle's ratings (``rate(mine, theirs, score)``; the player's gains
        in the variant over the last hour at most ``gain_per_hour``, 0: no bound, Z8), in
        one transaction. Raises Moved when the attempt changed since it was read."""
        return self._retried(
            lambda conn: self._finish(conn, attempt, played, ending, now, rate, gain_per_hour),
            (_RatingMoved,),
            f"could not finish attempt {attempt.id}: ratings kept changing",
        )

    def _finish(
        self,
        conn: Connection,
        attempt: Attempt,
        played: list[str],
        ending: Ending,
        now: datetime,
        rate: Callable[[glicko2.Rating, glicko2.Rating, float], glicko2.Rating],
        gain_per_hour: float,
    ) -> tuple[Attempt, PuzzleRating]:
        mine = read_rating(conn, attempt.player_id, attempt.variant)
        before = after = None
        rating = mine.rating
        if attempt.rated:
            row = conn.execute(select(puzzles).where(puzzles.c.id == attempt.puzzle_id)).one()
            puzzle = puzzle_of(row)
            rating = rate(mine.rating, puzzle.rating, ending.score)
            theirs = rate(puzzle.rating, mine.rating, 1.0 - ending.score)
            gain = rating.rating - mine.rating.rating
            if gain > 0 and gain_per_hour:
                room = max(0.0, gain_per_hour - self._gained(conn, attempt, now))
                rating = replace(rating, rating=mine.rating.rating + min(gain, room))
            before, after = mine.rating.rating, rating.rating
            rate_puzzle(conn, puzzle, theirs, _RatingMoved())
        streak = {"grow": mine.streak + 1, "reset": 0, "keep": mine.streak}[ending.streak]
        changed = PuzzleRating(
            rating,
            mine.attempts + (1 if attempt.rated else 0),
            streak,
            max(mine.best_streak, streak),
            mine.last_puzzle,
        )
        change_rating(conn, attempt.player_id, attempt.variant, mine, changed, now, _RatingMoved())
        values = {
            "status": ending.status,
            "played": played,
            "ply": len(played),
            "shown": ending.shown,
            "rating_before": before,
            "rating_after": after,
            "updated_at": now,
        }
        update_unless_moved(conn, puzzle_attempts, _unchanged(attempt), values, Moved())
        done = Attempt(
            **{
                **attempt.__dict__,
                "status": ending.status,
                "played": played,
                "shown": ending.shown,
                "rating_before": before,
                "rating_after": after,
                "updated_at": now,
            }
        )
        return done, changed

    def history(
        self, player_id: str, limit: int, variant: str | None, before: datetime | None
    ) -> list[tuple[Attempt, Puzzle]]:
        """The player's attempts, newest first, with their puzzles (B9: My games)."""
        query = (
            select(puzzle_attempts, puzzles.c.fen, puzzles.c.themes, puzzles.c.rating.label("pr"))
            .join(puzzles, puzzles.c.id == puzzle_attempts.c.puzzle_id)
            .where(puzzle_attempts.c.player_id == player_id)
            .order_by(puzzle_attempts.c.created_at.desc(), puzzle_attempts.c.id.desc())
            .limit(limit)
        )
        if variant is not None:
            query = query.where(puzzle_attempts.c.variant == variant)
        if before is not None:
            query = query.where(puzzle_attempts.c.created_at < before)
        found = []
        with self.store.reader.connect() as conn:
            for row in conn.execute(query):
                attempt = _attempt(row)
                puzzle = Puzzle(
                    id=attempt.puzzle_id,
                    variant=attempt.variant,
                    fen=row.fen,
                    moves=[],
                    themes=list(row.themes),
                    rating=glicko2.Rating(row.pr),
                )
                found.append((attempt, puzzle))
        return found

    @staticmethod
    def _gained(conn: Connection, attempt: Attempt, now: datetime) -> float:
        """What the player's rating in the attempt's variant gained over the last hour."""
        rows = conn.execute(
            select(puzzle_attempts.c.rating_before, puzzle_attempts.c.rating_after).where(
                puzzle_attempts.c.player_id == attempt.player_id,
                puzzle_attempts.c.created_at >= now - timedelta(hours=1),
                puzzle_attempts.c.variant == attempt.variant,
                puzzle_attempts.c.rating_after.isnot(None),
            )
        )
        return float(sum(max(0.0, after - before) for before, after in rows))


def _unchanged(attempt: Attempt) -> tuple[Any, ...]:
    return (
        puzzle_attempts.c.id == attempt.id,
        puzzle_attempts.c.status == "playing",
        puzzle_attempts.c.ply == len(attempt.played),
        puzzle_attempts.c.hinted == attempt.hinted,
    )


def _attempt_values(attempt: Attempt) -> dict[str, Any]:
    return {
        "id": attempt.id,
        "player_id": attempt.player_id,
        "puzzle_id": attempt.puzzle_id,
        "variant": attempt.variant,
        "status": attempt.status,
        "played": attempt.played,
        "ply": len(attempt.played),
        "hinted": attempt.hinted,
        "shown": attempt.shown,
        "rated": attempt.rated,
        "daily": attempt.daily,
        "rating_before": attempt.rating_before,
        "rating_after": attempt.rating_after,
        "created_at": attempt.created_at,
        "updated_at": attempt.updated_at,
    }
