"""Online rooms at the protocol level: two players, each with their own cookie and socket,
against a real ``chuhan serve`` (SPEC R1–R8, Z1–Z3, Z5).

Two servers: one with the real timings, one whose clocks and join limits are shortened
through the test-only environment settings (a client can never change them).
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rooms_client import (
    FAST_AWAY,
    FAST_SETTINGS,
    FAST_TURN,
    Player,
    RoomSocket,
    at_ply,
    jieqi_views,
    running_server,
)
from test_rooms_presence import wait_game_over

pytestmark = pytest.mark.timeout(120)

# Ten quiet developing moves, red and black alternating, then a few more.
QUIET = [
    "h1g3",
    "h10g8",
    "b1c3",
    "b10c8",
    "i1h1",
    "i10h10",
    "a1b1",
    "a10b10",
    "g4g5",
    "g7g6",
    "c4c5",
    "c7c6",
    "e4e5",
    "e7e6",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("rooms")
    with running_server(data) as url:
        yield url, data


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("rooms-fast"), **FAST_SETTINGS) as url:
        yield url


def seated_pair(
    url: str, variant: str = "xiangqi", **room: Any
) -> tuple[Player, Player, dict[str, Any]]:
    """Two players seated in a new room (by invite link unless a password is given)."""
    creator, friend = Player(url), Player(url)
    created = creator.create_room(variant=variant, **room)
    if created["access"] == "invite":
        answer = friend.join_invite(created["invite"])
    else:
        answer = friend.join(room["password"])
    assert answer.status_code == 200, answer.text
    return creator, friend, created


def ready_both(first: RoomSocket, second: RoomSocket) -> dict[str, RoomSocket]:
    """Both press ready (R3); returns the sockets by the side each was given."""
    marks = len(first.messages), len(second.messages)
    assert first.request("ready")["type"] == "ack"
    assert second.request("ready")["type"] == "ack"
    states = [
        s.wait_for(lambda m: m.get("type") == "state", start=mark)["state"]
        for s, mark in zip((first, second), marks, strict=True)
    ]
    assert {states[0]["you"], states[1]["you"]} == set(states[0]["sides"])
    return {states[0]["you"]: first, states[1]["you"]: second}


def new_game(
    url: str, variant: str = "xiangqi"
) -> tuple[dict[str, RoomSocket], dict[str, Any], list[Player]]:
    creator, friend, room = seated_pair(url, variant)
    sockets = ready_both(creator.open(room["id"]), friend.open(room["id"]))
    by_side = {}
    for side, sock in sockets.items():
        by_side[side] = creator if sock.room()["seats"][0]["you"] else friend
    sides = next(iter(sockets.values())).state()["sides"]  # type: ignore[index]
    return sockets, room, [by_side[side] for side in sides]


def play(sockets: dict[str, RoomSocket], moves: list[str], first_ply: int = 0) -> None:
    """Play ``moves`` from ``first_ply`` on, each by the side to move (xiangqi: red first)."""
    for offset, move in enumerate(moves):
        ply = first_ply + offset
        side = "red" if ply % 2 == 0 else "black"
        reply = sockets[side].request("move", ply=ply, move=move)
        assert reply["type"] == "ack", reply
    last = first_ply + len(moves)
    for sock in sockets.values():
        sock.wait_state(at_ply(last))


def end_of(sock: RoomSocket) -> dict[str, Any]:
    return sock.wait_for(lambda m: m.get("type") == "end")


# ---------------------------------------------------------------------- R1, R2, Z3


def test_password_rules_R2(server: tuple[str, Path]) -> None:
    url, _ = server
    player = Player(url)
    reasons = {
        "ab": "3 to 20",
        "x" * 21: "3 to 20",
        "tiger-7": "letters",
        "777": "repeated",
        "1234": "consecutive",
        "987": "consecutive",
    }
    for password, why in reasons.items():
        answer = player.http.post("/api/rooms", json={"password": password})
        assert answer.status_code == 400
        assert answer.json()["error"]["code"] == "bad_password"
        assert why in answer.json()["error"]["message"]
    for fine in ("1357", "abc", "Tiger7Moon"):
        player.create_room(password=fine)
    # Case-insensitive and unique among open rooms.
    answer = Player(url).http.post("/api/rooms", json={"password": "tIGER7mOON"})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "password_taken"
    friend = Player(url)
    joined = friend.join("TIGER7MOON")
    assert joined.status_code == 200
    assert len(joined.json()["seats"]) == 2


def test_invite_links_carry_at_least_128_random_bits_Z3(server: tuple[str, Path]) -> None:
    url, _ = server
    invites = {Player(url).create_room()["invite"] for _ in range(3)}
    assert len(invites) == 3
    for invite in invites:
        assert len(invite) * 6 >= 128  # URL-safe base64: 6 bits a character


def test_full_room_and_no_spectators_R1(server: tuple[str, Path]) -> None:
    url, _ = server
    _, _, room = seated_pair(url)
    third = Player(url)
    answer = third.join_invite(room["invite"])
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "room_full"
    assert "full" in answer.json()["error"]["message"]
    assert third.http.get(f"/api/rooms/{room['id']}").status_code == 404
    spectator = third.open(room["id"], hello=False)
    assert spectator.wait_for(lambda m: m.get("type") == "error")["code"] == "not_found"
    spectator.wait_closed()
    seated_pair(url, password="fullhouse")
    answer = third.join("FullHouse")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "room_full"


def test_join_by_password_is_rate_limited_per_player_and_address_Z3(fast: str) -> None:
    Player(fast).create_room(password="secret42")
    guesser = Player(fast)
    left = []
    for guess in ("aaa1", "bbb2", "ccc3", "ddd4"):
        answer = guesser.join(guess)
        assert answer.status_code == 404
        left.append(answer.json()["error"]["tries_left"])
        assert f"{left[-1]} tries left" in answer.json()["error"]["message"]
    assert left == [3, 2, 1, 0]
    blocked = guesser.join("secret42")  # even the right one: the player is out of tries
    assert blocked.status_code == 429
    assert blocked.json()["error"]["code"] == "too_many_attempts"
    # A fresh identity from the same address has only what the address has left: 6, less
    # the room's creation (a password attempt too, ratelimit.py) and the 4 guesses.
    other = Player(fast)
    assert other.join("eee5").json()["error"]["tries_left"] == 0
    assert other.join("fff6").status_code == 429
    assert other.join("secret42").status_code == 429
    assert Player(fast).join("secret42").status_code == 429


# ---------------------------------------------------------------------- R3, Z1


def test_both_ready_then_colours_drawn_at_random_each_game_R3(server: tuple[str, Path]) -> None:
    url, _ = server
    creator, friend, room = seated_pair(url)
    first, second = creator.open(room["id"]), friend.open(room["id"])
    first.request("ready")
    assert [
        s["ready"]
        for s in first.wait_for(
            lambda m: m.get("type") == "room" and m["room"]["seats"][0]["ready"]
        )["room"]["seats"]
    ] == [True, False]
    assert first.room()["game_id"] is None  # one ready player does not start a game
    creator_sides = []
    for _ in range(16):
        sockets = ready_both(first, second)
        creator_sides.append("red" if sockets["red"] is first else "black")
        game = sockets["red"].state()
        assert game is not None
        assert game["you"] == "red"
        assert game["kind"] == "online"
        assert sockets["black"].state()["you"] == "black"  # type: ignore[index]
        mark = len(first.messages)
        assert sockets["black"].request("resign")["type"] == "ack"
        first.wait_for(lambda m: m.get("type") == "end", start=mark)
        # After a game both must press ready again: nothing starts by itself.
        assert not any(seat["ready"] for seat in first.room()["seats"])
    assert set(creator_sides) == {"red", "black"}


def _their_rematch(sock: RoomSocket, value: str | None, start: int) -> dict[str, Any]:
    """The first room notice from ``start`` on in which the other seat's offer is ``value``."""

    def shows(m: dict[str, Any]) -> bool:
        return m.get("type") == "room" and any(
            not seat["you"] and seat["rematch"] == value for seat in m["room"]["seats"]
        )

    room: dict[str, Any] = sock.wait_for(shows, start=start)["room"]
    return room


