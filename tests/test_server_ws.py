"""The game WebSocket: moves, acknowledgements, the AI's replies, undo, hints, draws,
resignation, points, reconnection and bad input (SPEC P2–P6, Z1, Z2, Z4, Z5, A4, A5, E4).
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from chuhan.rules.jieqi import verify_commitment
from test_server_support import GameSocket, ScriptedAI, create, game_socket, server

pytestmark = pytest.mark.timeout(60)
VARIANTS = ["xiangqi", "janggi", "jieqi"]
FIRST = {"xiangqi": "red", "janggi": "cho", "jieqi": "red"}
SECOND = {"xiangqi": "black", "janggi": "han", "jieqi": "black"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_move_is_committed_then_acknowledged_and_the_ai_replies_Z4_P2(tmp_path, variant):
    with server(tmp_path) as (client, _, store):
        game = create(client, kind="ai", variant=variant, level="beginner", color=FIRST[variant])
        with game_socket(client, game["id"]) as (sock, state):
            assert state["seq"] == 1
            assert state["ply"] == 0
            move = state["legal_moves"][0]
            ack = sock.request("move", ply=0, move=move)
            assert ack == {"type": "ack", "reply_to": ack["reply_to"], "ply": 0}
            stored = store.game(game["id"])
            assert stored is not None
            assert stored.moves[:1] == [move]
            after_ai = sock.state_after_ply(2)
            assert after_ai["moves"][0] == move
            assert after_ai["turn"] == FIRST[variant]
            assert after_ai["legal_moves"]
            assert not after_ai["thinking"]
            seqs = [e["seq"] for e in sock.events]
            assert seqs == list(range(2, 2 + len(seqs)))
            kinds = [e["type"] for e in sock.events]
            assert kinds[:3] == ["move", "thinking", "move"]
            assert sock.events[0]["by"] == FIRST[variant]
            assert sock.events[2]["by"] == SECOND[variant]
        # saved: a new connection (a reload) sees the same game
        assert client.get(f"/api/games/{game['id']}").json()["moves"] == after_ai["moves"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_when_the_ai_moves_first_it_opens_the_game_P1(tmp_path, variant):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="ai", variant=variant, level="beginner", color=SECOND[variant])
        with game_socket(client, game["id"], last_seq=0) as (sock, _):
            state = sock.state_after_ply(1)
            assert state["you"] == SECOND[variant]
            assert state["turn"] == SECOND[variant]
            assert state["legal_moves"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_repeated_move_is_acknowledged_again_but_applied_once_P5(tmp_path, variant):
    with server(tmp_path) as (client, _, store):
        game = create(client, kind="local", variant=variant)
        with game_socket(client, game["id"]) as (sock, state):
            move = state["legal_moves"][0]
            first = sock.request("move", ply=0, move=move)
            again = sock.request("move", ply=0, move=move)
            assert first["type"] == again["type"] == "ack"
            assert again["ply"] == 0
        stored = store.game(game["id"])
        assert stored is not None
        assert stored.moves == [move]
        assert [e.type for e in store.events_after(game["id"], 0)] == ["start", "move"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_stale_illegal_and_out_of_turn_moves_get_an_error_and_the_state_Z5(tmp_path, variant):
    ai = ScriptedAI()
    ai.gate = threading.Event()
    with server(tmp_path, ai=ai) as (client, _, store):
        game = create(client, kind="ai", variant=variant, level="beginner", color=FIRST[variant])
        with game_socket(client, game["id"]) as (sock, state):
            illegal = sock.request("move", ply=0, move="a1a9")
            assert illegal["type"] == "error"
            assert illegal["code"] == "illegal_move"
            assert illegal["state"]["ply"] == 0
            assert illegal["message"]
            nonsense = sock.request("move", ply=0, move="zz99")
            assert nonsense["code"] == "illegal_move"
            stale = sock.request("move", ply=5, move=state["legal_moves"][0])
            assert stale["code"] == "stale_move"
            assert stale["state"]["ply"] == 0
            assert sock.request("move", ply=0, move=state["legal_moves"][0])["type"] == "ack"
            # the AI is thinking (held by the gate): it is not the player's turn
            thinking = sock.wait_event(lambda e: e["type"] == "thinking")
            other = thinking["state"]["fen"]
            assert thinking["state"]["legal_moves"] == []
            assert thinking["state"]["thinking"]
            wrong_turn = sock.request("move", ply=1, move=state["legal_moves"][0])
            assert wrong_turn["code"] in ("not_your_turn", "illegal_move")
            assert wrong_turn["state"]["fen"] == other
            ai.gate.set()
            sock.state_after_ply(2)
        stored = store.game(game["id"])
        assert stored is not None
        assert stored.ply == 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_reconnecting_client_receives_exactly_what_it_missed_P5(tmp_path, variant):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="ai", variant=variant, level="beginner", color=FIRST[variant])
        with game_socket(client, game["id"]) as (sock, state):
            seen = state["seq"]
            sock.request("move", ply=0, move=state["legal_moves"][0])
            mine = sock.wait_event(lambda e: e["type"] == "move")
            seen, held = mine["seq"], mine["state"]
            reply = sock.state_after_ply(2)
        # the client saw up to ``seen``; meanwhile the AI's events were logged
        with game_socket(client, game["id"], last_seq=seen, holding=held) as (sock2, _):
            missed = sock2.events
            assert [e["seq"] for e in missed] == list(range(seen + 1, reply["seq"] + 1))
            assert missed[-1]["state"]["moves"] == reply["moves"]
        with game_socket(client, game["id"]) as (_, full):
            assert full["seq"] == reply["seq"]
            assert full["moves"] == reply["moves"]
        with game_socket(client, game["id"], last_seq=reply["seq"] + 50) as (sock4, _):
            # a client ahead of the server (e.g. after a database restore) gets the full state
            assert sock4.received[0]["type"] == "state"


@pytest.mark.parametrize("variant", VARIANTS)
def test_undo_takes_back_my_move_and_the_ais_reply_and_marks_practice_P3(tmp_path, variant):
    with server(tmp_path) as (client, ai, _):
        game = create(client, kind="ai", variant=variant, level="beginner", color=FIRST[variant])
        mine = {}
        if variant == "jieqi":  # only face-up pieces: a reveal is final (test_jieqi_undo.py)
            mine = {0: "e1e2", 2: "e2e1"}
            ai.script.update({1: "e10e9", 3: "e9e10"})
        with game_socket(client, game["id"]) as (sock, state):
            for ply in (0, 2):
                sock.request("move", ply=ply, move=mine.get(ply, state["legal_moves"][0]))
                state = sock.state_after_ply(ply + 2)
            assert sock.request("undo")["type"] == "ack"
            undone = sock.wait_event(lambda e: e["type"] == "undo")
            assert undone["state"]["ply"] == 2
            assert undone["state"]["practice"] is True
            assert undone["state"]["turn"] == FIRST[variant]
            sock.request("undo")
            back = sock.wait_event(lambda e: e["type"] == "undo" and e["state"]["ply"] == 0)
            assert back["state"]["practice"] is True
            nothing = sock.request("undo")
            assert nothing["code"] == "nothing_to_undo"
        assert client.get(f"/api/games/{game['id']}").json()["practice"] is True


@pytest.mark.parametrize("variant", VARIANTS)
def test_undo_when_playing_second_keeps_the_ais_opening_move_P3(tmp_path, variant):
    with server(tmp_path) as (client, ai, _):
        mine = None
        if variant == "jieqi":  # only face-up pieces: a reveal is final (test_jieqi_undo.py)
            ai.script.update({0: "e1e2", 2: "e2e1"})
            mine = "e10e9"
        game = create(client, kind="ai", variant=variant, level="beginner", color=SECOND[variant])
        with game_socket(client, game["id"], last_seq=0) as (sock, _):
            state = sock.state_after_ply(1)
            opening = state["moves"][0]
            sock.request("move", ply=1, move=mine or state["legal_moves"][0])
            sock.state_after_ply(3)
            sock.request("undo")
            undone = sock.wait_event(lambda e: e["type"] == "undo")
            assert undone["state"]["moves"] == [opening]
            assert undone["state"]["practice"]
            assert undone["state"]["turn"] == SECOND[variant]


@pytest.mark.parametrize("variant", VARIANTS)
def test_local_game_undo_takes_back_one_move_and_hint_helps_either_side_P6_A4(tmp_path, variant):
    with server(tmp_path) as (client, ai, _):
        game = create(client, kind="local", variant=variant)
        with game_socket(client, game["id"]) as (sock, state):
            for ply in range(3):
                hint = sock.request("hint")
                assert hint["type"] == "hint"
                assert hint["move"] in state["legal_moves"]
                move = hint["move"]
                if variant == "jieqi" and ply == 2:  # a reveal is final: undo a general's move
                    move = next(m for m in state["legal_moves"] if m.startswith("e1"))
                sock.request("move", ply=ply, move=move)
                state = sock.state_after_ply(ply + 1)
            sock.request("undo")
            undone = sock.wait_event(lambda e: e["type"] == "undo")
            assert undone["state"]["ply"] == 2
            assert undone["state"]["practice"] is False
        assert {job.kind for job in ai.jobs} == {"hint"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_hint_is_for_the_players_own_turn_A4(tmp_path, variant):
    ai = ScriptedAI()
    with server(tmp_path, ai=ai) as (client, _, _):
        game = create(client, kind="ai", variant=variant, level="advanced", color=FIRST[variant])
        with game_socket(client, game["id"]) as (sock, state):
            hint = sock.request("hint")
            assert hint["type"] == "hint"
            assert hint["move"] in state["legal_moves"]
            if variant == "jieqi":
                job = ai.jobs[-1]
                assert job.view is not None
                assert job.view["viewer"] == "red"
                assert "hidden" not in job.view
                assert "arrangement" not in job.view


@pytest.mark.parametrize("accepts", [True, False])
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_draw_offer_is_answered_by_the_ai_A5(tmp_path, variant, accepts):
    ai = ScriptedAI()
    ai.accept_draw = accepts
    with server(tmp_path, ai=ai) as (client, _, _):
        game = create(client, kind="ai", variant=variant, level="beginner", color=FIRST[variant])
        with game_socket(client, game["id"]) as (sock, _):
            assert sock.request("draw_offer")["type"] == "ack"
            if accepts:
                end = sock.wait_event(lambda e: e["type"] == "end")
                assert end["result"] == {"winner": None, "reason": "agreement", "points": None}
                assert end["state"]["status"] == "finished"
                assert end["points_awarded"] == 0
            else:
                declined = sock.wait_event(lambda e: e["type"] == "draw_declined")
                assert declined["state"]["status"] == "ongoing"
        assert [job.side for job in ai.jobs if job.kind == "draw"] == [1]


@pytest.mark.parametrize("variant", VARIANTS)
def test_resignation_loses_and_scores_nothing_E4_P4(tmp_path, variant):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="ai", variant=variant, level="advanced", color=FIRST[variant])
        with game_socket(client, game["id"]) as (sock, _):
            sock.request("resign")
            end = sock.wait_event(lambda e: e["type"] == "end")
            assert end["result"]["winner"] == SECOND[variant]
            assert end["result"]["reason"] == "resignation"
            after = sock.request("move", ply=0, move="h3e3")
            assert after["code"] == "game_over"
        me = client.get("/api/me").json()
        assert me["points"]["ai"] == 0
        assert me["games"][0]["result"]["reason"] == "resignation"
        assert client.get("/api/games/pending").json()["game"] is None


def test_in_a_local_game_the_side_to_move_resigns_P6(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="janggi")
        with game_socket(client, game["id"]) as (sock, _):
            sock.request("resign")
            end = sock.wait_event(lambda e: e["type"] == "end")
            assert end["result"]["winner"] == "han"
            assert end["points_awarded"] == 0


@pytest.mark.parametrize(
    ("level", "points"), [("beginner", 10), ("intermediate", 30), ("advanced", 80)]
)
def test_a_win_scores_by_level_exactly_once_P4(tmp_path, level, points):
    """Janggi: the AI (Cho) passes, the player (Han) passes: points decide, Han wins by the
    1.5 bonus (J6, J8) — a valid win."""
    ai = ScriptedAI()
    ai.script = {0: "pass"}
    with server(tmp_path, ai=ai) as (client, _, _):
        game = create(client, kind="ai", variant="janggi", level=level, color="han")
        with game_socket(client, game["id"], last_seq=0) as (sock, _):
            sock.state_after_ply(1)
            assert sock.request("move", ply=1, move="pass")["type"] == "ack"
            end = sock.wait_event(lambda e: e["type"] == "end")
            assert end["result"]["winner"] == "han"
            assert end["points_awarded"] == points
            assert end["result"]["points"] == {"cho": 72, "han": 73.5}
            # a repeat of the winning move changes nothing and scores nothing more
            assert sock.request("move", ply=1, move="pass")["type"] == "ack"
        me = client.get("/api/me").json()
        assert me["points"] == {"ai": points, "online": 0}
        assert me["games"][0]["points_awarded"] == points
        assert client.get(f"/api/games/{game['id']}").json()["points_awarded"] == points


def test_a_practice_win_and_a_local_win_score_nothing_P3_P4_P6(tmp_path):
    ai = ScriptedAI()
    ai.script = {0: "pass", 2: "pass"}
    with server(tmp_path, ai=ai) as (client, _, _):
        game = create(client, kind="ai", variant="janggi", level="advanced", color="han")
        with game_socket(client, game["id"], last_seq=0) as (sock, _):
            state = sock.state_after_ply(1)
            move = next(m for m in state["legal_moves"] if m != "pass")
            sock.request("move", ply=1, move=move)
            sock.state_after_ply(3)
            sock.request("undo")
            sock.wait_event(lambda e: e["type"] == "undo")
            sock.request("move", ply=1, move="pass")
            end = sock.wait_event(lambda e: e["type"] == "end")
            assert end["result"]["winner"] == "han"
            assert end["state"]["practice"]
            assert end["points_awarded"] == 0
        local = create(client, kind="local", variant="janggi")
        with game_socket(client, local["id"]) as (sock, _):
            sock.request("move", ply=0, move="pass")
            sock.request("move", ply=1, move="pass")
            assert sock.wait_event(lambda e: e["type"] == "end")["points_awarded"] == 0
        assert client.get("/api/me").json()["points"]["ai"] == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_bad_input_gets_a_clear_error_and_changes_nothing_Z5(tmp_path, variant):
    with server(tmp_path) as (client, _, store):
        game = create(client, kind="local", variant=variant)
        before = store.game(game["id"])
        with game_socket(client, game["id"]) as (sock, _):
            for raw, code in [
                ("{nope", "malformed"),
                ("[1, 2]", "malformed"),
                (json.dumps({"type": "move", "ply": 0, "move": "h3e3"}), "bad_request"),
                (json.dumps({"id": "x" * 65, "type": "ping"}), "bad_request"),
                (json.dumps({"id": "a", "type": "castle"}), "unknown_type"),
                (json.dumps({"id": "b", "type": "move", "ply": -1, "move": "h3e3"}), "bad_request"),
                (
                    json.dumps({"id": "c", "type": "move", "ply": True, "move": "h3e3"}),
                    "bad_request",
                ),
                (json.dumps({"id": "d", "type": "move", "ply": 0}), "bad_request"),
                (
                    json.dumps({"id": "e", "type": "move", "ply": 0, "move": "h" * 5000}),
                    "too_large",
                ),
                (json.dumps({"id": "f", "type": "hello", "last_seq": "x"}), "bad_request"),
            ]:
                sock.send_raw(raw)
                error = sock._next()
                assert error["type"] == "error", raw
                assert error["code"] == code, raw
                assert error["message"]
                assert error["state"]["ply"] == 0
            assert sock.request("ping")["type"] == "pong"  # the connection goes on
        assert store.game(game["id"]) == before


def test_someone_elses_game_socket_is_refused_Z1(tmp_path):
    with server(tmp_path) as (client, _, store):
        game = create(client, kind="local", variant="xiangqi")
        client.cookies.clear()
        client.get("/api/me")  # another player
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            error = ws.receive_json()
            assert error["type"] == "error"
            assert error["code"] == "not_found"
            assert error["state"] is None
        with client.websocket_connect("/ws/games/g_nothing") as ws:
            assert ws.receive_json()["code"] == "not_found"
        assert store.game(game["id"]).moves == []  # type: ignore[union-attr]


def test_jieqi_messages_never_carry_hidden_pieces_until_the_end_Z2_Q5_Q7(tmp_path):
    with server(tmp_path) as (client, ai, store):
        game = create(client, kind="ai", variant="jieqi", level="beginner", color="red")
        secret = store.game(game["id"]).secret  # type: ignore[union-attr]
        assert secret is not None
        arrangement = secret["arrangement"]
        with game_socket(client, game["id"]) as (sock, state):
            for ply in (0, 2, 4):
                sock.request("move", ply=ply, move=state["legal_moves"][0])
                state = sock.state_after_ply(ply + 2)
            sock.request("hint")
            http_state = client.get(f"/api/games/{game['id']}").json()
            for message in [*sock.received, http_state, game]:
                text = json.dumps(message)
                assert arrangement not in text
                assert secret["salt"] not in text
                assert '"hidden"' not in text
                assert '"arrangement"' not in text
            for job in ai.jobs:
                if job.view is not None:
                    assert job.view["viewer"] == "black" or job.kind == "hint"
                    assert "hidden" not in job.view
                    assert "arrangement" not in job.view
            sock.request("resign")
            end = sock.wait_event(lambda e: e["type"] == "end")
        final = end["state"]
        assert final["arrangement"] == arrangement
        assert final["salt"] == secret["salt"]
        assert verify_commitment(final["commitment"], final["arrangement"], final["salt"])
        assert final["commitment"] == game["commitment"]


def test_a_busy_ai_answers_busy_instead_of_stalling(tmp_path):
    ai = ScriptedAI()
    ai.gate = threading.Event()
    with server(tmp_path, ai=ai, max_jobs=1, ai_retry_seconds=0.05) as (client, _, _):
        game = create(client, kind="ai", variant="xiangqi", level="beginner", color="black")
        while not ai.jobs:  # the AI's move holds the only slot
            time.sleep(0.01)
        local = create(client, kind="local", variant="xiangqi")
        with game_socket(client, local["id"]) as (sock, _):
            busy = sock.request("hint")
            assert busy["type"] == "error"
            assert busy["code"] == "busy"
        ai.gate.set()
        with game_socket(client, game["id"], last_seq=0) as (sock, _):
            assert sock.state_after_ply(1)["turn"] == "black"


MATE_IN_ONE = "4k4/8R/9/9/9/9/9/9/9/R2K5 w - - 0 1"  # a1a10 mates (X5)


def _start_from(store, game_id: str, fen: str) -> None:
    """Test surgery: let the stored game start from ``fen`` (everything face up in jieqi)."""
    from dataclasses import replace

    game = store.game(game_id)
    secret = {"arrangement": "", "salt": "0" * 32} if game.variant == "jieqi" else None
    after = replace(game, start_fen=fen, secret=secret, seq=game.seq + 1)
    store.commit_change(game, after, [{"type": "start", "snapshot": {"moves": []}}])


@pytest.mark.parametrize("variant", ["xiangqi", "jieqi"])
def test_checkmating_the_ai_scores_by_level_once_P4_X5(tmp_path, variant):
    ai = ScriptedAI()
    ai.gate = threading.Event()  # the AI would not move anyway: red is to move
    with server(tmp_path, ai=ai) as (client, _, store):
        game = create(client, kind="ai", variant=variant, level="intermediate", color="red")
        _start_from(store, game["id"], MATE_IN_ONE)
        with game_socket(client, game["id"]) as (sock, state):
            assert "a1a10" in state["legal_moves"]
            assert sock.request("move", ply=0, move="a1a10")["type"] == "ack"
            end = sock.wait_event(lambda e: e["type"] == "end")
            assert end["result"] == {"winner": "red", "reason": "checkmate", "points": None}
            assert end["points_awarded"] == 30
        ai.gate.set()
        assert client.get("/api/me").json()["points"]["ai"] == 30
        assert [job.kind for job in ai.jobs if job.kind == "move"] == []


def test_every_open_tab_of_a_game_receives_its_events_P5(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="xiangqi")
        with (
            game_socket(client, game["id"]) as (first, _),
            game_socket(client, game["id"]) as (second, _),
        ):
            first.request("move", ply=0, move="h3e3")
            seen = second.wait_event(lambda e: e["type"] == "move")
            assert seen["move"] == "h3e3"
            assert seen["state"]["ply"] == 1


def test_a_client_that_never_says_hello_still_gets_the_events_of_its_actions(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="xiangqi")
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            sock = GameSocket(ws)
            assert sock.request("move", ply=0, move="h3e3")["type"] == "ack"
            assert sock.wait_event(lambda e: e["type"] == "move")["seq"] == 2


def test_a_failure_inside_the_server_is_an_error_reply_not_a_dropped_connection_Z5(
    tmp_path, monkeypatch
):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="xiangqi")
        service = client.app.state.service  # type: ignore[attr-defined]

        async def broken(*args, **kwargs):
            raise RuntimeError("a bug")

        monkeypatch.setattr(service, "hint", broken)
        with game_socket(client, game["id"]) as (sock, _):
            failed = sock.request("hint")
            assert failed["type"] == "error"
            assert failed["code"] == "internal"
            assert failed["state"]["ply"] == 0
            assert sock.request("move", ply=0, move="h3e3")["type"] == "ack"


def test_undo_while_the_ai_thinks_discards_its_answer_P3(tmp_path):
    ai = ScriptedAI()
    ai.gate = threading.Event()
    with server(tmp_path, ai=ai) as (client, _, store):
        game = create(client, kind="ai", variant="xiangqi", level="beginner", color="red")
        with game_socket(client, game["id"]) as (sock, _):
            sock.request("move", ply=0, move="h3e3")
            sock.wait_event(lambda e: e["type"] == "thinking")
            sock.request("undo")
            undone = sock.wait_event(lambda e: e["type"] == "undo")
            assert undone["state"]["ply"] == 0
            assert not undone["state"]["thinking"]
            ai.gate.set()
            assert client.portal is not None
            client.portal.call(client.app.state.service.wait_for_ai, game["id"])  # type: ignore[attr-defined]
            assert sock.request("move", ply=0, move="b3e3")["type"] == "ack"
        stored = store.game(game["id"])
        assert stored is not None
        assert stored.moves[0] == "b3e3"
        assert stored.practice


def test_the_ais_move_waits_out_a_full_pool_and_says_busy_meanwhile(tmp_path):
    ai = ScriptedAI()
    ai.gate = threading.Event()
    with server(tmp_path, ai=ai, max_jobs=1, ai_retry_seconds=0.05) as (client, _, _):
        # the first game's AI move holds the only slot (its game is then abandoned)
        create(client, kind="ai", variant="xiangqi", level="beginner", color="black")
        while not ai.jobs:  # until that move is in the pool
            time.sleep(0.01)
        game = create(
            client,
            kind="ai",
            variant="xiangqi",
            level="beginner",
            color="black",
            abandon_pending=True,
        )
        with game_socket(client, game["id"]) as (sock, _):
            while True:
                message = sock._next()
                if message["type"] == "busy":
                    break
            assert message["retry_in"] == 0.05
            assert "seq" not in message
            ai.gate.set()
            assert sock.state_after_ply(1)["turn"] == "black"
