"""A record import never freezes the server (SPEC Z7, N4, Z5).

The audit's attack: one anonymous ``POST /api/records`` of a cycling xiangqi record
(``h1g3 h10g8 g3h1 g8h10`` over and over) held the event loop for minutes, because replay
judged the repetition from scratch at every ply and the answer's state was built on the loop.
A record now holds at most ``MAX_RECORD_PLIES`` half-moves (a clear error past that), the
largest allowed one imports and reviews whole, and every replay it causes (reading, the
state, the positions, the record written back) runs in a worker thread, never on the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from chuhan.rules.record import MAX_RECORD_PLIES, read_record
from chuhan.server.games import changes as rules_of
from chuhan.server.games import records_io, review, views
from test_server_support import server

pytestmark = pytest.mark.timeout(300)
CYCLE = ["h1g3", "h10g8", "g3h1", "g8h10"]  # both horses out and back: the start again


def cycling_record(plies: int) -> str:
    moves = [CYCLE[i % 4] for i in range(plies)]
    numbered = [
        f"{n // 2 + 1}. {moves[n]} {moves[n + 1] if n + 1 < plies else ''}".rstrip()
        for n in range(0, plies, 2)
    ]
    return '[Game "Chinese Chess"]\n[Result "1/2-1/2"]\n\n' + "\n".join(numbered) + "\n"


def test_a_record_past_the_move_cap_is_refused_with_the_cap_and_its_line_z7_z5(tmp_path):
    text = cycling_record(MAX_RECORD_PLIES + 2)
    with server(tmp_path) as (client, _, _):
        client.get("/api/me")
        answer = client.post("/api/records", content=text.encode())
        assert answer.status_code == 413, answer.text[:200]
        error = answer.json()["error"]
        assert error["code"] == "too_many_moves"
        assert str(MAX_RECORD_PLIES) in error["message"]
        # The first half-move past the cap is on the record's last line.
        assert error["line"] == len(text.splitlines())
        assert client.get("/api/me").json()["name_chosen"] is False  # the player, unharmed


def test_the_largest_allowed_record_imports_reviews_and_exports_whole_n4(tmp_path):
    text = cycling_record(MAX_RECORD_PLIES)
    with server(tmp_path) as (client, _, _):
        client.get("/api/me")
        answer = client.post("/api/records", content=text.encode())
        assert answer.status_code == 201, answer.text[:200]
        state = answer.json()
        assert len(state["moves"]) == MAX_RECORD_PLIES
        # Our rules ended it at the position's third occurrence; the record plays on.
        assert state["options"]["rules_end"] == {"ply": 8, "reason": "repetition", "winner": None}
        assert len(state["notation"]["wxf"]) == MAX_RECORD_PLIES
        assert state["notation"]["wxf"][:4] == ["H2+3", "H8+7", "H3-2", "H7-8"]
        positions = client.get(f"/api/games/{state['id']}/positions").json()["positions"]
        assert len(positions) == MAX_RECORD_PLIES + 1
        assert positions[-1]["fen"].split()[:2] == positions[0]["fen"].split()[:2]
        exported = client.get(f"/api/games/{state['id']}/record", params={"notation": "iccs"})
        assert [str(m) for m in read_record(exported.text).moves] == state["moves"]


def test_import_and_every_replay_of_an_imported_game_run_off_the_event_loop_z7(
    tmp_path, monkeypatch
):
    on_loop: list[str] = []

    def watched(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                asyncio.get_running_loop()
                on_loop.append(name)
            except RuntimeError:
                pass  # a worker thread: the loop goes on serving others
            return fn(*args, **kwargs)

        return call

    monkeypatch.setattr(review, "read_record", watched("read_record", read_record))
    monkeypatch.setattr(views, "state_for", watched("state_for", views.state_for))
    monkeypatch.setattr(review, "positions", watched("positions", records_io.positions))
    monkeypatch.setattr(review, "record_text", watched("record_text", records_io.record_text))
    with server(tmp_path) as (client, _, _):
        client.get("/api/me")
        answer = client.post("/api/records", content=cycling_record(400).encode())
        assert answer.status_code == 201, answer.text[:200]
        game_id = answer.json()["id"]
        token = client.post(f"/api/games/{game_id}/share").json()["token"]
        # A cold read (another instance, or after the caches let the game go) replays it.
        rules_of.BOARDS.__init__()  # type: ignore[misc]
        rules_of.NOTATIONS.__init__()  # type: ignore[misc]
        assert client.get(f"/api/games/{game_id}").status_code == 200
        assert client.get(f"/api/shared/{token}").status_code == 200
        assert client.get(f"/api/games/{game_id}/positions").status_code == 200
        assert client.get(f"/api/games/{game_id}/record").status_code == 200
    assert on_loop == []
