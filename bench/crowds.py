"""What one address can do to its neighbours, and what a crowd behind it gets (SPEC Z5–Z8).

Starts a real ``chuhan serve`` from ``--src`` (default: this checkout; give another
checkout's ``src`` to measure it the same way) and prints, all from 127.0.0.1 as behind a
school's or a café's NAT:

- a foreign page's images: players made by a page on another origin (127.0.0.2) holding
  ``--images`` ``<img src=/api/me>``, in a real Chromium, and whether the next real visitor
  from the address then gets in;
- a NAT neighbour: reconnects of a player seated in a running game refused, out of 3, once a
  neighbour holds every WebSocket of the address (and bare connections besides), the
  player's last socket left stale each time;
- a classroom: first visits refused out of 150, one-device games refused out of 100 × 6,
  tabs (WebSockets) refused out of 30 × 3.

    .venv/bin/python bench/crowds.py                        # this checkout
    .venv/bin/python bench/crowds.py --src /tmp/old/src     # another one, the same way

The NAT part runs its own server with 12 sockets and 16 connections per address (as
``tests/test_seat_reconnect.py``), so that the neighbour needs only a few sockets.

Measured on the 2-core machine, 2026-12-07, one after the other (load average 10–16 from
other work), before the fixes (``2427f1c``) and after:

    before  players made by 120 foreign images: 100; the next visitor: 429
            seated player's reconnects refused: 3 of 3 (neighbour holds 15)
            classroom: first visits refused 50 of 150, one-device games refused 96 of 600,
            tabs refused 26 of 90
    after   players made by 120 foreign images: 0; the next visitor: 200
            seated player's reconnects refused: 0 of 3 (neighbour holds 11)
            classroom: first visits refused 0 of 150, one-device games refused 0 of 600,
            tabs refused 0 of 90
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from rooms_client import WAIT, running_server  # noqa: E402
from test_seat_reconnect import Neighbour, _begin, _seated  # noqa: E402
from test_web_csrf import foreign_site  # noqa: E402
from web_fixtures import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


def _players(data: Path) -> int:
    with contextlib.closing(sqlite3.connect(data / "chuhan.sqlite3")) as db:
        return int(db.execute("SELECT COUNT(*) FROM players").fetchone()[0])


def foreign_images(data: Path, images: int) -> str:
    with running_server(data) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        before = _players(data)
        tags = "".join(f'<img src="{url}/api/me?n={n}">' for n in range(images))
        with foreign_site("127.0.0.2", {"/cafe": f"<!doctype html>{tags}"}) as evil:
            page = browser.new_context().new_page()
            page.goto(f"{evil}/cafe", wait_until="load")
        made = _players(data) - before
        visitor = httpx.Client(base_url=url, timeout=WAIT)
        status = visitor.get("/api/me").status_code
        browser.close()
    return f"players made by {images} foreign images: {made}; the next visitor: {status}"


def nat_neighbour(data: Path) -> str:
    limits = {"CHUHAN_SOCKETS_PER_ADDRESS": "12", "CHUHAN_CONNECTIONS_PER_ADDRESS": "16"}
    with running_server(data, **limits) as url, contextlib.ExitStack() as stack:
        victim, friend, room_id = _seated(url)
        sockets = _begin(victim, friend, room_id)
        neighbour = Neighbour(url, stack)
        held = neighbour.take_sockets()
        neighbour.take_connections(16)
        sockets[0].close()
        sockets[0].wait_closed()
        for _ in range(50):
            if neighbour.take_sockets() > held:
                break
        refused = 0
        for _ in range(3):
            try:
                sock = victim.open(room_id)  # left open: stale at the next try
                stack.callback(sock.close)
                sock.wait_for(lambda m: m.get("type") == "state")
            except Exception:
                refused += 1
    return f"seated player's reconnects refused: {refused} of 3 (neighbour holds {held + 1})"


def _visit(url: str) -> str | None:
    """A first visit from a browser of its own: the new player's cookie, None if refused."""
    with httpx.Client(base_url=url, timeout=120) as browser:
        answer = browser.get("/api/me")
        return str(browser.cookies.get("chuhan_player")) if answer.status_code == 200 else None


def _six_games(url: str, cookie: str) -> tuple[int, str | None]:
    """A student starts 6 one-device games: how many were refused, and the first game."""
    headers = {"Cookie": f"chuhan_player={cookie}"}
    with httpx.Client(base_url=url, timeout=120, headers=headers) as browser:
        answers = [browser.post("/api/games", json={"kind": "local"}) for _ in range(6)]
    made = [answer.json()["id"] for answer in answers if answer.status_code == 201]
    return 6 - len(made), made[0] if made else None


def classroom(data: Path) -> str:
    """The students act at once, as a class does (32 at a time)."""
    with running_server(data) as url, ThreadPoolExecutor(32) as pool:
        visits = list(pool.map(_visit, [url] * 150))
        cookies = [cookie for cookie in visits if cookie is not None]
        students = list(pool.map(_six_games, [url] * 100, cookies[:100]))
        games_refused = sum(refused for refused, _ in students)
        tabs_refused = 0
        with contextlib.ExitStack() as stack:
            for cookie, (_, game) in zip(cookies[:30], students[:30], strict=True):
                headers = {"Cookie": f"chuhan_player={cookie}"}
                address = url.replace("http", "ws", 1) + f"/ws/games/{game}"
                for _ in range(3):  # the student's game in 3 tabs
                    try:
                        ws = stack.enter_context(connect(address, additional_headers=headers))
                        ws.send('{"type": "ping", "id": "tab"}')
                        tabs_refused += '"error"' in str(ws.recv(timeout=WAIT))
                    except Exception:
                        tabs_refused += 1
    return (
        f"classroom: first visits refused {150 - len(cookies)} of 150, one-device games "
        f"refused {games_refused} of {6 * min(100, len(cookies))}, tabs refused "
        f"{tabs_refused} of 90"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--images", type=int, default=120)
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(args.src)  # the servers run that checkout
    print(f"src {args.src}")
    for part in (lambda d: foreign_images(d, args.images), nat_neighbour, classroom):
        with tempfile.TemporaryDirectory() as folder:
            print(part(Path(folder)), flush=True)


if __name__ == "__main__":
    main()
