"""A Redis outage is charged to no one (SPEC R4, Z4).

Two real ``chuhan serve`` instances on PostgreSQL and a Redis of this test alone, the two
players of a room on different instances. With Redis gone, a move no longer reaches the
opponent's instance: both instances say so on ``/health``, the opponent's turn is not
flagged while the move cannot reach them, and once Redis is back their socket receives the
move by itself and they have their turn's time to answer. The clock still flags a player
who then lets their time run out.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_scale import OPENING, close, play, room_game
from test_scale_support import Cluster, PrivateRedis, cluster, private_redis

pytestmark = pytest.mark.timeout(180)

TURN_SECONDS = 5.0


@pytest.fixture
def outage(tmp_path: Path) -> Iterator[tuple[Cluster, PrivateRedis]]:
    with (
        private_redis(tmp_path) as redis_server,
        cluster(
            tmp_path,
            ("a", "b"),
            REDIS_URL=redis_server.url,
            CHUHAN_ROOM_TURN_SECONDS=str(TURN_SECONDS),
            CHUHAN_ROOM_LAG_CAP_SECONDS="0.1",
        ) as servers,
    ):
        yield servers, redis_server


def wait_until(check: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.1)


def test_with_the_hub_down_no_one_loses_on_time_for_a_move_they_never_saw_R4_Z4(
    outage: tuple[Cluster, PrivateRedis],
) -> None:
    servers, redis_server = outage
    a, b = servers.instances
    game = room_game(a, b)
    play(game.sockets, OPENING[:2])
    red, black = game.sockets["red"], game.sockets["black"]

    redis_server.kill()
    for instance in (a, b):
        wait_until(lambda instance=instance: instance.health()["status"] == "degraded", 10)
        health = instance.health()
        assert health["redis"] == "down"
        assert health["hub"]["status"] == "down"
        assert health["db"] == "ok"
    mark = len(black.messages)
    assert red.request("move", ply=2, move=OPENING[2])["type"] == "ack"  # stored (Z4)
    time.sleep(TURN_SECONDS + 3)  # black's whole turn, and more, with the move unseen
    assert not any(m.get("type") == "move" for m in black.messages[mark:])
    status = servers.sql("SELECT status FROM games WHERE id = :g", g=game.game_id)[0][0]
    assert status == "ongoing"  # black was not flagged for a move it could not see
    assert not any(m.get("type") == "end" for s in (red, black) for m in s.messages)

    redis_server.start()
    # Black's socket gets the move by itself once news crosses again, and black has time.
    seen = black.wait_for(
        lambda m: m.get("type") == "move" and m.get("ply") == 2, timeout=20, start=mark
    )
    assert seen["move"] == OPENING[2]
    for instance in (a, b):
        wait_until(lambda instance=instance: instance.health()["status"] == "ok", 15)
    assert black.request("move", ply=3, move=OPENING[3])["type"] == "ack"
    red.wait_for(lambda m: m.get("type") == "move" and m.get("ply") == 3, timeout=10)
    kinds = [kind for _, kind, _ in servers.events(game.game_id)]
    assert "outage" in kinds
    assert "end" not in kinds

    # The clocks still run: red now lets its turn run out and loses on time, once.
    end = black.wait_for(lambda m: m.get("type") == "end", timeout=TURN_SECONDS + 15)
    assert (end["result"]["winner"], end["result"]["reason"]) == ("black", "timeout")
    assert [kind for _, kind, _ in servers.events(game.game_id)].count("end") == 1
    close(game.sockets)
