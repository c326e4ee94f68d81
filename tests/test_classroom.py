"""A classroom behind one address can all play (SPEC Z5, Z7), while the limits against abuse
hold: per identity first, per address block as the backstop, an IPv6 /48 counted as well.

One real server; every request comes from 127.0.0.1, as a school's NAT makes it: 150 first
visits, 100 students starting 6 one-device games each, 30 students with 3 tabs open.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from chuhan.server.budget import TooManyError
from chuhan.server.db.store import Store
from chuhan.server.limits.budgets import CreationBudgets
from chuhan.server.rules_config import MAX_WAIT_SECONDS, CreationLimits
from rooms_client import WAIT, running_server

pytestmark = pytest.mark.timeout(300)
STUDENTS = 150


@pytest.fixture(scope="module")
def school(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("classroom")) as url:
        yield url


def _first_visit(browser: httpx.Client) -> tuple[int, str | None]:
    """A visit without a cookie (a new student's browser) on the school's one connection."""
    browser.cookies.clear()
    answer = browser.get("/api/me")
    return answer.status_code, browser.cookies.get("chuhan_player")


def test_a_school_of_150_on_one_address_all_start_playing_Z5(school: str) -> None:
    # A budget may hold a request up to MAX_WAIT_SECONDS before it answers: wait longer.
    browser = httpx.Client(base_url=school, timeout=MAX_WAIT_SECONDS + WAIT)
    visits = [_first_visit(browser) for _ in range(STUDENTS)]
    refused = [status for status, _ in visits if status != 200]
    assert refused == []  # 150 first visits: 50 refused before
    cookies = [str(cookie) for _, cookie in visits]

    refused_games = 0
    for cookie in cookies[:100]:  # 100 students, 6 games each on one device
        browser.cookies.clear()
        browser.cookies.set("chuhan_player", cookie)
        for _ in range(6):
            answer = browser.post("/api/games", json={"kind": "local"})
            refused_games += answer.status_code != 201
    assert refused_games == 0  # 600 games: 94 refused before

    tabs_refused = 0
    with contextlib.ExitStack() as stack:
        for cookie in cookies[:30]:  # 30 students, 3 tabs each on their game
            browser.cookies.clear()
            browser.cookies.set("chuhan_player", cookie)
            game = browser.post("/api/games", json={"kind": "local"}).json()["id"]
            address = school.replace("http", "ws", 1) + f"/ws/games/{game}"
            for _ in range(3):
                try:
                    ws = connect(
                        address,
                        additional_headers={"Cookie": f"chuhan_player={cookie}"},
                        open_timeout=WAIT,
                    )
                except Exception:
                    tabs_refused += 1
                    continue
                stack.enter_context(ws)
                ws.send('{"type": "ping", "id": "tab"}')
                ws.recv(timeout=WAIT)
        assert tabs_refused == 0  # 90 tabs: 26 refused before

    # The backstop holds: a cookie-less flood from the address is refused once its hourly
    # budget of new players is spent (at most 300 in all, and one more every 12 s).
    flood = [_first_visit(browser)[0] for _ in range(200)]
    browser.close()
    assert 429 in flood
    assert flood.count(200) <= 300 - STUDENTS + 10


def test_an_ipv6_48_is_counted_besides_each_64_Z5(tmp_path: Path) -> None:
    """One holder of a /48 has 65,536 /64s: each /64 gets the address budget, the /48 as a
    whole a budget too (twice one address's), so hopping /64s buys no more."""
    store = Store(f"sqlite:///{tmp_path}/budgets.sqlite3")
    store.migrate()
    limits = CreationLimits()
    budgets = CreationBudgets(store, limits)
    made, refused = 0, None
    for number in range(2 * limits.players_per_network):
        block = f"2001:db8:7:{number // 100:x}::/64"  # a new /64 every 100 players
        try:
            budgets.spend("players", None, block)
        except TooManyError as exc:
            refused = exc
            break
        made += 1
    assert refused is not None
    assert refused.code == "too_many_players"
    slowed = int(limits.max_wait_seconds * limits.players_per_network / limits.window_seconds)
    assert made <= limits.players_per_network + slowed + 1  # a few more wait their turn
    assert made >= limits.players_per_address  # one /64 alone had its whole budget
    # Another /48 is another network: its first new player is made at once.
    taken = budgets.spend("players", None, "2001:db8:8::/64")
    assert taken is not None
    assert taken.wait == 0
