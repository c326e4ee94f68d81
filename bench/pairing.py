"""Pairing under load (SPEC B1): thousands of players seek at once on two instances.

Starts two ``chuhan serve`` sharing a fresh PostgreSQL schema and a fresh Redis channel
prefix (bench/load.py's :class:`Servers`), gives ``--players`` visitors a cookie each (stored
as a first visit stores them, in one transaction: pairing is timed, not sign-up), opens
their seek sockets (``/ws/seek``, half on each instance, every player on the instance
opposite the previous one) and, once every socket is open, sends every seek at once: each
player picks one of the pools at random. Each one pings while it waits, as often as
"seeking" says (a silent seek is withdrawn, Z8).

The pools (``--pools``, B1/B7: one per variant, rule option and game clock): ``rules``, the
default, the six of three variants × two rule options on R4's turn clock; ``mixed``, rules and
clocks side by side (xiangqi casual and wxf, janggi bikjang off, jieqi casual, xiangqi 5+3,
janggi 5m+3x30s byoyomi); or a comma-separated list of pool keys as the server names them,
``xiangqi:rules=casual:clock=5+3,janggi:bikjang=off``. ``--per-pool N`` seeks exactly N
players in every pool instead of ``--players`` at random.

Measured: the time from sending a seek to receiving ``paired`` (p50, p99, max), overall and
per pool (seekers, pairs, unpaired, p50, p99, each percentile as a ratio to the anchor's),
against an anchor measured first in the same run: one pair alone (two players, two
instances) in the first pool, ten times. Checked (the run fails otherwise): no player was
paired twice or with themselves (every room of the run holds two different players of one
pool, each player is in at most one room, in the database and in what the sockets were
told; every stored room has its pool's options, clock included), and nobody was left
waiting while a compatible player waited (at most one unpaired player per pool, and the
seeks table agrees). Loopback only; at most ``MAX_PLAYERS`` players, and the burst gives up
after ``--timeout`` seconds.

    .venv/bin/python bench/pairing.py --players 2000
    .venv/bin/python bench/pairing.py --pools mixed --per-pool 20 --anchor 10

Measured figures: bench/RESULTS.md, under "bench/pairing.py".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, text
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chuhan.server.games.service import hash_token, new_id
from chuhan.server.pairing.rules import SeekError, wish
from load import POSTGRES_URL, Servers, _percentile, raise_open_files

COOKIE = "chuhan_player"
MAX_PLAYERS = 10_000  # one run's bound: sockets, rows and time stay finite
Pool = tuple[str, dict[str, str]]  # a seek's variant and options, as a page sends them
PRESETS: dict[str, list[Pool]] = {
    "rules": [  # three variants × two rule options, R4's turn clock
        ("xiangqi", {"rules": "casual"}),
        ("xiangqi", {"rules": "wxf"}),
        ("janggi", {"bikjang": "off"}),
        ("janggi", {"bikjang": "points"}),
        ("jieqi", {"rules": "casual"}),
        ("jieqi", {"rules": "wxf"}),
    ],
    "mixed": [  # rule options and game clocks (B7) side by side
        ("xiangqi", {"rules": "casual"}),
        ("xiangqi", {"rules": "wxf"}),
        ("janggi", {"bikjang": "off"}),
        ("jieqi", {"rules": "casual"}),
        ("xiangqi", {"rules": "casual", "clock": "5+3"}),
        ("janggi", {"bikjang": "off", "clock": "5m+3x30s"}),
    ],
}


def parse_pools(given: str) -> list[Pool]:
    """A preset's pools, or a comma-separated list of pool keys (``variant:opt=value`` with
    an optional ``:clock=id``), each checked as the server checks a seek."""
    if given in PRESETS:
        return PRESETS[given]
    pools: list[Pool] = []
    for key in given.split(","):
        variant, *parts = key.strip().split(":")
        options = dict(part.split("=", 1) for part in parts if "=" in part)
        if len(options) != len(parts):
            raise ValueError(f"{key!r}: each part after the variant is name=value")
        try:
            wish(variant, options)
        except SeekError as exc:
            raise ValueError(f"{key!r}: {exc}") from None
        pools.append((variant, options))
    if len({pool_name(pool) for pool in pools}) != len(pools):
        raise ValueError("a pool is named twice")
    return pools


def pool_name(pool: Pool) -> str:
    """The pool's key as the server names it (``rules.Wish.pool``)."""
    return wish(*pool).pool


