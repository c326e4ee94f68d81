"""The ``rules`` option of games and rooms (SPEC E1): chosen at creation, carried in
the state's ``options``, given to the AI, and judging the game's repetitions (Z5 for bad input).
"""

from __future__ import annotations

from dataclasses import replace

from chuhan.rules import make_board
from chuhan.rules.record import write_record
from chuhan.server.games import changes as rules_of
from chuhan.server.games import views
from chuhan.server.rooms import rules
from chuhan.server.rooms.rules import GameStart
from test_rooms_rules import CLOCK, T0, room
from test_server_support import create, server
from test_wxf import PROTECTED_CHARIOT
from test_wxf import START_CHASE_CYCLE as CYCLE
from test_wxf import START_CHASE_LEAD as LEAD


def test_a_game_carries_its_rule_set(tmp_path):
    with server(tmp_path) as (client, _, _):
        assert create(client, kind="local", variant="xiangqi")["options"]["rules"] == "casual"
        state = create(client, kind="local", variant="jieqi", rules="wxf", abandon_pending=True)
        assert state["options"]["rules"] == "wxf"
        again = client.get(f"/api/games/{state['id']}").json()
        assert again["options"]["rules"] == "wxf"


def test_the_ai_plays_by_the_games_rule_set(tmp_path):
    with server(tmp_path) as (client, ai, _):
        create(client, kind="ai", variant="xiangqi", level="beginner", color="black", rules="wxf")
        for _ in range(50):
            if any(job.kind == "move" for job in ai.jobs):
                break
            client.get("/api/me")
        moves = [job for job in ai.jobs if job.kind == "move"]
        assert moves
        assert moves[0].options["rules"] == "wxf"


def test_bad_rule_sets_are_refused_Z5(tmp_path):
    with server(tmp_path) as (client, _, _):
        for body in (
            {"kind": "local", "variant": "xiangqi", "rules": "fide"},
            {"kind": "local", "variant": "janggi", "rules": "wxf"},
        ):
            answer = client.post("/api/games", json=body)
            assert answer.status_code in (400, 422), body
            assert "rules" in answer.text


def test_a_room_game_is_judged_by_the_rooms_rule_set():
    """A room created with ``rules=wxf``: its games carry the option, and a perpetual chase
    ends one with the chaser's loss and the evidence in the state."""
    r = room(options={"rules": "wxf"}, sides=["p_alice", "p_bob"], game_id="g_wxf")
    game = rules.new_game(r, GameStart("g_wxf", None), T0, CLOCK, ttl_seconds=3600)
    assert game.options["rules"] == "wxf"
    assert rules_of.board_of(game).rules == "wxf"
    game = replace(game, start_fen=PROTECTED_CHARIOT + " - - 0 1")
    for text in ["f2d2", "d7f7", "d2f2", "f7d7"] * 2:
        change = rules_of.play_move(game, game.ply, text, rules_of.turn_of(game))
        assert change is not None
        game = change.after
    state = views.state_for(game, 0)
    assert state["status"] == "finished"
    assert state["result"]["reason"] == "perpetual_chase"
    assert state["ruling"]["piece"] == "cannon"
    assert state["ruling"]["target"] == "chariot"
    assert state["options"]["rules"] == "wxf"


def test_a_room_carries_its_rule_set_Z5(tmp_path):
    with server(tmp_path) as (client, _, _):
        client.get("/api/me")  # a player identity first
        room_view = client.post("/api/rooms", json={"variant": "jieqi", "rules": "wxf"})
        assert room_view.status_code == 201, room_view.text
        assert room_view.json()["options"]["rules"] == "wxf"
        plain = client.post("/api/rooms", json={"variant": "xiangqi"})
        assert plain.json()["options"]["rules"] == "casual"
        for body in ({"variant": "janggi", "rules": "wxf"}, {"variant": "xiangqi", "rules": "x"}):
            answer = client.post("/api/rooms", json=body)
            assert answer.status_code in (400, 422), body
            assert "rules" in answer.text


def test_a_wxf_record_imports_and_exports_with_its_rule_set_N4(tmp_path):
    board = make_board("xiangqi", rules="wxf")
    board.push_many([*LEAD, *CYCLE, *CYCLE])
    text = write_record(board)
    with server(tmp_path) as (client, _, _):
        answer = client.post("/api/records", content=text.encode("utf-8"))
        assert answer.status_code == 201, answer.text
        state = answer.json()
        assert state["options"]["rules"] == "wxf"
        assert state["result"]["reason"] == "perpetual_chase"
        assert state["ruling"]["target"] == "cannon"
        again = client.get(f"/api/games/{state['id']}/record").text
        assert '[Rules "rules=wxf"]' in again