def test_rematch_offer_decline_cancel_accept_swaps_colours_B4(server: tuple[str, Path]) -> None:
    url, _ = server
    sockets, _, _ = new_game(url)
    red, black = sockets["red"], sockets["black"]
    first_game = red.room()["game_id"]
    assert red.request("rematch", action="offer")["code"] == "not_now"  # the game goes on
    mark = len(red.messages)
    assert black.request("resign")["type"] == "ack"
    red.wait_for(lambda m: m.get("type") == "end", start=mark)

    # Red offers: black's socket is told at once (a room notice), nothing starts.
    mark = len(black.messages)
    assert red.request("rematch", action="offer")["type"] == "ack"
    _their_rematch(black, "offered", mark)
    # Black declines: red sees it declined; there is nothing left to accept.
    mark = len(red.messages)
    assert black.request("rematch", action="decline")["type"] == "ack"
    assert [s["rematch"] for s in _their_rematch_own(red, "declined", mark)] == ["declined"]
    assert black.request("rematch", action="accept")["code"] == "no_offer"
    # Red offers again, then cancels it: black sees the offer come and go.
    mark = len(black.messages)
    assert red.request("rematch", action="offer")["type"] == "ack"
    _their_rematch(black, "offered", mark)
    assert red.request("rematch", action="cancel")["type"] == "ack"
    _their_rematch(black, None, mark + 1)
    assert black.request("rematch", action="accept")["code"] == "no_offer"
    # Black offers, red accepts: the next game starts at once with the colours swapped.
    assert black.request("rematch", action="offer")["type"] == "ack"
    marks = len(red.messages), len(black.messages)
    assert red.request("rematch", action="accept")["type"] == "ack"
    states = [
        sock.wait_for(lambda m: m.get("type") == "state" and m["state"]["ply"] == 0, start=mark)
        for sock, mark in zip((red, black), marks, strict=True)
    ]
    assert [s["state"]["you"] for s in states] == ["black", "red"]
    assert states[0]["game_id"] == states[1]["game_id"] != first_game
    assert all(not seat["rematch"] for seat in red.room()["seats"])
    bad = red.request("rematch", action="sulk")
    assert bad["type"] == "error"
    assert bad["code"] == "bad_request"