@dataclass
class Seeker:
    """One simulated player: a cookie, a seek socket on one instance, what it was told."""

    url: str
    cookie: str
    player_id: str
    pool: Pool
    socket: ClientConnection | None = None
    sent_at: float = 0.0
    paired_at: float | None = None
    rooms: list[str] = field(default_factory=list)  # every "paired" room it was told
    errors: list[str] = field(default_factory=list)
    told: asyncio.Event = field(default_factory=asyncio.Event)
    pinger: asyncio.Task[None] | None = None

    async def open(self) -> None:
        address = self.url.replace("http", "ws", 1) + "/ws/seek"
        self.socket = await connect(
            address, additional_headers={"Cookie": f"{COOKIE}={self.cookie}"}, max_queue=None
        )
        first = json.loads(await self.socket.recv())
        assert first["type"] == "waiting", first

    async def listen(self) -> None:
        assert self.socket is not None
        async for frame in self.socket:
            message = json.loads(frame)
            if message["type"] == "seeking" and self.pinger is None:
                # A page pings while it waits, or its seek is withdrawn (B1, Z8).
                self.pinger = asyncio.create_task(self.heartbeat(message["heartbeat"]))
            if message["type"] == "paired":
                if self.pinger is not None:
                    self.pinger.cancel()
                if self.paired_at is None:
                    self.paired_at = time.perf_counter()
                self.rooms.append(message["room"])
                self.told.set()
            elif message["type"] == "error":
                self.errors.append(message["code"])
                self.told.set()

    async def heartbeat(self, seconds: float) -> None:
        assert self.socket is not None
        while self.paired_at is None:
            await asyncio.sleep(seconds)
            await self.socket.send(json.dumps({"id": "p", "type": "ping"}))

    async def seek(self) -> None:
        assert self.socket is not None
        variant, options = self.pool
        self.sent_at = time.perf_counter()
        await self.socket.send(
            json.dumps({"id": "s1", "type": "seek", "variant": variant, "options": options})
        )

    @property
    def waited(self) -> float | None:
        return None if self.paired_at is None else self.paired_at - self.sent_at


def new_players(schema: str, count: int) -> list[tuple[str, str]]:
    """``count`` visitors' cookies and player ids, stored as a first page load stores them
    (one transaction: the bench times pairing, not sign-up)."""
    made = [(secrets.token_urlsafe(32), new_id("p")) for _ in range(count)]
    now = datetime.now(UTC)
    engine = create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(text(f'SET search_path TO "{schema}"'))
        conn.execute(
            text(
                "INSERT INTO players (id, token_hash, ai_points, online_points, created_at) "
                "VALUES (:id, :hash, 0, 0, :now)"
            ),
            [{"id": pid, "hash": hash_token(token), "now": now} for token, pid in made],
        )
        conn.execute(  # B6: the cookie is the player's first device, as a first visit makes it
            text(
                "INSERT INTO player_devices (id, player_id, token_hash, label, created_at) "
                "VALUES (:device, :id, :hash, '', :now)"
            ),
            [
                {"device": f"d{pid[1:]}", "id": pid, "hash": hash_token(token), "now": now}
                for token, pid in made
            ],
        )
    engine.dispose()
    return made


def seekers(urls: list[str], schema: str, pools: list[Pool]) -> list[Seeker]:
    made = new_players(schema, len(pools))
    return [
        Seeker(urls[i % len(urls)], cookie, player_id, pools[i])
        for i, (cookie, player_id) in enumerate(made)
    ]


async def open_all(players: list[Seeker]) -> list[asyncio.Task[None]]:
    limit = asyncio.Semaphore(64)

    async def one(player: Seeker) -> None:
        async with limit:
            await player.open()

    await asyncio.gather(*(one(p) for p in players))
    return [asyncio.create_task(p.listen()) for p in players]


async def burst(players: list[Seeker], timeout: float) -> float:
    """Every seek sent at once; returns the seconds until every pairing was told (or the
    timeout): at most one player per pool is left to wait for no one."""
    per_pool = Counter(pool_name(p.pool) for p in players)
    expected = sum(count - count % 2 for count in per_pool.values())
    started = time.perf_counter()
    await asyncio.gather(*(p.seek() for p in players))
    deadline = started + timeout
    while time.perf_counter() < deadline:
        if sum(1 for p in players if p.paired_at is not None) >= expected:
            break
        await asyncio.sleep(0.05)
    return time.perf_counter() - started


