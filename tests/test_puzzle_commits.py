"""A puzzle's writes and the limiter's counts do not wait for the disk; a game's still do
(SPEC B9, Z4, Z5).

A puzzle's start, moves and end, and the rate limits' counts of recent uses, commit without
an fsync (SQLite ``synchronous=NORMAL`` for that transaction, PostgreSQL ``synchronous_commit
= off``): after a power cut the last moment's attempts and counts may be gone, never half-kept,
and a server crash loses none. A game's changes keep waiting for the disk: the relaxed
setting never outlives its transaction on its connection. Checked on the statements each
connection really ran (SQLite's own trace, SQLAlchemy's cursor events on PostgreSQL), through
the real app.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from chuhan.server.puzzles.catalog import read_puzzles
from chuhan.server.rules_config import PuzzleSettings
from test_server_support import create, server

pytestmark = pytest.mark.timeout(120)
FIXTURES = Path(__file__).parent / "data" / "puzzles"
PUZZLE_WRITES = ("INSERT INTO PUZZLE_ATTEMPTS", "UPDATE PUZZLE_ATTEMPTS", "UPDATE PUZZLE_RATINGS")
RELAX = {"sqlite": "PRAGMA synchronous=NORMAL", "postgresql": "SET LOCAL synchronous_commit = off"}


def _trace(store: Any, dialect: str) -> dict[int, list[str]]:
    """The statements each connection runs from now on, by connection."""
    ran: dict[int, list[str]] = defaultdict(list)
    if dialect == "sqlite":

        def checkout(dbapi: Any, _record: Any, _proxy: Any) -> None:
            statements = ran[id(dbapi)]
            dbapi.set_trace_callback(lambda sql: statements.append(sql.strip()))

        event.listen(store.engine, "checkout", checkout)
    else:

        def before(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            ran[id(conn.connection.dbapi_connection)].append(statement.strip())

        def ended(word: str) -> Any:
            return lambda conn: ran[id(conn.connection.dbapi_connection)].append(word)

        event.listen(store.engine, "before_cursor_execute", before)
        event.listen(store.engine, "commit", ended("COMMIT"))  # the driver's, not a statement
        event.listen(store.engine, "rollback", ended("ROLLBACK"))
    return ran


def _relaxed_at(statements: list[str], dialect: str, *markers: str) -> list[bool]:
    """For each statement starting with one of ``markers``: whether it ran relaxed."""
    relaxed, found = False, []
    for sql in statements:
        upper = sql.upper()
        if sql == RELAX[dialect]:
            relaxed = True
        elif dialect == "sqlite" and upper == "PRAGMA SYNCHRONOUS=FULL":
            relaxed = False
        elif dialect == "postgresql" and upper in ("COMMIT", "ROLLBACK"):
            relaxed = False  # SET LOCAL ends with its transaction
        elif upper.startswith(markers):
            found.append(relaxed)
    return found


def test_puzzles_and_limits_commit_without_waiting_for_the_disk_a_game_still_waits_B9_Z4(
    tmp_path: Path, database: tuple[str, str | None]
) -> None:
    dialect = "sqlite" if database[0].startswith("sqlite") else "postgresql"
    puzzle = next(p for p in read_puzzles(FIXTURES) if p.variant == "xiangqi")
    settings = PuzzleSettings(data_dir=FIXTURES)
    with server(tmp_path, database=database, puzzles=settings) as (client, _, store):
        client.get("/api/puzzles/daily").raise_for_status()  # the puzzles loaded
        ran = _trace(store, dialect)
        answer = client.post(
            "/api/puzzles/attempts", json={"variant": "xiangqi", "puzzle": puzzle.id}
        )
        assert answer.status_code == 201, answer.text
        attempt = answer.json()
        for ply in range(0, len(puzzle.moves), 2):
            played = client.post(
                f"/api/puzzles/attempts/{attempt['id']}/moves",
                json={"ply": ply, "move": puzzle.moves[ply]},
            )
            assert played.status_code == 200, played.text
        assert played.json()["status"] == "solved"
        create(client, kind="local", variant="xiangqi")

        statements = [sql for each in ran.values() for sql in each]
        puzzle_writes = [
            flag for each in ran.values() for flag in _relaxed_at(each, dialect, *PUZZLE_WRITES)
        ]
        game_writes = [
            flag
            for each in ran.values()
            for flag in _relaxed_at(each, dialect, "INSERT INTO GAMES ")
        ]
        assert any("INSERT INTO PUZZLE_ATTEMPTS" in sql.upper() for sql in statements)
        assert puzzle_writes
        assert all(puzzle_writes), "a puzzle write waited for the disk"
        limiter_writes = [
            flag
            for each in ran.values()
            for flag in _relaxed_at(each, dialect, "UPDATE LIMIT_BUCKETS")
        ]
        assert len(limiter_writes) >= 3  # the start's, the moves', the new game's budgets
        assert all(limiter_writes), "the limiter's counts waited for the disk"
        assert game_writes
        assert not any(game_writes), "a new game did not wait for the disk"
        # Every connection handed out again is back to waiting for the disk.
        with store.engine.connect() as conn:
            if dialect == "sqlite":
                assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
            else:
                assert conn.execute(text("SHOW synchronous_commit")).scalar() == "on"