def _their_rematch_own(sock: RoomSocket, value: str, start: int) -> list[dict[str, Any]]:
    """The seats of this player in the first room notice from ``start`` that shows their own
    offer as ``value``."""

    def shows(m: dict[str, Any]) -> bool:
        return m.get("type") == "room" and any(
            seat["you"] and seat["rematch"] == value for seat in m["room"]["seats"]
        )

    room = sock.wait_for(shows, start=start)["room"]
    return [seat for seat in room["seats"] if seat["you"]]


def test_moves_are_checked_by_the_server_Z1_Z5(server: tuple[str, Path]) -> None:
    url, _ = server
    sockets, _, _ = new_game(url)
    red, black = sockets["red"], sockets["black"]
    assert black.request("move", ply=0, move="h10g8")["code"] == "not_your_turn"
    assert red.request("move", ply=0, move="h1h5")["code"] == "illegal_move"
    assert red.request("move", ply=3, move="h1g3")["code"] == "stale_move"
    assert red.request("nonsense")["code"] == "unknown_type"
    red.ws.send("{not json")
    assert red.wait_for(lambda m: m.get("code") == "malformed")["type"] == "error"
    play(sockets, QUIET[:2])
    assert red.state()["moves"] == QUIET[:2]  # type: ignore[index]
    # A repeat of an accepted move is acknowledged, not played twice.
    assert black.request("move", ply=1, move=QUIET[1])["type"] == "ack"
    assert red.request("ready")["code"] == "not_now"


# ---------------------------------------------------------------------- R5, R6


