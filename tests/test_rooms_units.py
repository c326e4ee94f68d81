"""Room rules without sockets: passwords (R2), clock arithmetic (R4, R7), and rooms shared by
several server instances on one database, SQLite and PostgreSQL (scale-out: every change is a
conditional update, and a deadline is enforced exactly once whoever sees it first).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

import pytest

from chuhan.server.ai.pool import AIPool
from chuhan.server.db.database import Database
from chuhan.server.db.rooms import RoomStore
from chuhan.server.db.store import Store
from chuhan.server.games.service import GameService
from chuhan.server.hub.local import LocalHub
from chuhan.server.limits.budgets import CreationBudgets
from chuhan.server.limits.spending import Spending
from chuhan.server.players.service import Players
from chuhan.server.records import (
    SYSTEM_CLOCK,
    Clock,
    ManualClock,
    PasswordTakenError,
    RoomOptions,
    StaleRoomError,
)
from chuhan.server.refusal import GameActionError
from chuhan.server.rooms import clocks
from chuhan.server.rooms.passwords import PasswordError, normalize_password
from chuhan.server.rooms.service import RoomService, RoomSettings
from chuhan.server.rules_config import ClockRules
from chuhan.server.settings import Settings

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "stored"),
    [("Tiger7", "tiger7"), ("  abc ", "abc"), ("1357", "1357"), ("7778", "7778"), ("12a4", "12a4")],
)
def test_passwords_accepted_case_insensitively_R2(text: str, stored: str) -> None:
    assert normalize_password(text) == stored


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("ab", "3 to 20"),
        ("a" * 21, "3 to 20"),
        ("tiger 7", "letters"),
        ("añob", "letters"),
        ("777", "repeated"),
        ("0000", "repeated"),
        ("1234", "consecutive"),
        ("987", "consecutive"),
        ("3456789", "consecutive"),
    ],
)
def test_passwords_refused_with_the_reason_R2(text: str, why: str) -> None:
    with pytest.raises(PasswordError, match=why):
        normalize_password(text)


def test_deadline_is_turn_start_plus_turn_plus_capped_lag_R4() -> None:
    rules = ClockRules(turn_seconds=90, lag_cap_seconds=2)
    assert rules.deadline(T0, 0.3) == T0 + timedelta(seconds=90.3)
    assert rules.deadline(T0, 30.0) == T0 + timedelta(seconds=92)  # a slow link buys 2 s at most
    assert rules.deadline(T0, None) == T0 + timedelta(seconds=90)


def test_both_away_spends_the_shared_budget_and_moves_the_deadline_R7() -> None:
    rules = ClockRules(turn_seconds=90, away_budget_seconds=120)
    clock = clocks.new_clock(rules, T0, None)
    paused = clocks.pause(clock, T0 + timedelta(seconds=10))
    assert clocks.due(paused) == (T0 + timedelta(seconds=130), "interrupted")
    back = clocks.resume(paused, T0 + timedelta(seconds=40))
    assert back["away_budget"] == 90
    assert clocks.due(back) == (T0 + timedelta(seconds=120), "timeout")
    again = clocks.resume(clocks.pause(back, T0 + timedelta(seconds=50)), T0 + timedelta(hours=1))
    assert again["away_budget"] == 0  # never more than the budget is spent


def _stores(url: str, schema: str | None) -> tuple[Store, Store]:
    first, second = Store(url, schema), Store(url, schema)
    first.migrate()
    return first, second


def test_a_room_changed_by_another_instance_is_not_overwritten(
    database: tuple[str, str | None],
) -> None:
    url, schema = database
    first, second = _stores(url, schema)
    services = [RoomService(_games(store), RoomSettings()) for store in (first, second)]

    async def scenario() -> None:
        player = await _players(services[0]).new_player()
        room = await services[0].create(player[0], "xiangqi", "off", "Shared1")
        mine = RoomStore(first).get(room.id)
        theirs = RoomStore(second).get(room.id)
        assert mine is not None
        assert theirs is not None
        RoomStore(second).replace(
            theirs, replace(theirs, options=cast(RoomOptions, {"touched": True}))
        )
        with pytest.raises(StaleRoomError):
            RoomStore(first).replace(mine, replace(mine, options=cast(RoomOptions, {"lost": True})))
        # The password stays unique among open rooms on every instance (R2) …
        with pytest.raises(PasswordTakenError):
            RoomStore(second).insert(replace(room, id="r_other", invite=None))
        # … and is free again once the room is closed.
        fresh = RoomStore(first).get(room.id)
        assert fresh is not None
        RoomStore(first).replace(fresh, replace(fresh, status="closed", open_password=None))
        RoomStore(second).insert(replace(room, id="r_other", invite=None, version=1))

    asyncio.run(scenario())
    first.dispose()
    second.dispose()


def test_two_instances_enforce_a_deadline_exactly_once_R4_R6(
    database: tuple[str, str | None], tmp_path: Path
) -> None:
    url, schema = database
    first, second = _stores(url, schema)
    # One clock for both instances, moved past the deadline instead of slept through.
    clock = ManualClock()
    rules = RoomSettings(clock=ClockRules(turn_seconds=60, lag_cap_seconds=0))
    services = [RoomService(_games(store, clock), rules, clock) for store in (first, second)]

    async def scenario() -> None:
        creator, _ = await _players(services[0]).new_player()
        friend, _ = await _players(services[0]).new_player()
        room = await services[0].create(creator, "xiangqi", "off", None)
        await services[1].take_seat(friend, room.id)
        await services[0].ready(creator, room.id)
        started = await services[1].ready(friend, room.id)
        assert started.game_id is not None
        clock.advance(61)  # past the turn's minute, without waiting it
        await asyncio.gather(*(s._enforce(started) for s in services))
        await asyncio.gather(*(s.stop() for s in services))
        game = first.game(started.game_id)
        assert game is not None
        assert game.result is not None
        assert game.result["reason"] == "timeout"
        ends = [e for e in first.events_after(game.id, 0) if e.type == "end"]
        assert len(ends) == 1
        assert started.sides is not None
        winner = started.sides[("red", "black").index(game.result["winner"])]
        points = {p: first.player(p).online_points for p in started.sides}  # type: ignore[union-attr]
        assert sorted(points.values()) == [0, 50]
        assert points[winner] == 50

    asyncio.run(scenario())
    first.dispose()
    second.dispose()


def test_a_move_on_an_instance_that_missed_the_next_game_plays_in_that_game_R3_Z1(
    database: tuple[str, str | None],
) -> None:
    """An instance starts a game action from the room as it last saw it: when another
    instance began the next game meanwhile (and the news has not come), the move still
    lands in the new game, not the old one."""
    url, schema = database
    first, second = _stores(url, schema)
    services = [RoomService(_games(store), RoomSettings()) for store in (first, second)]

    async def scenario() -> None:
        creator, _ = await _players(services[0]).new_player()
        friend, _ = await _players(services[0]).new_player()
        room = await services[0].create(creator, "xiangqi", "off", None)
        await services[1].take_seat(friend, room.id)
        await services[0].ready(creator, room.id)
        old = await services[1].ready(friend, room.id)
        await services[0].resign(creator, room.id)  # instance 0 last saw the old game
        await services[1].ready(creator, room.id)
        new = await services[1].ready(friend, room.id)
        assert new.game_id is not None
        assert new.game_id != old.game_id
        assert new.sides
        red = creator if new.sides[0] == creator.id else friend
        after = await services[0].move(red, room.id, 0, "h3e3")
        assert after.id == new.game_id
        assert after.moves == ["h3e3"]
        await asyncio.gather(*(s.stop() for s in services))

    asyncio.run(scenario())
    first.dispose()
    second.dispose()


def test_rooms_with_a_setup_or_game_in_progress_get_a_clock_keeper_after_a_restart_R4(
    tmp_path: Path,
) -> None:
    store = Store(f"sqlite:///{tmp_path}/rooms.sqlite3")
    store.migrate()
    service = RoomService(_games(store), RoomSettings())

    async def scenario() -> None:
        creator, _ = await _players(service).new_player()
        friend, _ = await _players(service).new_player()
        waiting = await service.create(creator, "xiangqi", "off", None)
        setup = await service.create(creator, "janggi", "off", None)
        await service.take_seat(friend, setup.id)
        await service.ready(creator, setup.id)
        await service.ready(friend, setup.id)
        await service.stop()
        active = {room.id for room in RoomStore(store).active()}
        assert setup.id in active
        assert waiting.id not in active

    asyncio.run(scenario())
    store.dispose()


def test_a_move_after_the_deadline_loses_on_time_instead_R4_Z1(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path}/rooms.sqlite3")
    store.migrate()
    clock = ManualClock()
    settings = RoomSettings(clock=ClockRules(turn_seconds=60, lag_cap_seconds=0))
    service = RoomService(_games(store, clock), settings, clock)

    async def scenario() -> None:
        creator, _ = await _players(service).new_player()
        friend, _ = await _players(service).new_player()
        room = await service.create(creator, "xiangqi", "off", None)
        await service.take_seat(friend, room.id)
        await service.ready(creator, room.id)
        started = await service.ready(friend, room.id)
        await service.stop()  # no keeper: only the late move itself meets the deadline
        assert started.sides is not None
        assert started.game_id is not None
        red = creator if started.sides[0] == creator.id else friend
        clock.advance(61)  # the turn's minute is over, without waiting it
        with pytest.raises(GameActionError, match="ran out"):
            await service.move(red, room.id, 0, "h3e3")
        game = store.game(started.game_id)
        assert game is not None
        assert game.moves == []
        assert game.result == {"winner": "black", "reason": "timeout", "points": None}

    asyncio.run(scenario())
    store.dispose()


def _games(store: Store, clock: Clock = SYSTEM_CLOCK) -> GameService:
    hub = LocalHub(clock)
    settings = Settings(database_url=store.url)
    db = Database(store)
    spending = Spending(db, CreationBudgets(store, settings.creation))
    return GameService(db, hub, AIPool(1, 1), settings, spending)


def _players(rooms: RoomService) -> Players:
    return Players(rooms.games.db, rooms.games.spending, rooms.ratings)
