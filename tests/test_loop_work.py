"""No route does CPU work on the event loop (SPEC Z7): while one callback replays a game,
every socket of the instance waits.

Every function that replays a game (a board from its moves, a state, a record) is watched
wherever the server's modules hold it: a call made on the thread that runs the event loop
fails the test with the route that made it. Each route the app has is asked for, with the
ids of real games (a finished imported one, an ongoing one on one device), so a new route
that builds a state on the loop is caught without a line added here.
"""

from __future__ import annotations

import asyncio
import functools
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute

from chuhan.rules import make_board
from chuhan.rules.record import write_record
from chuhan.server.games import changes, records_io, views
from chuhan.server.players import archive
from test_server_support import create, server

pytestmark = pytest.mark.timeout(120)
REPLAYS: list[Callable[..., Any]] = [
    changes.board_of,
    views.state_for,
    views.known_board,
    records_io.record_text,
    archive.records_text,
]  # not make_board: a board from a position is no replay
FRONT_END = re.compile(r"^/(play|room|review|games|device|learn)?(/\{rest:path\})?$")


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.fixture
def loop_work(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The replays made on an event loop's thread, as ``"<function> during <request>"``,
    after the list's first item, which names the read being asked for ("": none; a move is
    decided on the loop from the board kept in memory, one move's work)."""
    seen: list[str] = [""]

    def watched(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def on_a_thread(*args: Any, **kwargs: Any) -> Any:
            if seen[0] and _on_loop():
                seen.append(f"{function.__name__} during {seen[0]}")
            return function(*args, **kwargs)

        return on_a_thread

    wrapped = {id(function): watched(function) for function in REPLAYS}
    for name, module in list(sys.modules.items()):
        if not name.startswith("chuhan.server") or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            if id(value) in wrapped and any(value is f for f in REPLAYS):
                monkeypatch.setattr(module, attribute, wrapped[id(value)])
    return seen


def _routes(routes: list[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if hasattr(route, "original_router"):  # an included router
            yield from _routes(route.original_router.routes)
        elif isinstance(route, APIRoute):
            yield route


def _record(plies: int) -> str:
    board = make_board("xiangqi")
    for _ in range(plies):
        board.push(sorted(board.legal_move_texts())[0])
    return write_record(board, "iccs", result="1/2-1/2")


def test_no_route_replays_a_game_on_the_event_loop_Z7(tmp_path, loop_work: list[str]) -> None:
    with server(tmp_path, ops_on_app_port=True) as (client, _, _):
        local = create(client, kind="local", variant="xiangqi")
        for ply, move in enumerate(("h3e3", "h10g8", "e3e7")):
            body = {"move": move, "ply": ply}
            answer = client.post(f"/api/games/{local['id']}/moves", json=body)
            assert answer.status_code in (200, 201), answer.text
        imported = client.post(
            "/api/records", json={"text": _record(40)}, headers={"x-chuhan-client": "t"}
        )
        assert imported.status_code == 201, imported.text
        finished = imported.json()["id"]
        token = client.post(f"/api/games/{finished}/share").json()["token"]
        values = {"game_id": [finished, local["id"]], "token": [token]}
        query = {"move": "h10g8", "notation": "wxf", "format": "pgn"}
        asked = 0
        for route in _routes(client.app.routes):  # type: ignore[attr-defined]
            if "GET" not in (route.methods or set()) or FRONT_END.match(route.path):
                continue
            names = re.findall(r"\{(\w+)\}", route.path)
            for value in values.get(names[0], ["x"]) if names else [""]:
                path = route.path.replace(f"{{{names[0]}}}", value) if names else route.path
                changes.BOARDS._games.clear()  # a cold read: the game is not in memory
                loop_work[0] = f"GET {route.path}"
                answer = client.get(path, params=query)
                assert answer.status_code < 500, (path, answer.text)
                asked += 1
        assert asked >= 15  # every read of the API, each with real games
    assert loop_work[1:] == [], "\n".join(loop_work[1:])