def test_draw_offer_rejected_by_a_move_then_accepted_R5(server: tuple[str, Path]) -> None:
    url, _ = server
    sockets, _, players = new_game(url)
    red, black = sockets["red"], sockets["black"]
    assert black.request("draw_offer")["code"] == "not_your_turn"
    deadline = red.state()["options"]["clock"]["deadline"]  # type: ignore[index]
    assert red.request("draw_offer")["type"] == "ack"
    offered = black.wait_for(lambda m: m.get("type") == "draw_offered")
    assert offered["by"] == "red"
    assert offered["state"]["options"]["clock"]["deadline"] == deadline  # the clock runs on
    assert black.request("draw_accept")["code"] == "not_your_turn"  # only on the recipient's turn
    play(sockets, QUIET[:1])
    assert black.state()["options"]["draw"]["offer_by"] == "red"  # type: ignore[index]
    # The recipient moves instead of accepting: the offer is rejected.
    play(sockets, QUIET[1:2], first_ply=1)
    rejected = red.wait_for(lambda m: m.get("type") == "draw_rejected")
    assert rejected["by"] == "black"
    assert rejected["state"]["options"]["draw"]["offer_by"] is None
    assert red.state()["options"]["draw"]["offer_by"] is None  # type: ignore[index]
    too_soon = red.request("draw_offer")
    assert too_soon["code"] == "too_soon"
    assert "8 to go" in too_soon["message"]
    play(sockets, QUIET[2:10], first_ply=2)
    assert red.request("draw_offer")["type"] == "ack"  # ten half-moves later
    play(sockets, QUIET[10:11], first_ply=10)
    assert black.request("draw_accept")["type"] == "ack"
    for sock in (red, black):
        end = end_of(sock)
        assert end["result"]["winner"] is None
        assert end["result"]["reason"] == "agreement"
    assert [p.me()["points"] for p in players] == [{"ai": 0, "online": 0}] * 2  # R6


def test_resignation_scores_50_online_points_for_the_winner_R6(server: tuple[str, Path]) -> None:
    url, _ = server
    sockets, _, (red_player, black_player) = new_game(url)
    play(sockets, QUIET[:3])
    assert sockets["black"].request("resign")["type"] == "ack"
    end = end_of(sockets["black"])
    assert end["result"] == {"winner": "red", "reason": "resignation", "points": None}
    assert end["points_awarded"] == 50
    assert red_player.me()["points"] == {"ai": 0, "online": 50}
    assert black_player.me()["points"] == {"ai": 0, "online": 0}
    assert sockets["red"].request("move", ply=3, move="h10g8")["code"] == "game_over"


def test_the_same_two_players_score_for_at_most_three_games_a_day_R6(
    server: tuple[str, Path],
) -> None:
    """Against farming: a friend who resigns at once feeds 50 points three times,
    then the pair's games say before the first move that they score nothing."""
    url, _ = server
    creator, friend, room = seated_pair(url)
    first, second = creator.open(room["id"]), friend.open(room["id"])
    awarded, marked = [], []
    for _ in range(5):
        sockets = ready_both(first, second)
        marked.append(sockets["red"].state()["options"].get("unscored"))  # type: ignore[index]
        mark = len(first.messages)
        assert sockets["black"].request("resign")["type"] == "ack"
        end = first.wait_for(lambda m: m.get("type") == "end", start=mark)
        assert end["result"]["winner"] == "red"
        awarded.append(end["points_awarded"])
    assert awarded == [50, 50, 50, 0, 0]
    assert marked == [None, None, None, "pair_limit", "pair_limit"]
    assert creator.me()["points"]["online"] + friend.me()["points"]["online"] == 150
    # Other pairs still play for points.
    sockets, _, _ = new_game(url)
    assert sockets["black"].request("resign")["type"] == "ack"
    assert end_of(sockets["red"])["points_awarded"] == 50


# ---------------------------------------------------------------------- R4


def test_server_flags_the_player_at_the_deadline_R4(fast: str) -> None:
    sockets, _, (red_player, black_player) = new_game(fast)
    play(sockets, QUIET[:1])
    state = sockets["black"].state()
    assert state is not None
    assert state["options"]["clock"]["turn_seconds"] == FAST_TURN
    # Black never moves; the server itself ends the game at the deadline.
    end = sockets["red"].wait_for(lambda m: m.get("type") == "end", timeout=FAST_TURN + 8)
    assert end["result"]["winner"] == "red"
    assert end["result"]["reason"] == "timeout"
    assert red_player.me()["points"]["online"] == 50
    assert black_player.me()["points"]["online"] == 0
    late = sockets["black"].request("move", ply=1, move="h10g8")
    assert late["code"] == "game_over"


