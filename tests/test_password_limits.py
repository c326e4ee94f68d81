"""Room passwords cannot be found by guessing (SPEC Z3, R2): the limits layer
(``server/budget.py``, ``rooms/ratelimit.py``) against a hostile client.

Each test runs a real ``chuhan serve``; addresses other than loopback come through
``X-Forwarded-For`` from a proxy the server was told to trust (as behind nginx).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from chuhan.server.addresses import address_block, network_block
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
    # IPv6 is counted per /48 as well; IPv4 has no wider block.
    assert network_block("2001:db8:1:2::1") == network_block("2001:db8:1:ff00::1")
    assert network_block("2001:db8:1::1") != network_block("2001:db8:2::1")
    assert network_block("203.0.113.7") is None
    assert network_block("::ffff:203.0.113.7") is None


def test_one_ipv6_slash_48_shares_one_budget_also_under_attack_Z3(tmp_path: Path) -> None:
    """The /64s of one /48 share its budget (8 here), and once the site's
    budget (9) is spent, its under-attack budget (6) however many /64s it guesses from."""
    settings = {
        **LIMITS,
        "CHUHAN_ROOM_JOIN_TRIES_PER_NETWORK": "8",
        "CHUHAN_PASSWORD_TRIES_SITE": "9",
    }
    with running_server(tmp_path, **settings) as url:
        answers = []
        for number in range(12):  # a new /64 and a new cookie every time
            guesser = visitor(url, f"2001:db8:7:{number + 1:x}::1")
            answers.append(code_of(guesser.post("/api/rooms/join", json={"password": "zz9"})))
        assert answers == ["wrong_password"] * 8 + ["too_many_attempts"] * 4
        # Another /48: its first guess spends the site's last; then 3 per /64, 6 per /48.
        flood = [guesses_until_refused(url, f"2001:db8:8:{n + 1:x}::1") for n in range(4)]
        assert flood == [4, 3, 0, 0]


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
        answers.extend(  # and joins draw on the same budget
            code_of(prober.post("/api/rooms/join", json={"password": guess}))
            for guess in ("cc3", "dd4")
        )
        assert answers == ["ok", "ok", "wrong_password", "wrong_password"]
        # The budget is spent: creation no longer says whether a password is taken.
        taken = prober.post("/api/rooms", json={"password": "Q7Z"})
        free = prober.post("/api/rooms", json={"password": "ee5"})
        assert code_of(taken) == code_of(free) == "too_many_attempts"
        assert taken.status_code == free.status_code == 429
        assert taken.json()["error"]["retry_after"] > 0


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


def guesses_until_refused(url: str, address: str, most: int = 10) -> int:
    """Wrong guesses from ``address``, each with a fresh cookie (a guesser rotating
    identities), until one is refused; how many were answered."""
    for answered in range(most):
        guesser = visitor(url, address)
        answer = code_of(guesser.post("/api/rooms/join", json={"password": f"zz{answered}x"}))
        if answer != "wrong_password":
            assert answer == "too_many_attempts"
            return answered
    return most


def test_a_distributed_flood_slows_guessers_but_never_shuts_out_the_right_password_Z3(
    tmp_path: Path,
) -> None:
    """A site-wide budget of 8 spent by guessers from 20 addresses. Each address
    then has only its under-attack budget (3), so the flood is held to 8 + 3 per address;
    friends with the right password and a fresh creator, each from a new address and
    cookie, still get in."""
    settings = {**LIMITS, "CHUHAN_PASSWORD_TRIES_SITE": "8"}
    with running_server(tmp_path, **settings) as url:
        passwords = ("q7z", "k4t", "m2w")
        for password in passwords:
            Player(url).create_room(password=password)
        flood = [guesses_until_refused(url, f"203.0.113.{n + 1}") for n in range(20)]
        friends = [
            code_of(visitor(url, f"198.51.100.{70 + n}").post(
                "/api/rooms/join", json={"password": password.upper()}
            ))
            for n, password in enumerate(passwords)
        ]  # fmt: skip
        creator = visitor(url, "198.51.100.80")
        created = code_of(creator.post("/api/rooms", json={"password": "n8v"}))
        print(f"wrong guesses answered per address: {flood} (total {sum(flood)});",
              f"friends' joins: {friends}; a fresh creator: {created}")  # fmt: skip
        assert friends == ["ok", "ok", "ok"]
        assert created == "ok"
        # The three creations and the first address's 5 spend the site's 8; that address
        # has one more try of its own 6, and every later address its 3 and no more.
        assert flood == [6] + [3] * 19


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
        assert third.status_code == 429
        assert code_of(third) == "too_many_rooms"
        hoarder.http.post(f"/api/rooms/{rooms[0]['id']}/leave")
        assert hoarder.http.post("/api/rooms", json={}).status_code == 201

        Player(url).create_room(password="q7z")
        finds: list[Any] = []
        for number in range(3):  # strangers who found the password: the room is found twice
            finder = visitor(url, f"203.0.113.{30 + number}")
            finds.append(code_of(finder.post("/api/rooms/join", json={"password": "q7z"})))
        assert finds == ["ok", "room_full", "too_many_attempts"]
