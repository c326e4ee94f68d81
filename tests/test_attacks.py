"""Attacks on two real instances sharing PostgreSQL and Redis (SPEC Z1, Z2, Z3, Z5).

A client fuzzing every message type of the room and game sockets, moving for the other seat,
replaying an old message, reading someone else's room or game, guessing room passwords, and
the jieqi players of many games on two instances reading their messages for identities they
may not know yet: every attempt is refused and changes nothing.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import connect

from chuhan.server.protocol.messages import GAME_MESSAGES, ROOM_MESSAGES
from rooms_client import RoomSocket, at_ply, jieqi_views
from test_scale_support import Cluster, cluster, game_socket, open_room, player_on

pytestmark = pytest.mark.timeout(120)

TRIES_PER_PLAYER = 4
TRIES_PER_ADDRESS = 6
MESSAGE_TYPES = ROOM_MESSAGES.types
GAME_MESSAGE_TYPES = GAME_MESSAGES.types


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with cluster(
        tmp_path_factory.mktemp("attacks"),
        CHUHAN_ROOM_JOIN_TRIES_PER_PLAYER=str(TRIES_PER_PLAYER),
        CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS=str(TRIES_PER_ADDRESS),
        CHUHAN_ROOM_TURN_SECONDS="600",  # no clock runs out under the fuzzer's feet
    ) as running:
        yield running


class Table:
    """A room game whose players sit on different instances, made again when it ends."""

    def __init__(self, servers: Cluster, variant: str = "xiangqi") -> None:
        self.servers = servers
        self.variant = variant
        self.sockets: dict[str, RoomSocket] = {}
        self.fresh()

    def fresh(self) -> None:
        for sock in self.sockets.values():
            sock.close()
        a, b = self.servers.instances[:2]
        creator, friend = player_on(a), player_on(b)
        room = creator.create_room(variant=self.variant)
        assert friend.join_invite(room["invite"]).status_code == 200
        sockets = [open_room(creator, a, room["id"]), open_room(friend, b, room["id"])]
        for sock in sockets:
            assert sock.request("ready")["type"] == "ack"
        states = [s.wait_for(lambda m: m.get("type") == "state")["state"] for s in sockets]
        self.sockets = {states[0]["you"]: sockets[0], states[1]["you"]: sockets[1]}
        self.players = {states[0]["you"]: creator, states[1]["you"]: friend}
        self.room_id, self.game_id = room["id"], states[0]["id"]

    def stored(self) -> tuple[Any, ...]:
        """Everything a message could change: the game row and log, the room row."""
        game = self.servers.sql(
            "SELECT seq, moves, status, options FROM games WHERE id = :g", g=self.game_id
        )[0]
        room = self.servers.sql(
            "SELECT version, seats, sides, status FROM rooms WHERE id = :r", r=self.room_id
        )[0]
        return (tuple(game), tuple(room), len(self.servers.events(self.game_id)))

    def usable(self) -> bool:
        ongoing = self.servers.sql("SELECT status FROM games WHERE id = :g", g=self.game_id)
        return ongoing[0][0] == "ongoing" and all(
            not s.closed and s.room().get("holds_seat") for s in self.sockets.values()
        )


# ---------------------------------------------------------------------- Z5: fuzzing

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


@st.composite
def room_messages(draw: Any) -> str:
    """Every room message type, with fields of the right and of the wrong shapes."""
    shape = draw(st.sampled_from(["message"] * 5 + ["valid"] * 3 + ["json", "text", "huge"]))
    if shape == "valid":  # well-formed: accepted or refused by the rules, not the parser
        kind = draw(st.sampled_from(MESSAGE_TYPES))
        fields = {
            "move": {
                "ply": draw(st.integers(0, 2)),
                "move": draw(st.sampled_from(["h3e3", "h10g8", "b3e3", "a1a2"])),
            },
            "setup": {"setup": "HEHE"},
            "probe": {"n": 1},
        }
        return json.dumps({"id": f"v{kind}", "type": kind, **fields.get(kind, {})})
    if shape == "text":
        return str(draw(st.text(max_size=80)))
    if shape == "json":
        return json.dumps(draw(json_values))
    if shape == "huge":
        return json.dumps({"id": "h", "type": "move", "ply": 0, "move": "x" * 5000})
    message: dict[str, Any] = {
        "id": draw(st.one_of(st.text(min_size=1, max_size=6), st.integers(), st.none())),
        "type": draw(st.sampled_from([*MESSAGE_TYPES, "castle", ""])),
    }
    for name, values in (
        ("ply", st.one_of(st.integers(-2, 4), st.booleans(), st.text(max_size=2))),
        ("move", st.one_of(st.sampled_from(["h3e3", "h10g8", "a1a10", "pass", "zz"]), json_values)),
        ("setup", st.one_of(st.sampled_from(["HEHE", "XXXX"]), json_values)),
        ("last_seq", st.one_of(st.integers(-1, 50), st.text(max_size=2))),
        ("game_id", json_values),
        ("device", st.one_of(st.text(max_size=50), json_values)),
        ("n", json_values),
    ):
        if draw(st.integers(0, 3)) == 0:
            message[name] = draw(values)
    return json.dumps(message)


def test_fuzzing_every_room_message_type_rejected_ones_change_nothing_Z5(
    servers: Cluster,
) -> None:
    table = Table(servers)
    counts = {"rejected": 0, "accepted": 0}

    @settings(
        max_examples=70,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(raw=room_messages(), side=st.sampled_from(["red", "black"]))
    def check(raw: str, side: str) -> None:
        if not table.usable():
            table.fresh()
        sock = table.sockets[side]
        before = table.stored()
        mark = len(sock.messages)
        sock.ws.send(raw)
        try:
            probe = sock.send("ping")  # every message before it has had its answer
            sock.wait_for(lambda m: m.get("reply_to") == probe, start=mark)
        except Exception:
            assert sock.closed  # an accepted "leave" closes the socket (R8)
        replies = [m for m in sock.messages[mark:] if m.get("type") in ("ack", "error")]
        if any(m["type"] == "error" for m in replies):
            assert table.stored() == before, raw
            counts["rejected"] += 1
        else:
            counts["accepted"] += 1

    check()
    assert counts["rejected"] > 30
    assert counts["accepted"] >= 1
    for instance in servers.instances:
        assert instance.health()["status"] == "ok"


@st.composite
def game_messages(draw: Any) -> str:
    message: dict[str, Any] = {
        "id": draw(st.one_of(st.text(min_size=1, max_size=6), st.none())),
        "type": draw(st.sampled_from([*GAME_MESSAGE_TYPES, "ready"])),
    }
    if draw(st.booleans()):
        message["ply"] = draw(st.one_of(st.integers(-1, 3), st.text(max_size=2)))
    if draw(st.booleans()):
        message["move"] = draw(st.sampled_from(["h3e3", "h10g8", "e4e5", "zz", ""]))
    if draw(st.booleans()):
        message["last_seq"] = draw(st.one_of(st.integers(-1, 9), st.none()))
    return json.dumps(message)


def test_fuzzing_every_game_socket_message_type_across_instances_Z5(servers: Cluster) -> None:
    """A local game made on one instance, its socket on the other."""
    a, b = servers.instances[:2]
    owner = httpx.Client(base_url=a.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    game = owner.post("/api/games", json={"kind": "local", "variant": "xiangqi"}).json()
    with game_socket(b, game["id"], owner.cookies["chuhan_player"]) as sock:
        rejected = 0

        def stored() -> tuple[Any, ...]:
            row = servers.sql("SELECT seq, moves, status FROM games WHERE id = :g", g=game["id"])
            return tuple(row[0])

        @settings(max_examples=40, deadline=None, derandomize=True)
        @given(raw=game_messages())
        def check(raw: str) -> None:
            nonlocal rejected
            before = stored()
            mark = len(sock.messages)
            sock.ws.send(raw)
            probe = sock.send("ping")
            sock.wait_for(lambda m: m.get("reply_to") == probe, start=mark)
            if any(m.get("type") == "error" for m in sock.messages[mark:]):
                assert stored() == before, raw
                rejected += 1

        check()
        assert rejected > 15


# ---------------------------------------------------------------------- Z1: the other seat


def test_moving_for_the_other_seat_is_refused_on_either_instance_Z1(servers: Cluster) -> None:
    table = Table(servers)
    before = table.stored()
    # Black, at red's turn, on black's own socket…
    refused = table.sockets["black"].request("move", ply=0, move="h3e3")
    assert refused["type"] == "error"
    assert refused["code"] == "not_your_turn"
    # …and through the game API of either instance with black's cookie (a room game has no
    # owner: it is not anyone's game there).
    black = table.players["black"]
    for instance in servers.instances:
        with httpx.Client(base_url=instance.url, cookies=black.http.cookies) as http:
            answer = http.post(f"/api/games/{table.game_id}/moves", json={"ply": 0, "move": "h3e3"})
            assert answer.status_code == 404
    assert table.stored() == before


def test_replayed_old_move_is_not_applied_again_Z1_Z4(servers: Cluster) -> None:
    table = Table(servers)
    red, black = table.sockets["red"], table.sockets["black"]
    first = {"id": "replay-me", "type": "move", "ply": 0, "move": "h3e3"}
    red.ws.send(json.dumps(first))
    red.wait_for(lambda m: m.get("reply_to") == "replay-me")
    assert black.request("move", ply=1, move="h10g8")["type"] == "ack"
    red.wait_state(lambda s: s["ply"] == 2)
    before = table.stored()
    for _ in range(3):  # the captured frame, replayed as it was
        mark = len(red.messages)
        red.ws.send(json.dumps(first))
        reply = red.wait_for(lambda m: m.get("reply_to") == "replay-me", start=mark)
        assert reply["type"] == "ack"
        assert reply["ply"] == 0  # acknowledged, not played again
    # an old move at a stale ply, by the player whose turn it is now
    stale = red.request("move", ply=0, move="b3e3")
    assert stale["type"] == "error"
    assert stale["code"] == "stale_move"
    assert table.stored() == before


def test_reading_another_players_room_or_game_is_refused(servers: Cluster) -> None:
    table = Table(servers)
    a, b = servers.instances[:2]
    owner = httpx.Client(base_url=a.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    own_game = owner.post("/api/games", json={"kind": "local", "variant": "jieqi"}).json()
    for instance in (a, b):
        stranger = player_on(instance)
        assert stranger.http.get(f"/api/rooms/{table.room_id}").status_code == 404
        assert stranger.http.get(f"/api/games/{table.game_id}").status_code == 404
        assert stranger.http.get(f"/api/games/{own_game['id']}").status_code == 404
        for path in (f"/ws/rooms/{table.room_id}", f"/ws/games/{table.game_id}"):
            url = instance.url.replace("http", "ws", 1) + path
            with connect(url, additional_headers={"Cookie": stranger.cookie}) as ws:
                refusal = json.loads(ws.recv(timeout=10))
                assert refusal["type"] == "error"
                assert refusal["code"] in ("not_found",)
                assert "state" not in refusal or refusal["state"] is None
        # the seated players' room is full: a stranger cannot sit down either
        room = a_room(table)
        assert stranger.join_invite(room["invite"]).status_code in (404, 409, 410)


def a_room(table: Table) -> dict[str, Any]:
    return dict(table.players["red"].http.get(f"/api/rooms/{table.room_id}").json())


# ---------------------------------------------------------------------- Z3: passwords


def test_password_guessing_held_to_the_limit_across_instances_Z3(servers: Cluster) -> None:
    a, b = servers.instances[:2]
    host = player_on(a)
    host.create_room(password="Tiger7Moon")
    guesser = player_on(a)
    answers = []
    for attempt in range(TRIES_PER_PLAYER + 3):  # alternating instances: one shared count
        instance = (a, b)[attempt % 2]
        with httpx.Client(base_url=instance.url, cookies=guesser.http.cookies) as http:
            answers.append(http.post("/api/rooms/join", json={"password": f"guess{attempt}x"}))
    codes = [answer.json()["error"]["code"] for answer in answers]
    assert codes == ["wrong_password"] * TRIES_PER_PLAYER + ["too_many_attempts"] * 3
    tries_left = [answer.json()["error"]["tries_left"] for answer in answers[:TRIES_PER_PLAYER]]
    assert tries_left == [3, 2, 1, 0]
    # even the right password is refused now: guessing cannot go on
    right = guesser.join("Tiger7Moon")
    assert right.status_code == 429
    # new identities from the same address share the address limit (the host's creation
    # of the room was a password attempt from it too)
    failed = TRIES_PER_PLAYER + 1
    for _ in range(3):
        other = player_on(b)
        for _ in range(TRIES_PER_PLAYER):
            code = other.join("wrong4guess").json()["error"]["code"]
            if code == "wrong_password":
                failed += 1
    assert failed == TRIES_PER_ADDRESS


# ---------------------------------------------------------------------- Z2: jieqi


def _play_jieqi(table: Table, seed: int, plies: int) -> None:
    rng = random.Random(seed)
    for ply in range(plies):
        side = "red" if ply % 2 == 0 else "black"
        state = table.sockets[side].wait_state(at_ply(ply))
        if state["status"] != "ongoing":
            return
        move = rng.choice(sorted(state["legal_moves"]))
        assert table.sockets[side].request("move", ply=ply, move=move)["type"] == "ack"
    table.sockets["red"].request("resign")


def test_jieqi_no_early_identity_in_any_message_on_two_instances_Z2(servers: Cluster) -> None:
    tables = [Table(servers, "jieqi") for _ in range(6)]
    players = [
        threading.Thread(target=_play_jieqi, args=(table, seed, 30))
        for seed, table in enumerate(tables)
    ]
    for player in players:
        player.start()
    for player in players:
        player.join()
    checked = 0
    for table in tables:
        for sock in table.sockets.values():
            sock.wait_for(lambda m: m.get("type") == "end")
        (secret,) = servers.sql("SELECT secret FROM games WHERE id = :g", g=table.game_id)[0]
        secret = secret if isinstance(secret, dict) else json.loads(secret)
        moves = list(servers.sql("SELECT moves FROM games WHERE id = :g", g=table.game_id)[0][0])
        for side, sock in table.sockets.items():
            views = jieqi_views(secret, moves, side)
            for text, message in zip(sock.raw, sock.messages, strict=True):
                state = message.get("state")
                if state and state.get("status") == "finished":
                    continue  # Q7: at the end everything may be shown
                assert secret["arrangement"] not in text
                assert secret["salt"] not in text
                assert '"hidden"' not in text
                assert '"arrangement"' not in text
                if state:
                    view = views[state["ply"]]
                    assert state["fen"] == view["fen"]
                    assert state["captured"] == view["captured"]
                    assert state["records"] == view["moves"]
                    checked += 1
        for sock in table.sockets.values():
            sock.close()
    assert checked > 200
