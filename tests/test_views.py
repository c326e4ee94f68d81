"""games/views.py is the one per-viewer projection (SPEC Z2): what a player may see of a game is
built there and nowhere else, so a secret cannot leak through a second, forgotten copy."""

from __future__ import annotations

import re
from pathlib import Path

from chuhan.server.games import views
from test_server_support import create, server

SERVER = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "server"
# What turns a board into what a player may know: the rules' state and a jieqi view.
PROJECTING = re.compile(r"\bgame_state\(|\.view\(|\.extra_state\(|\bdef state_for\b")
# The AI's own view of its side (A3), and the view a player's game is analysed from: input
# of the engine, never sent to anyone as it is.
NOT_SENT = {
    ("games/service.py", "view = rules_of.board_of(game).view(side)"),
    ("games/analysis.py", "view = board.view(knower, game_over=False)"),
}


def test_no_server_module_but_views_projects_a_game_for_a_player_Z2() -> None:
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        if path.name == "views.py":
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            where = path.relative_to(SERVER).as_posix()
            if PROJECTING.search(line) and (where, line.split("#")[0].strip()) not in NOT_SENT:
                found.append(f"{path.relative_to(SERVER)}: {line.strip()}")
    assert found == [], "build what a player sees in server/games/views.py"


def test_the_http_answers_are_the_projection_of_the_socket_Z2(tmp_path) -> None:
    with server(tmp_path) as (client, _, store):
        game = create(client, kind="ai", variant="jieqi", level="beginner", color="red")
        record = store.game(game["id"])
        assert record is not None
        assert record.secret is not None
        assert game == views.state_for(record, 0)
        assert client.get(f"/api/games/{game['id']}").json() == views.state_for(record, 0)
        assert record.secret["arrangement"] not in client.get("/api/me").text
