"""The HTTP API says no in one shape (SPEC Z5; docs/protocol.md, HTTP errors).

Whichever router, dependency or guard refuses, the answer is ``{"error": {"code",
"message", …fields}}`` with its code's status (``protocol.HTTP_ERRORS``) and the fields the
docs name for that code inside ``error``, nothing beside it; ``retry_after`` is also the
``Retry-After`` header. One real app (lifespan, migrations, SQLite), a scripted AI.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from chuhan.server.protocol.errors import HTTP_ERRORS, http_status
from chuhan.server.rules_config import CreationLimits
from test_server_support import create, server

pytestmark = pytest.mark.timeout(120)
SRC = Path(__file__).resolve().parents[1] / "src"
ENTRY_POINTS = {"chuhan.server", "chuhan.server.run"}  # the modules that build the app


def _check_shape(answer: Any, status: int, code: str) -> dict[str, Any]:
    """One refusal in the one shape; returns its ``error``."""
    assert answer.status_code == status, (code, answer.text)
    body = answer.json()
    assert set(body) == {"error"}, body  # nothing beside the error
    error = body["error"]
    assert error["code"] == code, body
    assert isinstance(error["message"], str)
    assert error["message"]
    if code != "http_error":  # Starlette's own (405…) keep their status
        assert answer.status_code == http_status(code)
    documented = HTTP_ERRORS[code].fields if code in HTTP_ERRORS else ()
    assert set(documented) <= set(error), (code, error)  # the fields the docs promise
    if "retry_after" in error:
        assert error["retry_after"] >= 1
        assert int(answer.headers["retry-after"]) == error["retry_after"]
    return dict(error)


def test_every_refusal_of_every_router_has_the_one_error_shape(tmp_path: Path) -> None:
    one_new_player = CreationLimits(players_per_address=1)
    with server(tmp_path, max_body_bytes=4096, creation=one_new_player) as (client, _, _):
        game = create(client, kind="local", variant="xiangqi")
        create(client, kind="ai", variant="xiangqi", level="beginner")
        cases: list[tuple[str, str, dict[str, Any], int, str]] = [
            ("GET", "/api/no-such-route", {}, 404, "not_found"),
            ("DELETE", "/api/me", {}, 405, "http_error"),
            ("GET", "/api/games/g_nobody", {}, 404, "not_found"),
            ("POST", "/api/games", {"json": {"variant": "chess"}}, 422, "invalid_request"),
            (
                "POST",
                "/api/games",
                {"json": {"kind": "ai", "color": "cho", "level": "beginner"}},
                400,
                "bad_request",
            ),
            (
                "POST",
                "/api/games",
                {"json": {"kind": "ai", "level": "beginner"}},
                409,
                "pending_game",
            ),
            (
                "POST",
                f"/api/games/{game['id']}/moves",
                {"json": {"ply": 0, "move": "a1a9", "id": "m1"}},
                409,
                "illegal_move",
            ),
            ("PATCH", "/api/me", {"json": {"name": "a\u200bb"}}, 400, "bad_name"),
            (
                "POST",
                "/api/records",
                {"content": b"1. not a move", "headers": {"x-chuhan-client": "test"}},
                400,
                "bad_record",
            ),
            (
                "POST",
                "/api/records",
                {"content": b"1. h2e2", "headers": {"content-type": "text/plain"}},
                415,
                "form_body",
            ),
            ("POST", "/api/records", {"content": b"x" * 5000}, 413, "too_large"),
            (
                "POST",
                "/api/games",
                {"json": {"kind": "local"}, "headers": {"origin": "http://evil.example"}},
                403,
                "foreign_origin",
            ),
            ("GET", "/api/shared/no-such-token", {}, 404, "not_found"),
            ("GET", "/api/archive?before=nonsense", {}, 400, "bad_request"),
            ("POST", "/api/rooms", {"json": {"password": "1"}}, 400, "bad_password"),
            ("POST", "/api/rooms/join", {"json": {"password": "Nobody42x"}}, 404, "wrong_password"),
            ("POST", "/api/rooms/invite/no-such-invite", {}, 404, "not_found"),
            ("GET", "/api/rooms/r_nowhere", {}, 404, "not_found"),
        ]
        errors = {}  # by code: the fields of the codes met once are checked below
        for method, path, options, status, code in cases:
            errors[code] = _check_shape(client.request(method, path, **options), status, code)
        assert errors["pending_game"]["pending"]["kind"] == "ai"  # the pending game (P2)
        move = errors["illegal_move"]  # as the socket's move error: the state now
        assert move["reply_to"] == "m1"
        assert move["state"]["ply"] == 0
        assert errors["bad_name"]["reason"] == "invisible"
        assert errors["bad_password"]["reason"] == "length"
        assert errors["wrong_password"]["tries_left"] >= 0
        assert "line" in errors["bad_record"]
        client.cookies.clear()  # a stranger: no cookie
        _check_shape(client.get("/api/rooms/r_nowhere"), 401, "no_player")
        # The address block made its one player (the first visit): 429, and no cookie.
        refused = client.get("/api/me")
        assert "set-cookie" not in refused.headers
        assert _check_shape(refused, 429, "too_many_players")["retry_after"] >= 1


def test_no_module_imports_the_app_but_the_entry_points() -> None:
    """create_app only wires: routers, dependencies and handlers live in their own modules,
    so nothing imports app.py back (the app ↔ review cycle was one)."""
    importers = set()
    for path in (SRC / "chuhan").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        package = parts[:-1]  # what a relative import of level 1 names
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join([*base, node.module] if node.module else base)
                names = [f"{target}.{alias.name}" for alias in node.names]
                if "chuhan.server.app" in (target, *names):
                    importers.add(module)
            elif isinstance(node, ast.Import) and any(
                alias.name == "chuhan.server.app" for alias in node.names
            ):
                importers.add(module)
    assert importers <= ENTRY_POINTS, importers - ENTRY_POINTS
