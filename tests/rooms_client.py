"""Helpers for the room tests: a real ``chuhan serve`` and players with their own cookies.

Each :class:`Player` has its own HTTP cookie jar (so its own identity, SPEC S1) and opens
room sockets with that cookie; :class:`RoomSocket` collects every message in a background
thread, answers the server's lag probes, and waits for what a test expects.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

WAIT = 10.0
_devices = itertools.count(1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_server(data_dir: Path, **env: str) -> Iterator[str]:
    """``chuhan serve`` on a free port with its own SQLite data dir; yields its base URL."""
    port = _free_port()
    environment = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CHUHAN_DB_SCHEMA")
    }
    environment.update({"CHUHAN_AI_WORKERS": "1", **env})
    command = [str(Path(sys.executable).with_name("chuhan")), "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data-dir", str(data_dir)]
    log = open(data_dir / "server.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"chuhan serve exited: {(data_dir / 'server.log').read_text()}")
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


FAST_TURN = 4.0
FAST_AWAY = 3.0


FAST_SETTINGS = {
    "CHUHAN_ROOM_TURN_SECONDS": str(FAST_TURN),
    "CHUHAN_ROOM_AWAY_BUDGET_SECONDS": str(FAST_AWAY),
    "CHUHAN_ROOM_LAG_CAP_SECONDS": "0.1",
    "CHUHAN_ROOM_JOIN_TRIES_PER_PLAYER": "4",
    "CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS": "6",
}


class Player:
    """A visitor with their own cookie (a player identity)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = httpx.Client(base_url=base_url, timeout=WAIT)
        self.http.get("/api/me").raise_for_status()
        self.device = f"dev{next(_devices)}"

    @property
    def cookie(self) -> str:
        return f"chuhan_player={self.http.cookies['chuhan_player']}"

    def me(self) -> dict[str, Any]:
        return dict(self.http.get("/api/me").json())

    def create_room(self, **body: Any) -> dict[str, Any]:
        answer = self.http.post("/api/rooms", json=body)
        assert answer.status_code == 201, answer.text
        return dict(answer.json())

    def join(self, password: str) -> httpx.Response:
        return self.http.post("/api/rooms/join", json={"password": password})

    def join_invite(self, invite: str) -> httpx.Response:
        return self.http.post(f"/api/rooms/invite/{invite}")

    def open(self, room_id: str, hello: bool = True, **fields: Any) -> RoomSocket:
        url = self.base_url.replace("http", "ws", 1) + f"/ws/rooms/{room_id}"
        ws = connect(url, additional_headers={"Cookie": self.cookie}).__enter__()
        room_socket = RoomSocket(ws)
        if hello:
            room_socket.request("hello", **{"device": self.device, **fields})
        return room_socket


class RoomSocket:
    """One room socket: every message received, in order, and a way to wait for more."""

    _ids = itertools.count(1)

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.received_at: list[float] = []  # time.time() of each message's arrival
        self.closed = False
        self.answer_probes = True
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            while True:
                text = self.ws.recv()
                message = json.loads(text)
                if message.get("type") == "probe" and self.answer_probes:
                    self.send("probe", n=message["n"])
                with self._changed:
                    self.raw.append(text)
                    self.received_at.append(time.time())
                    self.messages.append(message)
                    self._changed.notify_all()
        except Exception:
            pass
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def send(self, kind: str, **fields: Any) -> str:
        message_id = f"t{next(self._ids)}"
        self.ws.send(json.dumps({"id": message_id, "type": kind, **fields}))
        return message_id

    def wait_for(
        self, accept: Callable[[dict[str, Any]], bool], timeout: float = WAIT, start: int = 0
    ) -> dict[str, Any]:
        """The first message from index ``start`` on that ``accept`` accepts."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for message in self.messages[start:]:
                    if accept(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(
                        f"no such message; got {[m.get('type') for m in self.messages]}"
                    )
                self._changed.wait(left)

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send and wait for the reply (``ack`` or ``error``)."""
        message_id = self.send(kind, **fields)
        return self.wait_for(lambda m: m.get("reply_to") == message_id)

    def wait_closed(self, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self.closed and time.monotonic() < deadline:
                self._changed.wait(deadline - time.monotonic())
        assert self.closed

    def room(self) -> dict[str, Any]:
        """The last room message's room."""
        return next(m["room"] for m in reversed(self.messages) if m.get("type") == "room")

    def state(self) -> dict[str, Any] | None:
        """The game state of the last message that carried one."""
        for message in reversed(self.messages):
            if "state" in message and message["state"]:
                return dict(message["state"])
        return None

    def wait_state(
        self, accept: Callable[[dict[str, Any]], bool], timeout: float = WAIT
    ) -> dict[str, Any]:
        message = self.wait_for(lambda m: bool(m.get("state")) and accept(m["state"]), timeout)
        return dict(message["state"])

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()
