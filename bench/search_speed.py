"""Search speed beside the rules' own perft speed, measured in the same run (A2).

    .venv/bin/python bench/search_speed.py [--nodes 30000] [--variants xiangqi,janggi,jieqi]

For each variant: perft nodes per second (the anchor: legal move generation and
make/unmake alone) and the advanced search's nodes per second (main and quiescence nodes
counted alike) on a few positions, with the depth reached within the node budget. Times are
CPU times of this process, so a busy machine changes both figures alike.
"""

from __future__ import annotations

import argparse
import time

from chuhan.engine.ai import search
from chuhan.engine.search import Limits
from chuhan.rules import Board, make_board

POSITIONS = {
    "xiangqi": [
        [],
        ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1", "b8b4"],
        ["b3e3", "b10c8", "b1c3", "a10b10", "a1b1", "h8h4", "h1g3", "c7c6", "g4g5", "h10g8"],
    ],
    "janggi": [[], ["c4d4", "c7d7", "b3d3"]],
    "jieqi": [[], ["h3h10", "i10h10"]],
}


def start_board(variant: str, moves: list[str]) -> Board:
    board = make_board(variant, seed=7) if variant == "jieqi" else make_board(variant)
    for text in moves:
        if text in board.legal_move_texts():
            board.push(text)
    return board


def perft_speed(board: Board, depth: int) -> float:
    started = time.process_time()
    if board.variant == "jieqi":  # perft would need the secret for reveals: time moves only
        count = 0
        for _ in range(200):
            count += len(board._legal_codes())
        return count / (time.process_time() - started)
    count = board.perft(depth)
    return count / (time.process_time() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=30_000)
    parser.add_argument("--variants", default="xiangqi,janggi,jieqi")
    args = parser.parse_args(argv)
    print(f"{'variant':<9}{'position':>9}{'perft n/s':>12}{'search n/s':>12}{'ratio':>8}"
          f"{'depth':>7}")
    for variant in args.variants.split(","):
        for index, moves in enumerate(POSITIONS[variant]):
            board = start_board(variant, moves)
            anchor = perft_speed(board, 3)
            started = time.process_time()
            result = search(board, Limits(nodes=args.nodes))
            speed = result.nodes / (time.process_time() - started)
            print(f"{variant:<9}{index:>9}{anchor:>12,.0f}{speed:>12,.0f}"
                  f"{speed / anchor:>8.3f}{result.depth:>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
