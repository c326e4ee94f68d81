"""Game clocks over real sockets against a real ``chuhan serve`` (SPEC B7 beside R4; Z1, Z5).

The server's test-only scale shortens every game clock (3+2 plays as 3.6 s + 0.04 s, janggi's
5 min + 3 × 30 s as 6 s + 3 × 0.6 s); R4's turn (each side's first move) is FAST_TURN. The
clock's own fields in each state say what the server decided: the increment is checked
against them exactly, the flag by the game's end and by a late move refused.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from websockets.sync.client import connect

from rooms_client import FAST_SETTINGS, Player, RoomSocket, running_server

pytestmark = pytest.mark.timeout(120)

SCALE = 0.02


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = {**FAST_SETTINGS, "CHUHAN_ROOM_CLOCK_SCALE": str(SCALE)}
    with running_server(tmp_path_factory.mktemp("rooms-clock"), **settings) as url:
        yield url


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def game_on_clock(url: str, variant: str, clock: str) -> dict[str, RoomSocket]:
    """A room created with ``clock``, both seated and ready; the sockets by side (janggi: the
    setup choices made, Han's then Cho's)."""
    creator, friend = Player(url), Player(url)
    room = creator.create_room(variant=variant, clock=clock)
    assert room["options"]["clock"] == clock
    assert friend.join_invite(room["invite"]).status_code == 200
    first, second = creator.open(room["id"]), friend.open(room["id"])
    first.request("ready")
    second.request("ready")
    if variant == "janggi":
        setup = first.wait_for(lambda m: m.get("type") == "room" and m["room"]["setup"])["room"]
        sockets = {setup["you"]: first, ("han" if setup["you"] == "cho" else "cho"): second}
        assert sockets["han"].request("setup", setup="HEHE")["type"] == "ack"
        sockets["cho"].wait_for(
            lambda m: m.get("type") == "room" and (m["room"]["setup"] or {}).get("turn") == "cho"
        )
        assert sockets["cho"].request("setup", setup="HEHE")["type"] == "ack"
    states = [s.wait_state(lambda s: s["status"] == "ongoing") for s in (first, second)]
    return {state["you"]: sock for state, sock in zip(states, (first, second), strict=True)}


def move(sockets: dict[str, RoomSocket], side: str, ply: int, text: str) -> dict[str, Any]:
    """``side`` plays; returns the clock as both players then hold it."""
    assert sockets[side].request("move", ply=ply, move=text)["type"] == "ack"
    states = [s.wait_state(lambda s: s["ply"] == ply + 1) for s in sockets.values()]
    assert states[0]["options"]["clock"] == states[1]["options"]["clock"]
    return dict(states[0]["options"]["clock"])


def test_a_game_clock_adds_the_increment_and_the_server_flags_the_spent_side_B7_Z1(
    fast: str,
) -> None:
    sockets = game_on_clock(fast, "xiangqi", "3+2")
    clock = sockets["red"].state()["options"]["clock"]  # type: ignore[index]
    base, increment = 180 * SCALE, 2 * SCALE
    assert clock["control"] == "3+2"
    assert clock["left"] == [base, base]
    assert clock["free_turn"]
    move(sockets, "red", 0, "h3e3")
    before = move(sockets, "black", 1, "h10g8")  # both first moves: nothing taken
    assert before["left"] == [base, base]
    assert not before["free_turn"]
    time.sleep(0.5)
    after = move(sockets, "red", 2, "h1g3")
    # Red is charged what was left before the deadline (its lag allowance not banked), +2 s.
    left = (moment(before["deadline"]) - moment(after["turn_started_at"])).total_seconds()
    expected = left - before["allowance"] + increment
    assert after["left"][0] == pytest.approx(expected, abs=0.002)
    assert 0.4 < base - after["left"][0] + increment < base  # about the half second it took
    assert after["left"][1] == base  # black's own time waits
    black_moved = move(sockets, "black", 3, "i10h10")
    # Red now waits out its time: the server ends the game, not the clients.
    started = time.monotonic()
    red_left = black_moved["left"][0]
    end = sockets["black"].wait_for(lambda m: m.get("type") == "end", timeout=red_left + 8)
    assert time.monotonic() - started > red_left - 0.3  # not before red's time was spent
    assert end["result"]["winner"] == "black"
    assert end["result"]["reason"] == "timeout"
    late = sockets["red"].request("move", ply=4, move="b1c3")
    assert late["type"] == "error"
    assert late["code"] in ("game_over", "time_out")


def test_janggi_byoyomi_flags_only_after_the_last_period_B7(fast: str) -> None:
    sockets = game_on_clock(fast, "janggi", "5m+3x30s")
    move(sockets, "cho", 0, "a4b4")
    clock = move(sockets, "han", 1, "a7b7")
    base, period = 300 * SCALE, 30 * SCALE
    assert clock["periods_left"] == [3, 3]
    assert clock["left"] == [base, base]
    started = time.monotonic()
    end = sockets["han"].wait_for(lambda m: m.get("type") == "end", timeout=base + 3 * period + 8)
    # Cho's 6 s base would have flagged at 6 s: the three periods come after it.
    assert time.monotonic() - started > base + 3 * period - 0.3
    assert end["result"]["winner"] == "han"
    assert end["result"]["reason"] == "timeout"


def test_bad_clock_choices_are_refused_with_a_clear_error_Z5(fast: str) -> None:
    player = Player(fast)
    for variant, clock in [("xiangqi", "5m+3x30s"), ("jieqi", "1+0"), ("janggi", "x" * 16)]:
        answer = player.http.post("/api/rooms", json={"variant": variant, "clock": clock})
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["code"] == "bad_request"
        assert "clock must be one of" in error["message"]
    too_long = player.http.post("/api/rooms", json={"variant": "xiangqi", "clock": "y" * 17})
    assert too_long.status_code == 422
    url = fast.replace("http", "ws", 1) + "/ws/seek"
    with connect(url, additional_headers={"Cookie": player.cookie}) as ws:
        seek = RoomSocket(ws)
        refused = seek.request("seek", variant="xiangqi", options={"clock": "5m+3x30s"})
        assert refused["code"] == "bad_seek"
        assert "clock must be one of" in refused["message"]
        assert seek.request("ping")["type"] == "pong"  # the connection goes on (Z5)


def test_seeks_pair_only_within_their_clock_and_the_room_plays_on_it_B1_B7(fast: str) -> None:
    url = fast.replace("http", "ws", 1) + "/ws/seek"
    blitz, slow, other_blitz = Player(fast), Player(fast), Player(fast)
    with (
        connect(url, additional_headers={"Cookie": blitz.cookie}) as a,
        connect(url, additional_headers={"Cookie": slow.cookie}) as b,
        connect(url, additional_headers={"Cookie": other_blitz.cookie}) as c,
    ):
        first, second, third = RoomSocket(a), RoomSocket(b), RoomSocket(c)
        assert first.request("seek", variant="jieqi", options={"clock": "3+2"})["type"] == "ack"
        first.wait_for(lambda m: m.get("type") == "seeking")
        assert second.request("seek", variant="jieqi", options={"clock": "5+3"})["type"] == "ack"
        seeking = second.wait_for(lambda m: m.get("type") == "seeking")
        assert seeking["options"] == {"rules": "casual", "clock": "5+3"}  # not paired with 3+2
        assert third.request("seek", variant="jieqi", options={"clock": "3+2"})["type"] == "ack"
        room_id = third.wait_for(lambda m: m.get("type") == "paired")["room"]
        assert first.wait_for(lambda m: m.get("type") == "paired")["room"] == room_id
        assert not any(m.get("type") == "paired" for m in second.messages)
    game = blitz.open(room_id).wait_state(lambda s: s["status"] == "ongoing")
    assert game["options"]["clock"]["control"] == "3+2"
    assert game["options"]["paired"] is True
