"""Room games across server restarts and dead instances (SPEC Z4, R4, R7).

Z4: a restart of the server loses no game, and the time while it was down is charged to no
one: not to the player on turn, not to the shared both-away budget, not to a janggi setup
choice. R7: after a crash, the seats held by the dead server's connections are no longer
"connected", so both players away is seen and a returning device takes its seat without
"Continue on this device". The janggi setup choice waits while both players are away.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from chuhan.server.ai.pool import AIPool
from chuhan.server.db.database import Database
from chuhan.server.db.instances import InstanceStore
from chuhan.server.db.rooms import RoomStore
from chuhan.server.db.store import Store
from chuhan.server.db.tables import server_instances
from chuhan.server.games.service import GameService
from chuhan.server.hub.local import LocalHub
from chuhan.server.limits.budgets import CreationBudgets
from chuhan.server.limits.spending import Spending
from chuhan.server.players.rating_service import Ratings
from chuhan.server.players.service import Players
from chuhan.server.records import Instance, parse_iso
from chuhan.server.records import Player as StoredPlayer
from chuhan.server.rooms import clocks
from chuhan.server.rooms.instances import outage_since
from chuhan.server.rooms.service import RoomService, RoomSettings
from chuhan.server.rules_config import ClockRules
from chuhan.server.settings import Settings
from rooms_client import Player, RoomSocket, ServerProcess, server_environment

pytestmark = pytest.mark.timeout(120)

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TURN = 10.0  # long enough that a few seconds down would visibly be charged
AWAY = 4.0  # shorter than the outage: had it been charged, the game would be interrupted
DOWN = 4.5  # how long the server stays dead
HEARTBEAT = 0.25
TOLERANCE = 1.5  # a heartbeat, the time to reconnect and to read the clock (on a busy machine)
RESTART_SETTINGS = {
    "CHUHAN_ROOM_TURN_SECONDS": str(TURN),
    "CHUHAN_ROOM_AWAY_BUDGET_SECONDS": str(AWAY),
    "CHUHAN_ROOM_LAG_CAP_SECONDS": "0.1",
    "CHUHAN_ROOM_HEARTBEAT_SECONDS": str(HEARTBEAT),
    "CHUHAN_ROOM_DEAD_AFTER_SECONDS": "1.0",
}


# ---------------------------------------------------------------------- the arithmetic


def test_an_outage_moves_the_deadline_and_the_wait_once_Z4() -> None:
    rules = ClockRules(turn_seconds=90, away_budget_seconds=120)
    clock = clocks.pause(clocks.new_clock(rules, T0, None), T0 + timedelta(seconds=10))
    down_since, back = T0 + timedelta(seconds=20), T0 + timedelta(seconds=80)
    moved = clocks.after_outage(clock, down_since, back)
    assert moved is not None
    assert parse_iso(moved["deadline"]) == T0 + timedelta(seconds=150)
    # Both were away 10 s before the outage: only those 10 s come out of the budget.
    resumed = clocks.resume(moved, back + timedelta(seconds=5))
    assert resumed["away_budget"] == 120 - 15
    # A second instance starting after the same outage does not move it again.
    assert clocks.after_outage(moved, down_since, back + timedelta(seconds=1)) is None
    assert clocks.after_outage(moved, back + timedelta(hours=1), back + timedelta(hours=2))


def _instance(name: str, started: int, alive: int, stopped: bool = False) -> Instance:
    at = T0 + timedelta(seconds=started), T0 + timedelta(seconds=alive)
    return Instance(name, at[0], at[1], stopped)


def test_an_outage_is_when_no_instance_was_alive_Z4() -> None:
    crashed = _instance("a", 0, 100)
    assert outage_since([], [crashed]) == crashed.alive_at
    # Two instances starting together after it: both see the same outage.
    assert outage_since([_instance("b", 130, 131)], [crashed]) == crashed.alive_at
    # An instance alive since before the crash kept the clocks: no outage.
    assert outage_since([_instance("c", 50, 131)], [crashed]) is None
    assert outage_since([_instance("c", 50, 131)], []) is None
    # It lasted from the last heartbeat of any of them.
    assert outage_since([], [crashed, _instance("d", 10, 120, True)]) == T0 + timedelta(seconds=120)


# ---------------------------------------------------------------------- instances on one database


def _games(store: Store) -> GameService:
    settings = Settings(database_url=store.url)
    db = Database(store)
    spending = Spending(db, CreationBudgets(store, settings.creation))
    return GameService(db, LocalHub(), AIPool(1, 1), settings, spending)


def _settings(turn: float = 60.0, dead_after: float = 0.5) -> RoomSettings:
    return RoomSettings(
        clock=ClockRules(turn_seconds=turn, lag_cap_seconds=0),
        heartbeat_seconds=0.1,
        dead_after_seconds=dead_after,
    )


async def _game_in_a_room(service: RoomService) -> tuple[str, str, StoredPlayer, StoredPlayer]:
    """A room whose game has begun, each player's device holding their seat on ``service``."""
    creator, _ = await _new_player(service.games)
    friend, _ = await _new_player(service.games)
    room = await service.create(creator, "xiangqi", "off", None)
    await service.take_seat(friend, room.id)
    await service.ready(creator, room.id)
    started = await service.ready(friend, room.id)
    assert started.game_id is not None
    for player in (creator, friend):
        assert await service.attach(player, room.id, f"{player.id}/c1", take=False)
    return room.id, started.game_id, creator, friend


