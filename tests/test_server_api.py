"""The HTTP API: players (S1), creating and resuming games (P1, P2, P6), the front end.

Every test runs a real app (lifespan, migrations, SQLite) with a scripted AI.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from chuhan.rules.janggi import SETUPS
from chuhan.server.db.tables import players
from test_server_support import create, move_clock_past_expiry, server

pytestmark = pytest.mark.timeout(60)


def test_first_visit_creates_a_player_with_a_secure_cookie_stored_hashed_S1(tmp_path):
    with server(tmp_path, visit=False) as (client, _, store):
        answer = client.get("/api/me")
        assert answer.status_code == 200
        cookie = answer.headers["set-cookie"]
        assert "chuhan_player=" in cookie
        assert "HttpOnly" in cookie
        assert "samesite=lax" in cookie.lower()
        token = client.cookies["chuhan_player"]
        me = answer.json()
        assert me["points"] == {"ai": 0, "online": 0}
        assert me["games"] == []
        with store.engine.connect() as conn:
            stored = conn.execute(select(players.c.token_hash)).scalars().all()
        assert len(stored) == 1
        assert token not in stored[0]
        assert len(stored[0]) == 64
        # the same cookie is the same player; no second player is made
        again = client.get("/api/me")
        assert again.json()["id"] == me["id"]
        assert "set-cookie" not in again.headers


def test_display_name_can_be_set_and_bad_names_are_refused_S1(tmp_path):
    with server(tmp_path) as (client, _, _):
        assert client.patch("/api/me", json={"name": "  Lin   Wei "}).json()["name"] == "Lin Wei"
        assert client.get("/api/me").json()["name"] == "Lin Wei"
        refused = client.patch("/api/me", json={"name": "x" * 41})
        assert refused.status_code == 422
        assert refused.json()["error"]["code"] == "invalid_request"
        assert client.get("/api/me").json()["name"] == "Lin Wei"


def test_a_stranger_cannot_see_someone_elses_game_Z1(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="xiangqi")
        client.cookies.clear()  # a stranger, with their own identity (their first visit's)
        client.get("/api/me").raise_for_status()
        answer = client.get(f"/api/games/{game['id']}")
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "not_found"
        moved = client.post(f"/api/games/{game['id']}/moves", json={"ply": 0, "move": "h3e3"})
        assert moved.status_code == 404


@pytest.mark.parametrize(
    ("variant", "color", "you"),
    [
        ("xiangqi", "red", "red"),
        ("xiangqi", "black", "black"),
        ("janggi", "cho", "cho"),
        ("janggi", "han", "han"),
        ("jieqi", "red", "red"),
        ("jieqi", "black", "black"),
    ],
)
def test_create_an_ai_game_with_variant_level_and_colour_P1(tmp_path, variant, color, you):
    with server(tmp_path) as (client, _, _):
        state = create(client, kind="ai", variant=variant, level="intermediate", color=color)
        assert state["variant"] == variant
        assert state["level"] == "intermediate"
        assert state["you"] == you
        assert state["status"] == "ongoing"
        assert state["ply"] == 0
        assert state["practice"] is False
        own_turn = state["turn"] == you
        assert bool(state["legal_moves"]) == own_turn
        assert state["thinking"] is not own_turn


def test_random_colour_gives_either_side_P1(tmp_path):
    seen = set()
    with server(tmp_path) as (client, _, _):
        for _ in range(16):
            state = create(
                client,
                kind="ai",
                variant="xiangqi",
                level="beginner",
                color="random",
                abandon_pending=True,
            )
            seen.add(state["you"])
    assert seen == {"red", "black"}


@pytest.mark.parametrize("you", ["cho", "han"])
def test_janggi_player_setup_is_kept_and_the_ai_chooses_its_own_P1_J3(tmp_path, you):
    with server(tmp_path) as (client, ai, _):
        ai.setup = "EHEH"
        state = create(
            client,
            kind="ai",
            variant="janggi",
            level="beginner",
            color=you,
            setup="HEHE",
            bikjang="points",
        )
        other = "han" if you == "cho" else "cho"
        assert state["options"]["setup"] == {you: "HEHE", other: "EHEH"}
        assert state["options"]["bikjang"] == "points"
        assert [job.kind for job in ai.jobs][:1] == ["setup"]
        assert ai.jobs[0].side == (1 if you == "cho" else 0)
        # Han chooses first; Cho (here the AI when the player is Han) sees Han's choice
        expected = {"opponent_setup": "HEHE"} if you == "han" else {}
        assert ai.jobs[0].options == expected


def test_bad_creation_requests_get_clear_errors_Z5(tmp_path):
    with server(tmp_path) as (client, _, _):
        for body in (
            {"kind": "ai", "variant": "chess", "level": "beginner"},
            {"kind": "ai", "variant": "xiangqi", "level": "grandmaster"},
            {"kind": "ai", "variant": "janggi", "level": "beginner", "setup": "HHEE"},
        ):
            answer = client.post("/api/games", json=body)
            assert answer.status_code == 422, body
            assert answer.json()["error"]["code"] == "invalid_request"
        for body in (
            {"kind": "ai", "variant": "xiangqi"},  # no level
            {"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "cho"},
        ):
            answer = client.post("/api/games", json=body)
            assert answer.status_code == 400, body
            assert answer.json()["error"]["code"] == "bad_request"
        assert client.get("/api/me").json()["games"] == []


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_one_pending_ai_game_another_needs_confirmation_P2(tmp_path, variant):
    with server(tmp_path) as (client, _, _):
        first = create(client, kind="ai", variant=variant, level="beginner", color="random")
        assert client.get("/api/games/pending").json()["game"]["id"] == first["id"]
        refused = client.post(
            "/api/games", json={"kind": "ai", "variant": variant, "level": "advanced"}
        )
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "pending_game"
        assert refused.json()["error"]["pending"]["id"] == first["id"]
        # local games do not count as pending AI games
        create(client, kind="local", variant=variant)
        second = create(client, kind="ai", variant=variant, level="advanced", abandon_pending=True)
        assert client.get("/api/games/pending").json()["game"]["id"] == second["id"]
        old = client.get(f"/api/games/{first['id']}").json()
        assert old["status"] == "finished"
        assert old["result"]["reason"] == "abandoned"
        assert old["points_awarded"] == 0
        assert client.get("/api/me").json()["points"]["ai"] == 0


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_game_is_resumable_until_it_expires_and_then_scores_nothing_P2(tmp_path, variant):
    with server(tmp_path) as (client, _, store):
        state = create(client, kind="ai", variant=variant, level="beginner", color="random")
        created, expires = state["created_at"], state["expires_at"]
        # reopening does not extend the limit
        again = client.get(f"/api/games/{state['id']}").json()
        assert again["expires_at"] == expires
        assert again["created_at"] == created
        game = store.game(state["id"])
        assert game is not None
        assert game.expires_at - game.created_at == timedelta(hours=24)
        move_clock_past_expiry(store, state["id"])
        expired = client.get(f"/api/games/{state['id']}").json()
        assert expired["status"] == "finished"
        assert expired["result"]["reason"] == "expired"
        assert expired["points_awarded"] == 0
        assert client.get("/api/games/pending").json()["game"] is None
        create(client, kind="ai", variant=variant, level="beginner")  # no confirmation needed


def test_game_expiry_can_be_shortened_for_tests(tmp_path):
    with server(tmp_path, game_ttl_seconds=60) as (client, _, store):
        state = create(client, kind="local", variant="xiangqi")
        game = store.game(state["id"])
        assert game is not None
        assert game.expires_at - game.created_at == timedelta(seconds=60)


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_local_game_both_sides_move_over_http_and_it_is_saved_P6(tmp_path, variant):
    with server(tmp_path) as (client, ai, _):
        state = create(client, kind="local", variant=variant, setup="HEHE", setup_other="EHHE")
        assert state["you"] is None
        assert state["level"] is None
        assert not state["thinking"]
        for ply in range(4):
            move = sorted(state["legal_moves"])[0]
            answer = client.post(
                f"/api/games/{state['id']}/moves", json={"ply": ply, "move": move, "id": f"c{ply}"}
            )
            assert answer.status_code == 200, answer.text
            assert answer.json()["type"] == "ack"
            assert answer.json()["ply"] == ply
            state = answer.json()["state"]
        assert state["ply"] == 4
        assert state["legal_moves"]
        assert client.get(f"/api/games/{state['id']}").json()["moves"] == state["moves"]
        assert [job for job in ai.jobs if job.kind == "move"] == []
        if variant == "janggi":
            assert state["options"]["setup"] == {"cho": "HEHE", "han": "EHHE"}


def test_the_state_writes_janggi_moves_in_korean_and_xiangqi_in_wxf_and_chinese_N1_N3(tmp_path):
    """U6: the move list's notations come with the state; janggi's is Korean (a pass: 한수쉼)."""
    with server(tmp_path) as (client, _, _):
        janggi = create(client, kind="local", variant="janggi", setup="HEHE", setup_other="HEHE")
        url = f"/api/games/{janggi['id']}/moves"
        client.post(url, json={"ply": 0, "move": "a4a5"})
        state = client.post(url, json={"ply": 1, "move": "pass"}).json()["state"]
        assert state["notation"] == {"korean": ["71卒61", "한수쉼"]}
        xiangqi = create(client, kind="local", variant="xiangqi")
        url = f"/api/games/{xiangqi['id']}/moves"
        state = client.post(url, json={"ply": 0, "move": "h3e3"}).json()["state"]
        assert state["notation"] == {"wxf": ["C2.5"], "chinese": ["炮二平五"]}


def test_http_move_errors_carry_the_current_state_Z5(tmp_path):
    with server(tmp_path) as (client, _, _):
        state = create(client, kind="local", variant="xiangqi")
        url = f"/api/games/{state['id']}/moves"
        illegal = client.post(url, json={"ply": 0, "move": "a1a5"})
        assert illegal.status_code == 409
        assert illegal.json()["error"]["code"] == "illegal_move"
        assert illegal.json()["error"]["state"]["ply"] == 0
        stale = client.post(url, json={"ply": 3, "move": "h3e3"})
        assert stale.json()["error"]["code"] == "stale_move"
        garbage = client.post(
            url, content=b"{not json", headers={"content-type": "application/json"}
        )
        assert garbage.status_code == 422
        assert client.get(f"/api/games/{state['id']}").json()["ply"] == 0


def test_analysis_gives_the_real_legal_moves():
    from fastapi.testclient import TestClient

    from chuhan.server import Settings, create_app

    with TestClient(create_app(Settings(database_url="sqlite://"))) as client:
        answer = client.post("/api/analysis/moves", json={"variant": "xiangqi"})
        assert len(answer.json()["legal_moves"]) == 44
        assert answer.json()["in_check"] is False
        janggi = client.post(
            "/api/analysis/moves", json={"variant": "janggi", "setup": "HEHE:EHEH"}
        )
        assert "pass" in janggi.json()["legal_moves"]
        bad = client.post("/api/analysis/moves", json={"variant": "xiangqi", "fen": "nonsense"})
        assert bad.status_code == 400
        assert bad.json()["error"]["code"] == "bad_request"


def test_health_openapi_and_the_single_page_front_end(tmp_path):
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "index.html").write_text("<!doctype html><title>Chu-Han</title>")
    (web / "js" / "app.js").write_text("console.log('hi')")
    with server(tmp_path, web_dir=web, ops_on_app_port=True) as (client, _, _):
        health = client.get("/health").json()
        assert health["status"] == "ok"
        assert health["db"] == "ok"
        schema = client.get("/openapi.json").json()
        assert {"/api/me", "/api/games", "/api/games/pending"} <= set(schema["paths"])
        for path in ("/", "/play/ai", "/play/local", "/room/abc"):
            page = client.get(path)
            assert page.status_code == 200, path
            assert "Chu-Han" in page.text, path
            assert page.headers["content-type"].startswith("text/html")
        assert client.get("/static/js/app.js").text == "console.log('hi')"
        for path, target in (
            ("/learn", "/static/learn/index.html"),
            ("/learn/", "/static/learn/index.html"),
            ("/learn/rules/xiangqi", "/static/learn/index.html#/rules/xiangqi"),
        ):
            moved = client.get(path, follow_redirects=False)
            assert moved.status_code == 307
            assert moved.headers["location"] == target
        missing = client.get("/api/nothing")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"


def test_the_home_and_learn_pages_are_served_with_their_shared_head_and_top_bar(tmp_path):
    with server(tmp_path) as (client, _, _):
        for path in ("/", "/play/ai", "/static/index.html", "/static/learn/index.html"):
            page = client.get(path)
            assert page.status_code == 200, path
            assert page.headers["content-type"].startswith("text/html")
            assert "#include" not in page.text
            assert '<link rel="stylesheet" href="/static/css/app.css">' in page.text
            assert '<div id="topbar-tools" class="topbar-tools"></div>' in page.text
            again = client.get(path, headers={"If-None-Match": page.headers["etag"]})
            assert again.status_code == 304, path
        assert "learn.css" in client.get("/static/learn/index.html").text


def test_janggi_setups_are_the_four_of_J3():
    assert set(SETUPS) == {"HEHE", "EHEH", "HEEH", "EHHE"}


def test_simultaneous_creations_leave_one_pending_game_P2(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with server(tmp_path) as (client, _, store):
        client.get("/api/me")
        body = {"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
        with ThreadPoolExecutor(4) as threads:
            answers = list(threads.map(lambda _: client.post("/api/games", json=body), range(4)))
        assert sorted(a.status_code for a in answers) == [201, 409, 409, 409]
        player_id = client.get("/api/me").json()["id"]
        assert len(store.ongoing_games(player_id, "ai")) == 1
