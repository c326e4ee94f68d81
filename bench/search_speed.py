"""Search and perft speed, interpreted and compiled (chuhan.native), measured in the same run.

    .venv/bin/python bench/search_speed.py [--nodes 30000] [--variants xiangqi,janggi,jieqi]

For each variant and position, two fresh processes measure the same work: one on the
pure-Python modules (``CHUHAN_PURE_PYTHON=1``, the anchor) and one on the mypyc build that
``make`` compiles. Each reports perft nodes per second (legal move generation and make/unmake
alone; jieqi: move generation only, since perft would need the secret) and the advanced
search's nodes per second to a node budget (main and quiescence nodes counted alike), with the
depth reached. Times are CPU times of the measuring process, so a busy machine changes both
builds alike; the ratios are compiled over interpreted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
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
            count += len(board.legal_codes())
        return count / (time.process_time() - started)
    count = board.perft(depth)
    return count / (time.process_time() - started)


def measure(variants: list[str], nodes: int) -> list[dict[str, object]]:
    """One row per variant and position, in this process's build."""
    rows: list[dict[str, object]] = []
    for variant in variants:
        for index, moves in enumerate(POSITIONS[variant]):
            board = start_board(variant, moves)
            perft = perft_speed(board, 3)
            started = time.process_time()
            result = search(board, Limits(nodes=nodes))
            speed = result.nodes / (time.process_time() - started)
            rows.append(
                {
                    "variant": variant,
                    "position": index,
                    "perft": perft,
                    "search": speed,
                    "depth": result.depth,
                }
            )
    return rows


def measure_in_child(build: str, variants: list[str], nodes: int) -> list[dict[str, object]]:
    from chuhan import native

    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if build == "pure":
        env[native.PURE_ENV] = "1"
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            "--nodes",
            str(nodes),
            "--variants",
            ",".join(variants),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = out.stdout.splitlines()
    if build == "compiled" and lines[0] != "compiled":
        raise SystemExit(f"the compiled build is not in use: {lines[0]} (run `make install`)")
    rows: list[dict[str, object]] = json.loads(lines[1])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=30_000)
    parser.add_argument("--variants", default="xiangqi,janggi,jieqi")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    if args.child:
        from chuhan import native

        print("compiled" if native.status().active else native.status().reason)
        print(json.dumps(measure(variants, args.nodes)))
        return 0
    pure = measure_in_child("pure", variants, args.nodes)
    compiled = measure_in_child("compiled", variants, args.nodes)
    print(f"load average {os.getloadavg()[0]:.1f}; nodes/s, interpreted -> compiled (ratio)")
    print(
        f"{'variant':<9}{'pos':>4}{'perft':>11}{'compiled':>11}{'ratio':>7}"
        f"{'search':>10}{'compiled':>11}{'ratio':>7}{'depth':>7}"
    )
    for a, b in zip(pure, compiled, strict=True):
        pa, pb, sa, sb = (
            float(a["perft"]),  # type: ignore[arg-type]
            float(b["perft"]),  # type: ignore[arg-type]
            float(a["search"]),  # type: ignore[arg-type]
            float(b["search"]),  # type: ignore[arg-type]
        )
        print(
            f"{a['variant']:<9}{a['position']:>4}{pa:>11,.0f}{pb:>11,.0f}{pb / pa:>6.2f}x"
            f"{sa:>10,.0f}{sb:>11,.0f}{sb / sa:>6.2f}x{a['depth']}->{b['depth']:>2}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