async def _crash(service: RoomService) -> None:
    """The instance stops without a word: no last heartbeat, no seat released.

    Its database calls already under way in its worker threads land first, as a dying
    process's last writes would: cancelling the heartbeat's task does not stop a beat already
    handed to a thread, and one landing after the test has aged the heartbeat undid the aging
    (CI saw the clock moved by 0.53 s, the fresh beat's age, instead of 30 s).
    """
    service._closing = True
    tasks = [*service._keepers.values(), service._heartbeat]
    for task in tasks:
        if task is not None:
            task.cancel()
    await asyncio.gather(*(t for t in tasks if t is not None), return_exceptions=True)
    await asyncio.to_thread(service.games.db._threads.shutdown, True)


def test_instances_starting_together_after_an_outage_move_each_clock_once_Z4_R7(
    database: tuple[str, str | None],
) -> None:
    url, schema = database
    stores = [Store(url, schema) for _ in range(3)]
    stores[0].migrate()
    # Dead after 5 s, not 0.5: on a busy machine two instances starting in one event loop
    # stalled past 0.5 s and took each other's fresh heartbeats for dead (CI saw the clock
    # moved by 1.1 s, the age of the other's beat, instead of the 30 s outage).
    old, *new = (RoomService(_games(store), _settings(dead_after=5.0)) for store in stores)

    async def scenario() -> None:
        await old.start()
        room_id, game_id, *_ = await _game_in_a_room(old)
        await _crash(old)
        before = stores[0].game(game_id)
        assert before is not None
        # It died 30 s ago (its last heartbeat says so).
        (crashed,) = InstanceStore(stores[0]).all()
        with stores[0].engine.begin() as conn:
            conn.execute(
                update(server_instances).values(alive_at=crashed.alive_at - timedelta(seconds=30))
            )
        await asyncio.gather(*(service.start() for service in new))
        after = stores[0].game(game_id)
        assert after is not None
        assert after.ongoing
        moved = parse_iso(after.options["clock"]["deadline"]) - parse_iso(
            before.options["clock"]["deadline"]
        )
        assert timedelta(seconds=29) < moved < timedelta(seconds=35)  # once, not twice
        assert [e.type for e in stores[0].events_after(game_id, 0)].count("outage") == 1
        # The dead instance's connections hold no seat: both are away, the game waits.
        room = RoomStore(stores[0]).get(room_id)
        assert room is not None
        assert not any(seat["connected"] for seat in room.seats)
        assert after.options["clock"]["both_away_since"] is not None
        assert old.instance_id not in {i.id for i in InstanceStore(stores[0]).all()}
        await asyncio.gather(*(service.stop() for service in new))

    asyncio.run(scenario())
    for store in stores:
        store.dispose()


def test_a_live_instance_clears_the_seats_of_a_dead_one_and_charges_its_clocks_R7(
    tmp_path: Path,
) -> None:
    stores = [Store(f"sqlite:///{tmp_path}/rooms.sqlite3") for _ in range(2)]
    stores[0].migrate()
    dying, living = (RoomService(_games(store), _settings()) for store in stores)

    async def scenario() -> None:
        await dying.start()
        await living.start()
        room_id, game_id, creator, _ = await _game_in_a_room(dying)
        before = stores[0].game(game_id)
        await _crash(dying)
        for _ in range(200):  # the living instance sees the heartbeat age, then acts
            after = stores[0].game(game_id)
            assert after is not None
            if after.options["clock"]["both_away_since"] is not None:
                break
            await asyncio.sleep(0.05)
        room = RoomStore(stores[0]).get(room_id)
        assert room is not None
        assert not any(seat["connected"] for seat in room.seats)
        assert before is not None
        assert after is not None
        # The living instance kept the time: the clock is not moved, the game waits (R7).
        assert after.options["clock"]["deadline"] == before.options["clock"]["deadline"]
        assert after.options["clock"]["both_away_since"] is not None
        # A new device of the player takes the seat at once: no "Continue on this device".
        assert await living.attach(creator, room_id, "phone/c9", take=False)
        back = stores[0].game(game_id)
        assert back is not None
        assert back.options["clock"]["both_away_since"] is None
        await living.stop()

    asyncio.run(scenario())
    for store in stores:
        store.dispose()