def test_janggi_setup_han_first_then_cho_seeing_it_R4(server: tuple[str, Path]) -> None:
    url, _ = server
    creator, friend, room = seated_pair(url, "janggi", bikjang="points")
    first, second = creator.open(room["id"]), friend.open(room["id"])
    first.request("ready")
    second.request("ready")
    setup_room = first.wait_for(lambda m: m.get("type") == "room" and m["room"]["setup"])["room"]
    assert setup_room["setup"]["turn"] == "han"
    sockets = {setup_room["you"]: first}
    sockets["han" if setup_room["you"] == "cho" else "cho"] = second
    assert sockets["cho"].request("setup", setup="HEEH")["code"] == "not_your_turn"
    assert sockets["han"].request("setup", setup="EHHE")["type"] == "ack"
    seen = sockets["cho"].wait_for(
        lambda m: m.get("type") == "room" and (m["room"]["setup"] or {}).get("turn") == "cho"
    )
    assert seen["room"]["setup"]["han"] == "EHHE"  # Cho chooses seeing Han's choice
    assert sockets["cho"].request("setup", setup="HEEH")["type"] == "ack"
    state = sockets["cho"].wait_state(lambda s: s["variant"] == "janggi")
    assert state["options"]["setup"] == {"cho": "HEEH", "han": "EHHE"}
    assert state["options"]["bikjang"] == "points"
    assert state["you"] == "cho"


def test_janggi_setup_runs_out_of_time_and_gets_HEHE_R4(fast: str) -> None:
    creator, friend, room = seated_pair(fast, "janggi")
    first, second = creator.open(room["id"]), friend.open(room["id"])
    first.request("ready")
    second.request("ready")
    state = first.wait_state(lambda s: s["variant"] == "janggi", timeout=2 * FAST_TURN + 8)
    assert state["options"]["setup"] == {"cho": "HEHE", "han": "HEHE"}


# ---------------------------------------------------------------------- R7


def test_reconnection_after_a_dropped_socket_continues_exactly_R7(
    server: tuple[str, Path],
) -> None:
    url, _ = server
    sockets, room, (red_player, _) = new_game(url)
    play(sockets, QUIET[:2])
    red = sockets["red"]
    game_id = red.state()["id"]  # type: ignore[index]
    held = red.state()
    seen = held["seq"]  # type: ignore[index]
    mark = len(sockets["black"].messages)
    red.close()
    # The friend sees red away; the room stays open and red's clock runs on.
    sockets["black"].wait_for(
        lambda m: (
            m.get("type") == "room"
            and [s["connected"] for s in m["room"]["seats"] if not s["you"]] == [False]
        ),
        start=mark,
    )
    back = red_player.open(room["id"], holding=held, game_id=game_id, last_seq=seen)
    # Only what was missed is replayed: no full state when nothing was missed.
    assert not [m for m in back.messages if m.get("type") == "state"]
    sockets["red"] = back
    play(sockets, QUIET[2:4], first_ply=2)
    state = back.state()
    assert state is not None
    assert state["moves"] == QUIET[:4]


def test_reconnection_replays_exactly_the_missed_events_R7(server: tuple[str, Path]) -> None:
    url, _ = server
    sockets, room, (red_player, _) = new_game(url)
    play(sockets, QUIET[:1])
    red = sockets["red"]
    held = red.state()
    seen, game_id = held["seq"], held["id"]  # type: ignore[index]
    red.close()
    assert sockets["black"].request("move", ply=1, move=QUIET[1])["type"] == "ack"
    back = red_player.open(room["id"], holding=held, game_id=game_id, last_seq=seen)
    missed = back.wait_for(lambda m: m.get("type") == "move")
    assert missed["seq"] == seen + 1
    assert missed["move"] == QUIET[1]
    assert not [m for m in back.messages if m.get("type") == "state"]
    play({"red": back, "black": sockets["black"]}, QUIET[2:4], first_ply=2)


