"""A game clock keeps the credits rooms have (SPEC B7 with Z4, R4, R7): the time no instance was
alive, and the time a dead instance's news could not cross, are added to the deadline and
charged to no one's time; a move afterwards costs only the time that was the mover's.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import update

from chuhan.server.db.instances import InstanceStore
from chuhan.server.db.store import Store
from chuhan.server.db.tables import server_instances
from chuhan.server.games.service import GameService
from chuhan.server.players.rating_service import Ratings
from chuhan.server.players.service import Players
from chuhan.server.records import GameRecord, Player, parse_iso
from chuhan.server.rooms import clocks, rules
from chuhan.server.rooms.service import RoomService
from chuhan.server.rooms.timecontrols import CONTROLS
from chuhan.server.rules_config import ClockRules
from test_rooms_restart import _crash, _games, _settings

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def test_an_outage_after_a_crash_is_not_charged_to_the_movers_game_clock_Z4_B7(
    tmp_path: Path,
) -> None:
    stores = [Store(f"sqlite:///{tmp_path}/rooms.sqlite3") for _ in range(2)]
    stores[0].migrate()
    old, new = (RoomService(_games(store), _settings(dead_after=5.0)) for store in stores)

    async def scenario() -> None:
        await old.start()
        creator, _ = await _new_player(old.games)
        friend, _ = await _new_player(old.games)
        room = await old.create(creator, "xiangqi", "off", None, clock="5+3")
        await old.take_seat(friend, room.id)
        await old.ready(creator, room.id)
        started = await old.ready(friend, room.id)
        assert started.sides is not None
        assert started.game_id is not None
        red, black = (creator, friend) if started.sides[0] == creator.id else (friend, creator)
        await old.move(red, room.id, 0, "h3e3")
        before = await old.move(black, room.id, 1, "h10g8")  # red's 300 s now run
        await _crash(old)
        (crashed,) = InstanceStore(stores[0]).all()  # it died 30 s ago, its heartbeat says
        with stores[0].engine.begin() as conn:
            conn.execute(
                update(server_instances).values(alive_at=crashed.alive_at - timedelta(seconds=30))
            )
        await new.start()
        after = stores[0].game(started.game_id)
        assert after is not None
        assert after.ongoing
        moved = parse_iso(after.options["clock"]["deadline"]) - parse_iso(
            before.options["clock"]["deadline"]
        )
        assert timedelta(seconds=29) < moved < timedelta(seconds=35)
        assert await new.attach(red, room.id, "red/phone", take=False)  # back: the game goes on
        played = await new.move(red, room.id, 2, "h1g3")
        red_left = played.options["clock"]["left"][0]
        # The instance "died 30 s ago" without those 30 s passing here: a real outage's 30 s
        # would have run on the wall, and the credit pays them back. A credit only stops the
        # clock, never adds to it (Z1): red keeps its 300 s, + 3, less at most the few real
        # seconds of this test, and not the 30 s that never ran.
        assert 300 + 3 - 5 < red_left <= 300 + 3
        await new.stop()

    asyncio.run(scenario())
    for store in stores:
        store.dispose()


def _game_on(clock: dict[str, Any]) -> GameRecord:
    """A xiangqi room game at ply 2 (red to move) with ``clock``."""
    return GameRecord(
        id="g1",
        kind="online",
        variant="xiangqi",
        options={"clock": clock},
        start_fen=START,
        created_at=T0,
        expires_at=T0 + timedelta(days=1),
        updated_at=T0,
        moves=["h3e3", "h10g8"],
    )


def test_a_dead_instances_lost_news_is_credited_to_a_game_clock_R7_Z4_B7() -> None:
    rule = ClockRules(turn_seconds=90, lag_cap_seconds=0)
    clock = clocks.new_clock(rule, T0, None, CONTROLS["3+2"])
    for ply in (1, 2):
        clock = clocks.game_turn(clock, rule, T0, None, mover=(ply - 1) % 2, ply=ply)
    game = _game_on(clock)
    # The instance holding red's seat died: nothing it sent from 10 s to 25 s reached black.
    change = rules.instance_lost(game, T0 + timedelta(seconds=10), T0 + timedelta(seconds=25))
    assert change is not None
    assert change.events[0]["type"] == "outage"
    credited = change.after.options["clock"]
    assert clocks.due(credited) == (T0 + timedelta(seconds=180 + 15), "timeout")
    moved = clocks.game_turn(credited, rule, T0 + timedelta(seconds=40), None, mover=0, ply=3)
    assert moved["left"][0] == 180 - 25 + 2  # 40 s on the wall, 15 of them credited
    on_credit = replace(game, options={"clock": credited})
    assert rules.overdue(on_credit, ["r", "b"], T0 + timedelta(seconds=190)) is None
    flagged = rules.overdue(on_credit, ["r", "b"], T0 + timedelta(seconds=196))
    assert flagged is not None
    assert flagged.after.result is not None
    assert flagged.after.result["reason"] == "timeout"  # red's time and its credit spent


async def _new_player(games: GameService) -> tuple[Player, str]:
    """A new visitor, as the app's players service makes one."""
    ratings = Ratings(games.db, games.hub, games.known, games.settings.ratings)
    return await Players(games.db, games.spending, ratings).new_player()
