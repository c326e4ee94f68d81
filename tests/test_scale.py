"""Several ``chuhan serve`` instances on one PostgreSQL and one Redis (SPEC Z1, Z4).

Real processes: the two players of a room sit on different instances and see each other's
moves through Redis; a move sent to two instances at once is applied once; a turn deadline is
enforced once whichever instance sees it first; an instance killed with SIGKILL mid-game
loses nothing (its player continues on another); a dropped Redis subscription and dropped
PostgreSQL connections are recovered from.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from rooms_client import Player, RoomSocket, move_of
from test_scale_support import Cluster, Instance, cluster, game_socket, open_room, player_on

pytestmark = pytest.mark.timeout(120)

TURN_SECONDS = 6.0
OPENING = ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1", "b10c8", "b1c3", "a10b10", "a1b1", "c7c6"]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with cluster(
        tmp_path_factory.mktemp("scale"),
        ("a", "b", "c"),
        CHUHAN_ROOM_TURN_SECONDS=str(TURN_SECONDS),
        CHUHAN_ROOM_LAG_CAP_SECONDS="0.1",
    ) as running:
        yield running


@dataclass
class RoomGame:
    sockets: dict[str, RoomSocket]  # by side
    players: dict[str, Player]
    game_id: str
    room_id: str
    creator_side: str


def other_side(side: str) -> str:
    return "black" if side == "red" else "red"


def room_game(first: Instance, second: Instance, variant: str = "xiangqi") -> RoomGame:
    """A room made on ``first``, joined on ``second``, each player's socket on their own
    instance, both ready: the game has begun."""
    creator, friend = player_on(first), player_on(second)
    room = creator.create_room(variant=variant)
    assert friend.join_invite(room["invite"]).status_code == 200
    sockets = [open_room(creator, first, room["id"]), open_room(friend, second, room["id"])]
    for sock in sockets:
        assert sock.request("ready")["type"] == "ack"
    states = [s.wait_for(lambda m: m.get("type") == "state")["state"] for s in sockets]
    return RoomGame(
        sockets={states[0]["you"]: sockets[0], states[1]["you"]: sockets[1]},
        players={states[0]["you"]: creator, states[1]["you"]: friend},
        game_id=states[0]["id"],
        room_id=room["id"],
        creator_side=states[0]["you"],
    )


def close(sockets: dict[str, RoomSocket]) -> None:
    for sock in sockets.values():
        sock.close()


def play(sockets: dict[str, RoomSocket], moves: list[str], first_ply: int = 0) -> None:
    """Each move by the side to move; the opponent (on the other instance) must see it."""
    for offset, move in enumerate(moves):
        ply = first_ply + offset
        mover, other = ("red", "black") if ply % 2 == 0 else ("black", "red")
        assert sockets[mover].request("move", ply=ply, move=move)["type"] == "ack"
        seen = sockets[other].wait_for(move_of(ply))
        assert seen["move"] == move


def game_events(sock: RoomSocket, game_id: str) -> list[dict[str, Any]]:
    return [m for m in sock.messages if "seq" in m and m.get("game_id") == game_id]


def assert_logged_once(servers: Cluster, game_id: str, moves: list[str]) -> None:
    """Z4: the stored log numbers its events 1, 2, … and holds every move exactly once."""
    events = servers.events(game_id)
    assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1))
    assert [p["move"] for _, kind, p in events if kind == "move"] == moves


def test_players_on_two_instances_play_one_room_game_Z1_Z4(servers: Cluster) -> None:
    a, b, _ = servers.instances
    game = room_game(a, b)
    sockets, game_id = game.sockets, game.game_id
    play(sockets, OPENING)
    for sock in sockets.values():
        state = sock.wait_state(lambda s: s["ply"] == len(OPENING))
        assert state["moves"] == OPENING
        seqs = [m["seq"] for m in game_events(sock, game_id)]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # each event once, in order
    assert_logged_once(servers, game_id, OPENING)
    assert sockets["red"].request("resign")["type"] == "ack"
    end = sockets["black"].wait_for(lambda m: m.get("type") == "end")
    assert (end["result"]["winner"], end["result"]["reason"]) == ("black", "resignation")
    close(sockets)


def test_one_move_sent_to_every_instance_at_once_is_applied_once_Z4(servers: Cluster) -> None:
    """The same move (and a rival move for the same ply) races through three instances."""
    a = servers.instances[0]
    owner = httpx.Client(base_url=a.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    game = owner.post("/api/games", json={"kind": "local", "variant": "xiangqi"}).json()
    cookies = {"chuhan_player": owner.cookies["chuhan_player"]}
    answers: list[dict[str, Any]] = []

    def send(instance: Instance, move: str) -> None:
        with httpx.Client(base_url=instance.url, cookies=cookies, timeout=10) as http:
            body = {"ply": 0, "move": move}
            answers.append(http.post(f"/api/games/{game['id']}/moves", json=body).json())

    racers = [
        threading.Thread(target=send, args=(instance, move))
        for instance in servers.instances
        for move in ("h3e3", "h3e3", "b3e3")
    ]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    final = owner.get(f"/api/games/{game['id']}").json()
    assert final["ply"] == 1
    winner = final["moves"][0]
    for answer in answers:
        if answer.get("type") == "ack":
            assert answer["state"]["moves"] == [winner]
        else:
            assert answer["error"]["code"] == "stale_move"
    assert_logged_once(servers, game["id"], [winner])


def test_ai_game_socket_on_one_instance_move_by_http_on_another(servers: Cluster) -> None:
    a, b, _ = servers.instances
    owner = httpx.Client(base_url=a.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    body = {"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
    game = owner.post("/api/games", json=body).json()
    cookie = owner.cookies["chuhan_player"]
    with game_socket(a, game["id"], cookie) as sock:
        with httpx.Client(base_url=b.url, cookies={"chuhan_player": cookie}) as other:
            answer = other.post(f"/api/games/{game['id']}/moves", json={"ply": 0, "move": "h3e3"})
        assert answer.json()["type"] == "ack"
        sock.wait_for(lambda m: m.get("type") == "move" and m["ply"] == 0)
        reply = sock.wait_for(lambda m: m.get("type") == "move" and m["ply"] == 1, timeout=60)
        assert reply["by"] == "black"
    final = owner.get(f"/api/games/{game['id']}").json()
    assert final["ply"] == 2
    assert final["moves"][0] == "h3e3"
    assert_logged_once(servers, game["id"], final["moves"])


def test_turn_deadline_enforced_once_whichever_instance_sees_it_R4(servers: Cluster) -> None:
    a, b, _ = servers.instances
    game = room_game(a, b)
    sockets, players, game_id = game.sockets, game.players, game.game_id
    play(sockets, OPENING[:2])
    ends = [
        s.wait_for(lambda m: m.get("type") == "end", timeout=TURN_SECONDS + 15)
        for s in sockets.values()
    ]
    for end in ends:
        assert end["result"]["winner"] == "black"
        assert end["result"]["reason"] == "timeout"
    events = servers.events(game_id)
    assert [kind for _, kind, _ in events].count("end") == 1
    assert players["black"].me()["points"]["online"] == 50  # awarded once
    close(sockets)


def test_sigkill_one_instance_its_player_continues_on_another_Z4(servers: Cluster) -> None:
    a, b, c = servers.instances
    game = room_game(a, c)
    sockets, on_a = game.sockets, game.creator_side
    on_c = other_side(on_a)
    play(sockets, OPENING[:4])
    last_seq = max(m["seq"] for m in game_events(sockets[on_c], game.game_id))
    held = sockets[on_c].state()
    # Also on C: a game against the advanced AI, killed while the AI thinks (about 2 s).
    ai_owner = httpx.Client(base_url=c.url, timeout=10)
    ai_owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    body = {"kind": "ai", "variant": "xiangqi", "level": "advanced", "color": "red"}
    ai_game = ai_owner.post("/api/games", json=body).json()
    moved = ai_owner.post(f"/api/games/{ai_game['id']}/moves", json={"ply": 0, "move": "h3e3"})
    assert moved.json()["state"]["thinking"] is True
    c.kill()
    sockets[on_c].wait_closed()
    if on_a == "red":  # the player on A moves while C is down
        assert sockets["red"].request("move", ply=4, move=OPENING[4])["type"] == "ack"
    # C's player comes back through B (same device: the seat is theirs again at once, R7).
    returned = open_room(
        game.players[on_c], b, game.room_id, held, game_id=game.game_id, last_seq=last_seq
    )
    sockets[on_c] = returned
    if on_c == "red":
        assert returned.request("move", ply=4, move=OPENING[4])["type"] == "ack"
    for sock in sockets.values():
        sock.wait_for(lambda m: m.get("type") == "move" and m["ply"] == 4)
    play(sockets, OPENING[5:8], first_ply=5)
    for sock in sockets.values():
        assert sock.wait_state(lambda s: s["ply"] == 8)["moves"] == OPENING[:8]
    # Nothing missed, nothing twice: the returning socket got every event after last_seq.
    seqs = [m["seq"] for m in game_events(returned, game.game_id)]
    assert seqs == list(range(last_seq + 1, last_seq + 1 + len(seqs)))
    assert_logged_once(servers, game.game_id, OPENING[:8])
    # The AI game's owner reopens it on A: the lost AI move is computed there, once.
    with game_socket(a, ai_game["id"], ai_owner.cookies["chuhan_player"]) as ai_socket:
        ai_socket.wait_state(lambda s: s["ply"] == 2, timeout=60)
    stored = servers.sql("SELECT moves FROM games WHERE id = :g", g=ai_game["id"])[0][0]
    assert len(stored) == 2
    assert stored[0] == "h3e3"
    assert_logged_once(servers, ai_game["id"], stored)
    c.start()  # back for the tests that follow
    close(sockets)


def test_redis_subscriptions_cut_events_still_cross_after_recovery(servers: Cluster) -> None:
    a, b, _ = servers.instances
    game = room_game(a, b)
    play(game.sockets, OPENING[:2])
    assert servers.drop_redis_subscriptions() >= 3
    # A move right after the cut: its doorbell may be lost, the resubscription rings again.
    assert game.sockets["red"].request("move", ply=2, move=OPENING[2])["type"] == "ack"
    game.sockets["black"].wait_for(lambda m: m.get("type") == "move" and m["ply"] == 2)
    play(game.sockets, OPENING[3:6], first_ply=3)
    for instance in (a, b):
        assert instance.health()["redis"] == "ok"
        assert 'chuhan_redis_messages{what="reconnects"} 1.0' in instance.metrics()
    assert_logged_once(servers, game.game_id, OPENING[:6])
    close(game.sockets)


def test_database_connections_dropped_service_recovers(servers: Cluster) -> None:
    a, b, _ = servers.instances
    game = room_game(a, b)
    play(game.sockets, OPENING[:2])
    assert servers.drop_database_connections() >= 1
    play(game.sockets, OPENING[2:6], first_ply=2)
    for instance in (a, b):
        assert instance.health()["db"] == "ok"
    assert_logged_once(servers, game.game_id, OPENING[:6])
    close(game.sockets)


def test_metrics_count_games_moves_ai_and_latency(servers: Cluster) -> None:
    a, b, _ = servers.instances
    game = room_game(a, b)
    play(game.sockets, OPENING[:2])
    close(game.sockets)
    owner = httpx.Client(base_url=a.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    body = {"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "black"}
    owner.post("/api/games", json=body)  # the AI opens: one job in A's pool
    text = ""
    for _ in range(100):
        text = "".join(instance.metrics() for instance in (a, b))
        if "chuhan_ai_queue_wait_seconds_bucket" in text:
            break
        time.sleep(0.1)
    for name in (
        "chuhan_games_ongoing",
        'chuhan_moves_total{kind="online",variant="xiangqi"}',
        "chuhan_change_seconds_bucket",
        "chuhan_ai_queue_wait_seconds_bucket",
        "chuhan_http_request_seconds_bucket",
        "chuhan_hub_subscribers",
        "chuhan_redis_up 1.0",
    ):
        assert name in text
