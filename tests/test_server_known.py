"""A change starts from the game as this instance last knew it (a move costs one
database call), and an out-of-date copy never changes what happens: the change is decided
again on a fresh read, nothing is lost or applied twice (SPEC Z1, Z4, P5)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from chuhan.server.ai.pool import AIPool
from chuhan.server.db.database import Database
from chuhan.server.db.store import Store
from chuhan.server.games.service import GameService, NewGame
from chuhan.server.hub.local import LocalHub
from chuhan.server.limits.budgets import CreationBudgets
from chuhan.server.limits.spending import Spending
from chuhan.server.players.rating_service import Ratings
from chuhan.server.players.service import Players
from chuhan.server.records import Player, utcnow
from chuhan.server.refusal import GameActionError
from chuhan.server.rooms import clocks
from chuhan.server.rooms.service import RoomService, RoomSettings
from chuhan.server.rules_config import ClockRules
from chuhan.server.settings import Settings


def _service(store: Store) -> GameService:
    settings = Settings(database_url=store.url)
    db = Database(store)
    spending = Spending(db, CreationBudgets(store, settings.creation))
    return GameService(db, LocalHub(), AIPool(1, 1), settings, spending)


class CountingReads:
    """Counts the reads of a game by id (``Store.game``), letting them through."""

    def __init__(self, store: Store) -> None:
        self.calls = 0
        self._read = store.game
        store.game = self  # type: ignore[method-assign]

    def __call__(self, game_id: str) -> Any:
        self.calls += 1
        return self._read(game_id)


def test_a_move_on_a_known_game_reads_nothing_and_is_stored(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path}/known.sqlite3")
    store.migrate()
    games = _service(store)

    async def scenario() -> None:
        player, _ = await _new_player(games)
        game = await games.create_game(player, NewGame(kind="local", variant="xiangqi"))
        game, _ = await games.move(game, 0, "h3e3")  # read once: now known here
        reads = CountingReads(store)
        after, _ = await games.move(game, 1, "h10g8")
        assert reads.calls == 0
        stored = reads._read(game.id)
        assert stored is not None
        assert stored.moves == ["h3e3", "h10g8"] == after.moves

    asyncio.run(scenario())
    store.dispose()


def test_an_out_of_date_copy_is_decided_again_on_a_fresh_read(tmp_path: Path) -> None:
    """Two instances on one database, each news unheard by the other: the first one's copy
    is a move behind, and its next move is still accepted once, in order."""
    store = Store(f"sqlite:///{tmp_path}/known.sqlite3")
    store.migrate()
    first, second = _service(store), _service(store)

    async def scenario() -> None:
        player, _ = await _new_player(first)
        game = await first.create_game(player, NewGame(kind="local", variant="xiangqi"))
        await first.move(game, 0, "h3e3")
        await second.move(game, 1, "h10g8")  # the first instance does not hear of it
        known = first.known.get(game.id)
        assert known is not None
        assert known.ply == 1  # out of date
        # A move for ply 2: refused by the copy (it is at ply 1), accepted on a fresh read.
        after, _ = await first.move(game, 2, "h1g3")
        assert after.moves == ["h3e3", "h10g8", "h1g3"]
        # The same move for ply 1 as the other instance played: a repeat, acknowledged.
        again, _ = await first.move(game, 1, "h10g8")
        assert again.moves == after.moves
        # Another move for ply 1: stale, not applied over what was played.
        with pytest.raises(GameActionError) as refused:
            await first.move(game, 1, "b10c8")
        assert refused.value.code == "stale_move"
        stored = store.game(game.id)
        assert stored is not None
        assert stored.moves == ["h3e3", "h10g8", "h1g3"]
        seqs = [event.seq for event in store.events_after(game.id, 0)]
        assert seqs == list(range(1, stored.seq + 1))  # each change logged once

    asyncio.run(scenario())
    store.dispose()


def test_an_out_of_date_overdue_copy_does_not_flag_a_move_in_time_R4(tmp_path: Path) -> None:
    """The copy says the turn's time ran out, the stored game does not (its clock moved on
    elsewhere): the move is played, not answered ``time_out``."""
    store = Store(f"sqlite:///{tmp_path}/rooms.sqlite3")
    store.migrate()
    settings = RoomSettings(clock=ClockRules(turn_seconds=90, lag_cap_seconds=0))
    rooms = RoomService(_service(store), settings)

    async def scenario() -> None:
        creator, _ = await _new_player(rooms.games)
        friend, _ = await _new_player(rooms.games)
        room = await rooms.create(creator, "xiangqi", "off", None)
        await rooms.take_seat(friend, room.id)
        await rooms.ready(creator, room.id)
        started = await rooms.ready(friend, room.id)
        await rooms.stop()  # no keeper
        assert started.sides is not None
        assert started.game_id is not None
        red = creator if started.sides[0] == creator.id else friend
        game = store.game(started.game_id)
        assert game is not None
        past = clocks.iso(utcnow() - timedelta(seconds=5))
        overdue = {**game.options["clock"], "deadline": past}
        stale = replace(game, seq=game.seq - 1, options={**game.options, "clock": overdue})
        rooms.games.known.forget(game.id)
        rooms.games.known.remember(stale)  # older than what is stored: out of date
        after = await rooms.move(red, room.id, 0, "h3e3")
        assert after.moves == ["h3e3"]
        assert after.ongoing
        stored = store.game(started.game_id)
        assert stored is not None
        assert stored.moves == ["h3e3"]
        assert stored.ongoing

    asyncio.run(scenario())
    store.dispose()


def test_the_board_cache_keeps_a_games_last_positions_only() -> None:
    """Thousands of games at once: each keeps its last two positions (a full garbage
    collection walks every board kept), and the next position is still built from them."""
    from chuhan.rules import make_board
    from chuhan.server.games.changes import BoardCache

    cache = BoardCache(size=2)
    board = make_board("xiangqi")
    played: tuple[str, ...] = ()
    for move in ("h3e3", "h10g8", "h1g3"):
        board.push(move)
        played = (*played, move)
        cache.put(("g_1", "start", played), board)
    assert cache.get(("g_1", "start", played)) is not None
    assert cache.get(("g_1", "start", played[:-1])) is not None
    assert cache.get(("g_1", "start", played[:-2])) is None  # older: replayed when needed
    kept = cache.get(("g_1", "start", played))
    assert kept is not None
    assert kept.fen() == board.fen()
    assert kept is not board
    cache.put(("g_2", "start", ()), make_board("xiangqi"))
    cache.put(("g_3", "start", ()), make_board("xiangqi"))
    assert cache.get(("g_1", "start", played)) is None  # the least recent game went first


class CountingRoomReads:
    """Counts the reads of a room by id (``RoomStore.get``), letting them through."""

    def __init__(self, rooms: RoomService) -> None:
        self.calls = 0
        self._read = rooms.store.get
        rooms.store.get = self  # type: ignore[method-assign]

    def __call__(self, room_id: str) -> Any:
        self.calls += 1
        return self._read(room_id)


def test_readiness_from_an_out_of_date_room_is_decided_again_on_a_fresh_read(
    tmp_path: Path,
) -> None:
    """Two instances on one database, the room's news unheard by the first: its copy still
    has the friend not ready. Both ready (one on each) start exactly one game, not two and
    not none; readiness pressed again during the game is refused only on a fresh read."""
    store = Store(f"sqlite:///{tmp_path}/rooms.sqlite3")
    store.migrate()
    first = RoomService(_service(store), RoomSettings())
    second = RoomService(_service(store), RoomSettings())

    async def scenario() -> None:
        creator, _ = await _new_player(first.games)
        friend, _ = await _new_player(first.games)
        room = await first.create(creator, "xiangqi", "off", None)
        await second.take_seat(friend, room.id)  # the first instance does not hear of it
        known = first.core.known(room.id)
        assert known is not None
        assert len(known.seats) == 1  # out of date
        await second.ready(friend, room.id)
        started = await first.ready(creator, room.id)  # decided on its copy, then fresh
        await first.stop()
        await second.stop()
        assert started.game_id is not None
        assert started.sides is not None
        assert sorted(started.sides) == sorted([creator.id, friend.id])
        stored = first.store.get(room.id)
        assert stored is not None
        assert stored.game_id == started.game_id
        assert store.game(started.game_id) is not None
        # The second instance's copy names no game: pressing ready again is refused all
        # the same (the refusal is believed on a fresh read only).
        with pytest.raises(GameActionError) as refused:
            await second.ready(friend, room.id)
        assert refused.value.code == "not_now"
        again = first.store.get(room.id)
        assert again is not None
        assert again.game_id == started.game_id  # no second game

    asyncio.run(scenario())
    store.dispose()


def test_readiness_and_a_game_start_read_nothing_on_the_instance_that_knows_the_room(
    tmp_path: Path,
) -> None:
    """Thousands of games starting: the instance that stored the room's last
    change starts its game from its own copy: no read of the room or of a game."""
    store = Store(f"sqlite:///{tmp_path}/rooms.sqlite3")
    store.migrate()
    rooms = RoomService(_service(store), RoomSettings())

    async def scenario() -> None:
        creator, _ = await _new_player(rooms.games)
        friend, _ = await _new_player(rooms.games)
        room = await rooms.create(creator, "xiangqi", "off", None)
        await rooms.take_seat(friend, room.id)
        room_reads, game_reads = CountingRoomReads(rooms), CountingReads(store)
        await rooms.ready(creator, room.id)
        started = await rooms.ready(friend, room.id)
        assert (room_reads.calls, game_reads.calls) == (0, 0)
        await rooms.stop()
        assert started.game_id is not None
        game = store.game(started.game_id)
        assert game is not None
        assert game.ongoing
        assert game.ply == 0

    asyncio.run(scenario())
    store.dispose()


async def _new_player(games: GameService) -> tuple[Player, str]:
    """A new visitor, as the app's players service makes one."""
    ratings = Ratings(games.db, games.hub, games.known, games.settings.ratings)
    return await Players(games.db, games.spending, ratings).new_player()
