"""Time to a fixed depth: this checkout's advanced search against another checkout's, same run.

    .venv/bin/python bench/depth_time.py --baseline /tmp/base/src \
        --baseline-native /tmp/base-native [--depth 7] [--positions 40]

Each build searches the same quiet positions of real games (``bench/data/*_positions.txt.gz``,
drawn with a fixed seed) to ``--depth`` plies, one fresh process per build: this checkout (as
imported, compiled when its build matches) and the baseline (``--baseline`` a ``src``
directory, ``--baseline-native`` its mypyc build directory; without it the baseline runs pure
Python). Each row gives the CPU time, the nodes and the nodes per second per variant, and the
ratio of this checkout's time and nodes/s to the baseline's (the anchor): a speed change that
keeps the tree shows in both, a pruning change in the time alone.

``--same-tree`` also says, per variant, whether the two builds searched the same tree: the same
nodes, best move, score and principal variation for every position (a pure speed-up must).
``--variants`` picks the variants (xiangqi and janggi by default; jieqi has positions too).
``--rounds N`` runs each build N times, in turn (the baseline first in odd rounds, last in even
ones), and keeps each variant's least CPU time: on a loaded machine the least is the run the
other processes disturbed least.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from strength import checkout_env

DATA = Path(__file__).resolve().parent / "data"
VARIANTS = ("xiangqi", "janggi")


def positions(variant: str, count: int) -> list[str]:
    with gzip.open(DATA / f"{variant}_positions.txt.gz", "rt") as lines:
        fens = [line.split("\t")[0] for line in lines if not line.startswith("#")]
    random.Random(5).shuffle(fens)
    return fens[:count]


def measure(depth: int, count: int, variants: list[str]) -> dict[str, dict]:
    """CPU seconds and nodes to ``depth`` per variant, in this process's build, and per
    position what the search found (``trees``: nodes, move, score, principal variation)."""
    from chuhan import native
    from chuhan.engine.ai import search
    from chuhan.engine.search import Limits
    from chuhan.rules import make_board

    rows: dict[str, dict] = {}
    for variant in variants:
        seconds = nodes = 0.0
        trees = []
        for fen in positions(variant, count):
            board = make_board(variant, fen)
            started = time.process_time()
            result = search(board, Limits(depth=depth))
            seconds += time.process_time() - started
            nodes += result.nodes
            trees.append([result.nodes, str(result.move), result.score, result.pv])
        rows[variant] = {"seconds": seconds, "nodes": nodes, "trees": trees}
    rows["build"] = {"compiled": float(native.status().active)}
    return rows


def in_child(
    src: str | None, native_dir: str | None, depth: int, count: int, variants: list[str]
) -> dict:
    """measure() in a fresh process: of the checkout ``src`` (strength.checkout_env), or of
    this one as imported when ``src`` is None."""
    env = checkout_env(src, native_dir) if src else dict(os.environ)
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--depth", str(depth), "--positions", str(count),
         "--variants", *variants],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required="--child" not in (argv or sys.argv))
    parser.add_argument("--baseline-native")
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--same-tree", action="store_true", help="compare the trees searched")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each build, in turn")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.depth, args.positions, args.variants)))
        return 0
    base: dict = {}
    here: dict = {}
    for round_index in range(args.rounds):
        runs = [(base, args.baseline, args.baseline_native), (here, None, None)]
        for rows, src, native_dir in runs if round_index % 2 == 0 else runs[::-1]:
            new = in_child(src, native_dir, args.depth, args.positions, args.variants)
            for name, row in new.items():
                if name in rows and "seconds" in row:
                    row["seconds"] = min(row["seconds"], rows[name]["seconds"])
                rows[name] = row
    builds = ", ".join(
        f"{name} {'compiled' if rows['build']['compiled'] else 'pure'}"
        for name, rows in (("this", here), ("baseline", base))
    )
    rounds = f", least of {args.rounds} runs each" if args.rounds > 1 else ""
    print(f"to depth {args.depth}, {args.positions} positions a variant ({builds}{rounds})")
    print(f"{'variant':8} {'baseline s':>10} {'this s':>8} {'ratio':>6} "
          f"{'baseline n/s':>12} {'this n/s':>9} {'ratio':>6}")  # fmt: skip
    for variant in args.variants:
        b, h = base[variant], here[variant]
        b_nps, h_nps = b["nodes"] / b["seconds"], h["nodes"] / h["seconds"]
        time_ratio, speed_ratio = h["seconds"] / b["seconds"], h_nps / b_nps
        print(
            f"{variant:8} {b['seconds']:10.2f} {h['seconds']:8.2f} {time_ratio:5.2f}x "
            f"{b_nps:12,.0f} {h_nps:9,.0f} {speed_ratio:5.2f}x"
        )
    if args.same_tree:
        for variant in args.variants:
            pairs = list(zip(base[variant]["trees"], here[variant]["trees"], strict=True))
            differ = [i for i, (b, h) in enumerate(pairs) if b != h]
            verdict = f"differs at positions {differ}" if differ else "same"
            print(f"{variant:8} tree (nodes, move, score, pv) of {len(pairs)} positions: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
