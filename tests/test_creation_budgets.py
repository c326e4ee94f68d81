"""What one client may create (SPEC Z5, Z7): identities per address block, games,
imports and analyses per player, each a clear ``429`` with ``retry_after`` once spent, while a
player with a budget left (or another player) goes on as before.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from chuhan.rules import make_board
from chuhan.rules.record import write_record
from chuhan.server.identity import COOKIE
from chuhan.server.rules_config import CreationLimits
from test_review_api import AnalysingAI
from test_server_support import create, server

pytestmark = pytest.mark.timeout(120)
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]


def _too_many(answer: object, code: str) -> None:
    assert answer.status_code == 429, answer.text  # type: ignore[attr-defined]
    body = answer.json()  # type: ignore[attr-defined]
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    assert body["error"]["retry_after"] >= 1
    assert int(answer.headers["retry-after"]) >= 1  # type: ignore[attr-defined]


def test_a_cookieless_flood_gets_100_new_players_per_address_then_429(tmp_path):
    hundred = CreationLimits(players_per_address=100)  # the default, 300, fits a school
    with server(tmp_path, visit=False, creation=hundred) as (client, _, _):
        known = dict(client.cookies)
        for _ in range(100):
            client.cookies.clear()
            assert client.get("/api/me").status_code == 200
            known = dict(client.cookies)
        client.cookies.clear()
        _too_many(client.get("/api/me"), "too_many_players")
        assert COOKIE not in client.cookies  # no identity was made
        client.cookies.update(known)  # a player who has an identity keeps using it
        assert client.get("/api/me").status_code == 200
        assert client.post("/api/games", json={"kind": "local"}).status_code == 201


def test_a_player_starts_at_most_100_games_an_hour(tmp_path):
    with server(tmp_path) as (client, _, _):
        for _ in range(100):
            create(client, kind="local")
        refused = client.post("/api/games", json={"kind": "local"})
        _too_many(refused, "too_many_games")
        assert "you started too many games" in refused.json()["error"]["message"]
        client.cookies.clear()  # another player of the same address block
        client.get("/api/me").raise_for_status()  # their first visit (Z6)
        create(client, kind="local")


def _record(plies: int) -> str:
    board = make_board("xiangqi")
    for _ in range(plies):
        board.push(sorted(board.legal_move_texts())[0])
    return write_record(board, "iccs", result="*")


def _finished(client: TestClient) -> str:
    game = create(client, kind="local")
    for ply, move in enumerate(CANNON_MATE):
        answer = client.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
        assert answer.status_code == 200, answer.text
    return str(game["id"])


def test_imports_and_new_analyses_have_budgets_per_player(tmp_path):
    from chuhan.server.rules_config import CreationLimits

    limits = CreationLimits(imports_per_player=2, analyses_per_player=2)
    with server(tmp_path, ai=AnalysingAI(), analysis_nodes=200, creation=limits) as (
        client,
        _,
        _,
    ):
        for plies in (2, 3):
            assert client.post("/api/records", content=_record(plies)).status_code == 201
        _too_many(client.post("/api/records", content=_record(4)), "too_many_imports")
        games = [_finished(client) for _ in range(3)]
        for game_id in games[:2]:
            assert client.post(f"/api/games/{game_id}/analysis").status_code == 202
        again = client.post(f"/api/games/{games[0]}/analysis")  # one that exists: free
        assert again.status_code == 202
        _too_many(client.post(f"/api/games/{games[2]}/analysis"), "too_many_analyses")
        client.cookies.clear()  # another player has budgets of their own
        client.get("/api/me").raise_for_status()  # their first visit (Z6)
        assert client.post("/api/records", content=_record(5)).status_code == 201


def test_a_refused_new_ai_game_leaves_the_pending_one_alone_p2(tmp_path):
    from chuhan.server.rules_config import CreationLimits

    with server(tmp_path, creation=CreationLimits(games_per_player=1)) as (client, _, _):
        body = {"kind": "ai", "level": "beginner", "color": "red"}
        pending = create(client, **body)
        refused = client.post("/api/games", json={**body, "abandon_pending": True})
        _too_many(refused, "too_many_games")
        still = client.get(f"/api/games/{pending['id']}").json()
        assert still["status"] == "ongoing"  # not abandoned for a game that was refused
