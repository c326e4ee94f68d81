"""Load: many concurrent online games on two ``chuhan serve`` instances.

Starts two instances sharing a fresh PostgreSQL schema and a fresh Redis channel prefix (or
uses ``--urls``), seats ``--games`` pairs of simulated players in rooms, always one player
on each instance, and lets them play random legal moves for ``--seconds`` with a think
time of ``--think`` seconds (uniform 0.5×–1.5×). Every message comes through a real
WebSocket on loopback (asyncio + websockets). Like the web page (web/js/connection.js), each
socket sends a ``ping`` every ``--ping`` seconds (20) and answers the server's probes, also
while its player thinks: a socket that says nothing for 120 s is closed as idle.

Printed: games held, moves per second (those sent in the window), p50/p99 from sending a
move to the opponent receiving it (the anchor: the same figure for a single game alone,
measured first in the same run), the ratio of the two, the load average, and the check that
no move was lost or doubled (each socket saw each ply once, in order, equal to the stored
game; a whole state, the first of a game or a resync, counts for the moves it holds).

The simulated players run on uvloop, as the servers do (uvicorn's loop when installed): the
one client process serves 10,000 sockets, and every pause of its loop counts as latency.

Also printed: the CPU of the servers and their PostgreSQL backends per move in the window,
and, measured first with every socket seated and no game going on (``--idle``), the CPU
per idle socket per second. The bench raises its open-file limit to the hard limit (the
servers it starts inherit it): 10,000 sockets need more than the usual 1,024.

Where the tail comes from (``--stalls MS``, 50 by default): the servers run with
``CHUHAN_STALL_LOG_MS`` (server/ops/stalls.py: every pause of their event loop and every garbage
collection longer than that, with where the loop was), the simulated clients' loop is
watched the same way, and the window ends with a timeline: each second with moves slower
than 100 ms beside the pauses of each process and PostgreSQL's checkpoints (from its log,
``CHUHAN_TEST_POSTGRES_LOG``, when readable).

    .venv/bin/python bench/load.py --games 1000 --seconds 60
    .venv/bin/python bench/load.py --games 5000 --seconds 60 --think 39 --ramp 240 \
        --idle 15 --concurrency 32   # the scale goal: 10,000 sockets, 125 moves/s (~10 min)

Measured figures: bench/RESULTS.md, under "bench/load.py".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import random
import resource
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import uvloop
from sqlalchemy import create_engine, text
from websockets.asyncio.client import ClientConnection, connect

from chuhan.rules import make_board
from chuhan.server.ops.stalls import StallWatch

POSTGRES_URL = os.environ.get(
    "CHUHAN_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
POSTGRES_LOG = os.environ.get(
    "CHUHAN_TEST_POSTGRES_LOG", "/var/log/postgresql/postgresql-15-main.log"
)
REDIS_URL = os.environ.get("CHUHAN_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
COOKIE = "chuhan_player"
SETTLE_SECONDS = 5.0
SLOW = 0.1  # a move slower than this to reach its opponent goes on the pauses' timeline
_ids = itertools.count(1)
# One TLS context for every seating client: httpx builds one per client otherwise (loading
# the CA bundle, ~24 ms of the bench's one core per client, two clients per game).
_TLS = ssl.create_default_context()


# ---------------------------------------------------------------------- the servers


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Servers:
    """Two ``chuhan serve`` on a fresh schema and Redis prefix; removed afterwards
    (``env_extra``: more settings for them, e.g. bench/pairing.py's seek limit)."""

    def __init__(self, count: int, log_dir: Path, stall_ms: float = 0.0, **env_extra: str) -> None:
        run = uuid.uuid4().hex[:10]
        self.schema = f"load_{run}"
        self.app_name = f"chuhan_load_{run}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CHUHAN_")}
        env.update(
            DATABASE_URL=f"{POSTGRES_URL}?application_name={self.app_name}",
            CHUHAN_DB_SCHEMA=self.schema,
            REDIS_URL=REDIS_URL,
            CHUHAN_REDIS_PREFIX=f"chuhan-load-{run}",
            CHUHAN_AI_WORKERS="1",
            # Every simulated player connects from loopback: one address, thousands of sockets.
            CHUHAN_CONNECTIONS_PER_ADDRESS="1000000",
            CHUHAN_NEW_PLAYERS_PER_ADDRESS="0",  # thousands of identities from one address
            CHUHAN_STALL_LOG_MS=str(stall_ms),  # each instance logs its loop's pauses
            **env_extra,
        )
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen[bytes]] = []
        self.urls: list[str] = []
        for index in range(count):
            port = _free_port()
            command = [sys.executable, "-m", "chuhan.cli", "serve", "--host", "127.0.0.1"]
            command += ["--port", str(port), "--data-dir", str(log_dir)]
            with open(log_dir / f"server{index}.log", "wb") as log:
                self.processes.append(
                    subprocess.Popen(
                        command, env=env, stdout=log, stderr=log, start_new_session=True
                    )
                )
            self.urls.append(f"http://127.0.0.1:{port}")
        for index, url in enumerate(self.urls):
            if not _wait_healthy(url):
                self.close()
                log = (log_dir / f"server{index}.log").read_text()
                raise SystemExit(f"{url} did not start:\n{log[-3000:]}")

    def pids(self) -> list[int]:
        """The server processes and their PostgreSQL backends (the CPU a move costs)."""
        engine = create_engine(POSTGRES_URL)
        with engine.connect() as conn:
            query = text("SELECT pid FROM pg_stat_activity WHERE application_name = :a")
            backends = [int(row[0]) for row in conn.execute(query, {"a": self.app_name})]
        engine.dispose()
        return [p.pid for p in self.processes] + backends

    def close(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        engine = create_engine(POSTGRES_URL)
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'))
        engine.dispose()


def _wait_healthy(url: str) -> bool:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return True
        time.sleep(0.2)
    return False


# ---------------------------------------------------------------------- the players


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    sent_at: dict[tuple[str, int], float] = field(default_factory=dict)
    moves: int = 0
    sent: int = 0  # moves sent
    errors: dict[str, int] = field(default_factory=dict)
    games_started: int = 0
    games_ended: int = 0
    moving: bool = True
    slow: list[tuple[float, float]] = field(default_factory=list)  # (received at, latency)
    window: tuple[float, float] = (0.0, 0.0)  # time.time() at its start and end
    client_stalls: list[tuple[float, float]] = field(default_factory=list)  # (at, seconds)


class Seat:
    """One simulated player: a cookie, a room socket on one instance, random legal moves."""

    def __init__(self, base: str, cookie: str, room_id: str, rng: random.Random) -> None:
        self.base = base
        self.cookie = cookie
        self.room_id = room_id
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.side: str | None = None
        self.game_id: str | None = None
        self.sent_ply: int | None = None
        self.seen: dict[str, list[str]] = {}  # game → its moves, as received, in order
        self.problems: list[str] = []  # a move received twice, out of order, or missed
        self.opponent: Seat | None = None
        self.state: dict[str, Any] | None = None  # the game as this seat knows it
        self.tasks: set[asyncio.Task[None]] = set()  # a move being thought about, the pinger

    async def open(self, ping: float) -> None:
        url = self.base.replace("http", "ws", 1) + f"/ws/rooms/{self.room_id}"
        # No protocol-level keepalive from the client (a browser sends none; it answers the
        # server's); like the front end (web/js/connection.js) a "ping" message every
        # ``ping`` seconds, which keeps the socket from being closed as idle.
        self.ws = await connect(
            url,
            additional_headers={"Cookie": f"{COOKIE}={self.cookie}"},
            max_queue=None,
            ping_interval=None,
            open_timeout=60,  # like the seating requests: thousands open at once
        )
        await self.send("hello", device=f"load{next(_ids)}")
        if ping > 0:
            self._spawn(self._ping(ping))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _ping(self, every: float) -> None:
        await asyncio.sleep(every * self.rng.random())  # the sockets' pings spread out
        with contextlib.suppress(Exception):
            while True:
                await self.send("ping")
                await asyncio.sleep(every)

    async def send(self, kind: str, **fields: Any) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps({"id": f"m{next(_ids)}", "type": kind, **fields}))

    async def run(self, stats: Stats, think: float) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "probe":
                    await self.send("probe", n=message["n"])
                elif kind == "error":
                    code = str(message.get("code"))
                    stats.errors[code] = stats.errors.get(code, 0) + 1
                if kind == "move":
                    self._saw_move(message["game_id"], message["ply"], message["move"])
                    if message["by"] != self.side:
                        sent = stats.sent_at.pop((message["game_id"], message["ply"]), None)
                        if sent is not None:
                            latency = time.perf_counter() - sent
                            stats.latencies.append(latency)
                            stats.moves += 1
                            if latency > SLOW:
                                stats.slow.append((time.time(), latency))
                if kind == "end" and self.side == "red" and stats.moving:
                    stats.games_ended += 1
                state = self._fold(message)
                if state is not None:
                    await self._on_state(message, state, stats, think)
            if stats.moving:  # the server closed this socket while games were being played
                stats.errors["closed by the server"] = (
                    stats.errors.get("closed by the server", 0) + 1
                )
        except Exception as exc:
            # Once the window is over the bench closes its own sockets under running seats.
            name = type(exc).__name__ if stats.moving else f"{type(exc).__name__} while closing"
            stats.errors[name] = stats.errors.get(name, 0) + 1

    def _saw_move(self, game_id: str, ply: int, move: str) -> None:
        seen = self.seen.setdefault(game_id, [])
        if ply != len(seen):
            what = "twice" if ply < len(seen) else f"after ply {len(seen) - 1} (missed some)"
            self.problems.append(f"{game_id}: move of ply {ply} received {what}")
            return
        seen.append(move)

    def _saw_state(self, state: dict[str, Any]) -> None:
        """A whole state tells the moves played so far (the first one of a game, a resync):
        those received before must be where it starts."""
        seen = self.seen.setdefault(state["id"], [])
        moves = list(state.get("moves") or [])
        if moves[: len(seen)] != seen:
            self.problems.append(f"{state['id']}: a state contradicts the moves received")
        self.seen[state["id"]] = moves

    def _fold(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The game state after ``message``: a whole ``state`` replaces what the seat holds,
        a change event's ``set`` updates it (docs/protocol.md, Events); None for others."""
        if message.get("type") == "room":
            return None
        if message.get("state"):
            self.state = dict(message["state"])
            self._saw_state(self.state)
            return self.state
        changed = message.get("set")
        if changed is None or self.state is None or message.get("game_id") != self.state["id"]:
            return None
        self.state.update(changed)
        if "legal_moves" not in changed:  # a change leaves them out: the rules say them
            board = make_board(self.state["variant"], self.state["fen"])
            self.state["legal_moves"] = list(board.legal_move_texts())
        return self.state

    async def _on_state(
        self, message: dict[str, Any], state: dict[str, Any], stats: Stats, think: float
    ) -> None:
        if state["id"] != self.game_id:
            self.game_id, self.side, self.sent_ply = state["id"], state["you"], None
            if self.side == "red":
                stats.games_started += 1
        if state["status"] != "ongoing":
            if stats.moving and message.get("type") == "end":
                await self.send("ready")  # the next game in the same room
            return
        ply = state["ply"]
        legal = state.get("legal_moves") or []
        if state["turn"] != self.side or self.sent_ply == ply or not stats.moving or not legal:
            return  # (no legal moves: the move just made ends the game; its end comes next)
        self.sent_ply = ply
        move = self.rng.choice(sorted(legal))
        # Thinking does not stop the seat reading (probes, pings' answers, room news).
        self._spawn(self._move_later(state["id"], ply, move, think, stats))

    async def _move_later(
        self, game_id: str, ply: int, move: str, think: float, stats: Stats
    ) -> None:
        await asyncio.sleep(think * self.rng.uniform(0.5, 1.5))
        if not stats.moving:
            return
        stats.sent_at[(game_id, ply)] = time.perf_counter()
        stats.sent += 1
        with contextlib.suppress(Exception):  # the socket closed meanwhile: counted by run
            await self.send("move", ply=ply, move=move)


async def _request(
    client: httpx.AsyncClient, stats: Stats, method: str, path: str, **fields: Any
) -> httpx.Response:
    """One seating request; once more (up to three times) when the connection failed, as a
    browser's reload would (counted: a loaded server may drop a connection it did not read
    in time)."""
    for attempt in range(3):
        try:
            response = await client.request(method, path, **fields)
            return response.raise_for_status()
        except httpx.TransportError:
            stats.errors["seating request retried"] = (
                stats.errors.get("seating request retried", 0) + 1
            )
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def seat_pair(
    urls: list[str],
    index: int,
    rng: random.Random,
    limit: asyncio.Semaphore,
    stats: Stats,
    think: float,
    runners: list[asyncio.Task[None]],
    ping: float = 20.0,
) -> tuple[Seat, Seat]:
    """A room made on one instance, joined on the other; both sockets open, each served by
    its runner from then on (it answers the server's probes while the others are seated)."""
    first, second = urls[index % len(urls)], urls[(index + 1) % len(urls)]
    # Each player's requests share a connection kept for at most 2 s (the server closes
    # keep-alive connections idle for 5 s; one it closed meanwhile is retried, counted).
    kept = httpx.Limits(keepalive_expiry=2.0)
    async with limit:
        async with httpx.AsyncClient(
            base_url=first, timeout=60, limits=kept, verify=_TLS
        ) as creator:
            await _request(creator, stats, "GET", "/api/games/pending")  # a cookie
            room = (
                await _request(creator, stats, "POST", "/api/rooms", json={"variant": "xiangqi"})
            ).json()
            creator_cookie = creator.cookies[COOKIE]
        async with httpx.AsyncClient(
            base_url=second, timeout=60, limits=kept, verify=_TLS
        ) as friend:
            await _request(friend, stats, "GET", "/api/games/pending")
            await _request(friend, stats, "POST", f"/api/rooms/invite/{room['invite']}")
            friend_cookie = friend.cookies[COOKIE]
        seats = (
            Seat(first, creator_cookie, room["id"], random.Random(rng.random())),
            Seat(second, friend_cookie, room["id"], random.Random(rng.random())),
        )
        for seat in seats:
            await seat.open(ping)
            runners.append(asyncio.create_task(seat.run(stats, think)))
        seats[0].opponent, seats[1].opponent = seats[1], seats[0]
        return seats


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each process so far (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            found[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return found


class _CpuMeter:
    """The CPU the servers, their PostgreSQL backends and this process spend from now on."""

    def __init__(self, servers: Any) -> None:
        self.servers = servers
        self.server_before = cpu_seconds(servers.pids()) if servers is not None else {}
        self.client_before = sum(os.times()[:2])

    def per(self, what: str, count: int) -> str:
        """``"; servers … ms CPU per <what>, clients … ms"`` (nothing without servers)."""
        if self.servers is None or count == 0:
            return ""
        after = cpu_seconds(self.servers.pids())
        spent = sum(t - self.server_before.get(pid, 0.0) for pid, t in after.items())
        processes = {p.pid for p in self.servers.processes}
        database = sum(
            t - self.server_before.get(pid, 0.0) for pid, t in after.items() if pid not in processes
        )
        client = sum(os.times()[:2]) - self.client_before
        return (
            f"; servers + PostgreSQL {spent * 1000 / count:.1f} ms CPU per {what}"
            f" (PostgreSQL {database * 1000 / count:.1f}),"
            f" the simulated clients {client * 1000 / count:.1f} ms"
        )


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play(
    urls: list[str],
    games: int,
    seconds: float,
    think: float,
    seed: int,
    servers: Any = None,
    ramp: float = 0.0,
    idle: float = 0.0,
    concurrency: int = 64,
    ping: float = 20.0,
    done: Any = None,
    stall_ms: float = 0.0,
) -> Stats:
    """Seat, start and play the games; ``done(stats)`` is called once the window is over and
    the moves in flight have arrived, before the sockets are closed (closing 10,000 takes a
    while, and the games' turn clocks flag meanwhile)."""
    rng = random.Random(seed)
    stats = Stats()
    limit = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    runners: list[asyncio.Task[None]] = []
    server_cpu = _CpuMeter(servers)
    pairs = await asyncio.gather(
        *(seat_pair(urls, i, rng, limit, stats, think, runners, ping) for i in range(games))
    )
    seated_in = time.perf_counter() - started
    print(
        f"  seated {games} games ({2 * games} sockets) in {seated_in:.1f} s"
        f" ({games / seated_in:.1f} games/s){server_cpu.per('game seated', games)}"
    )
    seats = [seat for pair in pairs for seat in pair]
    if servers is not None and idle > 0:  # what the seated sockets cost with no game going on
        cpu_before = cpu_seconds(servers.pids())
        await asyncio.sleep(idle)
        after = cpu_seconds(servers.pids())
        idle_cpu = sum(t - cpu_before.get(pid, 0.0) for pid, t in after.items())
        stats.idle_cpu_per_socket = idle_cpu / idle / len(seats)  # type: ignore[attr-defined]
    server_cpu = _CpuMeter(servers)
    ramp_started = time.perf_counter()
    for index, seat in enumerate(seats):  # games begin spread over ``ramp`` seconds
        await seat.send("ready")
        if index % 2:
            await asyncio.sleep(ramp / games)
    waited = time.perf_counter()
    while stats.games_started < games and time.perf_counter() - waited < 120:
        await asyncio.sleep(0.2)  # every game has begun before the window opens
    print(
        f"  {stats.games_started} games begun in {time.perf_counter() - ramp_started:.1f} s"
        f" ({stats.moves} moves meanwhile){server_cpu.per('game begun', stats.games_started)}"
    )
    stats.moves = 0  # measured from here: every game has begun
    # The simulated players stand for thousands of browsers: one process's collector
    # walking all their state (a full pass took 0.65 s at 4,000 sockets) would be counted
    # as the servers' latency. The seated state is frozen and no collection runs in the
    # window (the servers' own collector is theirs: it runs as usual).
    collecting = time.perf_counter()
    gc.collect()
    gc.freeze()
    gc.disable()
    collected_in = time.perf_counter() - collecting
    # That collection held the clients' loop (a second at 10,000 sockets): the messages it
    # held up are read first, then the window opens on the moves sent from there on (one
    # sent before would count that collection as its own latency).
    await asyncio.sleep(SETTLE_SECONDS)
    print(
        f"  the simulated clients' last collection before the window: {collected_in:.2f} s"
        f" (then {SETTLE_SECONDS:.0f} s for the messages it held up)"
    )
    stats.sent_at.clear()
    stats.sent = 0
    stats.latencies.clear()
    stats.slow.clear()
    # The clients' own pauses count as latency too: they are watched like the servers'.
    watch = StallWatch(stall_ms / 1000, report=lambda message, fields: None) if stall_ms else None
    if watch is not None:
        watch.start()
    cpu_before = cpu_seconds(servers.pids()) if servers is not None else {}
    client_before = sum(os.times()[:2])
    window_start = time.time()
    await asyncio.sleep(seconds)
    stats.window = (window_start, time.time())
    stats.moving = False
    stats.moves_in_window = stats.sent  # type: ignore[attr-defined]  # moves played in it
    # CPU of the window alone: not the wait for moves in flight, nor the sockets closing.
    stats.client_cpu = sum(os.times()[:2]) - client_before  # type: ignore[attr-defined]
    if servers is not None:
        after = cpu_seconds(servers.pids())
        processes = {p.pid for p in servers.processes}
        stats.server_cpu = sum(t - cpu_before.get(pid, 0.0) for pid, t in after.items())  # type: ignore[attr-defined]
        stats.database_cpu = sum(  # type: ignore[attr-defined]
            t - cpu_before.get(pid, 0.0) for pid, t in after.items() if pid not in processes
        )
    await asyncio.sleep(max(5.0, min(think, 15.0)))  # the moves in flight arrive
    if watch is not None:
        watch.stop()
        stats.client_stalls = list(watch.stalls)
    gc.enable()
    stats.seats = [seat for pair in pairs for seat in pair]  # type: ignore[attr-defined]
    if done is not None:
        done(stats)
    for seat in seats:
        for task in list(seat.tasks):
            task.cancel()
    # All at once, a few hundred closing handshakes at a time: one after the other, 10,000
    # sockets took minutes (each close waits for the server's answer).
    closing = asyncio.Semaphore(256)

    async def close(seat: Seat) -> None:
        async with closing:
            assert seat.ws is not None
            await seat.ws.close()

    await asyncio.gather(*(close(seat) for seat in seats), return_exceptions=True)
    await asyncio.gather(*runners, return_exceptions=True)
    return stats


def verify(schema: str, seats: list[Seat]) -> tuple[int, int, list[str]]:
    """Each socket saw each ply once, in order (a move event, or a whole state that
    continues what it had), and ended with the stored game's moves."""
    engine = create_engine(POSTGRES_URL)
    with engine.connect() as conn:
        conn.execute(text(f'SET search_path TO "{schema}"'))
        stored = {row[0]: list(row[1]) for row in conn.execute(text("SELECT id, moves FROM games"))}
    engine.dispose()
    problems = []
    games_checked = moves_checked = 0
    for seat in seats:
        problems.extend(seat.problems)
        for game_id, seen in seat.seen.items():
            moves = stored.get(game_id, [])
            if seen != moves:
                problems.append(f"{game_id}: {len(seen)} moves received, {len(moves)} stored")
            games_checked += 1
            moves_checked += len(seen)
    return games_checked, moves_checked, problems


def report(label: str, stats: Stats, seconds: float) -> tuple[float, float]:
    p50 = _percentile(stats.latencies, 0.50) * 1000
    p99 = _percentile(stats.latencies, 0.99) * 1000
    moved = getattr(stats, "moves_in_window", stats.moves)
    print(
        f"  {label}: {stats.games_started} games started, {stats.games_ended} ended, "
        f"{moved / seconds:.1f} moves/s, send→opponent p50 {p50:.1f} ms, p99 {p99:.1f} ms "
        f"({len(stats.latencies)} samples); errors {stats.errors or 'none'}"
    )
    return p50, p99


def timeline(stats: Stats, servers: Any, lines: int = 200) -> None:
    """Each second of the window with moves slower than ``SLOW``, beside the pauses the
    processes logged around then: the servers' (their logs), the simulated clients' own."""
    start, end = stats.window
    events: list[tuple[float, str]] = []
    seconds: dict[int, list[float]] = {}
    for at, latency in stats.slow:
        seconds.setdefault(int(at), []).append(latency)
    for second, slow in seconds.items():
        events.append(
            (second, f"{len(slow)} moves over {SLOW * 1000:.0f} ms, worst {max(slow) * 1000:.0f}")
        )
    for at, paused in stats.client_stalls:
        events.append((at, f"clients: loop paused {paused * 1000:.0f} ms"))
    if servers is not None:
        for index in range(len(servers.processes)):
            path = servers.log_dir / f"server{index}.log"
            for line in path.read_text(errors="replace").splitlines():
                if not any(key in line for key in ('"stall_ms"', '"gc_ms"', '"pause_ms"')):
                    continue
                with contextlib.suppress(ValueError, KeyError):
                    entry = json.loads(line)
                    at = datetime.fromisoformat(entry["time"]).timestamp()
                    if "pause_ms" in entry:
                        what = (
                            f"full garbage collection {entry['pause_ms']:.0f} ms"
                            f" ({entry['collected']} objects freed)"
                        )
                    elif "gc_ms" in entry:
                        what = f"gc of generation {entry['generation']} {entry['gc_ms']:.0f} ms"
                    else:
                        what = (
                            f"loop paused {entry['stall_ms']:.0f} ms"
                            f" ({entry.get('cpu_ms', 0):.0f} ms of its CPU) in {entry['where']}"
                        )
                    events.append((at, f"server{index}: {what}"))
    # PostgreSQL's checkpoints (when its log is readable here): a commit may wait on one.
    with contextlib.suppress(OSError):
        for line in Path(POSTGRES_LOG).read_text(errors="replace").splitlines():
            if "checkpoint" in line and " UTC " in line:
                stamp, _, rest = line.partition(" UTC ")
                with contextlib.suppress(ValueError):
                    at = datetime.fromisoformat(stamp + "+00:00").timestamp()
                    events.append((at, "PostgreSQL: " + rest.split("LOG:", 1)[-1].strip()[:150]))
    events = sorted(e for e in events if start - 2 <= e[0] <= end + 15)
    print(f"  pauses and slow moves (s from the window's start; {len(events)} lines):")
    for at, what in events[:lines]:
        print(f"    {at - start:7.2f}  {what}")


def raise_open_files() -> int:
    """Thousands of sockets: the soft open-file limit raised to the hard one (the servers
    started from here inherit it). Returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def summarize(args: argparse.Namespace, stats: Stats, servers: Any, anchor_p99: float) -> None:
    """Print the window's figures and the check that nothing was lost or doubled."""
    load = os.getloadavg()
    _, p99 = report(f"{args.games} games", stats, args.seconds)
    print(f"  p99 ratio to the anchor: {p99 / anchor_p99:.1f}×; load average: {load}")
    if servers is not None:
        seats: list[Seat] = stats.seats  # type: ignore[attr-defined]
        games, moves, problems = verify(servers.schema, seats)
        verdict = "none lost or doubled" if not problems else f"{len(problems)} PROBLEMS"
        print(f"  checked {moves} received moves in {games} game views: {verdict}")
        stored = stats.moves_in_window  # type: ignore[attr-defined]
        server_cpu = getattr(stats, "server_cpu", 0.0)
        per_move = server_cpu / max(1, stored)
        database_cpu = getattr(stats, "database_cpu", 0.0)
        print(
            f"  CPU in the {args.seconds:.0f} s window: servers + their PostgreSQL backends"
            f" {server_cpu:.1f} s for {stored} moves = {per_move * 1000:.1f} ms per move"
            f" (→ at most {2 / per_move:.0f} moves/s on two free cores), of which"
            f" PostgreSQL {database_cpu:.1f} s; idle sockets' probes and clocks included;"
            f" the simulated clients {stats.client_cpu:.1f} s"  # type: ignore[attr-defined]
        )
        idle_cost = getattr(stats, "idle_cpu_per_socket", None)
        if idle_cost is not None:
            sockets = 2 * args.games
            idle_share = idle_cost * sockets * args.seconds
            moving = max(0.0, server_cpu - idle_share) / max(1, stored)
            print(
                f"  idle (seated, no game, {args.idle:.0f} s): {idle_cost * 1e6:.0f} µs CPU"
                f" per socket per second ({idle_cost * sockets:.2f} s/s for {sockets});"
                f" the window less that: {moving * 1000:.1f} ms per move"
            )
        for problem in problems[:10]:
            print(f"    {problem}")
    timeline(stats, servers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds per move")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--ramp", type=float, default=30.0, help="seconds to start all games")
    parser.add_argument(
        "--idle", type=float, default=15.0, help="seconds to measure the seated sockets idle"
    )
    parser.add_argument("--concurrency", type=int, default=64, help="pairs seated at once")
    parser.add_argument(
        "--ping", type=float, default=20.0, help="seconds between pings (the web page: 20)"
    )
    parser.add_argument("--urls", nargs="*", help="running instances (default: start two)")
    parser.add_argument("--log-dir", help="keep the servers' logs here (default: a temp dir)")
    parser.add_argument(
        "--stalls",
        type=float,
        default=50.0,
        help="log event-loop pauses and garbage collections longer than this many ms (0: off)",
    )
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a long run's log
    open_files = raise_open_files()
    needed = 2 * args.games + 200  # the simulated players' sockets (a server holds half)
    if open_files < needed:
        raise SystemExit(f"open-file limit {open_files} < {needed}: raise it (ulimit -Hn)")

    servers = None
    with tempfile.TemporaryDirectory(prefix="chuhan-load-") as temp_dir:
        log_dir = args.log_dir or temp_dir
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        if args.urls:
            urls = list(args.urls)
        else:
            servers = Servers(2, Path(log_dir), args.stalls)
            urls = servers.urls
        try:
            print(f"instances: {', '.join(urls)}; load average before: {os.getloadavg()}")
            anchor = uvloop.run(play(urls, 1, 10.0, 0.2, args.seed, ping=args.ping))
            _, anchor_p99 = report("anchor, one game alone", anchor, 10.0)

            def done(stats: Stats) -> None:
                summarize(args, stats, servers, anchor_p99)

            uvloop.run(
                play(
                    urls,
                    args.games,
                    args.seconds,
                    args.think,
                    args.seed,
                    servers,
                    args.ramp,
                    args.idle,
                    args.concurrency,
                    args.ping,
                    done,
                    args.stalls,
                )
            )
        finally:
            if servers is not None:
                servers.close()


if __name__ == "__main__":
    main()