async def close_all(players: list[Seeker], listeners: list[asyncio.Task[None]]) -> None:
    pingers = [p.pinger for p in players if p.pinger is not None]
    for pinger in pingers:
        pinger.cancel()
    await asyncio.gather(*pingers, return_exceptions=True)
    await asyncio.gather(
        *(p.socket.close() for p in players if p.socket is not None), return_exceptions=True
    )
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)


def verify(schema: str, players: list[Seeker]) -> list[str]:
    """What went wrong (empty: nothing): pairs, the database, nobody left beside another."""
    problems: list[str] = []
    by_room: dict[str, list[Seeker]] = defaultdict(list)
    for player in players:
        if len(set(player.rooms)) > 1:
            problems.append(f"{player.player_id} told of {len(set(player.rooms))} rooms")
        if player.errors:
            problems.append(f"{player.player_id} refused: {player.errors}")
        for room in set(player.rooms):
            by_room[room].append(player)
    for room, members in by_room.items():
        ids = {m.player_id for m in members}
        if len(members) != 2 or len(ids) != 2:
            problems.append(f"room {room} told to {len(members)} players ({len(ids)} distinct)")
        elif members[0].pool != members[1].pool:
            problems.append(f"room {room} pairs two different pools")
    left = Counter(pool_name(p.pool) for p in players if not p.rooms)
    for pool, count in left.items():
        if count > 1:
            problems.append(f"pool {pool}: {count} left waiting beside each other")
    engine = create_engine(POSTGRES_URL)
    with engine.connect() as conn:
        conn.execute(text(f'SET search_path TO "{schema}"'))
        rows = list(conn.execute(text("SELECT id, seats, options FROM rooms")))
        waiting = list(
            conn.execute(
                text("SELECT pool, count(*) FROM seeks WHERE status = 'waiting' GROUP BY pool")
            )
        )
        in_games = list(
            conn.execute(text("SELECT player_id, count(*) FROM game_players GROUP BY player_id"))
        )
    engine.dispose()
    ours = {p.player_id for p in players}
    rows = [row for row in rows if any(seat["player"] in ours for seat in row[1])]
    asked = {room: wish(*members[0].pool).options for room, members in by_room.items()}
    for room_id, _, options in rows:
        wanted = asked.get(room_id)
        if wanted is not None and {k: options.get(k) for k in wanted} != wanted:
            problems.append(f"room {room_id} stored {options}, its pool asks {wanted}")
    seated = Counter(seat["player"] for _, seats, _ in rows for seat in seats)
    twice = [player for player, count in seated.items() if count > 1]
    if twice:
        problems.append(f"{len(twice)} players seated in two rooms")
    if any(count > 1 for _, count in in_games):
        problems.append("a player plays two games")
    if len(rows) != len(by_room) or not all(options.get("paired") for _, _, options in rows):
        problems.append(f"{len(rows)} rooms stored, {len(by_room)} told")
    if any(count > 1 for _, count in waiting):
        problems.append(f"seeks left waiting together: {waiting}")
    return problems


async def anchor(urls: list[str], schema: str, rounds: int, pool: Pool) -> list[float]:
    """One pair alone in ``pool``, ``rounds`` times: the time to pair when nothing else goes
    on."""
    times: list[float] = []
    for _ in range(rounds):
        players = seekers(urls, schema, [pool, pool])
        listeners = await open_all(players)
        await burst(players, 10)
        times.extend(p.waited for p in players if p.waited is not None)
        await close_all(players, listeners)
    return times


def ratio(value: float, anchor: float) -> str:
    return f"{value / anchor:.0f}×" if anchor > 0 and value == value else "-"


def pool_table(players: list[Seeker], pools: list[Pool], a50: float, a99: float) -> list[str]:
    """One line per pool, in the order given: seekers, pairs, unpaired, time to pair."""
    width = max(len(pool_name(pool)) for pool in pools)
    lines = [
        f"{'pool':<{width}}  seekers  pairs  unpaired   p50 ms   p99 ms  p50/anchor  p99/anchor"
    ]
    for pool in pools:
        name = pool_name(pool)
        mine = [p for p in players if pool_name(p.pool) == name]
        waits = [p.waited for p in mine if p.waited is not None]
        pairs = len({room for p in mine for room in p.rooms})
        p50, p99 = _percentile(waits, 0.5), _percentile(waits, 0.99)
        lines.append(
            f"{name:<{width}}  {len(mine):>7}  {pairs:>5}  {len(mine) - len(waits):>8}  "
            f"{p50 * 1000:>7.0f}  {p99 * 1000:>7.0f}  {ratio(p50, a50):>10}  {ratio(p99, a99):>10}"
        )
    return lines


