"""Jieqi rules speed beside xiangqi's, measured in the same run (not a test).

    .venv/bin/python bench/jieqi_speed.py [--depth 3] [--seed 1] [--views 200]

Prints perft nodes per second of the jieqi board (reveals follow a seeded arrangement) as a
ratio of the xiangqi board's from its start, and the cost of one player's view and of
rebuilding a secret-less board from it (``from_view``) after 60 random half-moves, as a ratio
of one legal move generation on the same position.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from chuhan.rules import make_board
from chuhan.rules.jieqi import JieqiBoard


def per_call(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--views", type=int, default=200, help="repetitions for view timings")
    args = parser.parse_args()

    rates = {}
    for variant, options in (("xiangqi", {}), ("jieqi", {"seed": args.seed})):
        board = make_board(variant, **options)
        start = time.perf_counter()
        nodes = board.perft(args.depth)
        seconds = time.perf_counter() - start
        rates[variant] = nodes / seconds
        print(f"{variant:8} perft {args.depth}: {nodes:>9} nodes  {rates[variant]:>10,.0f} n/s")
    print(f"jieqi / xiangqi perft speed: {rates['jieqi'] / rates['xiangqi']:.2f}")

    board = JieqiBoard(seed=args.seed)
    rng = random.Random(args.seed)
    while board.ply < 60 and not board.is_game_over():
        board.push(rng.choice(board.legal_moves))
    generate = per_call(board.legal_codes, args.views)
    view = per_call(lambda: json.dumps(board.view("red")), args.views)
    data = board.view("red")
    rebuild = per_call(lambda: JieqiBoard.from_view(data), max(1, args.views // 10))
    print(f"after {board.ply} half-moves, in units of one legal move generation:")
    print(f"  view('red') + json.dumps: {view / generate:6.1f}")
    print(f"  from_view:                {rebuild / generate:6.1f}")


if __name__ == "__main__":
    main()
