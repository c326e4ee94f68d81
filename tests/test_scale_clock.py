"""A game clock across two instances on PostgreSQL and Redis, one of which dies (SPEC B7 with
R4, R7, Z1, Z4).

The two players of a 3+2 room (shortened twentyfold: 9 s + 0.1 s) sit on different
instances. After both first moves, the mover's instance kills itself right after committing
a move and before announcing it (``CHUHAN_TEST_DIE_AFTER_MOVE_PLY``). The opponent is shown
the move only once the survivor has declared the dead one dead: the seconds in between are
credited to the deadline (an ``outage`` event), so the opponent's own time is charged only
from when the move could be seen, and their answer gets the increment.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from test_scale import OPENING, close, other_side, play
from test_scale_support import cluster, open_room, player_on

pytestmark = pytest.mark.timeout(180)

SCALE = 0.05
BASE, INCREMENT = 180 * SCALE, 2 * SCALE


def test_a_dead_instances_gap_is_not_charged_to_the_opponents_game_clock_B7_Z4_R7(
    tmp_path: Path,
) -> None:
    with cluster(
        tmp_path,
        ("b",),
        CHUHAN_ROOM_TURN_SECONDS="5",
        CHUHAN_ROOM_LAG_CAP_SECONDS="0.1",
        CHUHAN_ROOM_DEAD_AFTER_SECONDS="3",
        CHUHAN_ROOM_CLOCK_SCALE=str(SCALE),
    ) as servers:
        (b,) = servers.instances
        (a,) = servers.add("a", CHUHAN_TEST_DIE_AFTER_MOVE_PLY="2")
        creator, friend = player_on(a), player_on(b)
        room = creator.create_room(variant="xiangqi", clock="3+2")
        assert friend.join_invite(room["invite"]).status_code == 200
        on_instance = [open_room(creator, a, room["id"]), open_room(friend, b, room["id"])]
        for sock in on_instance:
            assert sock.request("ready")["type"] == "ack"
        states = [s.wait_for(lambda m: m.get("type") == "state")["state"] for s in on_instance]
        sockets = {states[0]["you"]: on_instance[0], states[1]["you"]: on_instance[1]}
        assert states[0]["options"]["clock"]["control"] == "3+2"
        on_a = states[0]["you"]
        on_b = other_side(on_a)
        play(sockets, OPENING[:2])  # both first moves, on R4's turn time
        ply = 2 if on_a == "red" else 3
        if ply == 3:
            play(sockets, OPENING[2:3], first_ply=2)
        mover, opponent = sockets[on_a], sockets[on_b]
        index = 0 if on_b == "red" else 1
        # What the opponent's clock holds as its turn begins: the base, or (red, which has
        # already made a timed move when black is the one on the dying instance) less that
        # move's time and plus its increment.
        had = opponent.wait_state(lambda s: s["ply"] == ply)["options"]["clock"]["left"][index]
        mark = len(opponent.messages)

        mover.send("move", ply=ply, move=OPENING[ply])
        assert a.process is not None
        assert a.process.wait(timeout=15) == -signal.SIGKILL  # committed, then died
        a.kill()
        died = time.time()
        shown = opponent.wait_for(
            lambda m: m.get("type") == "move" and m.get("ply") == ply, timeout=30, start=mark
        )
        seen_at = opponent.received_at[opponent.messages.index(shown)]
        answer = opponent.request("move", ply=ply + 1, move=OPENING[ply + 1])
        assert answer["type"] == "ack", answer
        answered = opponent.wait_state(lambda s: s["ply"] == ply + 2)
        credit = opponent.wait_for(lambda m: m.get("type") == "outage", timeout=10, start=mark)
        left = answered["options"]["clock"]["left"][index]
        thought = time.time() - seen_at
        print(
            f"\nFIGURE opponent shown the move {seen_at - died:.1f} s after the kill, "
            f"credited {credit['seconds']:.1f} s; their clock {left:.2f} s of {BASE:.1f} s "
            f"after answering within {thought:.2f} s"
        )
        assert credit["seconds"] > 2  # the dead instance's silence, at least its 3 s less lag
        # Charged only from when the move could be seen (not the seconds it could not), +0.1 s.
        assert had <= BASE + INCREMENT
        assert had + INCREMENT - thought - 0.5 < left <= had + INCREMENT
        assert "end" not in [kind for _, kind, _ in servers.events(answered["id"])]
        close(sockets)
