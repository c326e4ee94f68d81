"""How promptly the server flags a player at the turn's deadline (SPEC R4), against the
anchor of one ping round trip on the same sockets; and how closely a game clock (B7) agrees
with what its players see.

Run: ``.venv/bin/python bench/rooms_clock.py [games]``. Starts ``chuhan serve`` with a 1 s turn
(the test-only setting), opens that many rooms with two players who never move, and measures
for each game the arrival of the ``end`` event minus the stored deadline.

Then, on game clocks (3+2 shortened a hundredfold by ``CHUHAN_ROOM_CLOCK_SCALE``: 1.8 s
+ 0.02 s), that many rooms where both first moves are played, red thinks 0.3 s and moves, and
black lets its time run out. Measured per game: what the server charged red minus the
think time red's client measured (from black's move arriving to red's move sent), and the
flag's arrival minus the moment black's client showed 0:00 (the deadline less the lag
allowance, as ``web/js/clocks.js`` counts it; client and server share this machine's clock).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from rooms_client import Player, running_server


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


SCALE = 0.01  # 3+2 as 1.8 s + 0.02 s
THINK = 0.3


def game_clocks(games: int) -> None:
    settings = {"CHUHAN_ROOM_TURN_SECONDS": "5.0", "CHUHAN_ROOM_CLOCK_SCALE": str(SCALE)}
    with tempfile.TemporaryDirectory() as data, running_server(Path(data), **settings) as url:
        charged_less_think, flag_after_zero, flag_after_deadline, round_trips = [], [], [], []
        for _ in range(games):
            creator, friend = Player(url), Player(url)
            room = creator.create_room(clock="3+2")
            friend.join_invite(room["invite"])
            first, second = creator.open(room["id"]), friend.open(room["id"])
            first.request("ready")
            second.request("ready")
            pair = (first, second)
            states = [sock.wait_state(lambda s: s["status"] == "ongoing") for sock in pair]
            side = {state["you"]: sock for state, sock in zip(states, pair, strict=True)}
            red, black = side["red"], side["black"]
            red.request("move", ply=0, move="h3e3")
            black.wait_state(lambda s: s["ply"] == 1)
            black.request("move", ply=1, move="h10g8")
            seen = red.wait_for(lambda m: bool(m.get("state")) and m["state"]["ply"] == 2)
            arrived = red.received_at[red.messages.index(seen)]
            before = seen["state"]["options"]["clock"]
            time.sleep(max(0.0, arrived + THINK - time.time()))
            sent = time.time()
            red.request("move", ply=2, move="h1g3")
            after = black.wait_state(lambda s: s["ply"] == 3)["options"]["clock"]
            charged = before["left"][0] - after["left"][0] + after["increment"]
            charged_less_think.append(charged - (sent - arrived))
            end = black.wait_for(lambda m: m.get("type") == "end", timeout=30)
            assert end["result"]["reason"] == "timeout", end
            flagged = black.received_at[black.messages.index(end)]
            deadline = _moment(after["deadline"])
            flag_after_zero.append(flagged - (deadline - after["allowance"]))
            flag_after_deadline.append(flagged - deadline)
            for _ in range(5):
                started = time.perf_counter()
                red.request("ping")
                round_trips.append(time.perf_counter() - started)
            red.close()
            black.close()
        anchor = statistics.median(round_trips)
        print(f"game clocks (3+2 x {SCALE}): {games} games")
        for name, values in (
            ("server charged red minus red's client think time", charged_less_think),
            ("flag after black's client showed 0:00", flag_after_zero),
            ("flag after the stored deadline", flag_after_deadline),
        ):
            middle = statistics.median(values)
            print(
                f"{name}: median {middle * 1000:.1f} ms, max {max(values) * 1000:.1f} ms, "
                f"min {min(values) * 1000:.1f} ms ({middle / anchor:.1f} round trips)"
            )
        print(f"anchor, ping round trip: median {anchor * 1000:.2f} ms")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    main(count)
    game_clocks(count)
