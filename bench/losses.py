"""Replay games against Fairy-Stockfish and compare, at each of our moves, what our search
and a full-strength Fairy-Stockfish think of the position (A1).

    .venv/bin/python bench/losses.py RECORD [--games 1,4] [--window 24] [--movetime 2]

``RECORD`` is a file ``bench/strength.py --fs-record`` wrote (a JSON line per game). For each
chosen game that we lost (all of them with ``--all``), every position in the last ``--window``
plies where we were to move is searched by our advanced (``--movetime`` seconds, no tables
carried) and by Fairy-Stockfish at Skill Level 20 for the same time; a line shows the move
played, our move, depth and score, and Fairy-Stockfish's. Where our score stays positive while
Fairy-Stockfish's falls, the search misjudged the position; where both fall together, we lost
earlier than the window.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from chuhan.engine import ai
from chuhan.engine.search import Limits
from chuhan.rules import make_board
from strength import FS_COMMAND, FairyStockfish, rules_move

FULL_STRENGTH = 20


def fs_opinion(fs: FairyStockfish, fen: str, moves: list[str], movetime: float) -> str:
    """Fairy-Stockfish's best move, depth and score (its last ``info`` line) in one text."""
    fs.send(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))
    fs.send(f"go movetime {round(movetime * 1000)}")
    assert fs.proc.stdout is not None
    info = ""
    while True:
        line = fs.proc.stdout.readline()
        if not line:
            raise RuntimeError("Fairy-Stockfish stopped")
        if line.startswith("info") and " score " in line:
            info = line
        if line.startswith("bestmove"):
            break
    depth = info.split(" depth ")[1].split()[0] if info else "?"
    score = " ".join(info.split(" score ")[1].split()[:2]) if info else "?"
    return f"{line.split()[1]} d{depth} {score}"


def replay(record: dict[str, Any], window: int, movetime: float, command: str) -> None:
    variant, ours, moves = record["variant"], record["ours"], record["moves"]
    print(
        f"== game {record['game']}: ours {'first' if ours == 0 else 'second'} mover, "
        f"winner {record['winner']}, {record['reason']}, {record['plies']} plies"
    )
    fs = FairyStockfish(command, variant, FULL_STRENGTH)
    try:
        board = make_board(variant, record["fen"])
        start = max(0, len(moves) - window)
        for ply, played in enumerate(moves):
            if ply >= start and board.turn == ours:
                result = ai.search(board, Limits(movetime=movetime))
                theirs = fs_opinion(fs, record["fen"], moves[:ply], movetime)
                print(
                    f"ply {ply:3d} played {played:6s} ours {result.move!s:6s} "
                    f"d{result.depth} {result.score:+d}   fairy-stockfish {theirs}"
                )
            board.push(rules_move(played))
    finally:
        fs.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record", help="a file bench/strength.py --fs-record wrote")
    parser.add_argument("--games", default="", help="game numbers, comma-separated")
    parser.add_argument("--all", action="store_true", help="every game, not only the losses")
    parser.add_argument("--window", type=int, default=24, help="the last plies to look at")
    parser.add_argument("--movetime", type=float, default=2.0, help="seconds a position")
    parser.add_argument("--fs-command", default=FS_COMMAND)
    args = parser.parse_args(argv)
    chosen = {int(n) for n in args.games.split(",") if n}
    with open(args.record, encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    for record in records:
        if chosen and record["game"] not in chosen:
            continue
        if not args.all and record["winner"] in (record["ours"], None):
            continue
        replay(record, args.window, args.movetime, args.fs_command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
