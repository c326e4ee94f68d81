"""How promptly the server flags a player at the turn's deadline (SPEC R4), against the
anchor of one ping round trip on the same sockets.

Run: ``.venv/bin/python bench/rooms_clock.py [games]``. Starts ``chuhan serve`` with a 1 s turn
(the test-only setting), opens that many rooms with two players who never move, and measures
for each game the arrival of the ``end`` event minus the stored deadline.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from rooms_client import Player, running_server  # noqa: E402


def _moment(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main(games: int) -> None:
    with (
        tempfile.TemporaryDirectory() as data,
        running_server(Path(data), CHUHAN_ROOM_TURN_SECONDS="1.0") as url,
    ):
        sockets = []
        for _ in range(games):
            creator, friend = Player(url), Player(url)
            room = creator.create_room()
            friend.join_invite(room["invite"])
            first, second = creator.open(room["id"]), friend.open(room["id"])
            first.request("ready")
            second.request("ready")
            sockets.append(first)
        lateness = []
        for sock in sockets:
            state = sock.wait_state(lambda s: True)
            end = sock.wait_for(lambda m: m.get("type") == "end", timeout=30)
            arrived = sock.received_at[sock.messages.index(end)]
            lateness.append(arrived - _moment(state["options"]["clock"]["deadline"]))
        round_trips = []
        for sock in sockets[:5]:
            for _ in range(10):
                started = time.perf_counter()
                sock.request("ping")
                round_trips.append(time.perf_counter() - started)
        late, anchor = statistics.median(lateness), statistics.median(round_trips)
        print(f"games: {games}")
        worst = max(lateness)
        print(f"flag after the deadline: median {late * 1000:.0f} ms, max {worst * 1000:.0f} ms")
        print(f"anchor, ping round trip: median {anchor * 1000:.2f} ms")
        print(f"ratio flag lateness / round trip: {late / anchor:.0f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
