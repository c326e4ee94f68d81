"""Quick messages in rooms (SPEC B8, Z5), through real sockets of a real ``chuhan serve``.

A player says one of a fixed set of ids; both seats' sockets get it as that id (each page
shows it in its own language), never as text, never with who said it beyond ``you``; an
unknown id or free text is refused and the socket goes on; a seat's flood is cut by its
budget before it reaches anyone; nothing is stored. The mute is the page's own
(tests/test_quick_messages_browser.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from chuhan.server.protocol.messages import QUICK_MESSAGES
from rooms_client import Player, RoomSocket, running_server
from test_rooms_protocol import seated_pair

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("quick")
    with running_server(data) as url:
        yield url, data


def said(message: dict[str, Any]) -> bool:
    return message.get("type") == "said"


def private_room(url: str) -> tuple[RoomSocket, RoomSocket]:
    creator, friend, room = seated_pair(url)
    return creator.open(room["id"]), friend.open(room["id"])


def paired_room(url: str) -> tuple[RoomSocket, RoomSocket]:
    """Two strangers paired by "Play someone now" (B1), each on their room socket."""
    players = [Player(url), Player(url)]
    seeks = []
    for player in players:
        address = player.base_url.replace("http", "ws", 1) + "/ws/seek"
        seeks.append(RoomSocket(_connect(address, player.cookie)))
    for seek in seeks:
        assert seek.request("seek", variant="xiangqi")["type"] in ("ack", "seeking", "paired")
    rooms = {s.wait_for(lambda m: m.get("type") == "paired")["room"] for s in seeks}
    assert len(rooms) == 1
    room_id = rooms.pop()
    sockets = [player.open(room_id) for player in players]
    for seek in seeks:
        seek.close()
    return sockets[0], sockets[1]


def _connect(address: str, cookie: str) -> Any:
    return connect(address, additional_headers={"Cookie": cookie}).__enter__()


@pytest.mark.parametrize("kind", ["private", "paired"])
def test_a_quick_message_reaches_the_other_seat_as_its_id_B8(
    server: tuple[str, Path], kind: str
) -> None:
    url = server[0]
    first, second = private_room(url) if kind == "private" else paired_room(url)
    mark = len(second.messages)
    assert first.request("say", phrase="good_luck")["type"] == "ack"
    heard = second.wait_for(said, start=mark)
    # The id alone: the receiving page words it in its own language; nobody's id or name.
    assert heard == {"type": "said", "phrase": "good_luck", "you": False}
    echoed = first.wait_for(said)
    assert echoed == {"type": "said", "phrase": "good_luck", "you": True}
    # The other way round, and after a game too: a paired game begins at once.
    if kind == "paired":
        assert second.request("resign")["type"] == "ack"
    mark = len(first.messages)
    assert second.request("say", phrase="good_game")["type"] == "ack"
    assert first.wait_for(said, start=mark)["phrase"] == "good_game"
    for sock in (first, second):
        sock.close()


def test_an_unknown_id_or_free_text_is_refused_and_the_socket_goes_on_B8_Z5(
    server: tuple[str, Path],
) -> None:
    first, second = private_room(server[0])
    mark = len(second.messages)
    refused = first.request("say", phrase="you are bad")
    assert refused["type"] == "error"
    assert refused["code"] == "bad_request"
    assert all(phrase in refused["message"] for phrase in QUICK_MESSAGES)
    assert first.request("say", phrase="")["code"] == "bad_request"
    assert first.request("say", phrase=["thanks"])["code"] == "bad_request"
    assert first.request("say")["code"] == "bad_request"
    # A known id with free text beside it: the text goes nowhere.
    assert first.request("say", phrase="thanks", text="meet me at …")["type"] == "ack"
    assert first.request("ping")["type"] == "pong"
    assert second.request("ping")["type"] == "pong"  # whatever was pushed came before
    heard = [m for m in second.messages[mark:] if m.get("type") == "said"]
    assert heard == [{"type": "said", "phrase": "thanks", "you": False}]
    assert "meet me" not in "".join(second.raw)
    for sock in (first, second):
        sock.close()


def test_a_seat_may_say_five_at_once_then_one_every_few_seconds_B8(
    server: tuple[str, Path],
) -> None:
    first, second = private_room(server[0])
    mark = len(second.messages)
    answers = [first.request("say", phrase="oops") for _ in range(40)]
    codes = [answer.get("code", answer["type"]) for answer in answers]
    assert codes[:5] == ["ack"] * 5
    assert codes.count("ack") <= 6  # a sixth only if the test was slow enough to earn it
    refused = next(answer for answer in answers if answer["type"] == "error")
    assert refused["code"] == "too_many_messages"
    assert 1 <= refused["retry_after"] <= 5
    assert second.request("ping")["type"] == "pong"
    heard = [m for m in second.messages[mark:] if m.get("type") == "said"]
    assert len(heard) == codes.count("ack")
    # The other seat has its own budget, and the refused seat is still seated and playing.
    assert second.request("say", phrase="thanks")["type"] == "ack"
    assert first.request("ready")["type"] == "ack"
    for sock in (first, second):
        sock.close()


def test_nothing_said_is_stored_nor_replayed_B8(server: tuple[str, Path]) -> None:
    url, data = server
    creator, friend, room = seated_pair(url)
    first, second = creator.open(room["id"]), friend.open(room["id"])
    assert first.request("say", phrase="well_played")["type"] == "ack"
    second.wait_for(said)
    second.close()
    again = friend.open(room["id"])  # a reconnecting page: the room and no old words
    assert again.request("ping")["type"] == "pong"
    assert not [m for m in again.messages if m.get("type") == "said"]
    stored = b"".join(path.read_bytes() for path in data.glob("*.sqlite3*"))
    assert stored
    assert b"well_played" not in stored
    for sock in (first, again):
        sock.close()
