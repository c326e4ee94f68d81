"""Analyses share the AI fairly (SPEC Z7): a player's queued analyses are
capped (and an address block's), and positions are handed out round-robin over address
blocks and their players, as AI moves are, so one player's flood never holds back another's
analysis.

A real app (SQLite); analysis positions are answered by a fake engine held at a gate until
every analysis of the test is queued, so the order they run in is the runner's alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chuhan.rules import make_board
from chuhan.rules.record import write_record
from chuhan.server.ai.pool import AIJob
from test_server_support import ScriptedAI, create, server

pytestmark = pytest.mark.timeout(120)
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]  # 6 positions


class HeldAnalyses(ScriptedAI):
    """Analysis positions are answered (at once, a plain answer) only as the test allows."""

    def __init__(self) -> None:
        super().__init__()
        self._allowed = threading.Semaphore(0)
        self.answered = 0

    def allow(self, positions: int) -> None:
        for _ in range(positions):
            self._allowed.release()

    def __call__(self, job: AIJob) -> Any:
        if job.kind != "analysis":
            return super().__call__(job)
        self.jobs.append(job)
        assert self._allowed.acquire(timeout=30)
        self.answered += 1
        return {"score": 10, "best": None, "engine": "held"}


def _finished_game(client: TestClient) -> str:
    game = create(client, kind="local", variant="xiangqi")
    for ply, move in enumerate(CANNON_MATE):
        answer = client.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
        assert answer.status_code == 200, answer.text
    return str(game["id"])


def _imported_game(client: TestClient, plies: int) -> str:
    """A finished (imported) game of ``plies`` moves: ``plies + 1`` positions to analyse."""
    board = make_board("xiangqi")
    for _ in range(plies):
        board.push(sorted(board.legal_move_texts())[0])
    answer = client.post("/api/records", content=write_record(board, "iccs", result="*"))
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def _as(client: TestClient, cookies: dict[str, str]) -> TestClient:
    """The client as the player of ``cookies`` (empty: a new player, whose first read gives
    them their identity, as a browser's first page does: SPEC Z6)."""
    client.cookies.clear()
    client.cookies.update(cookies)
    if not cookies:
        client.get("/api/me").raise_for_status()
    return client


def _status(client: TestClient, game_id: str) -> str:
    return str(client.get(f"/api/games/{game_id}/analysis").json()["status"])


def _wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError("waited in vain")


def _wait_done(client: TestClient, game_id: str) -> None:
    _wait_until(lambda: _status(client, game_id) == "done")


def test_another_players_analysis_is_not_held_behind_a_flood_z7(tmp_path):
    ai = HeldAnalyses()
    with server(tmp_path, ai=ai) as (client, _, _):
        flood = [_imported_game(client, 20) for _ in range(3)]
        flooder = dict(client.cookies)
        mine = _finished_game(_as(client, {}))
        other = dict(client.cookies)
        for game_id in flood:
            assert _as(client, flooder).post(f"/api/games/{game_id}/analysis").status_code == 202
        assert _as(client, other).post(f"/api/games/{mine}/analysis").status_code == 202
        # The flood's 63 positions are queued before the other player's 6. Taking turns,
        # the other player waits for at most one position of each of the flood's analyses
        # before each of its own: it is done within the first 24 (first come, first served:
        # after two of the flood's analyses at least, the 43rd position).
        ai.allow(24)
        _wait_until(lambda: ai.answered == 24)
        _wait_done(client, mine)
        _as(client, flooder)
        assert not any(_status(client, game_id) == "done" for game_id in flood)
        ai.allow(63 - 18)
        for game_id in flood:
            _wait_done(client, game_id)  # the flood is served too, after its turns


def test_queued_analyses_are_capped_per_player_and_per_address_z7(tmp_path):
    ai = HeldAnalyses()
    with server(tmp_path, ai=ai, analyses_queued_per_address=4) as (client, _, _):
        games = [_finished_game(client) for _ in range(4)]
        for game_id in games[:3]:
            assert client.post(f"/api/games/{game_id}/analysis").status_code == 202
        refused = client.post(f"/api/games/{games[3]}/analysis")
        assert refused.status_code == 429, refused.text
        error = refused.json()["error"]
        assert error["code"] == "analysis_queue_full"
        assert error["retry_after"] >= 1
        assert "3 analyses" in error["message"]
        again = client.post(f"/api/games/{games[0]}/analysis")  # asking again costs nothing
        assert again.status_code == 202
        player = dict(client.cookies)
        neighbour = _as(client, {})  # another cookie, the same address block
        theirs = [_finished_game(neighbour) for _ in range(2)]
        assert neighbour.post(f"/api/games/{theirs[0]}/analysis").status_code == 202
        full = neighbour.post(f"/api/games/{theirs[1]}/analysis")
        assert full.status_code == 429
        assert full.json()["error"]["code"] == "analysis_queue_full"
        ai.allow(100)
        _as(client, player)
        for game_id in games[:3]:
            _wait_done(client, game_id)
        # Once its analyses are done, the player's next one is taken.
        assert client.post(f"/api/games/{games[3]}/analysis").status_code == 202
        _wait_done(client, games[3])
