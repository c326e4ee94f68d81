"""The online games behind the online points (SPEC S1, R6, Z2), on SQLite and PostgreSQL:
each player of a room game finds it in ``/api/me`` under ``online_games``, apart from the AI
games, with their side, the opponent's name, the result and the points it gave them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import insert

from chuhan.server.db.engine import MIGRATIONS_DIR
from chuhan.server.db.store import Store
from chuhan.server.db.tables import games, players, rooms
from chuhan.server.names import default_name
from chuhan.server.records import GameRecord, utcnow
from rooms_client import Player, running_server
from test_rooms_protocol import QUIET, end_of, new_game, play, ready_both

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Store]]:
    """A real server on SQLite or PostgreSQL, and a Store on its database."""
    if request.param == "sqlite":
        env: dict[str, str] = {}
        store = Store(f"sqlite:///{tmp_path}/chuhan.sqlite3")
    else:
        url, schema = request.getfixturevalue("postgres_schema")
        env = {"DATABASE_URL": url, "CHUHAN_DB_SCHEMA": schema}
        store = Store(url, schema)
    with running_server(tmp_path, **env) as base_url:
        yield base_url, store
    store.dispose()


def test_both_players_see_the_room_game_under_online_points_S1_R6(
    served: tuple[str, Store],
) -> None:
    url, _ = served
    sockets, _, (red_player, black_player) = new_game(url)
    assert red_player.http.patch("/api/me", json={"name": "Rojo"}).status_code == 200
    assert black_player.http.patch("/api/me", json={"name": "Negro"}).status_code == 200
    play(sockets, QUIET[:3])
    assert sockets["black"].request("resign")["type"] == "ack"
    end_of(sockets["red"])

    red, black = red_player.me(), black_player.me()
    assert red["points"] == {"ai": 0, "online": 50}
    assert black["points"] == {"ai": 0, "online": 0}
    [red_game] = red["online_games"]
    [black_game] = black["online_games"]
    assert red_game["id"] == black_game["id"]
    result = {"winner": "red", "reason": "resignation", "points": None}
    assert red_game | {"created_at": None} == {
        "id": red_game["id"],
        "kind": "online",
        "variant": "xiangqi",
        "side": "red",
        "opponent": "Negro",
        "status": "finished",
        "result": result,
        "points_awarded": 50,
        "created_at": None,
    }
    assert black_game["side"] == "black"
    assert black_game["opponent"] == "Rojo"
    assert black_game["result"] == result
    assert black_game["points_awarded"] == 0
    assert red_game["created_at"].endswith("Z")
    # The online game is not among the AI games, and the AI game not among the online ones.
    assert red["games"] == []
    assert black["games"] == []

    stranger = Player(url)
    answer = stranger.http.post(
        "/api/games", json={"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
    )
    assert answer.status_code in (200, 201), answer.text
    me = stranger.me()
    assert [g["id"] for g in me["games"]] == [answer.json()["id"]]
    assert me["online_games"] == []

    # A second game of the same two players comes first (newest first).
    room = red_player.create_room(variant="jieqi")
    assert black_player.join_invite(room["invite"]).status_code == 200
    again = ready_both(red_player.open(room["id"]), black_player.open(room["id"]))
    assert again["red"].request("resign")["type"] == "ack"
    end_of(again["black"])
    for player in (red_player, black_player):
        newest, older = player.me()["online_games"]
        assert newest["variant"] == "jieqi"
        assert older["id"] == red_game["id"]


def test_a_jieqi_game_in_the_list_keeps_its_secret_Z2(served: tuple[str, Store]) -> None:
    url, store = served
    sockets, _, players = new_game(url, "jieqi")
    play(sockets, ["a1a2"])
    assert sockets["black"].request("resign")["type"] == "ack"
    end_of(sockets["red"])
    for player in players:
        answer = player.http.get("/api/me")
        [listed] = answer.json()["online_games"]
        game = store.game(listed["id"])
        assert game is not None
        assert game.secret is not None
        assert "secret" not in listed
        assert "arrangement" not in answer.text
        assert game.secret["salt"] not in answer.text
        assert json.dumps(game.secret["arrangement"]) not in answer.text


def test_the_migration_fills_in_the_players_of_existing_room_games(
    database: tuple[str, str | None],
) -> None:
    """Online games stored before the ``game_players`` table get their players from the room
    that still points at them."""
    url, schema = database
    store = Store(url, schema)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0003_server_instances")
    now = utcnow()
    with store.engine.begin() as conn:  # players as that schema had them (no devices, B6)
        for player_id, name in (("p_red", None), ("p_black", "Negro")):
            conn.execute(
                insert(players).values(
                    id=player_id, token_hash=f"hash-{player_id}", name=name, ai_points=0,
                    online_points=0, created_at=now,
                )
            )  # fmt: skip
    game = GameRecord(
        id="g_old", kind="online", variant="xiangqi", level=None, player_id=None,
        human_side=None, options={}, secret=None, start_fen="-", moves=[], status="finished",
        result={"winner": "black", "reason": "timeout", "points": None}, practice=False,
        points_awarded=50, seq=1, created_at=now, expires_at=now,
    )  # fmt: skip
    with store.engine.begin() as conn:
        conn.execute(
            insert(rooms).values(
                id="r_old", invite=None, password=None, open_password=None, variant="xiangqi",
                options={}, status="playing", seats=[], sides=["p_red", "p_black"], setup=None,
                game_id=game.id, version=1, created_at=now, updated_at=now,
            )
        )  # fmt: skip
        conn.execute(insert(games).values(**asdict(game)))
    store.migrate()
    [played] = store.online_games("p_red")
    assert (played.game.id, played.side, played.opponent_name) == ("g_old", 0, "Negro")
    [played] = store.online_games("p_black")
    assert (played.side, played.opponent_name) == (1, default_name("p_red"))  # B7
    store.dispose()
