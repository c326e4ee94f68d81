"""The next puzzle under load (SPEC B9): 1,000 players ask for their next puzzle at once
against one real ``chuhan serve`` (SQLite in a fresh data folder, or ``--database``).

The server loads ``--puzzles`` (default: a fresh folder of ``--count`` xiangqi puzzles made
from the hand-made ones of ``tests/data/puzzles``, each a new id with a rating spread over
800-2400, so that choosing one is a real index search; ``--puzzles src/chuhan/server/puzzles/data``
for the shipped ones). ``--players`` identities are stored first, as a first visit stores
them (sign-up is not timed). Then, ``--rounds`` times:

- every player sends ``POST /api/puzzles/attempts`` at the same instant (one indexed query
  for the puzzle, a budget, one insert): each request's time from send to answer;
- every player sends ``GET /health`` at the same instant (one ``SELECT 1``): the anchor,
  measured in the same run, under the same burst.

Printed: p50 and p99 of both, and the ratio of the next-puzzle p99 to the health p99 (the
machine's load cancels out of the ratio). A burst of 1,000 at once is bound by throughput:
the p99 is the time to serve nearly all of them. ``--spread S`` sends each player's request
at a random moment within S seconds instead (players solving, not a thundering herd).

    .venv/bin/python bench/puzzles_load.py
    .venv/bin/python bench/puzzles_load.py --spread 10

Measured figures: bench/RESULTS.md, under "bench/puzzles_load.py".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from chuhan.server.db.store import Store  # noqa: E402
from chuhan.server.games.service import hash_token, new_id  # noqa: E402

FIXTURES = ROOT / "tests" / "data" / "puzzles"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bench_puzzles(folder: Path, count: int, seed: int) -> None:
    """``count`` xiangqi puzzles in ``folder``: the hand-made ones again under new ids and
    ratings (the positions repeat; the index search does not care)."""
    rng = random.Random(seed)
    base = [json.loads(line) for line in (FIXTURES / "xiangqi.jsonl").read_text().splitlines()]
    lines = []
    for number in range(count):
        puzzle = dict(base[number % len(base)])
        puzzle["id"] = f"xiangqi-b{number:09d}"
        puzzle["rating"] = rng.randint(800, 2400)
        lines.append(json.dumps(puzzle))
    (folder / "xiangqi.jsonl").write_text("\n".join(sorted(lines)) + "\n")


@contextlib.contextmanager
def serving(
    data: Path, puzzles: Path, database: str | None, schema: str | None = None
) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CHUHAN_DB_SCHEMA")}
    env.update(
        CHUHAN_PUZZLES_DIR=str(puzzles),
        CHUHAN_AI_WORKERS="0",
        CHUHAN_CONNECTIONS_PER_ADDRESS="100000",
        CHUHAN_SOCKETS_PER_ADDRESS="100000",
    )
    if database:
        env["DATABASE_URL"] = database
    if schema:
        env["CHUHAN_DB_SCHEMA"] = schema
    command = [str(Path(sys.executable).with_name("chuhan")), "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data-dir", str(data)]
    log = open(data / "server.log", "ab")  # noqa: SIM115
    process = subprocess.Popen(command, env=env, stdout=log, stderr=log, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"chuhan serve exited: {(data / 'server.log').read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            time.sleep(0.1)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
        log.close()


@contextlib.contextmanager
def own_schema(database: str | None, schema: str | None) -> Iterator[None]:
    """PostgreSQL: ``schema`` made for the run and dropped after it."""
    if not database or not schema:
        yield
        return
    from sqlalchemy import create_engine, text

    engine = create_engine(database)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield
    finally:
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


def new_players(url: str, count: int, schema: str | None = None) -> list[str]:
    """``count`` stored players; their cookie tokens."""
    store = Store(url, schema)
    tokens = []
    for _ in range(count):
        token = secrets.token_urlsafe(32)
        store.create_player(new_id("p"), hash_token(token))
        tokens.append(token)
    store.dispose()
    return tokens


async def burst(
    tokens: list[str], ask: Callable[[httpx.AsyncClient, str], Awaitable[int]], spread: float
) -> list[float]:
    """Every player asks once (all at once, or each at a random moment within ``spread``);
    each request's seconds from send to answer."""
    limits = httpx.Limits(max_connections=len(tokens), max_keepalive_connections=len(tokens))
    async with httpx.AsyncClient(limits=limits, timeout=120) as client:
        start = asyncio.Event()

        async def one(token: str) -> float:
            await start.wait()
            if spread:
                await asyncio.sleep(random.uniform(0, spread))
            began = time.perf_counter()
            status = await ask(client, token)
            took = time.perf_counter() - began
            if status >= 400:
                raise SystemExit(f"answered {status}")
            return took

        tasks = [asyncio.create_task(one(token)) for token in tokens]
        await asyncio.sleep(0.2)
        start.set()
        return list(await asyncio.gather(*tasks))


def headers(token: str) -> dict[str, str]:
    return {"cookie": f"chuhan_player={token}", "x-chuhan-client": "web"}


async def next_puzzle(client: httpx.AsyncClient, url: str, token: str) -> int:
    answer = await client.post(
        f"{url}/api/puzzles/attempts", json={"variant": "xiangqi"}, headers=headers(token)
    )
    return answer.status_code


async def health(client: httpx.AsyncClient, url: str, token: str) -> int:
    return (await client.get(f"{url}/health")).status_code


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=2000, help="puzzles made for the bench")
    parser.add_argument("--puzzles", type=Path, default=None, help="a folder of <variant>.jsonl")
    parser.add_argument("--database", default=None, help="a SQLAlchemy URL (default SQLite)")
    parser.add_argument("--schema", default=None, help="PostgreSQL: a schema made for the run")
    parser.add_argument("--spread", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    random.seed(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        puzzles = args.puzzles
        if puzzles is None:
            puzzles = data / "puzzles"
            puzzles.mkdir()
            bench_puzzles(puzzles, args.count, args.seed)
        with (
            own_schema(args.database, args.schema),
            serving(data, puzzles, args.database, args.schema) as url,
        ):
            database = args.database or f"sqlite:///{(data / 'chuhan.sqlite3').resolve()}"
            tokens = new_players(database, args.players, args.schema)
            httpx.get(f"{url}/api/puzzles/daily", timeout=120).raise_for_status()  # loads them
            print(f"{len(tokens)} players, one instance, {url}, load {os.getloadavg()[0]:.1f}")
            nexts: list[float] = []
            anchors: list[float] = []
            for number in range(args.rounds):
                got = asyncio.run(burst(tokens, lambda c, t: next_puzzle(c, url, t), args.spread))
                anchor = asyncio.run(burst(tokens, lambda c, t: health(c, url, t), args.spread))
                nexts += got
                anchors += anchor
                print(
                    f"round {number + 1}: next puzzle p50 {statistics.median(got) * 1000:.1f} ms,"
                    f" p99 {percentile(got, 0.99) * 1000:.1f} ms; /health p50"
                    f" {statistics.median(anchor) * 1000:.1f} ms,"
                    f" p99 {percentile(anchor, 0.99) * 1000:.1f} ms"
                )
            p99, anchor99 = percentile(nexts, 0.99), percentile(anchors, 0.99)
            print(
                f"all rounds: next puzzle p50 {statistics.median(nexts) * 1000:.1f} ms, p99"
                f" {p99 * 1000:.1f} ms; /health p99 {anchor99 * 1000:.1f} ms;"
                f" ratio p99 next/health {p99 / anchor99:.2f}"
            )


if __name__ == "__main__":
    main()
