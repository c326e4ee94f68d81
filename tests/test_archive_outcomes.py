"""How "My games" names an ending (SPEC B3): a game nobody won is a draw only when it was
drawn. An AI or one-device game whose time ran out (P2: expired), or given up for a new one
(abandoned), is unfinished, and the reason says which, in every language of the site."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from chuhan.rules import make_board
from chuhan.server.records import GameRecord, utcnow
from test_server_support import create, move_clock_past_expiry, server

pytestmark = pytest.mark.timeout(120)
I18N = Path(__file__).resolve().parent.parent / "src" / "chuhan" / "web" / "i18n"


def _archive_by_id(client: Any) -> dict[str, dict[str, Any]]:
    answer = client.get("/api/archive")
    assert answer.status_code == 200, answer.text
    return {game["id"]: game for game in answer.json()["games"]}


def test_expired_ai_and_one_device_games_are_unfinished_not_drawn_B3_P2(tmp_path: Path) -> None:
    with server(tmp_path) as (client, _, store):
        local = create(client, kind="local", variant="xiangqi")["id"]
        played = client.post(f"/api/games/{local}/moves", json={"ply": 0, "move": "h3e3"})
        assert played.status_code == 200, played.text
        ai = create(client, kind="ai", variant="janggi", level="beginner", color="cho")["id"]
        for game_id in (local, ai):
            move_clock_past_expiry(store, game_id)
            assert client.get(f"/api/games/{game_id}").json()["status"] != "ongoing"

        by_id = _archive_by_id(client)

        for game_id in (local, ai):
            entry = by_id[game_id]
            assert entry["status"] == "finished"
            assert entry["reason"] == "expired"
            assert entry["outcome"] == "unfinished", entry  # not "draw"
            assert entry["review"] == f"/review/game/{game_id}"


def test_a_drawn_game_is_still_a_draw_B3(tmp_path: Path) -> None:
    """Only undecided ends changed: a one-device game drawn by agreement keeps "draw"."""
    with server(tmp_path) as (client, _, store):
        me = client.get("/api/me").json()["id"]
        now = utcnow()
        drawn = GameRecord(
            id="g_drawn_local",
            kind="local",
            variant="xiangqi",
            player_id=me,
            start_fen=make_board("xiangqi").fen(),
            moves=["h3e3", "h10g8"],
            status="finished",
            result={"winner": None, "reason": "agreement", "points": None},
            created_at=now,
            expires_at=now + timedelta(days=1),
        )
        store.insert_game(drawn, [{"type": "start"}], [])

        assert _archive_by_id(client)[drawn.id]["outcome"] == "draw"


@pytest.mark.parametrize("language", ["en", "es", "pt"])
def test_unfinished_and_expired_are_said_in_every_language_B3(language: str) -> None:
    texts = json.loads((I18N / f"{language}.json").read_text(encoding="utf-8"))
    unfinished, expired, draw = (
        texts["archive.unfinished"],
        texts["reason.expired"],
        texts["home.game_draw"],
    )
    assert unfinished
    assert expired
    assert unfinished != draw
