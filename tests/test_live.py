"""A live game is one tap away (SPEC B5) over HTTP: ``GET /api/live`` names the player's
games in progress — an online game with its room, opponent, turn and deadline; the pending
AI game and a one-device game with the address that resumes them — and forgets a game once
it is over; a live online game's review address leads to its room, never to a read-only
board. A real ``chuhan serve`` (the browser tests' session server)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from rooms_client import Player, RoomSocket

pytest_plugins = ["web_fixtures"]  # the session's server

pytestmark = pytest.mark.timeout(120)


def live(player: Player) -> list[dict[str, Any]]:
    answer = player.http.get("/api/live")
    assert answer.status_code == 200, answer.text
    return list(answer.json()["games"])


def named(url: str, name: str) -> Player:
    player = Player(url)
    assert player.http.patch("/api/me", json={"name": name}).status_code == 200
    return player


def seated_room(url: str, variant: str = "xiangqi") -> tuple[Player, Player, str]:
    """Ana created a room and Ben joined it by its invite link."""
    ana, ben = named(url, "Ana"), named(url, "Ben")
    room = ana.create_room(variant=variant)
    assert ben.join_invite(room["invite"]).status_code == 200
    return ana, ben, room["id"]


def ready(sockets: list[RoomSocket], phase: str = "state") -> None:
    marks = [len(s.messages) for s in sockets]
    for sock in sockets:
        assert sock.request("ready")["type"] == "ack"
    for sock, mark in zip(sockets, marks, strict=True):
        if phase == "state":
            sock.wait_for(lambda m: m.get("type") == "state", start=mark)
        else:
            sock.wait_for(lambda m: m.get("type") == "room" and m["room"]["setup"], start=mark)


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_nothing_is_live_for_a_new_player_and_nobody_is_made_by_asking_B5_S1(
    web_server: str,
) -> None:
    assert live(Player(web_server)) == []
    stranger = httpx.get(f"{web_server}/api/live")
    assert stranger.status_code == 200
    assert stranger.json()["games"] == []
    assert "set-cookie" not in stranger.headers  # the banner never makes an identity


def test_a_room_game_is_live_for_both_players_with_opponent_turn_and_clock_B5(
    web_server: str,
) -> None:
    ana, ben, room_id = seated_room(web_server)
    assert live(ana) == []  # seated, no game yet: nothing to go back to
    sockets = [ana.open(room_id), ben.open(room_id)]
    try:
        ready(sockets)
        game_id = sockets[0].state()["id"]  # type: ignore[index]
        seen = {"Ana": live(ana), "Ben": live(ben)}
        for me, other in (("Ana", "Ben"), ("Ben", "Ana")):
            [entry] = seen[me]
            assert entry["kind"] == "online"
            assert entry["paired"] is False
            assert entry["href"] == f"/room/{room_id}"
            assert entry["game_id"] == game_id
            assert entry["opponent"] == other
            assert entry["variant"] == "xiangqi"
            assert entry["phase"] == "playing"
            assert entry["turn"] == "red"
            assert entry["paused"] is False
            assert entry["plies"] == 0
            # R4: the turn's deadline, as the room keeps it (90 s a move by default).
            left = moment(entry["deadline"]) - datetime.now(UTC)
            assert timedelta(seconds=30) < left <= timedelta(seconds=91)
        assert {seen["Ana"][0]["you"], seen["Ben"][0]["you"]} == {"red", "black"}
        red = sockets[0] if seen["Ana"][0]["you"] == "red" else sockets[1]
        assert red.request("move", ply=0, move="h3e3")["type"] == "ack"
        [after] = live(ana)
        assert after["turn"] == "black"
        assert after["plies"] == 1
        # Over (resigned): nothing is live any more, for either of them.
        assert red.request("resign")["type"] == "ack"
        assert live(ana) == []
        assert live(ben) == []
    finally:
        for sock in sockets:
            sock.close()


def test_both_players_away_the_live_game_says_its_clock_waits_B5_R7(web_server: str) -> None:
    ana, ben, room_id = seated_room(web_server)
    sockets = [ana.open(room_id), ben.open(room_id)]
    ready(sockets)
    assert live(ana)[0]["paused"] is False
    for sock in sockets:  # both pages closed: R7's wait of both players away begins
        sock.close()
    deadline = time.monotonic() + 15
    while not live(ana)[0]["paused"]:
        assert time.monotonic() < deadline, "the clock never said it waits"
        time.sleep(0.2)
    [entry] = live(ben)
    assert entry["paused"] is True
    assert entry["href"] == f"/room/{room_id}"


def test_the_janggi_setup_choice_is_live_on_its_turn_clock_B5_J3(web_server: str) -> None:
    ana, ben, room_id = seated_room(web_server, "janggi")
    sockets = [ana.open(room_id), ben.open(room_id)]
    try:
        ready(sockets, phase="setup")
        [entry] = live(ben)
        assert entry["phase"] == "setup"
        assert entry["turn"] == "han"  # Han chooses first
        assert entry["href"] == f"/room/{room_id}"
        assert entry["opponent"] == "Ana"
        assert moment(entry["deadline"]) > datetime.now(UTC)
    finally:
        for sock in sockets:
            sock.close()


def test_the_ai_game_and_a_one_device_game_are_live_with_their_resume_address_B5_P2(
    web_server: str,
) -> None:
    me = Player(web_server)
    ai = me.http.post(
        "/api/games", json={"kind": "ai", "variant": "janggi", "level": "beginner", "color": "cho"}
    )
    local = me.http.post("/api/games", json={"kind": "local", "variant": "jieqi"})
    assert ai.status_code == 201, (ai.text, local.text)
    assert local.status_code == 201, (ai.text, local.text)
    by_kind = {entry["kind"]: entry for entry in live(me)}
    assert set(by_kind) == {"ai", "local"}
    ai_id, local_id = ai.json()["id"], local.json()["id"]
    assert by_kind["ai"]["href"] == f"/play/ai?variant=janggi&game={ai_id}&level=beginner"
    assert by_kind["ai"]["you"] == "cho"
    assert by_kind["ai"]["level"] == "beginner"
    assert by_kind["local"]["href"] == f"/play/local?variant=jieqi&game={local_id}"
    # Z2: nothing of the jieqi arrangement.
    assert "arrangement" not in me.http.get("/api/live").text
    again = {"kind": "ai", "variant": "xiangqi", "level": "beginner", "abandon_pending": True}
    assert me.http.post("/api/games", json=again).status_code == 201
    kinds = [(entry["kind"], entry["variant"]) for entry in live(me)]
    assert ("ai", "janggi") not in kinds
    assert ("ai", "xiangqi") in kinds


def test_a_live_online_game_in_my_games_and_its_review_address_lead_to_its_room_B5(
    web_server: str,
) -> None:
    ana, ben, room_id = seated_room(web_server)
    sockets = [ana.open(room_id), ben.open(room_id)]
    try:
        ready(sockets)
        game_id = sockets[0].state()["id"]  # type: ignore[index]
        answer = ana.http.get(f"/api/archive/games/{game_id}")
        assert answer.status_code == 409, answer.text
        error = answer.json()["error"]
        assert error["code"] == "game_ongoing"
        assert error["room"] == f"/room/{room_id}"
        # My games lists it first, linking to its room, not to a review.
        [listed] = [g for g in ana.http.get("/api/archive").json()["games"] if g["id"] == game_id]
        assert listed["outcome"] == "ongoing"
        assert listed["kind"] == "room"
        assert listed["room"] == f"/room/{room_id}"
        assert "review" not in listed
        assert listed["opponent"] == {"type": "player", "name": "Ben"}
        # Once over, the same address is its review.
        assert sockets[0].request("resign")["type"] == "ack"
        assert ana.http.get(f"/api/archive/games/{game_id}").json()["id"] == game_id
    finally:
        for sock in sockets:
            sock.close()
