"""A move committed just before its instance dies reaches the opponent, who is not flagged
for the time they could not see it (SPEC R4, R7, Z4).

Two real ``chuhan serve`` instances on PostgreSQL and Redis, the two players of a room on
different instances. The mover's instance kills itself (SIGKILL) right after committing
the move and before announcing it (the test-only fault ``CHUHAN_TEST_DIE_AFTER_MOVE_PLY``):
the move is stored, but no news of it leaves. Once the surviving instance declares the dead
one dead, the opponent's socket is shown the move, and the time during which it could not be
shown is added to the turn as the Redis-outage rule adds it (an ``outage`` event), so the
opponent is not flagged for it and their answer is accepted.
"""

from __future__ import annotations

import signal
import time
from datetime import datetime
from pathlib import Path

import pytest

from test_scale import OPENING, close, other_side, play, room_game
from test_scale_support import cluster, open_room

pytestmark = pytest.mark.timeout(180)

TURN_SECONDS = 5.0


def test_a_move_committed_as_its_instance_dies_is_shown_and_its_gap_charged_to_no_one_R4_R7_Z4(
    tmp_path: Path,
) -> None:
    with cluster(
        tmp_path,
        ("b",),
        CHUHAN_ROOM_TURN_SECONDS=str(TURN_SECONDS),
        CHUHAN_ROOM_LAG_CAP_SECONDS="0.1",
        CHUHAN_ROOM_DEAD_AFTER_SECONDS="3",
    ) as servers:
        (b,) = servers.instances
        # On a, the first move at ply 2 or later is committed and then a dies.
        (a,) = servers.add("a", CHUHAN_TEST_DIE_AFTER_MOVE_PLY="2")
        game = room_game(a, b)
        play(game.sockets, OPENING[:2])
        on_a = game.creator_side
        on_b = other_side(on_a)
        ply = 2 if on_a == "red" else 3
        if ply == 3:
            play(game.sockets, OPENING[2:3], first_ply=2)  # red, on b, plays ply 2
        mover, opponent = game.sockets[on_a], game.sockets[on_b]
        mark = len(opponent.messages)

        mover.send("move", ply=ply, move=OPENING[ply])
        assert a.process is not None
        assert a.process.wait(timeout=15) == -signal.SIGKILL  # no answer, no news: it died
        a.kill()  # its AI worker too
        stored = [p["move"] for _, kind, p in servers.events(game.game_id) if kind == "move"]
        assert stored == OPENING[: ply + 1]  # committed before it died (Z4)

        died = time.time()

        # The opponent's socket on b is shown the move by itself, and may answer it.
        shown = opponent.wait_for(
            lambda m: m.get("type") == "move" and m.get("ply") == ply, timeout=30, start=mark
        )
        assert shown["move"] == OPENING[ply]
        at = opponent.received_at[opponent.messages.index(shown)]
        answer = opponent.request("move", ply=ply + 1, move=OPENING[ply + 1])
        ended = [m for m in opponent.messages[mark:] if m.get("type") == "end"]
        if ended:
            print(
                f"\nFIGURE opponent: shown ply {ply + 1} {at - died:.1f} s after the kill, "
                f"and the game over at once: {ended[0]['result']['reason']} "
                f"(answer: {answer.get('code', answer['type'])})"
            )
        assert answer["type"] == "ack", answer
        # The gap is charged to no one, as a Redis outage's is: an ``outage`` event moved
        # the deadline, shown with the move.
        credit = opponent.wait_for(lambda m: m.get("type") == "outage", timeout=10, start=mark)
        assert credit["seconds"] > 0
        deadline = datetime.fromisoformat(
            credit["state"]["options"]["clock"]["deadline"].replace("Z", "+00:00")
        )
        print(
            f"\nFIGURE opponent: shown ply {ply + 1} {at - died:.1f} s after the kill, with "
            f"{deadline.timestamp() - at:.1f} s of its {TURN_SECONDS:.0f} s turn left "
            f"(credited {credit['seconds']:.1f} s)"
        )
        kinds = [kind for _, kind, _ in servers.events(game.game_id)]
        assert "end" not in kinds

        # The mover continues on the surviving instance and finds their move kept (R7, Z4).
        back = open_room(game.players[on_a], b, game.room_id, game_id=game.game_id)
        assert back.wait_state(lambda s: s["ply"] == ply + 2)["moves"] == OPENING[: ply + 2]
        close({**game.sockets, on_a: back})
