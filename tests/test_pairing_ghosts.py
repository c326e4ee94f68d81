"""No ghost seeks, no free aborts, no rematch spam (SPEC Z8, B1, B4), driven through real
sockets of a real ``chuhan serve`` (SQLite; addresses other than loopback come through
``X-Forwarded-For`` from the proxy the server trusts, as behind nginx).

- The sniper: one address, three cookies, each leaving its paired game before its first
  move unless the opponent is its target. The first abort makes the whole address wait
  (``abort_cooldown`` with the seconds left) and its waiting cookies are not paired
  meanwhile: honest players are paired with each other, the target never meets it.
- A page that stops answering (a phone asleep) loses its seek instead of being paired; a
  page that keeps pinging keeps it.
- 300 rematch offers and cancels from one seat reach the opponent as a handful of notices
  and the database as a handful of writes.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from rooms_client import WAIT, RoomSocket, running_server
from test_rooms_protocol import new_game

pytestmark = pytest.mark.timeout(120)

SILENT_SECONDS = 1.5
SNIPER = "203.0.113.5"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("ghosts")
    settings = {
        "CHUHAN_TRUSTED_PROXIES": "127.0.0.1",
        "CHUHAN_SEEK_SILENT_SECONDS": str(SILENT_SECONDS),
    }
    with running_server(data, **settings) as url:
        yield url, data


class Visitor:
    """A cookie (a new player) whose requests and sockets come from ``address``."""

    def __init__(self, url: str, address: str) -> None:
        self.url, self.address = url, address
        self.http = httpx.Client(base_url=url, headers={"X-Forwarded-For": address}, timeout=WAIT)
        self.name = self.http.get("/api/me").raise_for_status().json()["name"]

    def socket(self, path: str) -> RoomSocket:
        headers = {
            "Cookie": f"chuhan_player={self.http.cookies['chuhan_player']}",
            "X-Forwarded-For": self.address,
        }
        ws = connect(self.url.replace("http", "ws", 1) + path, additional_headers=headers)
        return RoomSocket(ws.__enter__())

    def seek(self, variant: str = "jieqi") -> tuple[RoomSocket, dict[str, Any]]:
        """A seek socket and the answer to its seek (``ack`` or ``error``)."""
        sock = self.socket("/ws/seek")
        return sock, sock.request("seek", variant=variant)


def kind(name: str) -> Any:
    return lambda message: message.get("type") == name


def test_the_sniper_pays_a_growing_wait_and_never_meets_its_target_Z8(
    server: tuple[str, Path],
) -> None:
    url, _ = server
    cookies = [Visitor(url, SNIPER) for _ in range(3)]
    target = Visitor(url, "198.51.100.99")
    ghost, _ = cookies[0].seek()  # the sniper keeps a seek waiting
    ghost.wait_for(kind("seeking"))

    # The first honest seeker meets it; the sniper reads the name and leaves, while its
    # second cookie already waits for the next one.
    honest = Visitor(url, "198.51.100.1")
    first, answer = honest.seek()
    assert answer["type"] == "ack"
    room = first.wait_for(kind("paired"))["room"]
    assert ghost.wait_for(kind("paired"))["room"] == room
    decoy, _ = cookies[1].seek()
    decoy.wait_for(kind("seeking"))
    in_room = cookies[0].socket(f"/ws/rooms/{room}")
    in_room.request("hello", device="sniper")
    seats = in_room.wait_for(kind("room"))["room"]["seats"]
    opponent = next(seat["name"] for seat in seats if not seat["you"])
    assert opponent != target.name
    assert in_room.request("leave")["type"] == "ack"  # before its first move: abandoned
    in_room.close()

    # Every cookie of the address now waits, told how long (Z8); the one that left too.
    for cookie in (cookies[0], cookies[2]):
        sock, refused = cookie.seek()
        assert refused["code"] == "abort_cooldown", refused
        assert 1 <= refused["retry_after"] <= 15
        sock.close()
    # Its cookie still waiting is not paired: honest players meet each other.
    again, _ = honest.seek()
    again.wait_for(kind("seeking"))
    other, _ = Visitor(url, "198.51.100.2").seek()
    paired = other.wait_for(kind("paired"))["room"]
    assert again.wait_for(kind("paired"))["room"] == paired
    aimed, _ = target.seek()
    aimed.wait_for(kind("seeking"))
    last, _ = Visitor(url, "198.51.100.3").seek()
    assert last.wait_for(kind("paired"))["room"] == aimed.wait_for(kind("paired"))["room"]
    assert decoy.request("ping")["type"] == "pong"
    # The sniper took one pairing of the five made for honest players, and not its target.
    taken = [m for sock in (ghost, decoy) for m in sock.messages if m.get("type") == "paired"]
    assert len(taken) == 1
    for sock in (ghost, decoy, first, again, other, aimed, last):
        sock.close()


def test_a_silent_page_loses_its_seek_one_that_pings_keeps_it_B1_Z8(
    server: tuple[str, Path],
) -> None:
    url, _ = server
    asleep = Visitor(url, "192.0.2.10")
    dozing, _ = asleep.seek("janggi")
    assert dozing.wait_for(kind("seeking"))["heartbeat"] == round(SILENT_SECONDS / 3, 1)
    awake = Visitor(url, "192.0.2.11")
    # A page that pings keeps its seek past the silence allowed (here in xiangqi).
    pinging, _ = awake.seek("xiangqi")
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(0.3):
            pinging.send("ping")

    beating = threading.Thread(target=heartbeat, daemon=True)
    beating.start()
    # The silent page says nothing: its seek is withdrawn and it is told so.
    dozing.wait_for(kind("cancelled"), timeout=SILENT_SECONDS + 8)
    time.sleep(SILENT_SECONDS)
    # Nobody is paired with the sleeper; the one that answered is paired.
    late = Visitor(url, "192.0.2.12")
    sock, _ = late.seek("janggi")
    sock.wait_for(kind("seeking"))
    assert sock.request("ping")["type"] == "pong"
    assert not [m for m in sock.messages + dozing.messages if m.get("type") == "paired"]
    partner, _ = Visitor(url, "192.0.2.13").seek("xiangqi")
    room = partner.wait_for(kind("paired"))["room"]
    assert pinging.wait_for(kind("paired"))["room"] == room
    stop.set()
    beating.join()
    for each in (dozing, pinging, sock, partner):
        each.close()


def test_rematch_spam_reaches_neither_the_opponent_nor_the_database_B4(
    server: tuple[str, Path],
) -> None:
    url, data = server
    sockets, room, _ = new_game(url)
    red, black = sockets["red"], sockets["black"]
    mark = len(red.messages)
    assert black.request("resign")["type"] == "ack"
    red.wait_for(kind("end"), start=mark)

    # An offer reaches the opponent; the same offer again changes nothing: no write, and
    # nothing pushed (the opponent's ping is answered after anything sent before it).
    assert red.request("rematch", action="offer")["type"] == "ack"
    black.wait_for(lambda m: m.get("type") == "room" and _offered(m), start=mark)
    stored, pushed = _version(data, room["id"]), len(black.messages)
    assert red.request("rematch", action="offer")["type"] == "ack"
    assert black.request("ping")["type"] == "pong"
    assert _version(data, room["id"]) == stored
    assert not [m for m in black.messages[pushed:] if m.get("type") == "room"]

    # 300 offers and cancels: a few go through, the rest are refused before any work.
    codes = []
    for number in range(300):
        action = "cancel" if number % 2 == 0 else "offer"
        codes.append(red.request("rematch", action=action).get("code", "ack"))
    assert black.request("ping")["type"] == "pong"
    assert codes.count("ack") <= 10
    assert codes.count("too_many_rematches") == 300 - codes.count("ack")
    refused = next(m for m in red.messages if m.get("code") == "too_many_rematches")
    assert refused["retry_after"] >= 1
    assert _version(data, room["id"]) - stored <= 10  # not 300 writes
    assert len([m for m in black.messages[pushed:] if m.get("type") == "room"]) <= 10
    for sock in (red, black):
        sock.close()


def _offered(message: dict[str, Any]) -> bool:
    seats = message["room"]["seats"]
    return any(not seat["you"] and seat["rematch"] == "offered" for seat in seats)


def _version(data: Path, room_id: str) -> int:
    """The room's version as stored: one more with every write of the room."""
    with sqlite3.connect(data / "chuhan.sqlite3") as database:
        query = "SELECT version FROM rooms WHERE id = ?"
        return int(database.execute(query, (room_id,)).fetchone()[0])
