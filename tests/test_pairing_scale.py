"""Play a stranger across instances (SPEC B1): two real ``chuhan serve`` on one PostgreSQL
and one Redis. Two strangers seeking on two instances are paired with each other, told on
their own instance, and play their game as a room game; a closed page withdraws its seek;
the waiting counts reach every instance; a malformed seek gets a clear error (Z5)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from rooms_client import Player, RoomSocket, move_of
from test_scale_support import Cluster, Instance, cluster, open_room, player_on

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with cluster(tmp_path_factory.mktemp("pairing"), ("a", "b")) as running:
        yield running


def seek_socket(player: Player, instance: Instance) -> RoomSocket:
    url = instance.url.replace("http", "ws", 1) + "/ws/seek"
    ws = connect(url, additional_headers={"Cookie": player.cookie}).__enter__()
    return RoomSocket(ws)


def is_type(kind: str):
    return lambda message: message.get("type") == kind


def test_strangers_on_two_instances_are_paired_and_play_a_room_game_B1(
    servers: Cluster,
) -> None:
    a, b = servers.instances
    first, second = player_on(a), player_on(b)
    waiting, coming = seek_socket(first, a), seek_socket(second, b)
    assert waiting.request("seek", variant="xiangqi", options={"rules": "wxf"})["type"] == "ack"
    assert waiting.wait_for(is_type("seeking"))["options"] == {"rules": "wxf"}
    coming.request("seek", variant="xiangqi", options={"rules": "wxf"})
    room_id = coming.wait_for(is_type("paired"))["room"]
    assert waiting.wait_for(is_type("paired"))["room"] == room_id  # told on its own instance
    sockets = [open_room(first, a, room_id), open_room(second, b, room_id)]
    states = [s.wait_for(is_type("state"))["state"] for s in sockets]  # no Ready pressed (R3)
    by_side = {state["you"]: sock for state, sock in zip(states, sockets, strict=True)}
    assert set(by_side) == {"red", "black"}
    for ply, move in enumerate(["h3e3", "h8e8", "h1g3", "h10g8"]):
        mover, other = ("red", "black") if ply % 2 == 0 else ("black", "red")
        assert by_side[mover].request("move", ply=ply, move=move)["type"] == "ack"
        seen = by_side[other].wait_for(move_of(ply))
        assert seen["move"] == move
    [(kind, options)] = servers.sql(
        "SELECT kind, options FROM games WHERE id = :g", g=states[0]["id"]
    )
    assert kind == "online"
    assert options["paired"] is True
    assert options["rules"] == "wxf"
    players = servers.sql(
        "SELECT player_id FROM game_players WHERE game_id = :g", g=states[0]["id"]
    )
    assert len(players) == 2
    # A third player cannot look into the paired room (R1: no spectators).
    stranger = player_on(a)
    assert stranger.http.get(f"/api/rooms/{room_id}").status_code == 404
    for sock in [waiting, coming, *sockets]:
        sock.close()


def test_a_closed_page_withdraws_its_seek_nobody_is_paired_with_it_B1(servers: Cluster) -> None:
    a, b = servers.instances
    gone, later = player_on(a), player_on(b)
    page = seek_socket(gone, a)
    page.request("seek", variant="janggi", options={"bikjang": "points"})
    page.wait_for(is_type("seeking"))
    page.close()
    page.wait_closed()
    sock = seek_socket(later, b)
    # The close reached the database once the seek is gone (the server withdraws it).
    gone_id = gone.me()["id"]
    for _ in range(200):
        if not servers.sql("SELECT 1 FROM seeks WHERE player_id = :p", p=gone_id):
            break
        sock.request("ping")
    assert not servers.sql("SELECT 1 FROM seeks WHERE player_id = :p", p=gone_id)
    sock.request("seek", variant="janggi", options={"bikjang": "points"})
    assert sock.wait_for(is_type("seeking"))["variant"] == "janggi"
    assert not [m for m in sock.messages if m.get("type") == "paired"]
    assert sock.request("cancel")["type"] == "ack"
    sock.wait_for(is_type("cancelled"))
    sock.close()


def test_waiting_counts_reach_players_on_every_instance_B1(servers: Cluster) -> None:
    a, b = servers.instances
    seeker, watcher = player_on(a), player_on(b)
    page = seek_socket(seeker, a)
    page.request("seek", variant="jieqi")
    watching = seek_socket(watcher, b)
    counts = watching.wait_for(
        lambda m: m.get("type") == "waiting" and m["counts"].get("jieqi", 0) >= 1, timeout=10
    )
    assert counts["counts"]["jieqi"] == 1
    page.close()
    watching.close()


def test_malformed_seeks_get_a_clear_error_and_the_socket_goes_on_Z5(servers: Cluster) -> None:
    a, _ = servers.instances
    sock = seek_socket(player_on(a), a)
    refused = sock.request("seek", variant="chess")
    assert (refused["type"], refused["code"]) == ("error", "bad_seek")
    refused = sock.request("seek", variant="janggi", options={"bikjang": "always"})
    assert refused["code"] == "bad_seek"
    assert "off or points" in refused["message"]
    refused = sock.request("seek", variant="xiangqi", options={str(n): "x" for n in range(9)})
    assert refused["code"] == "bad_request"
    assert sock.request("move", ply=0, move="h3e3")["code"] == "unknown_type"
    assert sock.request("ping")["type"] == "pong"
    sock.close()


def test_a_seek_socket_without_a_player_is_refused(servers: Cluster) -> None:
    a, _ = servers.instances
    url = a.url.replace("http", "ws", 1) + "/ws/seek"
    with connect(url) as ws:
        sock = RoomSocket(ws)
        assert sock.wait_for(is_type("error"))["code"] == "no_player"
        sock.wait_closed()


def test_every_tab_shows_the_one_seek_and_a_flood_of_cancels_withdraws_it_once_B1_Z7(
    servers: Cluster,
) -> None:
    """Two tabs of one player on two instances: the seek one makes is shown in the other
    (issue: the other tab knew nothing of it), which may cancel it; a flood of cancels
    withdraws it once, and a page shown no seek reaches nothing (Z7)."""
    a, b = servers.instances
    player = player_on(a)
    seeking, other_tab = seek_socket(player, a), seek_socket(player, b)
    seeking.request("seek", variant="xiangqi", options={"rules": "wxf"})
    seeking.wait_for(is_type("seeking"))
    assert other_tab.wait_for(is_type("seeking"))["options"] == {"rules": "wxf"}
    player_id = player.me()["id"]
    [(status,)] = servers.sql("SELECT status FROM seeks WHERE player_id = :p", p=player_id)
    assert status == "waiting"
    for _ in range(20):  # a flood of cancels: answered; the first one withdraws the seek
        assert other_tab.request("cancel")["type"] == "ack"
    seeking.wait_for(is_type("cancelled"))
    assert not servers.sql("SELECT 1 FROM seeks WHERE player_id = :p", p=player_id)
    assert len([m for m in seeking.messages if m.get("type") == "cancelled"]) == 1
    assert len([m for m in other_tab.messages if m.get("type") == "cancelled"]) == 1
    seeking.close()
    other_tab.close()


def test_a_player_waiting_on_a_killed_instance_is_not_paired_B1_R7(tmp_path: Path) -> None:
    """SIGKILL the instance a player waits on: once the other instance takes it for dead (as
    the rooms do, R7), its seek is neither counted nor paired: nobody meets a ghost."""
    with cluster(
        tmp_path,
        CHUHAN_ROOM_HEARTBEAT_SECONDS="0.5",
        CHUHAN_ROOM_DEAD_AFTER_SECONDS="2",
    ) as running:
        a, b = running.instances
        ghost = seek_socket(player_on(b), b)
        ghost.request("seek", variant="janggi")
        ghost.wait_for(is_type("seeking"))
        live = player_on(a)
        # First the ghost counted on a (the counts are read at most every 0.5 s: a stale 0
        # from before its seek ended the wait below at once, and the live player was paired
        # with a ghost whose instance was not yet taken for dead).
        for _ in range(200):
            if live.http.get("/api/seeks/waiting").json()["counts"].get("janggi", 0) == 1:
                break
            time.sleep(0.1)
        b.kill()
        for _ in range(200):  # until a takes b for dead: the ghost is no longer counted
            counts = live.http.get("/api/seeks/waiting").json()["counts"]
            if counts.get("janggi", 0) == 0:
                break
            time.sleep(0.1)
        assert counts.get("janggi", 0) == 0
        sock = seek_socket(live, a)
        sock.request("seek", variant="janggi")
        assert sock.wait_for(is_type("seeking"))["variant"] == "janggi"
        assert sock.request("ping")["type"] == "pong"
        assert not [m for m in sock.messages if m.get("type") == "paired"]
        assert running.sql("SELECT count(*) FROM rooms")[0][0] == 0
        sock.close()


def test_a_seek_of_a_killed_instance_is_not_paired_before_it_is_taken_for_dead_Z8(
    tmp_path: Path,
) -> None:
    """Z8, B1 (issue: a seek on a SIGKILLed instance was paired 1 s after the kill): a
    seek is paired only while its instance beats (within 2.5 heartbeats), long before the
    rooms take it for dead (30 s here): a ghost is still counted, but nobody meets it."""
    with cluster(
        tmp_path,
        CHUHAN_ROOM_HEARTBEAT_SECONDS="0.5",
        CHUHAN_ROOM_DEAD_AFTER_SECONDS="30",
    ) as running:
        a, b = running.instances
        ghost = seek_socket(player_on(b), b)
        ghost.request("seek", variant="janggi")
        ghost.wait_for(is_type("seeking"))
        live = player_on(a)
        for _ in range(200):
            if live.http.get("/api/seeks/waiting").json()["counts"].get("janggi", 0) == 1:
                break
            time.sleep(0.1)
        b.kill()
        time.sleep(2.0)  # four of its heartbeats missed; the rooms wait 30 s
        assert live.http.get("/api/seeks/waiting").json()["counts"]["janggi"] == 1
        sock = seek_socket(live, a)
        sock.request("seek", variant="janggi")
        assert sock.wait_for(is_type("seeking"))["variant"] == "janggi"
        assert sock.request("ping")["type"] == "pong"
        assert not [m for m in sock.messages if m.get("type") == "paired"]
        assert running.sql("SELECT count(*) FROM rooms")[0][0] == 0
        sock.close()
