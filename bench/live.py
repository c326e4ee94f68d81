"""What the "your game is on" line costs (SPEC B5): ``GET /api/live``, which every page asks
on opening and every 15 s, against ``GET /api/me`` (the profile every page reads on opening)
as the anchor, both for the same player in the same run, as the rooms table grows.

The app runs in this process (``create_app``, SQLite in a temporary folder, or
``--database postgresql+psycopg://…``, in a schema of its own dropped afterwards);
``--rooms`` open rooms of other players are stored (each with a game between two of them,
as a busy site holds), and the player sits in one more whose janggi setup is being chosen,
so that the answer has one live game to build.
Each request is timed ``--repeat`` times; the medians are printed with their ratio.

    .venv/bin/python bench/live.py --rooms 0 1000 10000 --repeat 100

Measured 2026-12-07 on this machine (2 cores shared with other sessions' tests, load average
about 12), medians of 100, ``/api/live`` against ``/api/me``: SQLite 0 rooms 1.07x (4.3 ms),
1,000 rooms 0.83x (4.0 ms), 10,000 rooms 1.84x (8.3 ms); PostgreSQL (``--database
postgresql+psycopg://postgres@127.0.0.1/test``) 0.83x, 0.52x, 1.32x (38 ms at 10,000 rooms,
the anchor 29 ms: a noisy run). The open rooms are scanned (no index on ``rooms.status`` or
``rooms.game_id``): the tests that cost nothing (a setup going on, the player's own ongoing
games, open) come before the seats' text is searched, which halved the 10,000-room time here
(28.7 ms before, SQLite, one run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from chuhan.server.app import create_app
from chuhan.server.db.rooms import RoomStore
from chuhan.server.db.store import Store
from chuhan.server.records import utcnow
from chuhan.server.rooms.lobby import new_room, new_seat
from chuhan.server.settings import Settings


def fill(store: Store, count: int, start: int) -> None:
    """``count`` more open rooms of two other players each, with a game on."""
    rooms = RoomStore(store)
    now = utcnow()
    for number in range(start, start + count):
        seats = [new_seat(f"p_other_{number}_a"), new_seat(f"p_other_{number}_b")]
        room = new_room("xiangqi", {"rules": "casual"}, seats, now, invite=f"bench{number}")
        rooms.insert(replace(room, game_id=f"g_bench_{number}"))


def median_ms(client: TestClient, path: str, repeat: int) -> float:
    for _ in range(20):  # warm: the first requests of a path build what later ones reuse
        client.get(path)
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        answer = client.get(path)
        times.append((time.perf_counter() - began) * 1000)
        assert answer.status_code == 200, answer.text
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, nargs="+", default=[0, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--database", default=None, help="a SQLAlchemy URL (default: SQLite)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database or f"sqlite:///{folder}/bench.sqlite3"
        schema = f"bench_live_{os.getpid()}" if args.database else None
        settings = Settings(data_dir=Path(folder), database_url=url, db_schema=schema)
        store = Store(url, schema)
        try:
            run(store, settings, args.rooms, args.repeat)
        finally:
            store.dispose()
            if schema is not None:
                with create_engine(url).begin() as conn:
                    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


def run(store: Store, settings: Settings, sizes: list[int], repeat: int) -> None:
    with TestClient(create_app(settings, store=store)) as client:
        me = client.get("/api/me").json()["id"]
        now = utcnow()
        mine = new_room("janggi", {"bikjang": "off"}, [new_seat(me), new_seat("p_friend")], now)
        setup = {"turn": "han", "han": None, "deadline": (now + timedelta(hours=1)).isoformat()}
        RoomStore(store).insert(replace(mine, setup=setup))
        assert len(client.get("/api/live").json()["games"]) == 1
        stored = 0
        print("rooms   /api/me ms   /api/live ms   ratio")
        for rooms in sorted(sizes):
            fill(store, rooms - stored, stored)
            stored = rooms
            anchor = median_ms(client, "/api/me", repeat)
            live = median_ms(client, "/api/live", repeat)
            print(f"{rooms:>6}   {anchor:>10.2f}   {live:>12.2f}   {live / anchor:>5.2f}")


if __name__ == "__main__":
    main()
