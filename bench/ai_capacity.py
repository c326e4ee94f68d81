"""AI capacity: moves per second per level with the worker pool saturated (issue 11).

For each level, the anchor is one search at a time in this process (the same jobs, the same
seeds); then ``--jobs`` jobs are submitted at once to the server's :class:`AIPool` with
``--workers`` worker processes (the pool a ``chuhan serve`` runs). Printed per level: the
anchor's moves/s, the pool's moves/s and their ratio, the time a job waited for a worker
(p50/p99) and ran in one, and the load average (the machine may be shared).

    .venv/bin/python bench/ai_capacity.py [--workers 2] [--levels beginner intermediate]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time

from chuhan.rules import make_board
from chuhan.server.ai import AIJob, AIPool, run_job

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


async def main_async(workers: int, levels: list[str], seed: int) -> None:
    pool = AIPool(workers, max_jobs=1000)
    await asyncio.gather(*(pool.submit(AIJob("setup", "janggi")) for _ in range(workers)))
    print(f"pool of {workers} worker processes; load average {os.getloadavg()}")
    print(
        f"{'level':<13}{'anchor mv/s':>12}{'pool mv/s':>11}{'ratio':>7}"
        f"{'wait p50':>10}{'wait p99':>10}{'run p50':>9}{'jobs':>6}"
    )
    for level in levels:
        jobs = [job(level, m, seed + i) for i, m in enumerate(positions(JOBS[level], seed))]
        anchor_started = time.perf_counter()
        for one in jobs[: ANCHOR_JOBS[level]]:
            run_job(one)
        anchor = ANCHOR_JOBS[level] / (time.perf_counter() - anchor_started)
        elapsed, waits, runs = await saturate(pool, jobs)
        rate = len(jobs) / elapsed
        print(
            f"{level:<13}{anchor:>12.2f}{rate:>11.2f}{rate / anchor:>6.2f}×"
            f"{_percentile(waits, 0.5):>9.2f}s{_percentile(waits, 0.99):>9.2f}s"
            f"{_percentile(runs, 0.5):>8.2f}s{len(jobs):>6}"
        )
    print(f"load average after: {os.getloadavg()}")
    pool.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--levels", nargs="*", default=list(JOBS), choices=list(JOBS))
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    asyncio.run(main_async(args.workers, args.levels, args.seed))


if __name__ == "__main__":
    main()
