"""No engine advice for a player seated in an ongoing online game (SPEC Z7):
while their online game is on, analyses, hints and record imports (a way to analyse any
position) are refused with ``409 playing_online``, for both players; once it is over they
work again.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from chuhan.rules import make_board
from chuhan.rules.record import write_record
from chuhan.server.db.store import Store
from chuhan.server.db.tables import games
from chuhan.server.records import GameRecord, utcnow
from test_server_support import create, game_socket, server

pytestmark = pytest.mark.timeout(120)
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]


def _online_game(store: Store, red: str, black: str) -> str:
    """An ongoing online xiangqi game between two players, as the rooms store it."""
    now = utcnow()
    game = GameRecord(
        id="g_online_live",
        kind="online",
        variant="xiangqi",
        start_fen=make_board("xiangqi").fen(),
        moves=["h3e3"],
        created_at=now,
        expires_at=now + timedelta(days=1),
        updated_at=now,
    )
    store.insert_game(game, [{"type": "start"}], [(red, 0), (black, 1)])
    return game.id


def _finished_local(client: TestClient) -> str:
    game = create(client, kind="local")
    for ply, move in enumerate(CANNON_MATE):
        answer = client.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
        assert answer.status_code == 200, answer.text
    return str(game["id"])


def _refused(answer: object) -> None:
    assert answer.status_code == 409, answer.text  # type: ignore[attr-defined]
    error = answer.json()["error"]  # type: ignore[attr-defined]
    assert error["code"] == "playing_online"
    assert "online game" in error["message"]


def test_no_analysis_hint_or_import_while_seated_in_an_online_game(tmp_path):
    position = make_board("xiangqi")
    position.push("h3e3")
    record = write_record(position, "iccs", result="*")  # the online game's position
    with server(tmp_path) as (client, ai, store):
        finished = _finished_local(client)
        local = create(client, kind="local")
        me, mine = client.get("/api/me").json()["id"], dict(client.cookies)
        client.cookies.clear()
        client.get("/api/me").raise_for_status()  # the opponent's first visit (Z6)
        opponent_local = create(client, kind="local")
        opponent, theirs = client.get("/api/me").json()["id"], dict(client.cookies)
        online = _online_game(store, me, opponent)
        client.cookies.clear()
        client.cookies.update(mine)
        _refused(client.post(f"/api/games/{finished}/analysis"))
        _refused(client.get(f"/api/games/{finished}/analysis"))
        _refused(client.post("/api/records", content=record))
        with game_socket(client, local["id"]) as (sock, _):
            reply = sock.request("hint")
            assert reply["type"] == "error"
            assert reply["code"] == "playing_online"
        client.cookies.clear()
        client.cookies.update(theirs)  # the opponent is seated too
        with game_socket(client, opponent_local["id"]) as (sock, _):
            reply = sock.request("hint")
            assert reply["type"] == "error"
            assert reply["code"] == "playing_online"
        assert not [job for job in ai.jobs if job.kind in ("hint", "analysis")]

        with store.engine.begin() as conn:  # the online game ends
            conn.execute(update(games).where(games.c.id == online).values(status="finished"))
        client.cookies.clear()
        client.cookies.update(mine)
        assert client.post(f"/api/games/{finished}/analysis").status_code == 202
        assert client.post("/api/records", content=record).status_code == 201
        with game_socket(client, local["id"]) as (sock, _):
            assert sock.request("hint")["type"] == "hint"
