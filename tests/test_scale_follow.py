"""Redis carries a key's news only to the instances whose sockets follow it.

Three real ``chuhan serve`` instances on one PostgreSQL and one Redis: an instance with no
socket on a game receives none of its messages; players on two instances still see each
other's moves; and a socket that opens just as a move is published on another instance
misses nothing (its subscription is confirmed before it reads the game, SPEC Z4, P5).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rooms_client import at_ply, move_of
from test_scale import OPENING, close, other_side, play, room_game
from test_scale_support import Cluster, Instance, cluster, game_socket, open_room

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with cluster(tmp_path_factory.mktemp("follow"), ("a", "b", "c")) as running:
        yield running


def received(instance: Instance) -> float:
    """Messages of other instances this instance's hub has received from Redis."""
    found = re.search(r'chuhan_redis_messages\{what="received"\} ([0-9.e+]+)', instance.metrics())
    assert found is not None
    return float(found.group(1))


def test_an_instance_receives_only_the_news_of_games_its_sockets_follow(servers: Cluster) -> None:
    a, b, c = servers.instances
    before = {instance.name: received(instance) for instance in (a, b, c)}
    game = room_game(a, b)
    play(game.sockets, OPENING)
    channel = f"{servers.prefix}:k:{game.game_id}"
    assert dict(servers.redis.pubsub_numsub(channel))[channel.encode()] == 2  # a and b
    assert received(c) == before["c"]  # no socket there: none of the game's news
    assert received(b) - before["b"] >= len(OPENING) // 2  # the moves made on a
    close(game.sockets)

    # An AI game followed on a only: its moves and the AI's replies reach neither b nor c.
    owner = httpx.Client(base_url=a.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    body = {"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
    ai_game = owner.post("/api/games", json=body).json()
    quiet = {instance.name: received(instance) for instance in (b, c)}
    with game_socket(a, ai_game["id"], owner.cookies["chuhan_player"]) as sock:
        for ply, move in ((0, "h3e3"), (2, "h1g3")):
            assert sock.request("move", ply=ply, move=move)["type"] == "ack"
            sock.wait_for(move_of(ply + 1))
    assert {instance.name: received(instance) for instance in (b, c)} == quiet


def test_players_on_two_instances_still_play_once_a_third_follows_the_room(
    servers: Cluster,
) -> None:
    a, b, c = servers.instances
    game = room_game(a, b)
    play(game.sockets, OPENING[:4])
    # The player on b continues on c (a dropped socket reconnecting elsewhere): c now
    # follows the game and b no longer does.
    on_b = other_side(game.creator_side)
    game.sockets[on_b].close()
    game.sockets[on_b] = open_room(game.players[on_b], c, game.room_id, game_id=game.game_id)
    play(game.sockets, OPENING[4:8], first_ply=4)
    close(game.sockets)


def test_a_socket_opened_as_a_move_is_published_elsewhere_misses_nothing_Z4_P5(
    servers: Cluster,
) -> None:
    """Each time, b has no socket on the game (it unsubscribed), and the player on b opens
    one there while the player on a moves: the new socket must see that move."""
    a, b, _ = servers.instances
    game = room_game(a, b)
    on_a = game.creator_side
    on_b = other_side(on_a)
    sockets = game.sockets
    for ply, move in enumerate(OPENING):
        mover = "red" if ply % 2 == 0 else "black"
        if mover == on_b:
            assert sockets[on_b].request("move", ply=ply, move=move)["type"] == "ack"
            sockets[on_a].wait_for(move_of(ply))
            continue
        sockets[on_b].close()
        sockets[on_b].wait_closed()
        replies: list[dict[str, Any]] = []
        moving = threading.Thread(
            target=lambda ply=ply, move=move, replies=replies: replies.append(
                sockets[on_a].request("move", ply=ply, move=move)
            )
        )
        moving.start()
        sockets[on_b] = open_room(game.players[on_b], b, game.room_id)
        moving.join()
        assert replies[0]["type"] == "ack"
        state = sockets[on_b].wait_state(at_ply(ply + 1), timeout=10)
        assert state["moves"] == OPENING[: ply + 1]
    close(sockets)


def test_a_jieqi_game_socket_shows_moves_made_on_another_instance_as_the_api_does_Z2(
    servers: Cluster,
) -> None:
    """One socket base: the game socket now takes news the way the room socket
    does. A jieqi change from another instance comes without its secret (the arrangement
    stays in the database, Z2), and the socket renders that news instead of reading the
    log. The page on b must hold, after each move made over HTTP on a, exactly the state
    the API answers: the same pieces, captures, records and legal moves."""
    a, b, _ = servers.instances
    owner = httpx.Client(base_url=a.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    created = owner.post("/api/games", json={"kind": "local", "variant": "jieqi"})
    assert created.status_code == 201, created.text
    game = created.json()
    with game_socket(b, game["id"], owner.cookies["chuhan_player"]) as sock:
        state = game
        for ply in range(8):
            move = sorted(state["legal_moves"])[ply % len(state["legal_moves"])]
            answer = owner.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
            assert answer.status_code == 200, answer.text
            state = answer.json()["state"]
            shown = sock.wait_state(at_ply(ply + 1), timeout=10)
            for field in ("fen", "captured", "records", "moves", "legal_moves", "status"):
                assert shown[field] == state[field], field
    owner.close()
