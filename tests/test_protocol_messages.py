"""The typed messages of both sockets (SPEC Z5, P5): one reader for the game and the room
socket, the same wire behaviour for bad input, and docs/protocol.md generated from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chuhan.server.protocol import docs
from chuhan.server.protocol.messages import (
    EVENTS,
    GAME_MESSAGES,
    ROOM_MESSAGES,
    ErrorReply,
    MessageSet,
    Move,
    ProtocolError,
    RoomHello,
    Setup,
    check_server_message,
    error_reply,
    parse,
)
from chuhan.server.records import EventType

DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
LIMIT = 4096
BOTH: list[MessageSet[Any]] = [GAME_MESSAGES, ROOM_MESSAGES]


def test_docs_protocol_md_lists_exactly_the_messages_of_the_code() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert docs.docs_with_tables(text) == text, (
        "docs/protocol.md is out of date: run python -m chuhan.server.protocol --write"
    )
    for messages in BOTH:
        for kind in messages.types:
            assert f"| `{kind}` |" in text


@pytest.mark.parametrize("messages", BOTH, ids=lambda m: m.name)
@pytest.mark.parametrize(
    ("raw", "code", "reply_to"),
    [
        ("x" * (LIMIT + 1), "too_large", None),
        (json.dumps({"id": "a", "type": "move", "move": "é" * LIMIT}), "too_large", None),
        ("{nope", "malformed", None),
        ("[1, 2]", "malformed", None),
        ('"hello"', "malformed", None),
        (json.dumps({"type": "ping"}), "bad_request", None),
        (json.dumps({"id": "", "type": "ping"}), "bad_request", None),
        (json.dumps({"id": 7, "type": "ping"}), "bad_request", None),
        (json.dumps({"id": "x" * 65, "type": "ping"}), "bad_request", None),
        (json.dumps({"id": "a", "type": "castle"}), "unknown_type", "a"),
        (json.dumps({"id": "a", "type": None}), "unknown_type", "a"),
        (json.dumps({"id": "a", "type": ["move"]}), "unknown_type", "a"),
        (json.dumps({"id": "b", "type": "move", "ply": -1, "move": "h3e3"}), "bad_request", "b"),
        (json.dumps({"id": "b", "type": "move", "ply": True, "move": "h3e3"}), "bad_request", "b"),
        (json.dumps({"id": "b", "type": "move", "ply": "0", "move": "h3e3"}), "bad_request", "b"),
        (json.dumps({"id": "b", "type": "move", "ply": 1.0, "move": "h3e3"}), "bad_request", "b"),
        (json.dumps({"id": "c", "type": "move", "ply": 0}), "bad_request", "c"),
        (json.dumps({"id": "c", "type": "move", "move": "h3e3"}), "bad_request", "c"),
        (json.dumps({"id": "c", "type": "move", "ply": 0, "move": ""}), "bad_request", "c"),
        (json.dumps({"id": "c", "type": "move", "ply": 0, "move": "a" * 17}), "bad_request", "c"),
        (json.dumps({"id": "d", "type": "hello", "last_seq": "x"}), "bad_request", "d"),
        (json.dumps({"id": "d", "type": "hello", "last_seq": 100_001}), "bad_request", "d"),
    ],
)
def test_bad_input_gets_the_same_error_on_both_sockets_Z5(messages, raw, code, reply_to) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse(raw, LIMIT, messages)
    assert refused.value.code == code
    assert refused.value.reply_to == reply_to
    assert refused.value.message


def test_a_bad_field_is_named_in_the_error_message_Z5() -> None:
    with pytest.raises(ProtocolError) as refused:
        parse(json.dumps({"id": "m", "type": "move", "ply": 0}), LIMIT)
    assert "'move'" in refused.value.message


def test_each_socket_knows_its_own_messages_only() -> None:
    ready = json.dumps({"id": "r", "type": "ready"})
    with pytest.raises(ProtocolError) as refused:
        parse(ready, LIMIT, GAME_MESSAGES)
    assert refused.value.code == "unknown_type"
    assert "hello" in refused.value.message
    assert parse(ready, LIMIT, ROOM_MESSAGES).type == "ready"
    hint = json.dumps({"id": "h", "type": "hint"})
    assert parse(hint, LIMIT, GAME_MESSAGES).type == "hint"
    with pytest.raises(ProtocolError):
        parse(hint, LIMIT, ROOM_MESSAGES)


@pytest.mark.parametrize("messages", BOTH, ids=lambda m: m.name)
def test_a_move_reads_into_one_typed_message_with_unknown_fields_ignored(messages) -> None:
    raw = json.dumps({"id": "m1", "type": "move", "ply": 3, "move": "h3e3", "extra": [1]})
    move = parse(raw, LIMIT, messages)
    assert isinstance(move, Move)
    assert (move.id, move.ply, move.move) == ("m1", 3, "h3e3")


def test_the_room_hello_checks_its_device_and_game_R7() -> None:
    hello = parse(
        json.dumps({"id": "h", "type": "hello", "device": "tab-1_a", "game_id": "g_1"}),
        LIMIT,
        ROOM_MESSAGES,
    )
    assert isinstance(hello, RoomHello)
    assert hello.device == "tab-1_a"
    assert hello.last_seq is None
    for bad in ({"device": "a b"}, {"device": "x" * 41}, {"device": 3}, {"game_id": "g" * 33}):
        with pytest.raises(ProtocolError) as refused:
            parse(json.dumps({"id": "h", "type": "hello", **bad}), LIMIT, ROOM_MESSAGES)
        assert refused.value.code == "bad_request"
        assert refused.value.reply_to == "h"


def test_a_janggi_setup_is_one_of_the_four_J3() -> None:
    setup = parse(json.dumps({"id": "s", "type": "setup", "setup": "EHHE"}), LIMIT, ROOM_MESSAGES)
    assert isinstance(setup, Setup)
    assert setup.setup == "EHHE"
    with pytest.raises(ProtocolError) as refused:
        parse(json.dumps({"id": "s", "type": "setup", "setup": "HHEE"}), LIMIT, ROOM_MESSAGES)
    assert refused.value.code == "bad_request"


def test_the_one_error_reply_has_the_same_shape_everywhere_Z5() -> None:
    reply = error_reply("illegal_move", "no", "m3", state=None)
    assert reply == {
        "type": "error",
        "reply_to": "m3",
        "code": "illegal_move",
        "message": "no",
        "state": None,
    }
    checked = check_server_message(reply)
    assert isinstance(checked, ErrorReply)
    assert checked.code == "illegal_move"
    assert error_reply("malformed", "bad")["reply_to"] is None


def test_every_event_a_game_logs_is_one_the_clients_know_P5() -> None:
    # The typed event kinds (records.EventType) and the server's event models (EVENTS) are
    # the same set, but for "state", which is rendered for a viewer and never logged.
    logged = set(EventType.__args__)  # type: ignore[attr-defined]
    assert logged == {model.message_type for model in EVENTS} - {"state"}
