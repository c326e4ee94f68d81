"""Events carry the change, not a snapshot (SPEC P5, Z2, Z4, Q5, R7; docs/protocol.md, Events).

A ``move`` tells each viewer only what changed for them; the client's applyEvent (events.js,
run here by node) folded over the events gives exactly the state a fresh ``hello`` gives, in
every variant and game kind, for each viewer, through undo and the end. The log stores the
change only, so it grows linearly with the game; rows of the old snapshot format still read.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chuhan.rules import make_board
from chuhan.server.games import changes as rules_of
from chuhan.server.games import views
from chuhan.server.hub.local import News
from chuhan.server.protocol.messages import encode
from chuhan.server.records import Change, GameKind, GameOptions, GameRecord, StoredEvent
from chuhan.server.refusal import GameActionError
from client_events import EVENTS
from rooms_client import Player, RoomSocket, at_ply, running_server
from test_server_support import create, game_socket, server

pytestmark = pytest.mark.timeout(180)
VARIANTS = ["xiangqi", "janggi", "jieqi"]
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def new_record(variant: str, kind: GameKind, human_side: int | None = 0) -> GameRecord:
    """A game as the service creates it (jieqi with its secret arrangement)."""
    options: GameOptions = {}
    board_options: dict[str, Any] = {}
    if variant == "janggi":
        options = {"setup": {"cho": "HEEH", "han": "EHHE"}, "bikjang": "off"}
        board_options = {"setup": "HEEH:EHHE"}
    board = make_board(variant, seed=7, **board_options) if variant == "jieqi" else None
    board = board or make_board(variant, **board_options)
    secret = None
    if variant == "jieqi":
        arrangement, salt = board.reveal()  # type: ignore[attr-defined]
        secret = {"arrangement": arrangement, "salt": salt}
    return GameRecord(
        id=f"g_events_{variant}_{kind}_{random.random()}",
        kind=kind,
        variant=variant,
        level="beginner" if kind == "ai" else None,
        player_id="p_1",
        human_side=human_side if kind == "ai" else None,
        options=options,
        secret=secret,
        start_fen=board.fen(),
        created_at=T0,
        expires_at=T0 + timedelta(days=1),
    )


def stored(change: Change) -> list[StoredEvent]:
    """The events of a committed change, as the log and the hub hand them on."""
    return list(News.of(change.after, change.events).events)


def viewers_of(game: GameRecord) -> list[int | None]:
    return [None] if game.kind == "local" else [0, 1]


@pytest.mark.parametrize("kind", ["local", "online"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_folding_the_events_gives_the_full_state_after_every_change_P5_Z2(variant, kind) -> None:
    rng = random.Random(f"{variant}{kind}")
    game = new_record(variant, kind)
    first = rules_of.event("start")
    held = {
        viewer: EVENTS.apply(None, views.render(game, first, viewer)) for viewer in viewers_of(game)
    }
    for step in range(70):
        board = rules_of.board_of(game)
        change = None
        if kind == "local" and step in (21, 40):
            try:
                change = rules_of.undo(game, None)
            except GameActionError:
                assert variant == "jieqi"  # a reveal is final (undo_reveals)
        if change is None:
            move = rng.choice(sorted(board.legal_move_texts()))
            change = rules_of.play_move(game, game.ply, move, board.turn)
        assert change is not None
        game = change.after
        for viewer in viewers_of(game):
            for message in views.render_events(game, stored(change), viewer):
                check_change_only(message)
                held[viewer] = EVENTS.apply(held[viewer], message)
            assert held[viewer] == views.state_for(game, viewer), (step, viewer)
        if not game.ongoing:
            break


def check_change_only(message: dict[str, Any]) -> None:
    """A move event carries no list of the whole game (it stays small at any ply)."""
    if message["type"] == "move":
        assert "state" not in message
        assert set(message["set"]).isdisjoint(views.HISTORY)
        assert len(encode(message).encode()) < 1024  # as sent


def test_jieqi_change_events_tell_a_captured_face_down_piece_to_the_capturer_only_Q5_Z2() -> None:
    rng = random.Random(3)
    game = new_record("jieqi", "online")
    seen = 0
    while game.ongoing and game.ply < 120 and seen < 3:
        board = rules_of.board_of(game)
        move = rng.choice(sorted(board.legal_move_texts()))
        change = rules_of.play_move(game, game.ply, move, board.turn)
        assert change is not None
        game = change.after
        mover = 1 - rules_of.turn_of(game)
        events = {v: views.render_events(game, stored(change), v)[0] for v in (0, 1)}
        truth = rules_of.board_of(game).view("all")["moves"][-1]  # type: ignore[attr-defined]
        if truth["captured"] and events[mover]["record"]["captured"] != truth["captured"]:
            raise AssertionError("the capturer must learn what it took")
        if truth["captured"] and events[1 - mover]["record"]["captured"] == "?":
            seen += 1  # a face-down piece taken: the other side does not learn it (Q5)
            text = json.dumps(events[1 - mover])
            assert game.secret is not None
            assert game.secret["arrangement"] not in text
    assert seen == 3


def test_the_log_of_a_200_ply_game_stores_each_change_once_Z4() -> None:
    game = new_record("xiangqi", "local")
    rng = random.Random(11)
    sizes = []
    while game.ply < 200:
        board = rules_of.board_of(game)
        if board.outcome() is not None:  # start again from a fresh game on a rule's end
            game = new_record("xiangqi", "local")
            continue
        move = rng.choice(sorted(board.legal_move_texts()))
        change = rules_of.play_move(game, game.ply, move, None)
        assert change is not None
        game = change.after
        sizes += [len(encode(e)) for e in change.events if e["type"] == "move"]
    # every logged move is a few dozen bytes, whatever the ply: the log grows linearly
    assert max(sizes) < 100


def test_old_snapshot_rows_still_read_into_the_right_state_P5() -> None:
    """Rows logged before the change format carried a snapshot of the game; a replay that
    starts in them and goes on in the new format gives the state a hello gives."""
    game = new_record("xiangqi", "local")
    rows: list[StoredEvent] = [
        StoredEvent(game.id, 1, "start", {"type": "start", "snapshot": snapshot(game)})
    ]
    for move, old in (("h3e3", True), ("h10g8", True), ("h1g3", False), ("i10h10", False)):
        change = rules_of.play_move(game, game.ply, move, None)
        assert change is not None
        game = change.after
        payload = dict(change.events[0])
        if old:
            payload["snapshot"] = snapshot(game)
        rows.append(StoredEvent(game.id, game.seq, payload["type"], payload))
    folded = EVENTS.fold(views.render_events(game, rows, None))
    assert folded == views.state_for(game, None)
    # a log that does not lead to the game (a row lost) answers with the full state
    resync = views.render_events(game, rows[:-1], None)
    assert [m["type"] for m in resync] == ["state"]


def snapshot(game: GameRecord) -> dict[str, Any]:
    """The old format's snapshot fields."""
    fields = ("moves", "status", "result", "practice", "points_awarded")
    return {name: getattr(game, name) for name in fields}


