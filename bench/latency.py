"""AI latency per level as the server plays it (SPEC A2): median, p95 and max over positions.

    .venv/bin/python bench/latency.py [--positions 50] [--variant xiangqi]

The positions come from seeded games (two random plies, then intermediate against itself at a
small node budget), one taken every few plies so that openings, middlegames and endings all
count. Each level then answers every position with its own time budget, exactly as
``choose_move`` runs on the server; we print wall and CPU seconds per decision (median, 95th
percentile, max), the median depth reached, the load average (other processes on the two
cores lengthen the wall time) and which build ran (compiled or pure Python).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from chuhan import native
from chuhan.engine import LEVELS, choose_move
from chuhan.rules import Board, make_board

SAMPLE_EVERY = 7


def positions(variant: str, count: int) -> list[Board]:
    found: list[Board] = []
    game = 0
    while len(found) < count:
        board = make_board(variant, seed=game) if variant == "jieqi" else make_board(variant)
        rng = random.Random(game)
        for _ in range(2):
            board.push(rng.choice(board.legal_moves))
        while board.outcome() is None and board.ply < 160 and len(found) < count:
            if board.ply % SAMPLE_EVERY == SAMPLE_EVERY - 1:
                found.append(board.copy())
            view = board
            if variant == "jieqi":
                from chuhan.rules.jieqi import JieqiBoard

                view = JieqiBoard.from_view(board.view(board.turn))  # type: ignore[attr-defined]
            board.push(choose_move(view, "intermediate", seed=game, nodes=3_000).move)
        game += 1
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--variant", default="xiangqi")
    args = parser.parse_args(argv)
    boards = positions(args.variant, args.positions)
    build = "compiled" if native.status().active else f"pure Python ({native.status().reason})"
    print(f"{args.variant}, {len(boards)} positions, {build}, load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'level':<14}{'budget':>7}{'wall med':>10}{'p95':>7}{'max':>7}"
          f"{'cpu med':>9}{'p95':>7}{'max':>7}{'depth':>7}")
    for level in LEVELS:
        wall: list[float] = []
        cpu: list[float] = []
        depths: list[int] = []
        for index, board in enumerate(boards):
            view = board
            if args.variant == "jieqi":
                from chuhan.rules.jieqi import JieqiBoard

                view = JieqiBoard.from_view(board.view(board.turn))  # type: ignore[attr-defined]
            started, cpu_started = time.perf_counter(), time.process_time()
            result = choose_move(view, level, seed=index)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
            depths.append(result.depth)
        print(f"{level:<14}{LEVELS[level].movetime:>6.2f}s{statistics.median(wall):>10.3f}"
              f"{percentile(wall, 0.95):>7.3f}{max(wall):>7.3f}{statistics.median(cpu):>9.3f}"
              f"{percentile(cpu, 0.95):>7.3f}{max(cpu):>7.3f}{statistics.median(depths):>7.0f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