async def run(args: argparse.Namespace, urls: list[str], schema: str) -> int:
    pools: list[Pool] = args.pools
    anchor_times = await anchor(urls, schema, args.anchor, pools[0])
    rng = random.Random(args.seed)
    if args.per_pool:
        chosen = [pool for pool in pools for _ in range(args.per_pool)]
        rng.shuffle(chosen)  # the pools' seeks interleaved in the burst, not one after another
    else:
        chosen = [rng.choice(pools) for _ in range(args.players)]
    count = len(chosen)
    began = time.perf_counter()
    players = seekers(urls, schema, chosen)
    print(f"{count} players with a cookie in {time.perf_counter() - began:.1f} s")
    began = time.perf_counter()
    listeners = await open_all(players)
    print(f"{count} seek sockets open in {time.perf_counter() - began:.1f} s")
    load_before = os.getloadavg()
    elapsed = await burst(players, args.timeout)
    await asyncio.sleep(1.0)  # a late second "paired" (told twice) would show now
    waits = [p.waited for p in players if p.waited is not None]
    problems = verify(schema, players)
    await close_all(players, listeners)
    pairs = len({room for p in players for room in p.rooms})
    a50, a99 = _percentile(anchor_times, 0.5), _percentile(anchor_times, 0.99)
    p50, p99 = _percentile(waits, 0.5), _percentile(waits, 0.99)
    longest = max(waits, default=float("nan"))
    print(
        f"anchor, one pair alone in {pool_name(pools[0])} ({len(anchor_times)} samples): "
        f"p50 {a50 * 1000:.1f} ms, p99 {a99 * 1000:.1f} ms"
    )
    print(
        f"{count} seeking at once in {len(pools)} pools: {pairs} pairs in {elapsed:.2f} s; "
        f"time to pair p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max "
        f"{longest * 1000:.0f} ms ({ratio(p50, a50)} / {ratio(p99, a99)} the anchor)"
    )
    print(*pool_table(players, pools, a50, a99), sep="\n")
    unpaired = Counter(pool_name(p.pool) for p in players if not p.rooms)
    print(f"unpaired: {count - len(waits)} ({dict(unpaired)})")
    print(
        "load average (1/5/15 min) before the burst "
        + "/".join(f"{x:.1f}" for x in load_before)
        + ", after "
        + "/".join(f"{x:.1f}" for x in os.getloadavg())
    )
    if problems:
        print("PROBLEMS:", *problems[:20], sep="\n  ")
        return 1
    print(
        "checked: nobody paired twice or with themselves; every room has its pool's options; "
        "nobody left waiting beside a compatible player (sockets and database agree)"
    )
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2000, help="seekers, pools at random")
    parser.add_argument(
        "--pools",
        default="rules",
        help=f"a preset ({', '.join(PRESETS)}) or pool keys, comma-separated, e.g. "
        "xiangqi:rules=casual:clock=5+3,janggi:bikjang=off (the anchor pairs in the first)",
    )
    parser.add_argument(
        "--per-pool",
        type=int,
        default=0,
        help="exactly this many seekers in every pool (instead of --players)",
    )
    parser.add_argument("--anchor", type=int, default=10, help="pairs measured alone first")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument(
        "--limit",
        default="0",
        help="CHUHAN_SEEKS_PER_ADDRESS for the servers: every simulated player comes from one "
        "address, so the per-address budget is off (0) unless given (then one bucket row "
        "serializes every seek of the run)",
    )
    args = parser.parse_args()
    try:
        args.pools = parse_pools(args.pools)
    except ValueError as exc:
        parser.error(f"--pools: {exc}")
    count = args.per_pool * len(args.pools) if args.per_pool else args.players
    if not 2 <= count <= MAX_PLAYERS or args.per_pool < 0 or args.anchor < 1:
        parser.error(f"between 2 and {MAX_PLAYERS} seekers in all, and --anchor at least 1")
    raise_open_files()
    folder = Path(tempfile.mkdtemp(prefix="chuhan-pairing-"))
    servers = Servers(2, folder, CHUHAN_SEEKS_PER_ADDRESS=args.limit)
    try:
        code = asyncio.run(run(args, servers.urls, servers.schema))
    finally:
        servers.close()
    if code:
        print(f"the servers' logs: {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    raise SystemExit(code)


if __name__ == "__main__":
    main()