# ---------------------------------------------------------------------- over the sockets


@pytest.mark.parametrize("variant", VARIANTS)
def test_over_the_game_socket_the_folded_events_equal_a_fresh_hello_through_undo_P5(
    tmp_path, variant
) -> None:
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="ai", variant=variant, level="beginner", color="random")
        with game_socket(client, game["id"], last_seq=0) as (sock, _):
            state = sock.wait_event(lambda e: e["state"]["legal_moves"])["state"]
            for _ in range(4):
                ply = state["ply"]
                move = [m for m in state["legal_moves"] if m != "pass"][-1]  # J6: no double pass
                assert sock.request("move", ply=ply, move=move)["type"] == "ack"
                state = sock.state_after_ply(ply + 2)
            undone = sock.request("undo")
            if variant == "jieqi" and undone.get("code") == "undo_reveals":
                pass  # the AI's reply turned a piece face up: final
            else:
                assert undone["type"] == "ack"
                sock.wait_event(lambda e: e["type"] == "undo")
            ply = sock.folded["ply"]  # type: ignore[index]
            move = next(m for m in sock.folded["legal_moves"] if m != "pass")  # type: ignore[index]
            assert sock.request("move", ply=ply, move=move)["type"] == "ack"
            sock.state_after_ply(ply + 2)
            assert sock.request("resign")["type"] == "ack"
            sock.wait_event(lambda e: e["type"] == "end")
            moves = [e for e in sock.events if e["type"] == "move"]
            assert moves
            assert all("moves" not in e["set"] for e in moves)
            held = sock.folded
        with game_socket(client, game["id"]) as (_, fresh):
            assert held == fresh


