"""A real ``chuhan serve`` killed with SIGKILL mid-game and started again (SPEC Z4, P5).

The game against the real AI (beginner, in the real worker pool) continues from its last
acknowledged move; the AI move that was being computed is computed again; nothing is lost
and nothing is applied twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from chuhan.server.db.store import Store
from client_events import EVENTS, is_game_event
from rooms_client import ServerProcess, server_environment

pytestmark = pytest.mark.timeout(120)


@contextmanager
def game_socket(server: ServerProcess, game_id: str, cookie: str) -> Iterator[Socket]:
    url = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
    with connect(url, additional_headers={"Cookie": f"chuhan_player={cookie}"}) as ws:
        yield Socket(ws)


@contextmanager
def running(data_dir: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(data_dir, server_environment(CHUHAN_AI_WORKERS="1"))
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill()


class Socket:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.count = 0
        self.folded: dict[str, Any] | None = None

    def send(self, kind: str, **fields: Any) -> str:
        self.count += 1
        message_id = f"r{self.count}"
        self.ws.send(json.dumps({"id": message_id, "type": kind, **fields}))
        return message_id

    def until(self, predicate) -> dict[str, Any]:
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            assert message["type"] != "error", message
            if is_game_event(message):  # the state a browser holds after it (events.js)
                self.folded = EVENTS.apply(self.folded, message)
                message["state"] = self.folded
            if predicate(message):
                return dict(message)


def test_sigkill_mid_game_loses_and_doubles_nothing_Z4_P5(tmp_path):
    with running(tmp_path) as server:
        server.start()
        http = httpx.Client(base_url=server.url)
        http.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
        game = http.post(
            "/api/games",
            json={"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"},
        ).json()
        cookie = http.cookies["chuhan_player"]
        played: list[str] = []
        with game_socket(server, game["id"], cookie) as sock:
            sock.send("hello", last_seq=None)
            state = sock.until(lambda m: m["type"] == "state")["state"]
            for ply in (0, 2):
                move = state["legal_moves"][0]
                ack = sock.send("move", ply=ply, move=move)
                sock.until(lambda m, ack=ack: m.get("reply_to") == ack)
                played.append(move)
                state = sock.until(lambda m, p=ply: "state" in m and m["state"]["ply"] == p + 2)
                state = state["state"]
            # the third move is acknowledged; the server dies while the AI is thinking
            move = state["legal_moves"][0]
            ack = sock.send("move", ply=4, move=move)
            sock.until(lambda m: m.get("reply_to") == ack)
            played.append(move)
            server.kill()

        server.start()
        with game_socket(server, game["id"], cookie) as sock:
            sock.send("hello", last_seq=None)
            state = sock.until(lambda m: m["type"] == "state")["state"]
            assert state["moves"][:5:2] == played
            if state["ply"] == 5:  # the AI's reply is computed again after the restart
                state = sock.until(lambda m: "state" in m and m["state"]["ply"] == 6)["state"]
            assert state["ply"] == 6
            assert state["moves"][::2] == played
            # the same move sent again after the restart is acknowledged, not applied twice
            repeat = sock.send("move", ply=4, move=move)
            assert sock.until(lambda m: m.get("reply_to") == repeat)["type"] == "ack"
            sock.send("resign")
            end = sock.until(lambda m: m["type"] == "end")
            assert end["result"]["reason"] == "resignation"
        final = http.get(f"/api/games/{game['id']}").json()
        assert final["moves"] == state["moves"]
        assert final["status"] == "finished"
        server.kill()

    store = Store(f"sqlite:///{tmp_path}/chuhan.sqlite3")
    events = store.events_after(game["id"], 0)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    moves = [e.payload["move"] for e in events if e.type == "move"]
    assert moves == final["moves"]  # every move logged exactly once
    assert [e.type for e in events].count("end") == 1
    store.dispose()
