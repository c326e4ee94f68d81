"""Presence is per socket (SPEC R7): whatever a socket said, its close frees the seat it held,
so both players gone makes the game wait and end as interrupted, not on time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from rooms_client import FAST_AWAY, FAST_SETTINGS, FAST_TURN, Player, RoomSocket, running_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("presence"), **FAST_SETTINGS) as url:
        yield url


def started_game(url: str) -> tuple[Player, Player, str, dict[str, RoomSocket]]:
    """Two players in a room, both sockets open, the game begun; sockets by side."""
    creator, friend = Player(url), Player(url)
    room = creator.create_room(variant="xiangqi")
    assert friend.join_invite(room["invite"]).status_code == 200
    sockets = [creator.open(room["id"]), friend.open(room["id"])]
    for sock in sockets:
        assert sock.request("ready")["type"] == "ack"
    states = [s.wait_for(lambda m: m.get("type") == "state")["state"] for s in sockets]
    return (
        creator,
        friend,
        room["id"],
        {state["you"]: s for state, s in zip(states, sockets, strict=True)},
    )


def seats_seen_by(player: Player, room_id: str) -> list[dict[str, Any]]:
    answer = player.http.get(f"/api/rooms/{room_id}")
    assert answer.status_code == 200, answer.text
    return list(answer.json()["seats"])


def wait_seats(player: Player, room_id: str, connected: list[bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        seen = [seat["connected"] for seat in seats_seen_by(player, room_id)]
        if seen == connected:
            return
        assert time.monotonic() < deadline, f"seats connected: {seen}, expected {connected}"
        time.sleep(0.1)


def wait_game_over(player: Player, room_id: str, timeout: float) -> None:
    """Until the room's game, as stored, is no longer ongoing (read over HTTP: no socket, so
    nobody comes back to the room meanwhile)."""
    game_id = player.http.get(f"/api/rooms/{room_id}").json()["game_id"]

    def status() -> str:
        games = player.http.get("/api/archive").json()["games"]
        return str(next(game["status"] for game in games if game["id"] == game_id))

    deadline = time.monotonic() + timeout
    while status() == "ongoing":
        assert time.monotonic() < deadline, "the game did not end"
        time.sleep(0.1)


def test_a_second_hello_with_another_device_does_not_leave_a_ghost_seat_R7(fast: str) -> None:
    creator, _, room_id, sockets = started_game(fast)
    for sock in sockets.values():
        # The same socket says hello again as another device (a client bug, or a hostile one).
        assert sock.request("hello", device="another-device")["type"] == "ack"
    wait_seats(creator, room_id, [True, True], timeout=5)
    for sock in sockets.values():
        sock.close()
    wait_seats(creator, room_id, [False, False], timeout=5)


def test_both_gone_after_a_second_hello_the_game_ends_interrupted_not_on_time_R7(
    fast: str,
) -> None:
    creator, friend, room_id, sockets = started_game(fast)
    sockets["red"].request("hello", device="another-device")
    for sock in sockets.values():
        sock.close()
    # Nobody comes back: the server ends the game by itself once the shared away budget is
    # spent (before the turn would have run out), and the stored game says so.
    wait_game_over(creator, room_id, timeout=FAST_TURN + FAST_AWAY + 10)
    back = creator.open(room_id)
    end = back.wait_state(lambda s: s["status"] != "ongoing", timeout=FAST_AWAY + 8)
    assert end["result"] == {"winner": None, "reason": "interrupted", "points": None}
    assert [p.me()["points"]["online"] for p in (creator, friend)] == [0, 0]
