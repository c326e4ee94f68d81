"""AI latency per level as the server plays it (SPEC A2): median, p95 and max over positions.

    .venv/bin/python bench/latency.py [--positions 50] [--variant xiangqi] [--workers 2]

Xiangqi positions come from real games: evenly spaced lines of
``bench/data/xiangqi_positions.txt.gz`` (master games of the Chinese Chess Practical Dataset,
openings to endings; see ``bench/game_positions.py``). Janggi and jieqi positions, and xiangqi
with ``--source selfplay``, come from seeded games (two random plies, then intermediate
against itself at a small node budget), one taken every few plies.

Each level then answers every position with its own time budget, exactly as ``choose_move``
runs on the server, in ``--workers`` processes at once (default 2, the server's
``CHUHAN_AI_WORKERS``): every worker has a game, as SPEC A2 asks, and the two cores are
shared by them. We print wall and CPU seconds per decision (median, 95th percentile, max),
the median depth reached, the load average (other processes on the cores lengthen the wall
time) and which build ran (compiled or pure Python).

Measured figures: bench/RESULTS.md, under "bench/latency.py".
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from chuhan import native
from chuhan.engine import LEVELS, choose_move
from chuhan.rules import Board, make_board

SAMPLE_EVERY = 7
REAL_POSITIONS = Path(__file__).resolve().parent / "data" / "xiangqi_positions.txt.gz"


def real_positions(count: int) -> list[Board]:
    """``count`` evenly spaced positions of the master-game file (xiangqi)."""
    with gzip.open(REAL_POSITIONS, "rt", encoding="utf-8") as data:
        fens = [line.split("\t")[0] for line in data if line.strip() and not line.startswith("#")]
    step = max(1, len(fens) // count)
    return [make_board("xiangqi", fen) for fen in fens[::step][:count]]


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

                view = JieqiBoard.from_view(board.view(board.turn))
            board.push(choose_move(view, "intermediate", seed=game, nodes=3_000).move)
        game += 1
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def decide(job: tuple[str, Any, str, int]) -> tuple[float, float, int]:
    """One decision, as the server's AI worker makes it: (wall s, CPU s, depth)."""
    variant, fen_or_view, level, index = job
    if variant == "jieqi":
        from chuhan.rules.jieqi import JieqiBoard

        view: Board = JieqiBoard.from_view(fen_or_view)
    else:
        view = make_board(variant, fen_or_view)
    started, cpu_started = time.perf_counter(), time.process_time()
    result = choose_move(view, level, seed=index)
    return time.perf_counter() - started, time.process_time() - cpu_started, result.depth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--variant", default="xiangqi")
    parser.add_argument(
        "--source",
        choices=["real", "selfplay"],
        default="real",
        help="xiangqi positions from master games (real) or seeded games",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="decisions running at once (the server's AI workers)"
    )
    args = parser.parse_args(argv)
    real = args.variant == "xiangqi" and args.source == "real"
    boards = real_positions(args.positions) if real else positions(args.variant, args.positions)
    build = "compiled" if native.status().active else f"pure Python ({native.status().reason})"
    source = "master games" if real else "seeded games"
    print(
        f"{args.variant}, {len(boards)} positions from {source}, {build}, {args.workers} "
        f"workers at once, load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'level':<14}{'budget':>7}{'wall med':>10}{'p95':>7}{'max':>7}"
        f"{'cpu med':>9}{'p95':>7}{'max':>7}{'depth':>7}"
    )
    if args.variant == "jieqi":  # each side sees only its own view (never the arrangement)
        texts = [board.view(board.turn) for board in boards]
    else:
        texts = [board.fen() for board in boards]
    with ProcessPoolExecutor(args.workers) as pool:
        for level in LEVELS:
            jobs = [(args.variant, text, level, index) for index, text in enumerate(texts)]
            answers = list(pool.map(decide, jobs))
            wall = [answer[0] for answer in answers]
            cpu = [answer[1] for answer in answers]
            depths = [answer[2] for answer in answers]
            print(
                f"{level:<14}{LEVELS[level].movetime:>6.2f}s{statistics.median(wall):>10.3f}"
                f"{percentile(wall, 0.95):>7.3f}{max(wall):>7.3f}"
                f"{statistics.median(cpu):>9.3f}{percentile(cpu, 0.95):>7.3f}"
                f"{max(cpu):>7.3f}{statistics.median(depths):>7.0f}"
            )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