@pytest.fixture(scope="module")
def room_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with running_server(tmp_path_factory.mktemp("events-rooms")) as url:
        yield url


@pytest.mark.parametrize("variant", ["xiangqi", "jieqi"])
def test_in_a_room_each_player_folds_to_their_own_fresh_state_R7_Z2(room_server, variant) -> None:
    creator, friend = Player(room_server), Player(room_server)
    room = creator.create_room(variant=variant)
    assert friend.join_invite(room["invite"]).status_code == 200
    players = {creator: creator.open(room["id"]), friend: friend.open(room["id"])}
    for sock in players.values():
        assert sock.request("ready")["type"] == "ack"
    by_side: dict[str, tuple[Player, RoomSocket]] = {}
    for player, sock in players.items():
        state = sock.wait_for(lambda m: m.get("type") == "state")["state"]
        by_side[state["you"]] = (player, sock)
    rng = random.Random(variant)
    for ply in range(40):
        side = "red" if ply % 2 == 0 else "black"
        state = by_side[side][1].wait_state(at_ply(ply))
        if state["status"] != "ongoing" or not state["legal_moves"]:
            break
        move = rng.choice(sorted(state["legal_moves"]))
        assert by_side[side][1].request("move", ply=ply, move=move)["type"] == "ack"
    last = by_side["red"][1].wait_state(lambda s: s["status"] != "ongoing" or s["ply"] == 40)
    reopened = []
    for player, sock in by_side.values():
        held = sock.wait_state(lambda s: s["seq"] == last["seq"])
        assert [m for m in sock.messages if m.get("type") == "move"]
        # the same device opens the room again: its seat moves to the new socket at once
        again = player.open(room["id"])
        reopened.append(again)
        assert held == again.wait_for(lambda m: m.get("type") == "state")["state"]
    for sock in reopened:
        sock.close()


def test_a_replay_across_an_undo_gives_the_state_of_a_fresh_hello_P5(tmp_path) -> None:
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="jieqi")
        with game_socket(client, game["id"]) as (sock, state):
            held, seen = state, state["seq"]
            for move in ["e1e2", "e10e9", "e2e1"]:  # generals: face up, so undo may take back
                sock.request("move", ply=state["ply"], move=move)
                state = sock.state_after_ply(state["ply"] + 1)
            sock.request("undo")
            sock.wait_event(lambda e: e["type"] == "undo")
            sock.request("move", ply=2, move=sock.folded["legal_moves"][-1])  # type: ignore[index]
            sock.state_after_ply(3)
        with game_socket(client, game["id"], last_seq=seen, holding=held) as (replay, _):
            assert [e["type"] for e in replay.events] == ["move"] * 3 + ["undo", "move"]
            caught_up = replay.folded
        with game_socket(client, game["id"]) as (_, fresh):
            assert caught_up == fresh
