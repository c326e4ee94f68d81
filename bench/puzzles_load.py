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
machine's load cancels out of the ratio), and the server's CPU time per request of each
kind (its own /proc counters: what a request costs, whatever the load), each with the load
average (and how many sessions lost their connection: counted, not timed). A burst of
1,000 at once is bound by throughput: the p99 is the time to serve nearly all of them, and
one Python process cannot serve 1,000 requests in 50 ms. ``--spread S`` sends each player's
request at a random moment within S seconds instead (players solving at a human pace, not a
thundering herd). ``--mix`` makes each player solve the puzzle it is given too: after the
begin, its moves of the stored line (the opponent's replies come back in the answers), each
``--think`` seconds at most after the answer before it; the moves' times are printed apart.

The server runs from ``--src`` (default: this checkout's ``src``; give another checkout's,
e.g. ``git archive <commit> src | tar -x -C /tmp/old``, to measure it the same way).

    .venv/bin/python bench/puzzles_load.py
    .venv/bin/python bench/puzzles_load.py --spread 10
    .venv/bin/python bench/puzzles_load.py --spread 10 --mix
    .venv/bin/python bench/puzzles_load.py --spread 10 --src /tmp/old/src

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
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "puzzles"


def stored_lines(folder: Path) -> dict[str, list[str]]:
    """Each puzzle's stored line by id (the bench's solvers know the answers)."""
    lines = {}
    for path in folder.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            if line.strip():
                puzzle = json.loads(line)
                lines[puzzle["id"]] = puzzle["moves"]
    return lines


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
    src: Path, data: Path, puzzles: Path, database: str | None, schema: str | None = None
) -> Iterator[tuple[str, int]]:
    """A ``chuhan serve`` of ``src``: its address and its process id."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CHUHAN_DB_SCHEMA")}
    env.update(
        PYTHONPATH=str(src),
        CHUHAN_PUZZLES_DIR=str(puzzles),
        CHUHAN_AI_WORKERS="0",
        CHUHAN_CONNECTIONS_PER_ADDRESS="100000",
        CHUHAN_SOCKETS_PER_ADDRESS="100000",
    )
    if database:
        env["DATABASE_URL"] = database
    if schema:
        env["CHUHAN_DB_SCHEMA"] = schema
    command = [sys.executable, "-m", "chuhan.cli", "serve", "--host", "127.0.0.1"]
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
        yield url, process.pid
    finally:
        with contextlib.suppress(ProcessLookupError):  # it stopped by itself
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
    """``count`` stored players; their cookie tokens (with the store of the served source:
    ``--src`` is first on the path)."""
    from chuhan.server.db.store import Store

    store = Store(url, schema)
    tokens = []
    for _ in range(count):
        token = secrets.token_urlsafe(32)
        store.create_player(f"p_{secrets.token_urlsafe(12)}", sha256(token.encode()).hexdigest())
        tokens.append(token)
    store.dispose()
    return tokens


@dataclass
class Times:
    """Seconds from send to answer, per kind of request."""

    first: list[float] = field(default_factory=list)  # the begin (or /health)
    moves: list[float] = field(default_factory=list)  # --mix: the solver's moves
    dropped: int = 0  # sessions whose connection broke (a loaded machine's client or server)


async def timed(times: list[float], request: Awaitable[httpx.Response]) -> httpx.Response:
    began = time.perf_counter()
    answer = await request
    times.append(time.perf_counter() - began)
    if answer.status_code >= 400:
        raise SystemExit(f"answered {answer.status_code}: {answer.text[:200]}")
    return answer


Session = Callable[[httpx.AsyncClient, str, Times], Awaitable[None]]


async def burst(tokens: list[str], session: Session, spread: float) -> Times:
    """Every player starts its session once (all at once, or each at a random moment
    within ``spread``); each request's seconds from send to answer."""
    limits = httpx.Limits(max_connections=len(tokens), max_keepalive_connections=len(tokens))
    times = Times()
    async with httpx.AsyncClient(limits=limits, timeout=120) as client:
        start = asyncio.Event()

        async def one(token: str) -> None:
            await start.wait()
            if spread:
                await asyncio.sleep(random.uniform(0, spread))
            try:
                await session(client, token, times)
            except httpx.TransportError:
                times.dropped += 1  # counted and printed, not timed

        tasks = [asyncio.create_task(one(token)) for token in tokens]
        await asyncio.sleep(0.2)
        start.set()
        await asyncio.gather(*tasks)
    return times


def headers(token: str) -> dict[str, str]:
    return {"cookie": f"chuhan_player={token}", "x-chuhan-client": "web"}


