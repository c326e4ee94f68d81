"""Downloading all of one's games stalls nobody (SPEC Z7, B3): one download at a time per player and
per address, an hourly budget, and the file written by another process than the server's.

A real server (and, for what happens inside it, the app in this process) with archives seeded
straight into its database: each game a long cycling xiangqi game, as the audit's.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from chuhan.rules import make_board
from chuhan.server.db.store import Store
from chuhan.server.records import GameRecord, utcnow
from rooms_client import running_server
from test_server_support import server

pytestmark = pytest.mark.timeout(180)
CYCLE = ["h1g3", "h10g8", "g3h1", "g8h10"]  # a legal cycle, as long as one wants
START = make_board("xiangqi").fen()
GAMES = 40  # in each archive of the real server
DOWNLOAD_WAIT = 120  # a download on a machine busy with other work takes a while


def seed_archive(store: Store, player_id: str, games: int, plies: int) -> None:
    """``games`` finished one-device games of ``plies`` half-moves for the player."""
    now = utcnow()
    for number in range(games):
        moment = now - timedelta(minutes=number)
        game = GameRecord(
            id=f"g_seed_{player_id[-8:]}_{number}",
            kind="local",
            variant="xiangqi",
            player_id=player_id,
            start_fen=START,
            moves=[CYCLE[i % 4] for i in range(plies)],
            status="finished",
            result={"winner": None, "reason": "agreement", "points": None},
            created_at=moment,
            expires_at=moment + timedelta(days=1),
            updated_at=moment,
        )
        store.insert_game(game, [{"type": "start"}], [])


def _visitor(url: str, source: str = "127.0.0.1") -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=source)
    client = httpx.Client(base_url=url, timeout=DOWNLOAD_WAIT, transport=transport)
    client.get("/api/me").raise_for_status()
    return client


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    data = tmp_path_factory.mktemp("downloads")
    with running_server(data, CHUHAN_DOWNLOADS_PER_PLAYER="2") as url:
        store = Store(f"sqlite:///{(data / 'chuhan.sqlite3').resolve()}")
        yield url, store
        store.dispose()


def test_one_download_at_a_time_per_player_and_per_address_Z7(site: tuple[str, Store]) -> None:
    url, store = site
    player, neighbour = _visitor(url), _visitor(url)
    elsewhere = _visitor(url, source="127.0.0.2")  # another address
    for client in (player, neighbour, elsewhere):
        seed_archive(store, client.get("/api/me").json()["id"], GAMES, 300)
    # At once: the player twice (two tabs), a neighbour behind the same NAT, someone elsewhere.
    askers = {"tab 1": player, "tab 2": player, "neighbour": neighbour, "elsewhere": elsewhere}
    ready = threading.Barrier(len(askers))
    answers: dict[str, httpx.Response] = {}

    def download(name: str, client: httpx.Client) -> None:
        ready.wait()
        answers[name] = client.get("/api/archive/records")

    threads = [threading.Thread(target=download, args=item) for item in askers.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    same_address = [answers[name] for name in ("tab 1", "tab 2", "neighbour")]
    written = [a for a in same_address if a.status_code == 200]
    refused = [a for a in same_address if a.status_code == 429]
    assert len(written) == 1, [a.status_code for a in same_address]
    assert len(refused) == 2, [a.status_code for a in same_address]
    assert written[0].headers["x-archive-games"] == str(GAMES)
    assert written[0].text.count("[Event ") == GAMES
    for answer in refused:
        assert answer.json()["error"]["code"] == "download_running"
        assert int(answer.headers["retry-after"]) >= 1
    assert answers["elsewhere"].status_code == 200  # another address goes on meanwhile
    # Once it is written, the next one of the address is.
    again = neighbour if written[0] is not answers["neighbour"] else player
    assert again.get("/api/archive/records").status_code == 200


def test_downloads_have_an_hourly_budget_per_player_Z7(site: tuple[str, Store]) -> None:
    url, _ = site
    player = _visitor(url, source="127.0.0.3")
    answers = [player.get("/api/archive/records") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]  # 2 an hour in this server
    body = answers[-1].json()["error"]
    assert body["code"] == "too_many_downloads"
    assert body["retry_after"] >= 1


def _watched(function: Callable[..., Any], calls: list[str]) -> Callable[..., Any]:
    @functools.wraps(function)
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(function.__name__)
        return function(*args, **kwargs)

    return counted


def test_the_file_is_written_by_another_process_than_the_servers_Z7(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database: tuple[str, str | None]
) -> None:
    """The server's own process (its loop and its threads) writes no record of the download:
    the work that held the interpreter lock is done in a process of its own, which reads the
    games itself (SQLite and PostgreSQL alike)."""
    from chuhan.server.games import records_io

    calls: list[str] = []
    original = records_io.record_text
    for name, module in list(sys.modules.items()):
        if name.startswith("chuhan.server") and getattr(module, "record_text", None) is original:
            monkeypatch.setattr(module, "record_text", _watched(original, calls))
    with server(tmp_path, database=database) as (client, _, store):
        me = client.get("/api/me").json()["id"]
        seed_archive(store, me, 5, 40)
        answer = client.get("/api/archive/records", params={"notation": "wxf"})
        assert answer.status_code == 200
        assert answer.headers["x-archive-games"] == "5"
        assert answer.text.count("[Event ") == 5
    assert calls == []  # not one record written in the server's process