def test_a_room_replay_ends_with_an_ack_naming_the_last_event_as_on_the_game_socket_P5(
    server: tuple[str, Path],
) -> None:
    """One socket base: a reconnecting room client learns it is in sync exactly as
    on the game socket: the missed events, then an ``ack`` whose ``last_seq`` is the last of
    them. A hello that names no game gets the game's full state and a plain ``ack``."""
    url, _ = server
    sockets, room, (red_player, _) = new_game(url)
    play(sockets, QUIET[:1])
    red = sockets["red"]
    held = red.state()
    seen, game_id = held["seq"], held["id"]  # type: ignore[index]
    red.close()
    assert sockets["black"].request("move", ply=1, move=QUIET[1])["type"] == "ack"
    back = red_player.open(room["id"], holding=held, game_id=game_id, last_seq=seen)
    answer = [m for m in back.messages if m.get("type") in ("ack", "move", "state")]
    assert [m["type"] for m in answer] == ["move", "ack"], answer
    assert answer[0]["seq"] == seen + 1
    assert answer[1]["last_seq"] == seen + 1
    back.close()
    fresh = red_player.open(room["id"], last_seq=seen)  # no game_id: its last_seq says nothing
    answer = [m for m in fresh.messages if m.get("type") in ("ack", "move", "state")]
    assert [m["type"] for m in answer] == ["state", "ack"], answer
    assert answer[0]["state"]["moves"] == QUIET[:2]
    assert "last_seq" not in answer[1]


def test_the_only_device_is_never_told_its_seat_is_elsewhere_R7(
    server: tuple[str, Path],
) -> None:
    """A room notice that crosses the hello (the seat taken by this very socket) must not
    say "held elsewhere": the page flashed "Continue on this device" on every opening."""
    url, _ = server
    for _ in range(5):
        creator, _, room = seated_pair(url)
        sock = creator.open(room["id"])
        rooms = [m["room"] for m in sock.messages if m.get("type") == "room"]
        assert rooms, rooms
        assert all(r.get("holds_seat") is not False for r in rooms), rooms
        assert not [m for m in sock.messages if m.get("type") == "elsewhere"]
        sock.close()


def test_continue_on_this_device_moves_the_seat_R7(server: tuple[str, Path]) -> None:
    url, _ = server
    sockets, room, (red_player, _) = new_game(url)
    old = sockets["red"]
    phone = red_player.open(room["id"], device="phone")
    assert phone.wait_for(lambda m: m.get("type") == "elsewhere")
    assert phone.request("move", ply=0, move=QUIET[0])["code"] == "elsewhere"
    assert phone.request("take_seat")["type"] == "ack"
    detached = old.wait_for(lambda m: m.get("type") == "detached")
    assert "another device" in detached["message"]
    old.wait_closed()
    assert phone.wait_state(lambda s: s["you"] == "red")["ply"] == 0
    sockets["red"] = phone
    play(sockets, QUIET[:2])


def test_both_away_the_game_waits_on_the_shared_budget_R7(fast: str) -> None:
    sockets, room, (red_player, _) = new_game(fast)
    before = sockets["red"].state()["options"]["clock"]  # type: ignore[index]
    for sock in sockets.values():
        sock.close()
    time.sleep(0.5)
    back = red_player.open(room["id"])
    state = back.wait_state(lambda s: s["options"]["clock"]["both_away_since"] is None)
    clock = state["options"]["clock"]
    assert state["status"] == "ongoing"
    spent = FAST_AWAY - clock["away_budget"]
    assert 0 < spent < FAST_AWAY
    assert clock["deadline"] > before["deadline"]  # the waiting was not charged to red


def test_both_away_until_the_budget_is_spent_interrupts_the_game_R7(fast: str) -> None:
    sockets, room, players = new_game(fast)
    for sock in sockets.values():
        sock.close()
    # Nobody comes back: the server ends the waiting game once the budget is spent, not on time.
    wait_game_over(players[0], room["id"], timeout=FAST_TURN + FAST_AWAY + 10)
    back = players[1].open(room["id"])
    end = back.wait_state(lambda s: s["status"] != "ongoing", timeout=FAST_AWAY + 8)
    assert end["result"] == {"winner": None, "reason": "interrupted", "points": None}
    assert [p.me()["points"]["online"] for p in players] == [0, 0]


# ---------------------------------------------------------------------- R8


