"""The real engine in the real worker pool behind the app (SPEC A1–A3, P1), all variants."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from chuhan.rules import make_board
from chuhan.rules.janggi import SETUPS
from chuhan.server import Settings, create_app
from chuhan.server.ai.pool import AIPool
from test_server_support import GameSocket

pytestmark = pytest.mark.timeout(120)


def test_the_real_ai_plays_every_variant_from_its_worker_processes_A3_P1(tmp_path):
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path}/db.sqlite3")
    pool = AIPool(workers=1, max_jobs=4)
    with TestClient(create_app(settings, pool=pool)) as client:
        client.get("/api/me").raise_for_status()  # the first visit: the player identity (Z6)
        for variant, color in (("xiangqi", "black"), ("janggi", "han"), ("jieqi", "black")):
            answer = client.post(
                "/api/games",
                json={
                    "kind": "ai",
                    "variant": variant,
                    "level": "beginner",
                    "color": color,
                    "setup": "HEHE",
                    "abandon_pending": True,
                },
            )
            assert answer.status_code == 201, answer.text
            game = answer.json()
            if variant == "janggi":
                assert game["options"]["setup"]["han"] == "HEHE"
                assert game["options"]["setup"]["cho"] in SETUPS
            with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
                sock = GameSocket(ws)
                sock.hello(0)
                state = sock.state_after_ply(1)
                assert state["turn"] == color
                assert state["legal_moves"]
                if variant != "jieqi":  # jieqi: the AI's first move turns a piece face up
                    board = make_board(
                        variant,
                        **(
                            {"setup": f"{game['options']['setup']['cho']}:HEHE"}
                            if variant == "janggi"
                            else {}
                        ),
                    )
                    assert state["moves"][0] in board.legal_move_texts()
                sock.request("move", ply=1, move=state["legal_moves"][0])
                assert sock.state_after_ply(3)["turn"] == color
    assert pool.pending == 0
