"""The ``puzzles``, ``puzzle_ratings`` and ``puzzle_attempts`` tables (SPEC B9, migration 0011;
the rules: ``server/puzzles/``).

- **Puzzles** are rows loaded from the data files (:meth:`PuzzleStore.load` inserts the ones
  not there yet and never touches a loaded puzzle's rating). The next puzzle for a player is
  one query on ``(variant, rating)`` (:meth:`PuzzleStore.nearest`).
- **An attempt** is one player's try at one puzzle: the moves played so far (``ply`` counts
  them: every step is a conditional update on it, so a move is judged once), whether a hint
  or the solution was asked for, and whether it is rated (only a player's first attempt at a
  puzzle is: a puzzle seen once cannot be farmed).
- **A puzzle rating** per player and variant, with the streak and the last puzzle served
  (never the same one twice in a row). The player's rating, the puzzle's and the attempt's
  end move in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import exists, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from .. import glicko2
from ..records import AttemptStatus, aware
from .engine import update_unless_moved
from .store import Store
from .tables import puzzle_attempts, puzzle_ratings, puzzles

T = TypeVar("T")
_ATTEMPTS = 5  # a conditional update that lost its race is tried again this many times


@dataclass(frozen=True)
class Puzzle:
    """One puzzle as stored (the data format of the generator). ``moves`` is the whole
    line, solver first; ``view`` and ``reveals`` are jieqi's (the solver's view of the game,
    and what each face-down mover of the line turns out to be)."""

    id: str
    variant: str
    fen: str
    moves: list[str]
    themes: list[str]
    rating: glicko2.Rating
    plays: int = 0
    source: dict[str, Any] = field(default_factory=dict)
    view: dict[str, Any] | None = None
    reveals: list[str | None] | None = None


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
    """What :meth:`PuzzleStore.begin` did: the player's rating as it read it (before the
    attempt), the puzzle (None: there was none to give) and the attempt stored."""

    rating: PuzzleRating
    puzzle: Puzzle | None
    attempt: Attempt | None


class Moved(Exception):
    """A row changed since this transaction read it (another request came first)."""


def _puzzle(row: Any) -> Puzzle:
    return Puzzle(
        id=row.id,
        variant=row.variant,
        fen=row.fen,
        moves=list(row.moves),
        themes=list(row.themes),
        rating=glicko2.Rating(row.rating, row.deviation, row.volatility),
        plays=row.plays,
        source=dict(row.source or {}),
        view=row.view,
        reveals=list(row.reveals) if row.reveals is not None else None,
    )


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


def _rating(row: Any) -> PuzzleRating:
    return PuzzleRating(
        glicko2.Rating(row.rating, row.deviation, row.volatility),
        row.attempts,
        row.streak,
        row.best_streak,
        row.last_puzzle,
    )


class PuzzleStore:
    """The puzzle tables. Synchronous, like :class:`~.db.store.Store`: the service calls it
    from its database threads."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _insert(self, table: Any) -> Any:
        return sqlite_insert(table) if self.store.is_sqlite else pg_insert(table)

    # ------------------------------------------------------------------ puzzles

    def load(self, found: Sequence[Puzzle]) -> int:
        """Insert the puzzles not stored yet (a stored one keeps its rating and plays);
        returns how many were new. Safe when several instances load at once."""
        if not found:
            return 0
        with self.store.reader.connect() as conn:
            known = set(conn.execute(select(puzzles.c.id)).scalars())
        rows = [
            {
                "id": p.id,
                "variant": p.variant,
                "fen": p.fen,
                "moves": p.moves,
                "reveals": p.reveals,
                "view": p.view,
                "themes": p.themes,
                "rating": p.rating.rating,
                "deviation": p.rating.deviation,
                "volatility": p.rating.volatility,
                "plays": 0,
                "source": p.source,
            }
            for p in found
            if p.id not in known
        ]
        for start in range(0, len(rows), 500):
            with self.store.engine.begin() as conn:
                batch = self._insert(puzzles).values(rows[start : start + 500])
                conn.execute(batch.on_conflict_do_nothing(index_elements=["id"]))
        return len(rows)

    def puzzle(self, puzzle_id: str) -> Puzzle | None:
        with self.store.reader.connect() as conn:
            return self._puzzle(conn, puzzle_id)

    @staticmethod
    def _puzzle(conn: Connection, puzzle_id: str) -> Puzzle | None:
        row = conn.execute(select(puzzles).where(puzzles.c.id == puzzle_id)).one_or_none()
        return None if row is None else _puzzle(row)

    def counts(self) -> dict[str, int]:
        """How many puzzles each variant has."""
        query = select(puzzles.c.variant, func.count()).group_by(puzzles.c.variant)
        with self.store.reader.connect() as conn:
            return {variant: int(n) for variant, n in conn.execute(query)}

    def nearest(
        self, player_id: str, variant: str, target: float, avoid: str | None
    ) -> Puzzle | None:
        """The puzzle of ``variant`` rated nearest above ``target`` (else below) that the
        player never tried, never ``avoid`` (the last one given). Once every puzzle was
        tried, the nearest one but ``avoid``. One indexed query in the usual case."""
        with self.store.reader.connect() as conn:
            return self._nearest(conn, player_id, variant, target, avoid)[0]

    @staticmethod
    def _nearest(
        conn: Connection, player_id: str, variant: str, target: float, avoid: str | None
    ) -> tuple[Puzzle | None, bool]:
        """:meth:`nearest`, and whether the player never tried it (as the query found)."""
        tried = exists().where(
            puzzle_attempts.c.player_id == player_id,
            puzzle_attempts.c.puzzle_id == puzzles.c.id,
        )
        base = [puzzles.c.variant == variant]
        if avoid is not None:
            base.append(puzzles.c.id != avoid)
        for unseen in (True, False):
            where = [*base, ~tried] if unseen else base
            up = (
                select(puzzles)
                .where(*where, puzzles.c.rating >= target)
                .order_by(puzzles.c.rating)
                .limit(1)
            )
            down = (
                select(puzzles)
                .where(*where, puzzles.c.rating < target)
                .order_by(puzzles.c.rating.desc())
                .limit(1)
            )
            for query in (up, down):
                row = conn.execute(query).first()
                if row is not None:
                    return _puzzle(row), unseen
        return None, False

    def first_from(self, variant: str, key: str) -> Puzzle | None:
        """The first puzzle of ``variant`` whose id sorts at or after ``key`` (wrapping to
        the first): the puzzle of the day for a key made from the date."""
        with self.store.reader.connect() as conn:
            for bound in (puzzles.c.id >= key, puzzles.c.id.isnot(None)):
                query = (
                    select(puzzles)
                    .where(puzzles.c.variant == variant, bound)
                    .order_by(puzzles.c.id)
                    .limit(1)
                )
                row = conn.execute(query).first()
                if row is not None:
                    return _puzzle(row)
        return None

    # ------------------------------------------------------------------ ratings

    def rating(self, player_id: str, variant: str) -> PuzzleRating:
        with self.store.reader.connect() as conn:
            return self._rating(conn, player_id, variant)

    def ratings(self, player_id: str) -> dict[str, PuzzleRating]:
        """The player's puzzle rating in every variant they tried."""
        query = select(puzzle_ratings).where(puzzle_ratings.c.player_id == player_id)
        with self.store.reader.connect() as conn:
            return {row.variant: _rating(row) for row in conn.execute(query)}

    @classmethod
    def _rating(cls, conn: Connection, player_id: str, variant: str) -> PuzzleRating:
        row = cls._rating_row(conn, player_id, variant)
        return NEWCOMER if row is None else _rating(row)

    @staticmethod
    def _rating_row(conn: Connection, player_id: str, variant: str) -> Any:
        return conn.execute(
            select(puzzle_ratings).where(
                puzzle_ratings.c.player_id == player_id, puzzle_ratings.c.variant == variant
            )
        ).one_or_none()

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
                with self.store.engine.begin() as conn:
                    return work(conn)
            except again:
                continue
            except OperationalError:
                if not self.store.is_sqlite:
                    raise
        raise RuntimeError(failure)

    # ------------------------------------------------------------------ attempts

    def begin(
        self,
        attempt: Attempt,
        pick: Puzzle | str | None,
        offset: float,
        spend: Callable[[Connection], object] | None = None,
    ) -> Begun:
        """A player's new attempt in one transaction (one commit): their rating in the
        attempt's variant, the puzzle (``pick``: this one; an id, read here and kept only if
        of the attempt's variant; None: :meth:`nearest` to the rating plus ``offset``), the
        attempt stored as :meth:`start` stores it (``attempt.puzzle_id`` is set here), and
        last ``spend(conn)``: the budgets taken in the same transaction (whatever it raises
        rolls everything back). No puzzle: nothing is stored but what ``spend`` takes."""
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
        row = self._rating_row(conn, attempt.player_id, attempt.variant)
        mine = NEWCOMER if row is None else _rating(row)
        puzzle: Puzzle | None
        seen: bool | None = None  # not known: :meth:`_start` looks
        if isinstance(pick, Puzzle):
            puzzle = pick
        elif pick is not None:
            puzzle = self._puzzle(conn, pick)
            if puzzle is not None and puzzle.variant != attempt.variant:
                puzzle = None
        else:
            target = mine.rating.rating + offset
            puzzle, unseen = self._nearest(
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

    def _start(self, conn: Connection, attempt: Attempt, seen: bool | None, known: bool) -> Attempt:
        """Store a new attempt, rated unless the player tried this puzzle before (``seen``;
        None: looked up here), and make its puzzle the player's last one (``known``: the
        player has a rating row in the variant). Returns the attempt as stored."""
        if seen is None:
            seen = (
                conn.execute(
                    select(puzzle_attempts.c.id)
                    .where(
                        puzzle_attempts.c.player_id == attempt.player_id,
                        puzzle_attempts.c.puzzle_id == attempt.puzzle_id,
                    )
                    .limit(1)
                ).first()
                is not None
            )
        stored = Attempt(**{**attempt.__dict__, "rated": not seen})
        conn.execute(puzzle_attempts.insert().values(**_attempt_values(stored)))
        if not known:  # a newcomer's row made meanwhile: IntegrityError, and begin again
            fresh = NEWCOMER.rating
            conn.execute(
                puzzle_ratings.insert().values(
                    player_id=attempt.player_id,
                    variant=attempt.variant,
                    rating=fresh.rating,
                    deviation=fresh.deviation,
                    volatility=fresh.volatility,
                    attempts=0,
                    streak=0,
                    best_streak=0,
                    last_puzzle=attempt.puzzle_id,
                    updated_at=attempt.created_at,
                )
            )
        else:
            conn.execute(
                puzzle_ratings.update()
                .where(
                    puzzle_ratings.c.player_id == attempt.player_id,
                    puzzle_ratings.c.variant == attempt.variant,
                )
                .values(last_puzzle=attempt.puzzle_id)
            )
        return stored

    def attempt(self, attempt_id: str) -> Attempt | None:
        with self.store.reader.connect() as conn:
            row = conn.execute(
                select(puzzle_attempts).where(puzzle_attempts.c.id == attempt_id)
            ).one_or_none()
        return None if row is None else _attempt(row)

    def attempt_and_puzzle(self, attempt_id: str) -> tuple[Attempt | None, Puzzle | None]:
        """The attempt and its puzzle, read on one connection."""
        with self.store.reader.connect() as conn:
            row = conn.execute(
                select(puzzle_attempts).where(puzzle_attempts.c.id == attempt_id)
            ).one_or_none()
            if row is None:
                return None, None
            attempt = _attempt(row)
            return attempt, self._puzzle(conn, attempt.puzzle_id)

    def step(self, attempt: Attempt, played: list[str], hinted: bool, now: datetime) -> Attempt:
        """The attempt goes on with ``played`` (and the hint flag). Raises Moved when the
        attempt changed since ``attempt`` was read."""
        values = {"played": played, "ply": len(played), "hinted": hinted, "updated_at": now}
        with self.store.engine.begin() as conn:
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
        mine = self._rating(conn, attempt.player_id, attempt.variant)
        before = after = None
        rating = mine.rating
        if attempt.rated:
            row = conn.execute(select(puzzles).where(puzzles.c.id == attempt.puzzle_id)).one()
            puzzle = _puzzle(row)
            rating = rate(mine.rating, puzzle.rating, ending.score)
            theirs = rate(puzzle.rating, mine.rating, 1.0 - ending.score)
            gain = rating.rating - mine.rating.rating
            if gain > 0 and gain_per_hour:
                room = max(0.0, gain_per_hour - self._gained(conn, attempt, now))
                rating = replace(rating, rating=mine.rating.rating + min(gain, room))
            before, after = mine.rating.rating, rating.rating
            update_unless_moved(
                conn,
                puzzles,
                (puzzles.c.id == puzzle.id, puzzles.c.plays == puzzle.plays),
                {
                    "rating": theirs.rating,
                    "deviation": theirs.deviation,
                    "volatility": theirs.volatility,
                    "plays": puzzle.plays + 1,
                },
                _RatingMoved(),
            )
        streak = {"grow": mine.streak + 1, "reset": 0, "keep": mine.streak}[ending.streak]
        changed = PuzzleRating(
            rating,
            mine.attempts + (1 if attempt.rated else 0),
            streak,
            max(mine.best_streak, streak),
            mine.last_puzzle,
        )
        update_unless_moved(
            conn,
            puzzle_ratings,
            (
                puzzle_ratings.c.player_id == attempt.player_id,
                puzzle_ratings.c.variant == attempt.variant,
                puzzle_ratings.c.attempts == mine.attempts,
                puzzle_ratings.c.streak == mine.streak,
            ),
            {
                "rating": rating.rating,
                "deviation": rating.deviation,
                "volatility": rating.volatility,
                "attempts": changed.attempts,
                "streak": changed.streak,
                "best_streak": changed.best_streak,
                "updated_at": now,
            },
            _RatingMoved(),
        )
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


class _RatingMoved(Exception):
    """A rating (the player's or the puzzle's) moved since this transaction read it."""


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
