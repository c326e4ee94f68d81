"""Game clocks (SPEC B7 beside R4; Z1, Z4, Z5): the arithmetic on a manual clock, no sleeps.

A game clock keeps each side's time; a move charges the mover what was left before the
deadline and adds the increment (Fischer), or in janggi byoyomi keeps the period the move was
made in. Every credit that moves a deadline (both away, an outage) is charged to no one.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from chuhan.server.ai.pool import AIPool
from chuhan.server.db.database import Database
from chuhan.server.db.store import Store
from chuhan.server.games.service import GameService
from chuhan.server.hub.local import LocalHub
from chuhan.server.limits.budgets import CreationBudgets
from chuhan.server.limits.spending import Spending
from chuhan.server.pairing.rules import wish
from chuhan.server.players.rating_service import Ratings
from chuhan.server.players.service import Players
from chuhan.server.records import ManualClock, Player
from chuhan.server.refusal import GameActionError, SeekError
from chuhan.server.rooms import clocks, timecontrols
from chuhan.server.rooms.service import RoomService, RoomSettings
from chuhan.server.rules_config import ClockRules
from chuhan.server.settings import Settings

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
RULES = ClockRules(turn_seconds=90, lag_cap_seconds=2, away_budget_seconds=120)
FIVE_THREE = timecontrols.CONTROLS["5+3"]
BYOYOMI = timecontrols.CONTROLS["5m+3x30s"]


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def played(clock: dict[str, Any], moves: list[tuple[float, float | None]]) -> dict[str, Any]:
    """The clock after moves made at these seconds after T0 (each with the next mover's
    measured lag), red first."""
    for ply, (when, lag) in enumerate(moves):
        clock = clocks.game_turn(clock, RULES, at(when), lag, mover=ply % 2, ply=ply + 1)
    return clock


def test_each_side_first_move_runs_on_the_turn_time_and_costs_nothing_B7_R4() -> None:
    clock = clocks.new_clock(RULES, T0, None, FIVE_THREE)
    assert clock["left"] == [300, 300]
    assert clock["deadline"] == clocks.iso(at(90))
    after_red = played(clock, [(70, None)])
    assert after_red["left"] == [300, 300]  # red's first move: no time taken, no increment
    assert after_red["deadline"] == clocks.iso(at(160))  # black's first move: 90 s too
    after_black = played(clock, [(70, None), (100, None)])
    assert after_black["left"] == [300, 300]
    assert after_black["deadline"] == clocks.iso(at(400))  # now red's 300 s run


def test_a_move_charges_the_time_taken_and_adds_the_increment_B7() -> None:
    clock = played(clocks.new_clock(RULES, T0, None, FIVE_THREE), [(0, None), (0, None)])
    clock = clocks.game_turn(clock, RULES, at(40), None, mover=0, ply=3)  # red thinks 40 s
    assert clock["left"] == [263, 300]  # 300 - 40 + 3
    assert clock["deadline"] == clocks.iso(at(340))  # black's 300 s from red's move
    clock = clocks.game_turn(clock, RULES, at(100), None, mover=1, ply=4)
    assert clock["left"] == [263, 243]  # black: 300 - 60 + 3
    assert clock["deadline"] == clocks.iso(at(363))


def test_the_lag_allowance_moves_the_flag_but_is_never_banked_B7_R4() -> None:
    clock = played(clocks.new_clock(RULES, T0, None, FIVE_THREE), [(0, None), (0, 1.5)])
    assert clock["deadline"] == clocks.iso(at(301.5))
    assert clock["allowance"] == 1.5
    within = clocks.game_turn(clock, RULES, at(301), None, mover=0, ply=3)
    assert within["left"][0] == 3  # moved inside the allowance: nothing was left, +3
    early = clocks.game_turn(clock, RULES, at(10), 30.0, mover=0, ply=3)
    assert early["left"][0] == 293  # the allowance was not added to red's time
    assert early["deadline"] == clocks.iso(at(10 + 300 + 2))  # black's lag, capped at 2 s


def test_time_credited_to_the_deadline_is_charged_to_no_one_Z4_R7() -> None:
    clock = played(clocks.new_clock(RULES, T0, None, FIVE_THREE), [(0, None), (0, None)])
    outage = clocks.after_outage(clock, at(10), at(30))  # no instance alive for 20 s
    assert outage is not None
    moved = clocks.game_turn(outage, RULES, at(50), None, mover=0, ply=3)
    assert moved["left"][0] == 300 - 30 + 3  # 50 s on the wall, 20 of them credited
    away = clocks.resume(clocks.pause(clock, at(5)), at(25))  # both away from 5 s to 25 s
    back = clocks.game_turn(away, RULES, at(45), None, mover=0, ply=3)
    assert back["left"][0] == 300 - 25 + 3
    assert back["away_budget"] == 100
    still_away = clocks.game_turn(clocks.pause(clock, at(5)), RULES, at(45), None, mover=0, ply=3)
    assert still_away["left"][0] == 300 - 5 + 3
    assert still_away["both_away_since"] is None
    news = clocks.credited(clock, 7.0)  # news that could not cross for 7 s
    assert clocks.game_turn(news, RULES, at(10), None, mover=0, ply=3)["left"][0] == 300
    # A credit only stops the clock: a move made before the credited seconds were used up
    # costs nothing, and leaves no more than the mover had, plus the increment (Z1).
    quick = clocks.game_turn(news, RULES, at(2), None, mover=0, ply=3)
    assert quick["left"][0] == 300 + 3


def test_byoyomi_keeps_the_period_a_move_is_made_in_and_spends_the_ones_run_out_J_B7() -> None:
    clock = played(clocks.new_clock(RULES, T0, None, BYOYOMI), [(0, None), (0, None)])
    assert clock["periods_left"] == [3, 3]
    assert clock["increment"] == 0
    assert clock["deadline"] == clocks.iso(at(300 + 3 * 30))
    clock = clocks.game_turn(clock, RULES, at(250), None, mover=0, ply=3)
    assert (clock["left"][0], clock["periods_left"][0]) == (50, 3)  # still in the base
    clock = clocks.game_turn(clock, RULES, at(250), None, mover=1, ply=4)
    assert clock["deadline"] == clocks.iso(at(250 + 50 + 90))
    clock = clocks.game_turn(clock, RULES, at(310), None, mover=0, ply=5)
    assert (clock["left"][0], clock["periods_left"][0]) == (0, 3)  # 10 s into a period: kept
    clock = clocks.game_turn(clock, RULES, at(310), None, mover=1, ply=6)
    assert clock["deadline"] == clocks.iso(at(310 + 90))
    clock = clocks.game_turn(clock, RULES, at(310 + 45), None, mover=0, ply=7)
    assert clock["periods_left"][0] == 2  # one period ran out, the move was made in the next
    clock = clocks.game_turn(clock, RULES, at(400), None, mover=1, ply=8)
    assert clock["deadline"] == clocks.iso(at(400 + 60))
    assert clocks.due(clock) == (at(460), "timeout")  # the last period's end flags


def test_only_the_offered_clocks_are_accepted_Z5_B7() -> None:
    assert timecontrols.choose("xiangqi", None) is None
    assert timecontrols.choose("janggi", "turn") is None  # R4's clock stays the default
    assert timecontrols.choose("jieqi", "10+5") == "10+5"
    assert timecontrols.choose("janggi", "5m+3x30s") == "5m+3x30s"
    for variant, bad in [("xiangqi", "5m+3x30s"), ("xiangqi", "1+0"), ("janggi", 5), ("jieqi", "")]:
        with pytest.raises(timecontrols.TimeControlError, match="clock must be one of"):
            timecontrols.choose(variant, bad)
    assert {"3+2", "5+3", "10+5", "15+10"} <= set(timecontrols.offered("xiangqi"))


def test_seeks_are_pooled_per_variant_rule_option_and_clock_B1_B7() -> None:
    assert wish("xiangqi", {}).pool == "xiangqi:rules=casual"  # R4's clock: as before
    assert wish("xiangqi", {"clock": "turn"}).pool == "xiangqi:rules=casual"
    fast = wish("xiangqi", {"rules": "wxf", "clock": "3+2"})
    assert fast.pool == "xiangqi:rules=wxf:clock=3+2"
    assert fast.options == {"rules": "wxf", "clock": "3+2"}  # what the paired room gets
    assert wish("janggi", {"clock": "5m+3x30s"}).pool == "janggi:bikjang=off:clock=5m+3x30s"
    assert wish("xiangqi", {"clock": "5+3"}).pool != wish("xiangqi", {"clock": "10+5"}).pool
    with pytest.raises(SeekError, match="clock must be one of"):
        wish("jieqi", {"clock": "5m+3x30s"})


def _service(tmp_path: Path, clock: ManualClock) -> tuple[Store, RoomService]:
    store = Store(f"sqlite:///{tmp_path}/rooms.sqlite3")
    store.migrate()
    settings = Settings(database_url=store.url)
    db = Database(store)
    spending = Spending(db, CreationBudgets(store, settings.creation))
    games = GameService(db, LocalHub(clock), AIPool(1, 1), settings, spending)
    rules = ClockRules(turn_seconds=90, lag_cap_seconds=0)
    return store, RoomService(games, RoomSettings(clock=rules), clock)


def test_a_room_game_on_a_clock_flags_when_the_movers_time_is_spent_B7_Z1(
    tmp_path: Path,
) -> None:
    moment = ManualClock()
    store, service = _service(tmp_path, moment)

    async def scenario() -> None:
        creator, _ = await _new_player(service.games)
        friend, _ = await _new_player(service.games)
        with pytest.raises(GameActionError, match="clock must be one of"):
            await service.create(creator, "xiangqi", "off", None, clock="5m+3x30s")
        room = await service.create(creator, "xiangqi", "off", None, clock="3+2")
        assert room.options == {"rules": "casual", "clock": "3+2"}
        await service.take_seat(friend, room.id)
        await service.ready(creator, room.id)
        started = await service.ready(friend, room.id)
        await service.stop()  # no keeper: the late move itself meets the deadline
        assert started.sides is not None
        assert started.game_id is not None
        red, black = (creator, friend) if started.sides[0] == creator.id else (friend, creator)
        await service.move(red, room.id, 0, "h3e3")
        await service.move(black, room.id, 1, "h10g8")
        moment.advance(30)
        game = await service.move(red, room.id, 2, "h1g3")
        assert game.options["clock"]["left"] == [152, 180]  # 180 - 30 + 2
        moment.advance(179)  # black's 180 s not yet spent
        game = await service.move(black, room.id, 3, "i10h10")
        assert game.options["clock"]["left"] == [152, 3]
        moment.advance(152.5)  # red's 152 s are over
        with pytest.raises(GameActionError, match="ran out"):
            await service.move(red, room.id, 4, "b1c3")
        ended = store.game(started.game_id)
        assert ended is not None
        assert len(ended.moves) == 4
        assert (ended.result or {}).get("winner") == "black"
        assert (ended.result or {}).get("reason") == "timeout"

    asyncio.run(scenario())
    store.dispose()


def test_a_room_created_as_today_keeps_R4s_turn_clock(tmp_path: Path) -> None:
    moment = ManualClock()
    store, service = _service(tmp_path, moment)

    async def scenario() -> None:
        creator, _ = await _new_player(service.games)
        friend, _ = await _new_player(service.games)
        room = await service.create(creator, "xiangqi", "off", None)
        assert "clock" not in room.options
        await service.take_seat(friend, room.id)
        await service.ready(creator, room.id)
        started = await service.ready(friend, room.id)
        await service.stop()
        assert started.game_id is not None
        game = store.game(started.game_id)
        assert game is not None
        assert set(game.options["clock"]) == {
            "turn_seconds",
            "turn_started_at",
            "deadline",
            "away_budget",
            "both_away_since",
        }

    asyncio.run(scenario())
    store.dispose()


async def _new_player(games: GameService) -> tuple[Player, str]:
    """A new visitor, as the app's players service makes one."""
    ratings = Ratings(games.db, games.hub, games.known, games.settings.ratings)
    return await Players(games.db, games.spending, ratings).new_player()