def next_puzzle(url: str, lines: dict[str, list[str]] | None, think: float) -> Session:
    """A player's session: the next puzzle; with ``lines`` (the puzzles' stored lines, --mix)
    also its solution, one solver move at a time, up to ``think`` seconds after each answer."""

    async def session(client: httpx.AsyncClient, token: str, times: Times) -> None:
        begun = await timed(
            times.first,
            client.post(
                f"{url}/api/puzzles/attempts", json={"variant": "xiangqi"}, headers=headers(token)
            ),
        )
        if lines is None:
            return
        attempt = begun.json()
        line = lines[attempt["puzzle"]["id"]]
        for ply in range(0, len(line), 2):
            await asyncio.sleep(random.uniform(0, think))
            answer = await timed(
                times.moves,
                client.post(
                    f"{url}/api/puzzles/attempts/{attempt['id']}/moves",
                    json={"ply": ply, "move": line[ply]},
                    headers=headers(token),
                ),
            )
            if answer.json()["verdict"] == "wrong":
                raise SystemExit(f"the stored line was judged wrong: {answer.text[:200]}")

    return session


def health(url: str) -> Session:
    async def session(client: httpx.AsyncClient, token: str, times: Times) -> None:
        await timed(times.first, client.get(f"{url}/health"))

    return session


def cpu_seconds(pid: int) -> tuple[float, float]:
    """The process's CPU time so far, all its threads: user and system (the kernel's work
    for it: sockets, thread wake-ups, the database's writes)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def measured(pid: int, run: Callable[[], Times]) -> tuple[Times, float, float]:
    """``run()``'s times, and the server's CPU milliseconds per request it made: in all,
    and of them in the kernel."""
    user, system = cpu_seconds(pid)
    times = run()
    requests = max(1, len(times.first) + len(times.moves))
    user_after, system_after = cpu_seconds(pid)
    spent = user_after - user + system_after - system
    return times, spent * 1000 / requests, (system_after - system) * 1000 / requests


def ms(values: list[float], share: float) -> str:
    return f"{percentile(values, share) * 1000:.1f} ms"


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


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
    parser.add_argument("--mix", action="store_true", help="solve the puzzle too (its moves)")
    parser.add_argument("--think", type=float, default=2.0, help="--mix: seconds before a move")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the server's source")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    random.seed(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        puzzles = args.puzzles
        if puzzles is None:
            puzzles = data / "puzzles"
            puzzles.mkdir()
            bench_puzzles(puzzles, args.count, args.seed)
        lines = stored_lines(puzzles) if args.mix else None
        with (
            own_schema(args.database, args.schema),
            serving(args.src.resolve(), data, puzzles, args.database, args.schema) as (url, pid),
        ):
            database = args.database or f"sqlite:///{(data / 'chuhan.sqlite3').resolve()}"
            tokens = new_players(database, args.players, args.schema)
            httpx.get(f"{url}/api/puzzles/daily", timeout=120).raise_for_status()  # loads them
            print(
                f"src {args.src}: {len(tokens)} players, one instance, spread {args.spread} s"
                f"{f', solving (think ≤ {args.think} s)' if args.mix else ''}, {load()}"
            )
            nexts, moves, anchors = [], [], []
            costs: list[tuple[float, float, float]] = []
            session = next_puzzle(url, lines, args.think)
            for number in range(args.rounds):
                got, cpu, kernel = measured(
                    pid, lambda: asyncio.run(burst(tokens, session, args.spread))
                )
                health_times, health_cpu, _ = measured(
                    pid, lambda: asyncio.run(burst(tokens, health(url), args.spread))
                )
                anchor = health_times.first
                costs.append((cpu, health_cpu, kernel))
                nexts += got.first
                moves += got.moves
                anchors += anchor
                solving = ""
                if got.moves:
                    solving = f"; move p50 {ms(got.moves, 0.5)}, p99 {ms(got.moves, 0.99)}"
                print(
                    f"round {number + 1}: next puzzle p50 {ms(got.first, 0.5)},"
                    f" p99 {ms(got.first, 0.99)}{solving};"
                    f" /health p50 {ms(anchor, 0.5)}, p99 {ms(anchor, 0.99)};"
                    f" server CPU per request {cpu:.2f} ms ({'sessions' if lines else 'next'};"
                    f" {kernel:.2f} of it system) vs {health_cpu:.2f} ms (/health);"
                    f" dropped {got.dropped}+{health_times.dropped}; {load()}"
                )
            p99, anchor99 = percentile(nexts, 0.99), percentile(anchors, 0.99)
            print(
                f"all rounds: next puzzle p50 {ms(nexts, 0.5)}, p99 {ms(nexts, 0.99)};"
                f" /health p50 {ms(anchors, 0.5)}, p99 {ms(anchors, 0.99)};"
                f" ratio p99 next/health {p99 / anchor99:.2f}"
            )
            if moves:
                print(
                    f"all rounds: move p50 {ms(moves, 0.5)}, p99 {ms(moves, 0.99)};"
                    f" ratio p99 move/health {percentile(moves, 0.99) / anchor99:.2f}"
                )
            cpu = sum(c for c, _, _ in costs) / len(costs)
            health_cpu = sum(h for _, h, _ in costs) / len(costs)
            kernel = sum(k for _, _, k in costs) / len(costs)
            print(
                f"server CPU per request: {cpu:.2f} ms ({kernel:.2f} of it system)"
                f" vs /health {health_cpu:.2f} ms (ratio {cpu / health_cpu:.2f}); {load()}"
            )


if __name__ == "__main__":
    main()