def test_leaving_points_back_to_the_pending_ai_game_and_frees_the_password_R8(
    server: tuple[str, Path],
) -> None:
    url, _ = server
    creator, friend, room = seated_pair(url, password="leaveme")
    pending = creator.http.post(
        "/api/games", json={"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
    ).json()
    answer = creator.http.post(f"/api/rooms/{room['id']}/leave")
    assert answer.status_code == 200
    assert answer.json()["pending"]["id"] == pending["id"]
    assert friend.http.post(f"/api/rooms/{room['id']}/leave").json()["pending"] is None
    assert creator.http.get(f"/api/rooms/{room['id']}").status_code == 404
    Player(url).create_room(password="LEAVEME")  # the closed room gave its password back


def test_leaving_during_a_game_resigns_it_R8(server: tuple[str, Path]) -> None:
    url, _ = server
    sockets, _, (_, black_player) = new_game(url)
    assert sockets["red"].request("leave")["type"] == "ack"
    end = end_of(sockets["black"])
    assert end["result"]["winner"] == "black"
    assert end["result"]["reason"] == "resignation"
    assert black_player.me()["points"]["online"] == 50


# ---------------------------------------------------------------------- Z2


def _secret(data_dir: Path, game_id: str) -> dict[str, str]:
    with sqlite3.connect(data_dir / "chuhan.sqlite3") as db:
        (secret,) = db.execute("SELECT secret FROM games WHERE id = ?", (game_id,)).fetchone()
    return dict(json.loads(secret))


def _check_jieqi_messages(sock: RoomSocket, side: str, secret: dict[str, str]) -> int:
    """Every message carries only what ``side`` may know at that point (Z2, Q5)."""
    final = sock.state()
    assert final is not None
    views = jieqi_views(secret, final["moves"], side)
    checked = 0
    for text, message in zip(sock.raw, sock.messages, strict=True):
        state = message.get("state")
        if not state or state["status"] != "ongoing":
            assert state or (secret["arrangement"] not in text and '"hidden"' not in text)
            continue
        view = views[state["ply"]]
        assert state["moves"] == final["moves"][: state["ply"]]
        assert state["fen"] == view["fen"]
        assert state["captured"] == view["captured"]
        assert state["records"] == view["moves"]
        assert secret["arrangement"] not in text
        assert secret["salt"] not in text
        assert "arrangement" not in state
        assert '"hidden"' not in text
        checked += 1
    return checked


def _first_state_of_ply(sock: RoomSocket, ply: int) -> dict[str, Any]:
    """The first state of ``ply`` that the side to move receives: it offers the legal moves,
    unless the move before ended the game by the rules (mate, stalemate, a draw by rule).
    That move is logged before its ``end`` event, so its state still reads "ongoing" and
    offers none, and the very next state is that ``end``, for the same ply."""
    first = sock.wait_for(lambda m: bool(m.get("state")) and m["state"]["ply"] == ply)
    state = dict(first["state"])
    assert state["status"] == "ongoing", state["status"]
    if not state["legal_moves"]:
        index = next(i for i, m in enumerate(sock.messages) if m is first)
        end = sock.wait_for(lambda m: bool(m.get("state")), start=index + 1)
        assert end["type"] == "end", end
        assert end["state"]["ply"] == ply, end
        assert end["result"]["reason"] not in ("resignation", "agreement", "timeout", "interrupted")
    return state


def test_jieqi_messages_never_reveal_a_face_down_piece_early_Z2(server: tuple[str, Path]) -> None:
    url, data_dir = server
    rng = random.Random(20261130)
    checked = 0
    for _ in range(6):
        sockets, _, _ = new_game(url, "jieqi")
        ply = 0
        state = sockets["red"].state()
        assert state is not None
        game_id = state["id"]
        while ply < 40:
            side = "red" if ply % 2 == 0 else "black"
            state = _first_state_of_ply(sockets[side], ply)
            if not state["legal_moves"]:
                break  # the last move ended the game by the rules; checked in the helper
            move = rng.choice(sorted(state["legal_moves"]))
            assert sockets[side].request("move", ply=ply, move=move)["type"] == "ack"
            ply += 1
        if sockets["red"].state()["status"] == "ongoing":  # type: ignore[index]
            sockets["red"].request("resign")
        for sock in sockets.values():
            sock.wait_for(lambda m: m.get("type") == "end")
        secret = _secret(data_dir, game_id)
        for side, sock in sockets.items():
            checked += _check_jieqi_messages(sock, side, secret)
            sock.close()
    assert checked > 300
