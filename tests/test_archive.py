"""A player's archive over HTTP (SPEC B3): every kind of game, newest first, with
filters and pages, each opening its review; all of them as one PGN file that re-imports;
only public facts (Z2). A real app (lifespan, migrations, SQLite) with a scripted AI."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chuhan.rules import make_board
from chuhan.rules.record import read_records
from chuhan.server.db.store import Store
from chuhan.server.records import GameOptions, GameRecord, GameStatus, utcnow
from test_record import PLAYED_ON
from test_server_support import create, server

pytestmark = pytest.mark.timeout(120)
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]
OPENING = ["h3e3", "h10g8", "b1c3", "b10c8"]


def _play_local(client: TestClient, moves: list[str], variant: str = "xiangqi") -> dict[str, Any]:
    game = create(client, kind="local", variant=variant)
    for ply, move in enumerate(moves):
        answer = client.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
        assert answer.status_code == 200, answer.text
        game = answer.json()["state"]
    return game


def _identity(client: TestClient) -> tuple[str, dict[str, str]]:
    """A fresh player (as a browser: a page read first), its id and cookies."""
    client.cookies.clear()
    player_id = client.get("/api/me").json()["id"]
    return player_id, dict(client.cookies)


def _as(client: TestClient, cookies: dict[str, str]) -> None:
    client.cookies.clear()
    client.cookies.update(cookies)


def _online(
    store: Store,
    red: str,
    black: str,
    *,
    paired: bool,
    variant: str = "xiangqi",
    moves: list[str] | None = None,
    status: GameStatus = "finished",
    winner: str | None = "red",
    minutes_ago: float = 0,
) -> str:
    """An online game between two players, stored as a room stores one."""
    board = make_board(variant, seed=11) if variant == "jieqi" else make_board(variant)
    secret = None
    if variant == "jieqi":
        arrangement, salt = board.reveal()  # type: ignore[attr-defined]
        secret = {"arrangement": arrangement, "salt": salt}
    now = utcnow() - timedelta(minutes=minutes_ago)
    options: GameOptions = {"rules": "casual"}
    if paired:
        options["paired"] = True
        options["rated"] = {
            "counted": True,
            "red": {"before": 1500, "after": 1662, "delta": 162, "provisional": True},
            "black": {"before": 1500, "after": 1338, "delta": -162, "provisional": True},
        }
    game = GameRecord(
        id=f"g_online_{variant}_{int(minutes_ago * 10)}_{int(paired)}",
        kind="online",
        variant=variant,
        options=options,
        secret=secret,
        start_fen=make_board(variant).fen(),
        moves=list(OPENING if moves is None else moves),
        status=status,
        result=None if status == "ongoing" else {"winner": winner, "reason": "resignation"},
        created_at=now,
        expires_at=now + timedelta(days=1),
        updated_at=now,
    )
    store.insert_game(game, [{"type": "start"}], [(red, 0), (black, 1)])
    return game.id


def by_id_of(games: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {game["id"]: game for game in games}


def _archive(client: TestClient, **params: Any) -> dict[str, Any]:
    answer = client.get("/api/archive", params=params)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_my_games_lists_every_kind_newest_first_each_opening_its_review_B3(tmp_path):
    with server(tmp_path) as (client, _, store):
        friend, friend_cookies = _identity(client)
        client.patch("/api/me", json={"name": "Lin"})
        me, my_cookies = _identity(client)
        paired = _online(store, me, friend, paired=True, minutes_ago=30)
        room = _online(store, friend, me, paired=False, winner="red", minutes_ago=20)
        local = _play_local(client, CANNON_MATE)["id"]
        imported = client.post("/api/records", content=PLAYED_ON.encode()).json()["id"]
        ai = create(client, kind="ai", variant="janggi", level="beginner", color="cho")["id"]
        # Last: while a room game is on, imports are refused (no engine help).
        live_room = _online(store, me, friend, paired=False, status="ongoing", minutes_ago=15)

        games = _archive(client)["games"]

        assert [g["id"] for g in games] == [ai, imported, local, live_room, room, paired]
        # B5: a live room game is listed as going on (with a room, it links there:
        # tests/test_live.py).
        assert by_id_of(games)[live_room]["outcome"] == "ongoing"
        by_id = {g["id"]: g for g in games}
        assert by_id[paired]["kind"] == "paired"
        assert by_id[paired]["outcome"] == "won"
        assert by_id[paired]["opponent"] == {"type": "player", "name": "Lin"}
        assert by_id[paired]["rating"] == {
            "before": 1500,
            "after": 1662,
            "delta": 162,
            "provisional": True,
            "counted": True,
        }
        assert by_id[room]["kind"] == "room"
        assert by_id[room]["side"] == "black"
        assert by_id[room]["outcome"] == "lost"
        assert by_id[room]["reason"] == "resignation"
        assert by_id[room]["rating"] is None
        assert by_id[local]["opponent"] == {"type": "local"}
        assert by_id[local]["outcome"] == "red"
        assert by_id[local]["reason"] == "checkmate"
        assert by_id[imported]["opponent"] == {
            "type": "record",
            "first": None,
            "second": None,
            "event": "俱乐部快棋赛",
        }
        assert by_id[imported]["outcome"] == "draw"
        # The unfinished AI game links back to the game; every finished one to its review.
        assert by_id[ai]["outcome"] == "ongoing"
        assert by_id[ai]["opponent"] == {"type": "ai", "level": "beginner"}
        assert by_id[ai]["resume"] == f"/play/ai?variant=janggi&game={ai}"
        for game_id in (paired, room, local, imported):
            assert by_id[game_id]["review"] == f"/review/game/{game_id}"
            review = client.get(f"/api/archive/games/{game_id}")
            assert review.status_code == 200
            assert review.json()["id"] == game_id
        # An online game's review shows it from the player's side.
        assert client.get(f"/api/archive/games/{room}").json()["you"] == "black"

        # The friend's archive has the online games (the live one too), none of mine.
        _as(client, friend_cookies)
        assert [g["id"] for g in _archive(client)["games"]] == [live_room, room, paired]
        assert client.get(f"/api/archive/games/{local}").status_code == 404
        _as(client, my_cookies)


def test_my_games_filter_by_variant_and_kind_and_page_B3(tmp_path, database):
    with server(tmp_path, database=database) as (client, _, store):
        friend, _ = _identity(client)
        me, _ = _identity(client)
        paired = _online(store, me, friend, paired=True, minutes_ago=9)
        room = _online(store, me, friend, paired=False, minutes_ago=8)
        locals_ = [_play_local(client, CANNON_MATE)["id"] for _ in range(3)]
        janggi = _play_local(client, ["e4e5", "e7e6", "pass", "pass"], variant="janggi")["id"]

        assert [g["id"] for g in _archive(client, kind="paired")["games"]] == [paired]
        assert [g["id"] for g in _archive(client, kind="room")["games"]] == [room]
        assert [g["id"] for g in _archive(client, variant="janggi")["games"]] == [janggi]
        assert _archive(client, variant="jieqi")["games"] == []
        assert [g["id"] for g in _archive(client, variant="xiangqi", kind="local")["games"]] == (
            locals_[::-1]
        )

        # Pages of two, each starting where the last one ended, the last with no next.
        seen: list[str] = []
        cursor = None
        for _ in range(4):
            page = _archive(client, limit=2, **({"before": cursor} if cursor else {}))
            assert len(page["games"]) <= 2
            seen += [g["id"] for g in page["games"]]
            cursor = page["next"]
            if cursor is None:
                break
        assert seen == [janggi, *locals_[::-1], room, paired]
        assert cursor is None

        too_many = client.get("/api/archive", params={"limit": 51})
        assert too_many.status_code in (400, 422)
        bad = client.get("/api/archive", params={"before": "yesterday|g_1"})
        assert bad.status_code == 400
        assert bad.json()["error"]["code"] == "bad_request"
        assert client.get("/api/archive", params={"kind": "tournament"}).status_code in (400, 422)


def test_download_all_my_games_as_one_pgn_that_reimports_B3(tmp_path):
    with server(tmp_path) as (client, _, store):
        friend, friend_cookies = _identity(client)
        client.patch("/api/me", json={"name": "Lin"})
        me, _ = _identity(client)
        client.patch("/api/me", json={"name": "Ana"})
        _online(store, me, friend, paired=True, minutes_ago=5)
        local = _play_local(client, CANNON_MATE)
        janggi = _play_local(client, ["e4e5", "e7e6", "pass", "pass"], variant="janggi")
        imported = client.post("/api/records", content=PLAYED_ON.encode()).json()
        create(client, kind="ai", variant="xiangqi", level="beginner", color="red")  # unfinished

        answer = client.get("/api/archive/records")

        assert answer.status_code == 200
        assert "attachment" in answer.headers["content-disposition"]
        assert answer.headers["x-archive-games"] == "4"
        text = answer.text
        records = read_records(text)  # every game reads back, in the file's order
        assert [[str(m) for m in r.moves] for r in records] == [
            imported["moves"],
            janggi["moves"],
            local["moves"],
            OPENING,
        ]
        assert text.count('[Format "ICCS"]') == 4  # ICCS by default, janggi too
        assert '[Red "Ana"]' in text
        assert '[Black "Lin"]' in text  # the paired game's players
        assert records[3].tags.get("Red") == "Ana"
        assert '[Event "俱乐部快棋赛"]' in text  # an imported record keeps its tags

        korean = client.get("/api/archive/records", params={"notation": "korean"}).text
        assert korean.count('[Format "Korean"]') == 1
        assert korean.count('[Format "ICCS"]') == 3
        assert len(read_records(korean)) == 4
        wxf = client.get("/api/archive/records", params={"notation": "wxf"}).text
        assert wxf.count('[Format "WXF"]') == 3
        assert wxf.count('[Format "ICCS"]') == 1
        only_janggi = client.get("/api/archive/records", params={"variant": "janggi"}).text
        assert len(read_records(only_janggi)) == 1
        assert client.get("/api/archive/records", params={"notation": "klingon"}).status_code in (
            400,
            422,
        )
        _as(client, friend_cookies)
        assert len(read_records(client.get("/api/archive/records").text)) == 1


def test_a_jieqi_game_shows_only_public_facts_in_the_archive_Z2_B3(tmp_path):
    with server(tmp_path) as (client, _, store):
        friend, _ = _identity(client)
        me, _ = _identity(client)
        live = _online(
            store,
            me,
            friend,
            paired=True,
            variant="jieqi",
            status="ongoing",
            moves=["a1a2"],
            minutes_ago=3,
        )
        done = _online(
            store, me, friend, paired=True, variant="jieqi", moves=["a1a2", "a10a9"], minutes_ago=4
        )
        secret = store.game(live)
        assert secret is not None
        assert secret.secret is not None
        answer = client.get("/api/archive")
        assert [g["id"] for g in answer.json()["games"]] == [live, done]  # B5: live too
        assert secret.secret["salt"] not in answer.text
        assert "arrangement" not in answer.text


def test_a_download_holds_at_most_the_newest_max_download_games_and_says_so_B3_Z7(
    tmp_path, monkeypatch
):
    from chuhan.server.players import archive

    monkeypatch.setattr(archive, "MAX_DOWNLOAD", 3)
    with server(tmp_path) as (client, _, _):
        client.get("/api/me")
        played = [_play_local(client, CANNON_MATE)["id"] for _ in range(4)]
        answer = client.get("/api/archive/records")
        assert answer.headers["x-archive-games"] == "3"
        assert answer.headers["x-archive-truncated"] == "1"
        assert len(read_records(answer.text)) == 3
        # The archive's own order, newest first (the download keeps the newest MAX_DOWNLOAD).
        dates = client.get("/api/archive", params={"limit": 4}).json()["games"]
        assert [g["id"] for g in dates] == played[::-1]
        one = client.get("/api/archive/records", params={"kind": "local", "variant": "janggi"})
        assert one.headers["x-archive-truncated"] == "0"
        assert one.text == ""
