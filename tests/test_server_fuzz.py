"""Property-based fuzzing of the game WebSocket (SPEC Z5): whatever a client sends, the
server answers every message, stays up, and a rejected message never changes the game."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chuhan.server.games.changes import ai_to_move
from test_server_support import GameSocket, create, server

pytestmark = pytest.mark.timeout(120)

TYPES = ["hello", "move", "undo", "hint", "ping", "resign", "draw_offer", "castle", "", None]
MOVES = ["h3e3", "h1g3", "b1c3", "a4a5", "e4e5", "pass", "a1a10", "zz", "h3", "", "é9é8"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


@st.composite
def messages(draw: Any) -> str:
    """Mostly well-shaped messages with odd fields, some garbage, some oversized."""
    shape = draw(st.sampled_from(["message", "message", "message", "json", "text", "huge"]))
    if shape == "text":
        return str(draw(st.text(max_size=200)))
    if shape == "json":
        return json.dumps(draw(json_values))
    if shape == "huge":
        return json.dumps({"id": "big", "type": "move", "ply": 0, "move": "x" * 5000})
    message: dict[str, Any] = {
        "id": draw(st.one_of(st.text(min_size=1, max_size=8), st.integers(), st.none())),
        "type": draw(st.sampled_from(TYPES)),
    }
    if draw(st.booleans()):
        message["ply"] = draw(st.one_of(st.integers(-2, 12), st.booleans(), st.text(max_size=3)))
    if draw(st.booleans()):
        message["move"] = draw(
            st.one_of(st.sampled_from(MOVES), st.text(max_size=6), st.integers())
        )
    if draw(st.booleans()):
        message["last_seq"] = draw(st.one_of(st.integers(-1, 40), st.none(), st.text(max_size=3)))
    if draw(st.booleans()):
        message[draw(st.text(max_size=6))] = draw(json_values)
    return json.dumps(message)


def _reply(sock: GameSocket) -> dict[str, Any]:
    while True:
        message = sock._next()
        if "reply_to" in message:
            return message


@pytest.mark.parametrize("kind", ["ai", "local"])
def test_no_message_crashes_the_server_or_changes_a_game_when_rejected_Z5(tmp_path, kind):
    with server(tmp_path) as (client, ai, store):
        ai.accept_draw = False
        game = create(client, kind=kind, variant="xiangqi", level="beginner", color="red")
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            sock = GameSocket(ws)
            sock.hello()

            @settings(
                max_examples=120,
                database=None,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
            )
            @given(raw=messages())
            def one_message(raw: str) -> None:
                before = store.game(game["id"])
                sock.send_raw(raw)
                reply = _reply(sock)
                assert reply["type"] in ("ack", "error", "hint", "pong", "state")
                if reply["type"] == "error":
                    assert reply["code"]
                    assert reply["message"]
                    after = store.game(game["id"])
                    assert after is not None
                    assert before is not None
                    if after != before:  # only the AI, on its own turn, may have moved meanwhile
                        assert kind == "ai"
                        assert ai_to_move(before)
                        assert after.moves[: before.ply] == before.moves
                assert sock.request("ping")["type"] == "pong"

            one_message()
        assert client.get("/health").json()["status"] == "ok"