class Rings:
    """A socket's stand-in on a hub: the keys it was told to read."""

    def __init__(self) -> None:
        self.keys: list[tuple[str, int]] = []

    async def notify(self, key: str, seq: int, news: Any = None) -> None:
        self.keys.append((key, seq))

    async def notice(self, message: dict[str, Any]) -> None:
        pass


def test_a_setup_choice_a_dead_instance_never_announced_is_shown_with_its_time_R4_R7_Z4(
    tmp_path: Path,
) -> None:
    """The janggi setup choice: Han's seat on one instance, Cho's on
    another, their hubs apart (nothing crosses: a change committed and never announced).
    Han chooses, then Han's instance dies. The living one, burying it, rings the room for
    Cho's sockets and adds to Cho's setup deadline the time Cho could not be shown it."""
    stores = [Store(f"sqlite:///{tmp_path}/rooms.sqlite3") for _ in range(2)]
    stores[0].migrate()
    dying, living = (RoomService(_games(store), _settings()) for store in stores)

    async def scenario() -> None:
        await dying.start()
        await living.start()
        han, _ = await _new_player(dying.games)
        cho, _ = await _new_player(dying.games)
        room = await dying.create(han, "janggi", "off", None)
        await dying.take_seat(cho, room.id)
        await dying.ready(han, room.id)
        started = await dying.ready(cho, room.id)
        assert started.setup is not None
        assert started.sides is not None
        han, cho = (han, cho) if started.sides[1] == han.id else (cho, han)
        assert await dying.attach(han, room.id, f"{han.id}/c1", take=False)
        assert await living.attach(cho, room.id, f"{cho.id}/c2", take=False)
        rings = Rings()
        living.games.hub.subscribe(f"room:{room.id}", rings)
        chosen = await dying.choose_setup(han, room.id, "HEHE")
        assert chosen.setup is not None
        assert chosen.setup["turn"] == "cho"
        await _crash(dying)
        for _ in range(200):  # the living instance sees the heartbeat age, then acts
            after = RoomStore(stores[0]).get(room.id)
            assert after is not None
            if not any(seat["connected"] for seat in after.seats if seat["player"] == han.id):
                break
            await asyncio.sleep(0.05)
        assert after is not None
        assert after.setup is not None
        assert after.setup["turn"] == "cho"
        moved = parse_iso(after.setup["deadline"]) - parse_iso(chosen.setup["deadline"])
        assert moved > timedelta(0)  # Cho's time not shown the choice is charged to no one
        assert any(key == f"room:{room.id}" for key, _ in rings.keys)  # Cho's socket is rung
        await living.stop()

    asyncio.run(scenario())
    for store in stores:
        store.dispose()


# ---------------------------------------------------------------------- a real server restarted


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the module; a test that stops it starts it again."""
    environment = server_environment(CHUHAN_AI_WORKERS="1", **RESTART_SETTINGS)
    running = ServerProcess(tmp_path_factory.mktemp("restart"), environment)
    running.start()
    yield running
    with contextlib.suppress(Exception):
        running.kill()


def _seated(url: str, variant: str) -> tuple[Player, Player, dict[str, RoomSocket], str]:
    """Two players in a new room, both ready: sockets by side, and the room id."""
    creator, friend = Player(url), Player(url)
    room = creator.create_room(variant=variant)
    assert friend.join_invite(room["invite"]).status_code == 200
    sockets = [creator.open(room["id"]), friend.open(room["id"])]
    for sock in sockets:
        assert sock.request("ready")["type"] == "ack"
    if variant == "janggi":
        views = [
            s.wait_for(lambda m: m.get("type") == "room" and m["room"]["setup"]) for s in sockets
        ]
        sides = [v["room"]["you"] for v in views]
    else:
        sides = [s.wait_for(lambda m: m.get("type") == "state")["state"]["you"] for s in sockets]
    return creator, friend, dict(zip(sides, sockets, strict=True)), room["id"]


def _player_of(
    side: str, by_side: dict[str, RoomSocket], creator: Player, friend: Player
) -> Player:
    return creator if by_side[side].room()["seats"][0]["you"] else friend


def _time_left(player: Player, room_id: str, deadline: str) -> float:
    """Seconds to ``deadline`` by the server's clock (the room view carries its time)."""
    now = player.http.get(f"/api/rooms/{room_id}").json()["now"]
    return (parse_iso(deadline) - parse_iso(now)).total_seconds()


def _holds_seat(sock: RoomSocket) -> dict[str, Any]:
    """The room view once this socket holds its seat; fails on "Continue on this device"."""
    assert not [m for m in sock.messages if m.get("type") == "elsewhere"]
    return sock.wait_for(lambda m: m.get("type") == "room" and m["room"].get("holds_seat"))


