"""What judging a repetition by the WXF rules costs, against one legal-move generation.

    .venv/bin/python bench/wxf.py [--repeat 200]

For each cycle (a 4-move chase, a 4-move idle walk, the 12-move cycle of WXF diagram 81) we
time, in the same run, the search's question (``wxf.cycle_loser``: who loses this cycle) and
the game's full verdict with its per-move marks (``wxf.judge(..., explain=True)``), and divide
by the time of one ``legal_moves`` generation of the same position (the anchor), in CPU time,
rounds taking turns. The WXF verdict should cost a few generations at most, so that the search can
afford to call it. The compiled build (``chuhan.native``) speeds the anchor up; the status
line says which build ran. Not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from chuhan.rules import make_board
from chuhan.rules.wxf import cycle_loser, judge

CASES = [
    (
        "4-move chase (cannon on a protected chariot)",
        "4k4/4n4/9/3r5/9/9/3P1P3/9/5C3/4K4 w",
        "",
        "f2d2 d7f7 d2f2 f7d7",
    ),
    (
        "4-move idle (generals walking, middlegame material)",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        "",
        "b1c3 b10c8 c3b1 c8b10",
    ),
    (
        "12-move chase (WXF diagram 81)",
        "2b1ka1P1/4a4/b8/p5R2/8c/7R1/P1p3p2/3rBn3/N2C2n1C/3K1NB2 w",
        "h5h6 i6i8",
        "g7g8 i8i7 h6h7 i7i6 g8g6 i6i8 h7h8 i8i7 g6g7 i7i6 h8h6 i6i8",
    ),
]


def per_call(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """CPU seconds per call of each of ``fns``, the best of seven rounds; the rounds take
    turns between the functions, so a busy machine slows all of them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(7):
        for index, fn in enumerate(fns):
            start = time.process_time()
            for _ in range(repeat):
                fn()
            best[index] = min(best[index], (time.process_time() - start) / repeat)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="calls per timed batch")
    args = parser.parse_args()
    from chuhan import native

    print(f"build: {'compiled' if native.status().active else 'pure Python'}")
    print(
        f"{'cycle':52} {'legal_moves':>12} {'cycle_loser':>12} {'ratio':>6} "
        f"{'explained':>10} {'ratio':>6}"
    )
    for name, fen, lead, cycle in CASES:
        board = make_board("xiangqi", fen, rules="wxf")
        board.push_many(lead.split())
        moves = cycle.split()
        board.push_many(moves)
        codes = board.code_history()[-len(moves) :]
        checks = board.check_history()[-len(moves) :]
        anchor, fast, full = per_call(
            [
                board.legal_codes,
                lambda: cycle_loser(board, codes, checks),  # noqa: B023
                lambda: judge(board, codes, checks, explain=True),  # noqa: B023
            ],
            args.repeat,
        )
        print(
            f"{name:52} {anchor * 1e6:10.1f}us {fast * 1e6:10.1f}us {fast / anchor:6.1f} "
            f"{full * 1e6:8.1f}us {full / anchor:6.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
