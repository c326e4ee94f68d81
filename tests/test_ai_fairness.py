"""The AI is shared fairly (SPEC A2 for every player, Z5): one player flooding it with hints
from many sockets gets "busy" answers, and everyone else's AI still replies promptly.

A real ``chuhan serve`` with one AI worker: the flooder asks for hints from 20 sockets of
one cookie, each asking again as soon as it is answered.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from rooms_client import Player, running_server

SOCKETS = 20
REPLY_DEADLINE = 3.0  # the bound for a beginner's reply during the flood


def _flood(
    url: str, game_id: str, cookie: str, stop: threading.Event, tally: dict[str, Any]
) -> None:
    address = url.replace("http", "ws", 1) + f"/ws/games/{game_id}"
    with connect(address, additional_headers={"Cookie": cookie}) as ws:
        ws.send(json.dumps({"id": "h0", "type": "hello", "last_seq": None}))
        asked = 0
        while not stop.is_set():
            asked += 1
            ws.send(json.dumps({"id": f"q{asked}", "type": "hint"}))
            while True:
                reply = json.loads(ws.recv(timeout=30))
                if reply.get("reply_to") == f"q{asked}":
                    break
            with tally["lock"]:
                kind = reply["type"] if reply["type"] == "hint" else reply.get("code", "?")
                tally[kind] = tally.get(kind, 0) + 1


def test_a_hint_flood_from_one_player_does_not_delay_anothers_ai_reply_A2_Z5(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path) as url:
        flooder = Player(url)
        local = flooder.http.post("/api/games", json={"kind": "local", "variant": "xiangqi"})
        assert local.status_code == 201, local.text
        stop = threading.Event()
        tally: dict[str, Any] = {"lock": threading.Lock()}
        threads = [
            threading.Thread(
                target=_flood, args=(url, local.json()["id"], flooder.cookie, stop, tally)
            )
            for _ in range(SOCKETS)
        ]
        for thread in threads:
            thread.start()
        try:
            warm = time.monotonic() + 120  # the flood is on once hints come back (the AI
            while tally.get("hint", 0) < 3:  # worker has started: its start is not measured)
                assert time.monotonic() < warm, tally
                time.sleep(0.05)
            other = Player(url)
            game = other.http.post(
                "/api/games", json={"variant": "xiangqi", "level": "beginner", "color": "red"}
            ).json()
            first = {"ply": 0, "move": "h3e3"}
            moved = other.http.post(f"/api/games/{game['id']}/moves", json=first)
            assert moved.status_code == 200, moved.text
            deadline = time.monotonic() + REPLY_DEADLINE
            replied = False
            while time.monotonic() < deadline and not replied:
                replied = other.http.get(f"/api/games/{game['id']}").json()["ply"] == 2
                time.sleep(0.05)
            still_flooding = not stop.is_set()
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
        assert still_flooding
        assert replied, f"no AI reply within {REPLY_DEADLINE} s during the flood ({tally})"
        assert tally.get("hint", 0) > 0, tally  # the flood was real: hints were computed
        assert tally.get("busy", 0) > 0, tally  # and the flooder, not the other, was refused
        assert httpx.get(f"{url}/health").json()["status"] == "ok"