def test_sigkill_mid_turn_then_restart_charges_the_time_down_to_no_one_Z4_R7(
    server: ServerProcess,
) -> None:
    creator, friend, sockets, room_id = _seated(server.url, "xiangqi")
    red, black = (_player_of(s, sockets, creator, friend) for s in ("red", "black"))
    assert sockets["red"].request("move", ply=0, move="h3e3")["type"] == "ack"
    state = sockets["black"].wait_state(lambda s: s["ply"] == 1)
    deadline = state["options"]["clock"]["deadline"]
    left_before = _time_left(black, room_id, deadline)
    # A janggi setup choice in progress in another room, Han to choose.
    j_creator, j_friend, setup_sockets, setup_room = _seated(server.url, "janggi")
    setup_before = setup_sockets["han"].room()["setup"]

    server.kill()
    time.sleep(DOWN)
    server.start()

    # Black comes back on a new device: the dead server's connection holds no seat (R7).
    phone = black.open(room_id, device="black-phone")
    _holds_seat(phone)
    state = phone.wait_state(lambda s: s["ply"] == 1)
    clock = state["options"]["clock"]
    assert state["status"] == "ongoing"  # no one flagged, not interrupted
    assert abs(_time_left(black, room_id, clock["deadline"]) - left_before) < TOLERANCE
    # The both-away budget paid only for the moments before the first player was back.
    back = phone.wait_state(lambda s: s["options"]["clock"]["both_away_since"] is None)
    assert back["options"]["clock"]["away_budget"] > AWAY - TOLERANCE
    # Red returns on the same device as before: the seat is theirs at once too.
    again = red.open(room_id)
    _holds_seat(again)
    assert phone.request("move", ply=1, move="h10g8")["type"] == "ack"
    assert again.wait_state(lambda s: s["ply"] == 2)["moves"] == ["h3e3", "h10g8"]

    # The setup choice still waits for Han, with the time Han had (R4, Z4).
    han = _player_of("han", setup_sockets, j_creator, j_friend).open(setup_room)
    setup = _holds_seat(han)["room"]["setup"]
    assert setup["turn"] == "han"
    assert setup["han"] is None
    moved = parse_iso(setup["deadline"]) - parse_iso(setup_before["deadline"])
    assert moved.total_seconds() > DOWN
    for sock in (phone, again, han):
        sock.close()


def test_a_graceful_restart_spends_no_turn_time_and_no_both_away_budget_Z4_R7(
    server: ServerProcess,
) -> None:
    creator, friend, sockets, room_id = _seated(server.url, "xiangqi")
    red = _player_of("red", sockets, creator, friend)
    deadline = sockets["red"].state()["options"]["clock"]["deadline"]  # type: ignore[index]
    left_before = _time_left(red, room_id, deadline)
    server.stop()  # SIGTERM: the server closes both sockets itself, then stops
    for sock in sockets.values():
        sock.wait_closed()
    time.sleep(DOWN)  # longer than the whole budget
    server.start()
    back = red.open(room_id, device="red-tablet")
    _holds_seat(back)
    state = back.wait_state(lambda s: s["options"]["clock"]["both_away_since"] is None)
    assert state["status"] == "ongoing"
    assert state["options"]["clock"]["away_budget"] > AWAY - TOLERANCE
    left = _time_left(red, room_id, state["options"]["clock"]["deadline"])
    assert abs(left - left_before) < TOLERANCE


def test_the_janggi_setup_choice_waits_while_both_are_away_R4_R7(server: ServerProcess) -> None:
    creator, friend, sockets, room_id = _seated(server.url, "janggi")
    before = sockets["han"].room()["setup"]
    for sock in sockets.values():
        sock.close()
    time.sleep(1.0)
    back = creator.open(room_id)
    setup = back.wait_for(
        lambda m: m.get("type") == "room" and m["room"]["setup"]["both_away_since"] is None
    )["room"]["setup"]
    moved = parse_iso(setup["deadline"]) - parse_iso(before["deadline"])
    assert setup["turn"] == "han"
    assert moved.total_seconds() >= 0.8
    # Both away again until the rest of the shared budget is spent: interrupted (R7).
    back.close()
    time.sleep(setup["away_budget"] + 2.0)
    last = friend.open(room_id)
    end = last.wait_state(lambda s: s["status"] != "ongoing", timeout=AWAY + 8)
    assert end["result"] == {"winner": None, "reason": "interrupted", "points": None}
    assert [p.me()["points"]["online"] for p in (creator, friend)] == [0, 0]


async def _new_player(games: GameService) -> tuple[StoredPlayer, str]:
    """A new visitor, as the app's players service makes one."""
    ratings = Ratings(games.db, games.hub, games.known, games.settings.ratings)
    return await Players(games.db, games.spending, ratings).new_player()
