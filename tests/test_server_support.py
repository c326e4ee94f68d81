"""Helpers for the server tests: an app with a scripted AI, and a game socket client.

The scripted AI runs in threads (not processes) so that tests can steer it; one test in
test_server_ai.py runs the real engine in the real process pool.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from chuhan.server import Settings, create_app
from chuhan.server.ai.pool import AIJob, AIPool, _board
from chuhan.server.db.store import Store
from chuhan.server.protocol.messages import check_server_message
from chuhan.server.records import StaleGameError, utcnow
from client_events import EVENTS, is_game_event


def move_clock_past_expiry(store: Store, game_id: str) -> None:
    """Make the game's time limit lie in the past, as if 24 hours had gone by (SPEC P2)."""
    while True:
        game = store.game(game_id)
        assert game is not None
        past = replace(game, expires_at=utcnow() - timedelta(seconds=1), seq=game.seq + 1)
        try:
            store.commit_change(game, past, [{"type": "clock_moved", "ply": game.ply}])
            return
        except StaleGameError:
            continue  # the AI moved meanwhile


class ScriptedAI:
    """A test AI: a scripted move per ply when given, else the first legal move in order.

    ``gate`` (when set) holds every job until it is released: the AI "thinks" for as long
    as a test needs. ``jobs`` records every job the pool received.
    """

    def __init__(self) -> None:
        self.script: dict[int, str] = {}
        self.accept_draw = False
        self.setup = "EHHE"
        self.gate: threading.Event | None = None
        self.jobs: list[AIJob] = []

    def __call__(self, job: AIJob) -> Any:
        self.jobs.append(job)
        if self.gate is not None:
            self.gate.wait(30)
        if job.kind == "setup":
            return self.setup
        if job.kind == "draw":
            return self.accept_draw
        board = _board(job)
        if job.kind == "move" and board.ply in self.script:
            return self.script[board.ply]
        return sorted(board.legal_move_texts())[0]


@contextmanager
def server(
    tmp_path: Path,
    ai: ScriptedAI | None = None,
    max_jobs: int = 8,
    database: tuple[str, str | None] | None = None,
    visit: bool = True,
    **settings: Any,
) -> Iterator[tuple[TestClient, ScriptedAI, Store]]:
    """A running app (lifespan started) with its own database and a scripted AI. The client
    has ``visit``ed the site: a GET gave it its player identity, as a browser's first page
    does (SPEC Z6: no POST makes one)."""
    ai = ai or ScriptedAI()
    url, schema = database or (f"sqlite:///{tmp_path}/chuhan.sqlite3", None)
    config = Settings(data_dir=tmp_path, database_url=url, db_schema=schema, **settings)
    store = Store(url, schema)
    pool = AIPool(2, max_jobs, runner=ai, executor=ThreadPoolExecutor(2))
    app = create_app(config, pool=pool, store=store)
    with TestClient(app) as client:
        if visit:
            client.get("/api/me").raise_for_status()
        yield client, ai, store


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    """Create a game and return its state; fails the test on an error answer."""
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


class GameSocket:
    """A client of ``/ws/games/{id}``: sends messages with ids, collects replies and events.

    Each event's ``state`` is the state a browser holds after it: the events folded by the
    client's own applyEvent (events.js); the raw event carries only the change."""

    def __init__(self, ws: Any, holding: dict[str, Any] | None = None) -> None:
        self.ws = ws
        self.received: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.folded = holding  # the state the client holds (a reconnecting one: its last)
        self._count = 0
        self._pending: list[dict[str, Any]] = []

    def _next(self) -> dict[str, Any]:
        message = dict(self.ws.receive_json())
        check_server_message(message)  # every message fits docs/protocol.md (Z5)
        if is_game_event(message):  # its "state": what the client holds after it (events.js)
            self.folded = EVENTS.apply(self.folded, message)
            message["state"] = self.folded
        self.received.append(message)
        if "seq" in message and "reply_to" not in message:
            self.events.append(message)
        return message

    def send_raw(self, text: str) -> None:
        self.ws.send_text(text)

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send one message and return the reply to it (events meanwhile are kept)."""
        self._count += 1
        message_id = f"m{self._count}"
        self.ws.send_json({"id": message_id, "type": kind, **fields})
        return self.reply_to(message_id)

    def reply_to(self, message_id: str | None) -> dict[str, Any]:
        for index, message in enumerate(self._pending):
            if message.get("reply_to") == message_id:
                return self._pending.pop(index)
        while True:
            message = self._next()
            if "reply_to" in message and message["reply_to"] == message_id:
                return message
            self._pending.append(message)

    def hello(self, last_seq: int | None = None) -> dict[str, Any]:
        """Say hello; returns the ``state`` event when the server sends one."""
        self._count += 1
        message_id = f"m{self._count}"
        self.ws.send_json({"id": message_id, "type": "hello", "last_seq": last_seq})
        reply = self.reply_to(message_id)
        if last_seq is None:
            return reply
        assert reply["type"] in ("ack", "state"), reply
        return reply if reply["type"] == "state" else {}

    def wait_event(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first event (already received or coming) for which ``predicate`` holds."""
        for index, message in enumerate(self._pending):
            if "seq" in message and predicate(message):
                return self._pending.pop(index)
        while True:
            message = self._next()
            if "seq" in message and predicate(message):
                return message
            self._pending.append(message)

    def state_after_ply(self, ply: int) -> dict[str, Any]:
        """The state carried by the first event that reaches ``ply`` moves."""
        event = self.wait_event(lambda e: "state" in e and e["state"]["ply"] >= ply)
        return dict(event["state"])


@contextmanager
def game_socket(
    client: TestClient,
    game_id: str,
    last_seq: int | None = None,
    holding: dict[str, Any] | None = None,
) -> Iterator[tuple[GameSocket, dict[str, Any]]]:
    """A connected game socket that said hello, and the state it got (empty on a replay);
    ``holding``: the state a reconnecting client holds, at ``last_seq``."""
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        sock = GameSocket(ws, holding)
        hello = sock.hello(last_seq)
        yield sock, hello.get("state", {})
