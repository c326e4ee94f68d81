"""A real ``chuhan serve`` killed with SIGKILL mid-game and started again (SPEC Z4, P5).

The game against the real AI (beginner, in the real worker pool) continues from its last
acknowledged move; the AI move that was being computed is computed again; nothing is lost
and nothing is applied twice.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from chuhan.server.storage import Store

pytestmark = pytest.mark.timeout(120)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """``chuhan serve`` in its own process group (the AI workers die with it)."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir = data_dir
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "CHUHAN_AI_WORKERS": "1"}
        env.pop("DATABASE_URL", None)
        command = [
            sys.executable,
            "-m",
            "chuhan.cli",
            "serve",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
        ]
        log = open(self.data_dir / "server.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            command, stdout=log, stderr=log, env=env, start_new_session=True
        )
        log.close()
        for _ in range(600):
            if self.process.poll() is not None:
                raise AssertionError((self.data_dir / "server.log").read_text())
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def game_socket(server: Server, game_id: str, cookie: str) -> Iterator[Socket]:
    url = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
    with connect(url, additional_headers={"Cookie": f"chuhan_player={cookie}"}) as ws:
        yield Socket(ws)


@contextmanager
def running(data_dir: Path) -> Iterator[Server]:
    server = Server(data_dir, _free_port())
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill()


class Socket:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.count = 0

    def send(self, kind: str, **fields: Any) -> str:
        self.count += 1
        message_id = f"r{self.count}"
        self.ws.send(json.dumps({"id": message_id, "type": kind, **fields}))
        return message_id

    def until(self, predicate) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            assert message["type"] != "error", message
            if predicate(message):
                return dict(message)


def test_sigkill_mid_game_loses_and_doubles_nothing_Z4_P5(tmp_path):
    with running(tmp_path) as server:
        server.start()
        http = httpx.Client(base_url=server.url)
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
            assert state["ply"] == 6 and state["moves"][::2] == played
            # the same move sent again after the restart is acknowledged, not applied twice
            repeat = sock.send("move", ply=4, move=move)
            assert sock.until(lambda m: m.get("reply_to") == repeat)["type"] == "ack"
            sock.send("resign")
            end = sock.until(lambda m: m["type"] == "end")
            assert end["result"]["reason"] == "resignation"
        final = http.get(f"/api/games/{game['id']}").json()
        assert final["moves"] == state["moves"] and final["status"] == "finished"
        server.kill()

    store = Store(f"sqlite:///{tmp_path}/chuhan.sqlite3")
    events = store.events_after(game["id"], 0)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    moves = [e.payload["move"] for e in events if e.type == "move"]
    assert moves == final["moves"]  # every move logged exactly once
    assert [e.type for e in events].count("end") == 1
    store.dispose()
