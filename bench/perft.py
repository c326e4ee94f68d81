"""Perft speed: our rules beside Fairy-Stockfish (pyffish) driven from Python, in one run.

    .venv/bin/python bench/perft.py [--variant xiangqi] [--depths 3 4] [--anchor-depth 3]

The anchor is pyffish's own move generator driven the way a Python program would use it
(``legal_moves`` + ``get_fen`` recursion), measured in the same run; we print both speeds in
nodes per second and their ratio, for our rules interpreted (``CHUHAN_PURE_PYTHON=1``) and
compiled (chuhan.native), each in a fresh process. Not a test: figures go into the closing
notes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import pyffish

from chuhan import native
from chuhan.rules import make_board

CHILD = """
import json, sys, time
from chuhan import native
from chuhan.rules import make_board
board = make_board(sys.argv[1])
started = time.perf_counter()
nodes = board.perft(int(sys.argv[2]))
print(json.dumps([nodes, time.perf_counter() - started, native.status().active]))
"""


def chuhan_perft(build: str, variant: str, depth: int) -> tuple[int, float]:
    """(nodes, seconds) of our perft in a fresh process on the ``build`` modules."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if build == "interpreted":
        env[native.PURE_ENV] = "1"
    out = subprocess.run(
        [sys.executable, "-c", CHILD, variant, str(depth)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    nodes, seconds, active = json.loads(out.stdout)
    if active != (build == "compiled"):
        raise SystemExit(f"the {build} build is not in use ({native.status().reason})")
    return nodes, seconds


# janggicasual is janggi with bikjang off (J7). Its anchor count is a little higher than ours
# (33348 vs 33316 at depth 3): get_fen forgets a pass, so two passes in a row do not end a line.
PYFFISH_NAMES = {"xiangqi": "xiangqi", "janggi": "janggicasual"}


def pyffish_perft(variant: str, fen: str, depth: int) -> int:
    """Leaf count using only pyffish calls, as a Python caller of Fairy-Stockfish would."""
    moves = pyffish.legal_moves(variant, fen, [])
    if depth == 1:
        return len(moves)
    return sum(pyffish_perft(variant, pyffish.get_fen(variant, fen, [m]), depth - 1) for m in moves)


def timed(fn, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="xiangqi", choices=sorted(PYFFISH_NAMES))
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4])
    parser.add_argument(
        "--anchor-depth",
        type=int,
        default=3,
        help="depth for the pyffish anchor (each level costs ~40x more)",
    )
    args = parser.parse_args()

    board = make_board(args.variant)
    fen = board.fen()
    ff_name = PYFFISH_NAMES[args.variant]
    anchor_nodes, anchor_secs = timed(pyffish_perft, ff_name, fen, args.anchor_depth)
    anchor_nps = anchor_nodes / anchor_secs
    print(f"variant {args.variant}")
    print(
        f"anchor  pyffish-from-Python perft {args.anchor_depth}: {anchor_nodes} nodes "
        f"in {anchor_secs:.2f} s = {anchor_nps:,.0f} nodes/s"
    )
    for depth in args.depths:
        for build in ("interpreted", "compiled"):
            nodes, secs = chuhan_perft(build, args.variant, depth)
            nps = nodes / secs
            print(
                f"chuhan {build:<11} perft {depth}: {nodes} nodes in {secs:.2f} s = "
                f"{nps:,.0f} nodes/s  ratio {nps / anchor_nps:.1f}x the anchor"
            )


if __name__ == "__main__":
    main()
