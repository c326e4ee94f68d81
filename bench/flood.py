"""What one client can make the server do: a benchmark, not a test.

Runs a real ``chuhan serve`` of the checkout on ``PYTHONPATH`` (SQLite in a temporary folder,
two AI workers, analyses at the default 8000 nodes per position) and, from one address:

1. **backlog** — one player imports 4-move records and asks for their analyses, up to 500
   (as fast as the server answers), then another player asks for the analysis of a 4-move
   record (5 positions): printed, the seconds until it is done (given up at 60 s) and how
   many of the flood's analyses were taken;
2. **rows** — for ``--seconds`` each: cookie-less ``GET /api/me`` (new players), one
   player's ``POST /api/games`` (local games), ``POST /api/records`` (imports) and, for each
   imported game, ``POST …/analysis`` (new analyses): printed, the rows made (2xx answers)
   and that count per minute.

Run it on two checkouts to compare (same machine, same run)::

    git archive <before> src | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before/src .venv/bin/python bench/flood.py
    PYTHONPATH=src .venv/bin/python bench/flood.py
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from chuhan.rules import make_board
from chuhan.rules.record import write_record

FLOOD_ANALYSES = 500
GIVE_UP_SECONDS = 60.0


def _record(seed: int, plies: int = 4) -> bytes:
    """A record of ``plies`` moves, different for each ``seed`` (the first legal moves in a
    rotating order)."""
    board = make_board("xiangqi")
    for ply in range(plies):
        moves = sorted(board.legal_move_texts())
        board.push(moves[(seed // (ply + 1) + ply) % len(moves)])
    return write_record(board, "iccs", result="*").encode()


@contextlib.contextmanager
def _server() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CHUHAN_", "DATABASE"))}
        env["CHUHAN_AI_WORKERS"] = "2"
        command = [sys.executable, "-m", "chuhan.cli", "serve", "--port", str(port)]
        command += ["--data-dir", folder]
        log = open(Path(folder) / "server.log", "wb")  # noqa: SIM115 - closed below
        process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                        break
                time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            process.wait(30)
            log.close()


def _player(url: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=30)
    client.get("/api/me").raise_for_status()
    return client


def backlog(url: str) -> None:
    flooder, other = _player(url), _player(url)
    started = time.monotonic()
    taken = 0
    for seed in range(FLOOD_ANALYSES):
        imported = flooder.post("/api/records", content=_record(seed + 1))
        if imported.status_code != 201:
            continue
        asked = flooder.post(f"/api/games/{imported.json()['id']}/analysis")
        taken += asked.status_code == 202
    flooded = time.monotonic() - started
    mine = other.post("/api/records", content=_record(0)).json()["id"]
    asked_at = time.monotonic()
    other.post(f"/api/games/{mine}/analysis").raise_for_status()
    status = ""
    while time.monotonic() - asked_at < GIVE_UP_SECONDS:
        status = other.get(f"/api/games/{mine}/analysis").json()["status"]
        if status == "done":
            break
        time.sleep(0.2)
    waited = time.monotonic() - asked_at
    outcome = f"done in {waited:.1f} s"
    if status != "done":
        outcome = f"still {status} after {waited:.0f} s"
    print(
        f"backlog: the flood's analyses taken {taken} of {FLOOD_ANALYSES} in {flooded:.1f} s; "
        f"another player's 5-position analysis: {outcome}"
    )


def rows(url: str, seconds: float) -> None:
    player = _player(url)
    importer = _player(url)
    made: dict[str, int] = {}

    def flood(name: str, request: object) -> None:
        count, refused, until = 0, 0, time.monotonic() + seconds
        while time.monotonic() < until:
            answer = request()  # type: ignore[operator]
            count += 200 <= answer.status_code < 300
            refused += answer.status_code == 429
        made[name] = count
        print(
            f"rows: {name}: {count} made in {seconds:.0f} s ({count * 60 / seconds:.0f} a "
            f"minute at that pace), {refused} refused with 429"
        )

    games: list[str] = []

    def import_one() -> httpx.Response:
        answer = importer.post("/api/records", content=_record(len(games) + 7))
        if answer.status_code == 201:
            games.append(answer.json()["id"])
        return answer

    asked = iter(range(10**9))

    def analyse_one() -> httpx.Response:
        index = next(asked)
        if index >= len(games):
            return httpx.Response(499)
        return importer.post(f"/api/games/{games[index]}/analysis")

    flood("local games of one player", lambda: player.post("/api/games", json={"kind": "local"}))
    flood("imports of one player", import_one)
    flood("new analyses of one player", analyse_one)
    flood("new players (no cookie)", lambda: httpx.get(f"{url}/api/me", timeout=30))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each row flood")
    args = parser.parse_args()
    with _server() as url:
        backlog(url)
        rows(url, args.seconds)


if __name__ == "__main__":
    main()
