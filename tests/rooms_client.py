"""Helpers for the room tests: a real ``chuhan serve`` and players with their own cookies.

:class:`ServerProcess` is the one way the tests start a real server (browser, rooms, restart
and scale-out tests alike).

Each :class:`Player` has its own HTTP cookie jar (so its own identity, SPEC S1) and opens
room sockets with that cookie; :class:`RoomSocket` collects every message in a background
thread, answers the server's lag probes, and waits for what a test expects.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from chuhan.rules import JieqiBoard, make_board
from chuhan.server.protocol.messages import check_server_message
from client_events import EVENTS, is_game_event

WAIT = 10.0
_devices = itertools.count(1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_environment(**overrides: str) -> dict[str, str]:
    """This process's environment without its database choice (so a server keeps SQLite in
    its data folder), with ``overrides``."""
    environment = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CHUHAN_DB_SCHEMA")
    }
    return {**environment, **overrides}


class ServerProcess:
    """A real ``chuhan serve`` of this checkout in its own process group (its AI workers die
    with it), on a free port that it keeps across restarts; its output is appended to
    ``log_path`` (``server.log`` in the data folder unless given).

    ``env`` is the whole environment of the server (:func:`server_environment` when None).
    ``stop`` sends SIGTERM to the server alone (it closes its sockets and workers itself), or
    to the whole group when ``stop_whole_group``.
    """

    def __init__(
        self,
        data_dir: Path,
        env: dict[str, str] | None = None,
        log_path: Path | None = None,
        stop_whole_group: bool = False,
    ) -> None:
        self.data_dir = data_dir
        self.env = server_environment() if env is None else env
        self.log_path = log_path or data_dir / "server.log"
        self.stop_whole_group = stop_whole_group
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.spawn()
        self.wait_healthy()

    def spawn(self) -> None:
        command = [str(Path(sys.executable).with_name("chuhan")), "serve", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--data-dir", str(self.data_dir)]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                command, env=self.env, stdout=log, stderr=log, start_new_session=True
            )

    def wait_healthy(self, timeout: float = 60) -> None:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"chuhan serve exited with {self.process.returncode}: "
                    + self.log_path.read_text()
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            time.sleep(0.05)
        raise AssertionError(f"chuhan serve did not start: {self.log_path.read_text()}")

    def kill(self) -> None:
        """SIGKILL the server and its AI workers: no socket is closed properly, no last word
        to the database."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM: a graceful stop (the sockets are closed first); SIGKILL after ``timeout``."""
        if self.process is None or self.process.poll() is not None:
            return
        if self.stop_whole_group:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
        else:
            self.process.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    @contextlib.contextmanager
    def running(self) -> Iterator[str]:
        """Start the server, yield its base URL, stop it."""
        try:
            self.start()
            yield self.url
        finally:
            self.stop()


@contextlib.contextmanager
def running_server(data_dir: Path, **env: str) -> Iterator[str]:
    """``chuhan serve`` on a free port with its own SQLite data dir and one AI worker (unless
    ``env`` says otherwise); yields its base URL."""
    environment = server_environment(**{"CHUHAN_AI_WORKERS": "1", **env})
    with ServerProcess(data_dir, environment).running() as url:
        yield url


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

    def open(
        self,
        room_id: str,
        hello: bool = True,
        holding: dict[str, Any] | None = None,
        **fields: Any,
    ) -> RoomSocket:
        """A room socket; ``holding``: the game state a reconnecting client holds."""
        url = self.base_url.replace("http", "ws", 1) + f"/ws/rooms/{room_id}"
        ws = connect(url, additional_headers={"Cookie": self.cookie}).__enter__()
        room_socket = RoomSocket(ws, holding)
        if hello:
            room_socket.request("hello", **{"device": self.device, **fields})
        return room_socket


class RoomSocket:
    """One room socket: every message received, in order, and a way to wait for more.

    Each game event's ``state`` is the state a browser holds after it, folded by the
    client's own applyEvent (events.js); ``raw`` keeps the messages as they came."""

    _ids = itertools.count(1)

    def __init__(self, ws: Any, holding: dict[str, Any] | None = None) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.received_at: list[float] = []  # time.time() of each message's arrival
        self.closed = False
        self.answer_probes = True
        self.invalid: list[str] = []  # messages that do not fit the protocol's models
        self.folded = holding  # the game state as a browser holds it
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            while True:
                text = self.ws.recv()
                message = json.loads(text)
                try:
                    check_server_message(message)  # every message fits docs/protocol.md (Z5)
                except ValueError as exc:
                    self.invalid.append(f"{text}: {exc}")
                if is_game_event(message):  # "state": what the client holds after it
                    self.folded = EVENTS.apply(self.folded, message)
                    message["state"] = self.folded
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
                assert not self.invalid, self.invalid
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
            if message.get("state"):
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


def at_ply(ply: int) -> Callable[[dict[str, Any]], bool]:
    """For :meth:`RoomSocket.wait_state`: the state after ``ply`` moves."""
    return lambda state: state["ply"] == ply


def move_of(ply: int) -> Callable[[dict[str, Any]], bool]:
    """For :meth:`RoomSocket.wait_for`: the ``move`` message of ply ``ply``."""
    return lambda m: m.get("type") == "move" and m["ply"] == ply


def jieqi_views(secret: dict[str, str], moves: list[str], side: str) -> list[dict[str, Any]]:
    """What ``side`` may know after each number of moves of a jieqi game with ``secret``
    (Z2, Q5): the reference a test compares every message with."""
    board = make_board("jieqi", arrangement=secret["arrangement"], salt=secret["salt"])
    assert isinstance(board, JieqiBoard)
    views = [board.view(side, game_over=False)]
    for move in moves:
        board.push(move)
        views.append(board.view(side, game_over=False))
    return views
