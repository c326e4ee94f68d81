"""Room passwords cannot be found by guessing (SPEC Z3, R2): the limits layer
(``server/limits.py``, ``rooms/ratelimit.py``) against a hostile client.

Each test runs a real ``chuhan serve``; addresses other than loopback come through
``X-Forwarded-For`` from a proxy the server was told to trust (as behind nginx).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from chuhan.server.connections import address_block
from rooms_client import Player, running_server

LIMITS = {
    "CHUHAN_ROOM_JOIN_TRIES_PER_PLAYER": "4",
    "CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS": "6",
    "CHUHAN_TRUSTED_PROXIES": "127.0.0.1",
}


def visitor(url: str, address: str) -> httpx.Client:
    """A fresh identity (a new cookie) whose requests come from ``address``."""
    client = httpx.Client(base_url=url, headers={"X-Forwarded-For": address}, timeout=30)
    client.get("/api/me").raise_for_status()
    return client


def code_of(answer: httpx.Response) -> str:
    return str(answer.json()["error"]["code"]) if answer.status_code >= 400 else "ok"


def test_address_blocks_are_ipv4_addresses_and_ipv6_slash_64s_Z3() -> None:
    assert address_block("2001:db8:1:2::1") == address_block("2001:db8:1:2:ffff::9")
    assert address_block("2001:db8:1:2::1") != address_block("2001:db8:1:3::1")
    assert address_block("::ffff:203.0.113.7") == address_block("203.0.113.7") == "203.0.113.7"
    assert address_block("203.0.113.7") != address_block("203.0.113.8")


def test_creating_a_room_is_no_password_oracle_and_shares_the_join_budget_Z3(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path, **{**LIMITS, "CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS": "100"}) as url:
        Player(url).create_room(password="q7z")
        prober = visitor(url, "203.0.113.10")
        answers: list[str] = []
        for guess in ("aa1", "bb2"):  # probing by creating rooms: each is an attempt
            made = prober.post("/api/rooms", json={"password": guess})
            answers.append(code_of(made))
            if made.status_code == 201:
                prober.post(f"/api/rooms/{made.json()['id']}/leave")
        for guess in ("cc3", "dd4"):  # and joins draw on the same budget
            answers.append(code_of(prober.post("/api/rooms/join", json={"password": guess})))
        assert answers == ["ok", "ok", "wrong_password", "wrong_password"]
        # The budget is spent: creation no longer says whether a password is taken.
        taken = prober.post("/api/rooms", json={"password": "Q7Z"})
        free = prober.post("/api/rooms", json={"password": "ee5"})
        assert code_of(taken) == code_of(free) == "too_many_attempts"
        assert taken.status_code == free.status_code == 429
        assert taken.json()["retry_after"] > 0


def test_fresh_identities_and_addresses_of_one_ipv6_block_share_one_budget_Z3(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path, **LIMITS) as url:
        Player(url).create_room(password="q7z")
        answers = []
        for number in range(12):  # a new cookie and a new address of one /64 every time
            guesser = visitor(url, f"2001:db8:5:6::{number + 1:x}")
            answers.append(code_of(guesser.post("/api/rooms/join", json={"password": "zz9"})))
        assert answers.count("wrong_password") == 6  # the block's budget, not 12 × 4
        assert answers[6:] == ["too_many_attempts"] * 6


def test_the_whole_site_slows_every_guesser_when_it_is_under_attack_Z3(tmp_path: Path) -> None:
    settings = {**LIMITS, "CHUHAN_PASSWORD_TRIES_SITE": "8"}
    with running_server(tmp_path, **settings) as url:
        answers = []
        for number in range(12):  # every guess from another address and cookie
            guesser = visitor(url, f"198.51.100.{number + 1}")
            answers.append(code_of(guesser.post("/api/rooms/join", json={"password": "zz9"})))
        assert answers.count("wrong_password") == 8
        assert answers[8:] == ["too_many_attempts"] * 4


def test_the_right_password_from_a_fresh_cookie_gets_in_after_others_failures_Z3(
    tmp_path: Path,
) -> None:
    # 6 attempts per 6 s for the address: one comes back every second.
    settings = {**LIMITS, "CHUHAN_ROOM_JOIN_WINDOW_SECONDS": "6"}
    with running_server(tmp_path, **settings) as url:
        host = Player(url)
        host.create_room(password="q7z")
        for _ in range(2):  # others behind the same address spend its budget
            guesser = visitor(url, "203.0.113.20")
            for guess in ("aa1", "bb2", "cc3"):
                guesser.post("/api/rooms/join", json={"password": guess})
        friend = visitor(url, "203.0.113.20")
        joined = friend.post("/api/rooms/join", json={"password": "Q7Z"})
        assert joined.status_code == 200, joined.text  # slowed down, not shut out
        assert len(joined.json()["seats"]) == 2


def test_open_rooms_per_player_and_finds_per_room_are_limited_Z3(tmp_path: Path) -> None:
    settings = {**LIMITS, "CHUHAN_OPEN_ROOMS_PER_PLAYER": "2", "CHUHAN_ROOM_FINDS_PER_ROOM": "2"}
    with running_server(tmp_path, **settings) as url:
        hoarder = Player(url)
        rooms = [hoarder.create_room() for _ in range(2)]
        third = hoarder.http.post("/api/rooms", json={})
        assert third.status_code == 429 and code_of(third) == "too_many_rooms"
        hoarder.http.post(f"/api/rooms/{rooms[0]['id']}/leave")
        assert hoarder.http.post("/api/rooms", json={}).status_code == 201

        Player(url).create_room(password="q7z")
        finds: list[Any] = []
        for number in range(3):  # strangers who found the password: the room is found twice
            finder = visitor(url, f"203.0.113.{30 + number}")
            finds.append(code_of(finder.post("/api/rooms/join", json={"password": "q7z"})))
        assert finds == ["ok", "room_full", "too_many_attempts"]
