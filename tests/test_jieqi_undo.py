"""Undo in jieqi never shows a face-down piece's identity (SPEC P3, Z2, Q3, Q5, Q7).

Taking back a move that turned a piece face up would stand that piece face down again with
its identity known to the player. So such a move (and one that took a face-down piece) is
final: undo is refused with ``undo_reveals`` and the position stays as it is; other moves
are taken back as in xiangqi. The arrangement never changes, so the commitment verifies.
"""

from __future__ import annotations

from chuhan.rules.jieqi import JieqiBoard, verify_commitment
from test_server_support import create, game_socket, server


def face_down_points(fen: str) -> set[str]:
    points = set()
    for index, row in enumerate(fen.split()[0].split("/")):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            if ch in "Xx":
                points.add(f"{'abcdefghi'[file]}{10 - index}")
            file += 1
    return points


def test_a_move_that_turned_a_piece_face_up_cannot_be_taken_back_P3_Z2_Q7(tmp_path):
    with server(tmp_path) as (client, _, store):
        game = create(client, kind="ai", variant="jieqi", level="beginner", color="red")
        with game_socket(client, game["id"]) as (sock, state):
            sock.request("move", ply=0, move="a4a5")  # a face-down soldier-point piece
            state = sock.state_after_ply(2)
            assert "a4" not in face_down_points(state["fen"])
            refused = sock.request("undo")
            assert refused["type"] == "error"
            assert refused["code"] == "undo_reveals"
            after = client.get(f"/api/games/{game['id']}").json()
            assert after["ply"] == 2
            assert after["fen"] == state["fen"]
            assert face_down_points(after["fen"]) == face_down_points(state["fen"])
            sock.request("resign")
            end = sock.wait_event(lambda e: e["type"] == "end")
        final = end["state"]
        assert verify_commitment(final["commitment"], final["arrangement"], final["salt"])
        assert final["commitment"] == game["commitment"]
        assert store.game(game["id"]).moves[0] == "a4a5"  # type: ignore[union-attr]


def test_a_move_of_a_face_up_piece_is_taken_back_as_in_xiangqi_P3(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="jieqi")
        with game_socket(client, game["id"]) as (sock, state):
            start = state["fen"]
            sock.request("move", ply=0, move="e1e2")  # the general starts face up
            sock.state_after_ply(1)
            assert sock.request("undo")["type"] == "ack"
        after = client.get(f"/api/games/{game['id']}").json()
        assert after["ply"] == 0
        assert after["fen"] == start


def test_the_board_says_which_moves_made_a_face_down_piece_known_Z2() -> None:
    board = JieqiBoard(seed=7)
    board.push("e1e2")  # a face-up general
    assert not board.reveals_since(0)
    board.push("a7a6")  # a face-down piece moves: it is seen
    assert board.reveals_since(0)
    assert board.reveals_since(1)
    assert not board.reveals_since(2)
