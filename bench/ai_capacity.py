"""AI capacity: moves per second per level with the worker pool saturated.

For each level, the anchor is one search at a time in this process (the same jobs, the same
seeds); then ``--jobs`` jobs are submitted at once to the server's :class:`AIPool` with
``--workers`` worker processes (the pool a ``chuhan serve`` runs). Printed per level: the
anchor's moves/s, the pool's moves/s and their ratio, the time a job waited for a worker
(p50/p99) and ran in one, and the load average (the machine may be shared).

With ``--shared`` the same jobs then go through the shared Redis queue (``CHUHAN_AI_SHARED``,
:mod:`chuhan.server.ai.queue`) to ``chuhan ai-worker --workers N`` started apart, and a second
row per level ("via queue") shows those figures beside the same anchor (REDIS_URL, default
the local Redis; a fresh prefix per run).

    .venv/bin/python bench/ai_capacity.py [--workers 2] [--levels beginner intermediate]
    .venv/bin/python bench/ai_capacity.py --shared [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import redis

from chuhan.rules import make_board
from chuhan.server.ai.pool import AIJob, AIPool, run_job
from chuhan.server.ai.queue import queue_name
from chuhan.server.ai.shared_pool import SharedAIPool

JOBS = {"beginner": 24, "intermediate": 16, "advanced": 6}
ANCHOR_JOBS = {"beginner": 6, "intermediate": 4, "advanced": 2}


def positions(count: int, seed: int) -> list[tuple[str, ...]]:
    """Middle-game-ish xiangqi positions: 6 to 20 random legal plies from the start."""
    rng = random.Random(seed)
    found: list[tuple[str, ...]] = []
    while len(found) < count:
        board = make_board("xiangqi")
        moves: list[str] = []
        for _ in range(rng.randint(6, 20)):
            legal = sorted(str(m) for m in board.legal_moves)
            if not legal or board.outcome() is not None:
                break
            move = rng.choice(legal)
            board.push(move)
            moves.append(move)
        if board.outcome() is None and any(True for _ in board.legal_moves):
            found.append(tuple(moves))
    return found


def job(level: str, moves: tuple[str, ...], seed: int) -> AIJob:
    return AIJob("move", "xiangqi", moves=moves, level=level, seed=seed, side=len(moves) % 2)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def saturate(pool: AIPool, jobs: list[AIJob]) -> tuple[float, list[float], list[float]]:
    """Submit every job at once; returns the wall seconds, the waits and the run times."""
    waits: list[float] = []
    runs: list[float] = []
    observer = lambda _job, waited, ran: (waits.append(waited), runs.append(ran))  # noqa: E731
    pool.job_observers.append(observer)
    started = time.perf_counter()
    await asyncio.gather(*(pool.submit(j) for j in jobs))
    elapsed = time.perf_counter() - started
    pool.job_observers.remove(observer)
    return elapsed, waits, runs


@contextlib.contextmanager
def ai_workers(redis_url: str, prefix: str, workers: int) -> Iterator[None]:
    """``chuhan ai-worker`` processes on the queue of ``prefix``, as a deployment runs them."""
    command = [sys.executable, "-m", "chuhan.cli", "ai-worker", "--workers", str(workers)]
    command += ["--redis-url", redis_url, "--prefix", prefix]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
        client = redis.Redis.from_url(redis_url)
        name = queue_name(prefix)
        for pattern in (f"saq:{name}:*", f"saq:job:{name}:*"):
            for key in client.scan_iter(pattern):
                client.delete(key)
        client.close()


async def main_async(workers: int, levels: list[str], seed: int, shared: bool) -> None:
    pools: dict[str, AIPool] = {"": AIPool(workers, max_jobs=1000)}
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    prefix = f"chuhan-bench-{uuid.uuid4().hex[:8]}"
    with ai_workers(redis_url, prefix, workers) if shared else contextlib.nullcontext():
        if shared:
            pools[" via queue"] = queue = SharedAIPool(redis_url, prefix, max_jobs=1000)
            while queue.queue_state()["workers"] < workers:
                await asyncio.sleep(0.1)
        for pool in pools.values():  # distinct seeds: identical jobs share one queue entry
            await asyncio.gather(
                *(pool.submit(AIJob("setup", "janggi", seed=i)) for i in range(workers))
            )
        await report(pools, workers, levels, seed)
        for pool in pools.values():
            pool.shutdown()
            await pool.close()


async def report(pools: dict[str, AIPool], workers: int, levels: list[str], seed: int) -> None:
    width = 13 if len(pools) == 1 else 23
    print(f"pool of {workers} worker processes; load average {os.getloadavg()}")
    print(
        f"{'level':<{width}}{'anchor mv/s':>12}{'pool mv/s':>11}{'ratio':>7}"
        f"{'wait p50':>10}{'wait p99':>10}{'run p50':>9}{'jobs':>6}"
    )
    for level in levels:
        jobs = [job(level, m, seed + i) for i, m in enumerate(positions(JOBS[level], seed))]
        anchor_started = time.perf_counter()
        for one in jobs[: ANCHOR_JOBS[level]]:
            run_job(one)
        anchor = ANCHOR_JOBS[level] / (time.perf_counter() - anchor_started)
        for via, pool in pools.items():
            elapsed, waits, runs = await saturate(pool, jobs)
            rate = len(jobs) / elapsed
            print(
                f"{level + via:<{width}}{anchor:>12.2f}{rate:>11.2f}{rate / anchor:>6.2f}×"
                f"{_percentile(waits, 0.5):>9.2f}s{_percentile(waits, 0.99):>9.2f}s"
                f"{_percentile(runs, 0.5):>8.2f}s{len(jobs):>6}"
            )
    print(f"load average after: {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--levels", nargs="*", default=list(JOBS), choices=list(JOBS))
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--shared", action="store_true", help="also through the shared Redis queue")
    args = parser.parse_args()
    asyncio.run(main_async(args.workers, args.levels, args.seed, args.shared))


if __name__ == "__main__":
    main()
