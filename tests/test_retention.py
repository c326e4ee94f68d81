"""The retention job: what nobody can reach is deleted, nothing anyone can reach
is, on SQLite and PostgreSQL alike; a pass is idempotent, two at once (two instances) agree,
and the server runs it by itself.
"""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from chuhan.rules import make_board
from chuhan.server.db.retention import Retention
from chuhan.server.db.store import Store
from chuhan.server.db.tables import (
    game_analyses,
    game_events,
    game_shares,
    games,
    limit_buckets,
    players,
    puzzle_attempts,
    puzzle_ratings,
    rooms,
    seeks,
)
from chuhan.server.ops.retention import RetentionJob
from chuhan.server.records import GameKind, GameRecord, GameStatus, utcnow
from test_server_support import server

pytestmark = pytest.mark.timeout(120)
DAYS = 30


class World:
    """Players and games of every kind, at known ages."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.now = utcnow()
        self._count = 0

    def player(self, age_days: float) -> str:
        self._count += 1
        player_id = f"p_{self._count:03d}"
        self.store.create_player(player_id, f"hash{self._count:03d}")
        with self.store.engine.begin() as conn:
            conn.execute(
                update(players)
                .where(players.c.id == player_id)
                .values(created_at=self.now - timedelta(days=age_days))
            )
        return player_id

    def game(
        self,
        kind: GameKind,
        owner: str | None,
        status: GameStatus = "ongoing",
        hours_past_expiry: float = 0.0,
        reason: str | None = None,
        sides: tuple[str, str] | None = None,
    ) -> str:
        self._count += 1
        expires = self.now - timedelta(hours=hours_past_expiry)
        game = GameRecord(
            id=f"g_{self._count:03d}",
            kind=kind,
            variant="xiangqi",
            level="beginner" if kind == "ai" else None,
            player_id=owner,
            human_side=0 if kind == "ai" else None,
            start_fen=make_board("xiangqi").fen(),
            moves=["h3e3"],
            status=status,
            result=None if status == "ongoing" else {"winner": None, "reason": reason},
            created_at=expires - timedelta(days=1),
            expires_at=expires,
            updated_at=expires,
        )
        pairs = [(sides[0], 0), (sides[1], 1)] if sides else []
        self.store.insert_game(game, [{"type": "start"}], pairs)
        return game.id

    def share(self, game_id: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                game_shares.insert().values(
                    token=f"t{game_id}", game_id=game_id, created_at=self.now
                )
            )

    def analysis(self, game_id: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                game_analyses.insert().values(
                    game_id=game_id,
                    status="done",
                    engine="chuhan",
                    nodes=1,
                    positions=2,
                    evaluations=[],
                    updated_at=self.now,
                )
            )

    def room(self, player_id: str, status: str) -> None:
        self._count += 1
        seat = {"player": player_id, "ready": False, "device": None, "connected": False}
        with self.store.engine.begin() as conn:
            conn.execute(
                rooms.insert().values(
                    id=f"r_{self._count:03d}",
                    invite=f"invite{self._count}",
                    password=None,
                    open_password=None,
                    variant="xiangqi",
                    options={},
                    status=status,
                    seats=[seat],
                    sides=None,
                    setup=None,
                    game_id=None,
                    version=1,
                    created_at=self.now,
                    updated_at=self.now,
                )
            )

    def seek(self, player_id: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                seeks.insert().values(
                    player_id=player_id,
                    pool="xiangqi",
                    variant="xiangqi",
                    options={},
                    rating=1500.0,
                    status="waiting",
                    room_id=None,
                    connection="c",
                    instance="i",
                    created_at=self.now,
                    seen_at=self.now,
                )
            )

    def ids(self, table: Any) -> set[str]:
        with self.store.engine.connect() as conn:
            return set(conn.execute(select(table.c.id)).scalars())


def _build(store: Store) -> tuple[World, set[str], set[str], set[str], set[str]]:
    """The world, and the players and games that must go and that must stay."""
    world = World(store)
    gone_players, kept_players, gone_games, kept_games = set(), set(), set(), set()
    # Players who never played: old ones go, unless seated in a room or seeking a game.
    gone_players.add(world.player(DAYS + 1))
    kept_players.add(world.player(DAYS - 1))
    seated = world.player(DAYS + 5)
    world.room(seated, "open")
    kept_players.add(seated)
    in_closed_room = world.player(DAYS + 5)
    world.room(in_closed_room, "closed")
    gone_players.add(in_closed_room)
    seeking = world.player(DAYS + 5)
    world.seek(seeking)
    kept_players.add(seeking)
    # An old player whose only game is a local one left unfinished: both go.
    idle = world.player(DAYS + 10)
    gone_players.add(idle)
    gone_games.add(world.game("local", idle, "ongoing", hours_past_expiry=1))
    # An old player with finished games of every kind keeps them all.
    veteran = world.player(DAYS + 100)
    kept_players.add(veteran)
    mated = world.game("local", veteran, "finished", hours_past_expiry=500, reason="checkmate")
    kept_games.add(mated)
    kept_games.add(world.game("ai", veteran, "finished", hours_past_expiry=500, reason="expired"))
    kept_games.add(world.game("ai", veteran, "ongoing", hours_past_expiry=5))  # P2 decides
    kept_games.add(world.game("imported", veteran, "finished", reason="unfinished"))
    expired_local = world.game("local", veteran, "finished", hours_past_expiry=2, reason="expired")
    world.analysis(expired_local)
    gone_games.add(expired_local)
    kept_games.add(world.game("local", veteran, "ongoing", hours_past_expiry=-1))  # on time
    shared = world.game("local", veteran, "ongoing", hours_past_expiry=3)
    world.share(shared)
    kept_games.add(shared)
    # Online players (a seat in game_players only) keep their games, ongoing or finished.
    red, black = world.player(DAYS + 50), world.player(DAYS + 50)
    kept_players |= {red, black}
    kept_games.add(world.game("online", None, "ongoing", hours_past_expiry=30, sides=(red, black)))
    done = world.game("online", None, "finished", 400, reason="resignation", sides=(red, black))
    kept_games.add(done)
    return world, gone_players, kept_players, gone_games, kept_games


def _check(
    world: World, gone_players: set[str], kept: set[str], gone: set[str], kept_games: set[str]
) -> None:
    present_players, present_games = world.ids(players), world.ids(games)
    assert present_players & gone_players == set()
    assert kept <= present_players
    assert present_games & gone == set()
    assert kept_games <= present_games
    with world.store.engine.connect() as conn:
        orphan_events = conn.execute(
            select(game_events.c.game_id).where(game_events.c.game_id.in_(gone))
        ).all()
        orphan_analyses = conn.execute(select(game_analyses.c.game_id)).scalars().all()
    assert orphan_events == []
    assert set(orphan_analyses) & gone == set()


def test_retention_deletes_only_what_nobody_can_reach(tmp_path, database):
    url, schema = database
    store = Store(url, schema)
    store.migrate()
    try:
        world, gone_players, kept_players, gone_games, kept_games = _build(store)
        now = time.time()
        with store.engine.begin() as conn:
            conn.execute(limit_buckets.insert().values(key="games:player:old", tat=now - 7200))
            conn.execute(limit_buckets.insert().values(key="games:player:busy", tat=now + 600))
        retention = Retention(store, DAYS, batch=2)  # small batches: several per pass
        job = RetentionJob(store, DAYS, 3600, _blocking)
        job.retention = retention
        first = asyncio.run(job.pass_once())
        assert first == {"local_games": 2, "players": 3, "limit_buckets": 1}
        _check(world, gone_players, kept_players, gone_games, kept_games)
        with store.engine.connect() as conn:
            buckets = set(conn.execute(select(limit_buckets.c.key)).scalars())
        assert buckets == {"games:player:busy"}
        again = asyncio.run(job.pass_once())
        assert again == {"local_games": 0, "players": 0, "limit_buckets": 0}  # idempotent
    finally:
        store.dispose()


async def _blocking(fn: Any, *args: Any) -> Any:
    return await asyncio.to_thread(fn, *args)


def test_two_instances_purging_at_once_agree(postgres_schema):
    """PostgreSQL (several instances share one; a SQLite database has one instance)."""
    url, schema = postgres_schema
    store = Store(url, schema)
    store.migrate()
    try:
        world, gone_players, kept_players, gone_games, kept_games = _build(store)
        errors: list[BaseException] = []

        def instance() -> None:
            try:
                retention = Retention(Store(url, schema), DAYS, batch=1)
                stamp = utcnow()
                while retention.purge_local_games(stamp) or retention.purge_players(stamp):
                    pass
                retention.store.dispose()
            except BaseException as exc:  # pragma: no cover - the assertion reports it
                errors.append(exc)

        threads = [threading.Thread(target=instance) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert errors == []
        _check(world, gone_players, kept_players, gone_games, kept_games)
    finally:
        store.dispose()


def test_the_server_runs_the_retention_job_by_itself(tmp_path):
    with server(tmp_path, retention_interval_seconds=0.2) as (client, _, store):
        forgotten = World(store).player(DAYS + 1)
        assert client.get("/api/me").status_code == 200  # a fresh player: kept
        deadline = time.monotonic() + 30
        while forgotten in World(store).ids(players) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert forgotten not in World(store).ids(players)
        assert client.get("/api/me").status_code == 200


def _puzzle_rows(store: Store, player_id: str, attempt: bool) -> None:
    """A puzzle rating of ``player_id`` in xiangqi and, with ``attempt``, one solved attempt
    (as ``PuzzleStore.start`` and ``finish`` leave them, SPEC B9)."""
    now = utcnow() - timedelta(days=DAYS + 5)
    with store.engine.begin() as conn:
        conn.execute(
            puzzle_ratings.insert().values(
                player_id=player_id,
                variant="xiangqi",
                rating=1620.0,
                deviation=200.0,
                volatility=0.06,
                attempts=1 if attempt else 0,
                streak=1 if attempt else 0,
                best_streak=1 if attempt else 0,
                last_puzzle="xiangqi-0123456789",
                updated_at=now,
            )
        )
        if attempt:
            conn.execute(
                puzzle_attempts.insert().values(
                    id=f"z_{player_id}",
                    player_id=player_id,
                    puzzle_id="xiangqi-0123456789",
                    variant="xiangqi",
                    status="solved",
                    played=["h2e2"],
                    ply=1,
                    hinted=False,
                    shown=False,
                    rated=True,
                    daily=False,
                    rating_before=1500.0,
                    rating_after=1620.0,
                    created_at=now,
                    updated_at=now,
                )
            )


def _puzzle_owners(store: Store) -> tuple[set[str], set[str]]:
    with store.engine.connect() as conn:
        rated = set(conn.execute(select(puzzle_ratings.c.player_id)).scalars())
        tried = set(conn.execute(select(puzzle_attempts.c.player_id)).scalars())
    return rated, tried


def test_a_puzzle_only_player_is_kept_and_a_deleted_players_puzzle_rows_go_B9(tmp_path, database):
    """A player whose only activity is puzzles (a puzzle rating, attempts in My games) has
    played: kept past the retention days with all of it. A player deleted takes their puzzle
    rows along (no row keeps the id of a player who no longer exists)."""
    url, schema = database
    store = Store(url, schema)
    store.migrate()
    try:
        world = World(store)
        solver = world.player(DAYS + 40)
        _puzzle_rows(store, solver, attempt=True)
        # A rating row without any attempt (nothing in the history): the player never did
        # anything anyone can see, and goes with the row.
        idle = world.player(DAYS + 40)
        _puzzle_rows(store, idle, attempt=False)
        retention = Retention(store, DAYS)
        assert retention.purge_players(utcnow()) == 1
        assert solver in world.ids(players)
        assert idle not in world.ids(players)
        assert _puzzle_owners(store) == ({solver}, {solver})
        assert retention.purge_players(utcnow()) == 0  # idempotent
        assert _puzzle_owners(store) == ({solver}, {solver})
    finally:
        store.dispose()
