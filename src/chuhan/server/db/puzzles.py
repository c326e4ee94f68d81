"""The ``puzzles`` table (SPEC B9, migration 0011; the rules: ``server/puzzles/``): rows
loaded from the data files (:meth:`PuzzleStorage.load` inserts the ones not there yet and
never touches a loaded puzzle's rating), and the choice of the next one for a player, one
query on ``(variant, rating)`` (:meth:`PuzzleStorage.nearest`). A player's attempts are in
:mod:`.puzzle_attempts`, their puzzle ratings in :mod:`.puzzle_ratings`, and all three behind
one :class:`~.puzzle_store.PuzzleStore`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BindParameter, Select, bindparam, exists, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from .. import glicko2
from .engine import update_unless_moved
from .store import Store
from .tables import puzzle_attempts, puzzles


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


def puzzle_of(row: Any) -> Puzzle:
    """A ``puzzles`` row as a :class:`Puzzle`."""
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


# The statements of a begin, built once (SQLAlchemy then skips building each one and its
# cache key on every use, most of what a statement costs it here).
_BY_ID = select(puzzles).where(puzzles.c.id == bindparam("puzzle_id"))


def _nearest_queries() -> dict[tuple[bool, bool], tuple[Select[Any], Select[Any]]]:
    """The two halves (rated at or above the target, below it) of the choice, by whether a
    puzzle is avoided (the last one given) and whether it must be one never tried."""
    tried = exists().where(
        puzzle_attempts.c.player_id == bindparam("player_id"),
        puzzle_attempts.c.puzzle_id == puzzles.c.id,
    )
    queries = {}
    for avoiding in (True, False):
        for unseen in (True, False):
            where = [puzzles.c.variant == bindparam("variant")]
            if avoiding:
                where.append(puzzles.c.id != bindparam("avoid"))
            if unseen:
                where.append(~tried)
            target: BindParameter[float] = bindparam("target")
            up = select(puzzles).where(*where, puzzles.c.rating >= target)
            down = select(puzzles).where(*where, puzzles.c.rating < target)
            queries[avoiding, unseen] = (
                up.order_by(puzzles.c.rating).limit(1),
                down.order_by(puzzles.c.rating.desc()).limit(1),
            )
    return queries


_NEAREST = _nearest_queries()


def read_puzzle(conn: Connection, puzzle_id: str) -> Puzzle | None:
    row = conn.execute(_BY_ID, {"puzzle_id": puzzle_id}).one_or_none()
    return None if row is None else puzzle_of(row)


def nearest_puzzle(
    conn: Connection, player_id: str, variant: str, target: float, avoid: str | None
) -> tuple[Puzzle | None, bool]:
    """:meth:`PuzzleStorage.nearest`, and whether the player never tried it (as the query
    found)."""
    values = {"player_id": player_id, "variant": variant, "target": target, "avoid": avoid}
    for unseen in (True, False):
        for query in _NEAREST[avoid is not None, unseen]:
            row = conn.execute(query, values).first()
            if row is not None:
                return puzzle_of(row), unseen
    return None, False


def rate_puzzle(conn: Connection, puzzle: Puzzle, theirs: glicko2.Rating, moved: Exception) -> None:
    """The puzzle (as read) played once more, rated ``theirs`` now; raises ``moved`` when it
    was played meanwhile."""
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
        moved,
    )


class PuzzleStorage:
    """The puzzles' part of the :class:`~.puzzle_store.PuzzleStore`."""

    store: Store

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
        insert = sqlite_insert if self.store.is_sqlite else pg_insert
        for start in range(0, len(rows), 500):
            with self.store.engine.begin() as conn:
                batch = insert(puzzles).values(rows[start : start + 500])
                conn.execute(batch.on_conflict_do_nothing(index_elements=["id"]))
        return len(rows)

    def puzzle(self, puzzle_id: str) -> Puzzle | None:
        with self.store.reader.connect() as conn:
            return read_puzzle(conn, puzzle_id)

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
            return nearest_puzzle(conn, player_id, variant, target, avoid)[0]

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
                    return puzzle_of(row)
        return None
