"""Build an opening book (src/chuhan/engine/book.json, book_janggi.json) from deep searches.

    .venv/bin/python bench/build_book.py [--variant xiangqi|janggi] [--plies 3] [--depth 12]
                                         [--command PATH]

No public game collection is reachable from this machine, so the book is made of deep
searches instead of games: from the start, every position the book's own moves lead to within
``--plies`` half-moves is searched by Fairy-Stockfish (``MultiPV 4`` to ``--depth``), and the
moves scoring within ``MARGIN`` centipawns of the best are kept with a weight that falls with
the loss. The output is reproducible for a given engine build and depth (Threads 1). Janggi
starts from each of the sixteen pairs of setups (J3: four for Cho, four for Han) and is searched
as Fairy-Stockfish's ``janggicasual`` (our rules: bikjang off, J7); passes are never booked.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
from pathlib import Path

from chuhan.engine.book import BOOK_PATHS, book_key
from chuhan.rules import make_board
from chuhan.rules.board import Board
from chuhan.rules.janggi import SETUPS

MARGIN = 35
MULTIPV = 4
UCI_VARIANTS = {"xiangqi": "xiangqi", "janggi": "janggicasual"}


def starts(variant: str) -> list[Board]:
    """The positions a book of ``variant`` grows from."""
    if variant == "janggi":
        return [make_board("janggi", setup=f"{cho}:{han}") for cho in SETUPS for han in SETUPS]
    return [make_board(variant)]


class Engine:
    def __init__(self, command: str, variant: str) -> None:
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        for line in ("uci", "setoption name Threads value 1", "setoption name Hash value 64",
                     f"setoption name UCI_Variant value {UCI_VARIANTS[variant]}",
                     f"setoption name MultiPV value {MULTIPV}", "isready"):
            self.send(line)
        self.wait("readyok")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, prefix: str) -> list[str]:
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the engine stopped")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def candidates(self, fen: str, depth: int) -> list[tuple[str, int]]:
        """(move, centipawns) of the best ``MULTIPV`` moves at ``depth``."""
        self.send(f"position fen {fen}")
        self.send(f"go depth {depth}")
        best: dict[int, tuple[str, int]] = {}
        for line in self.wait("bestmove"):
            words = line.split()
            if not line.startswith("info") or "multipv" not in words or "pv" not in words:
                continue
            if int(words[words.index("depth") + 1]) != depth or "cp" not in words:
                continue
            rank = int(words[words.index("multipv") + 1])
            best[rank] = (words[words.index("pv") + 1], int(words[words.index("cp") + 1]))
        return [best[rank] for rank in sorted(best)]

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=10)


def build(variant: str, plies: int, depth: int, command: str) -> dict[str, list[list[object]]]:
    engine = Engine(command, variant)
    book: dict[str, list[list[object]]] = {}
    frontier = starts(variant)
    try:
        for _ in range(plies):
            following: list[Board] = []
            for board in frontier:
                key = book_key(board)
                if key in book:
                    continue
                moves = engine.candidates(board.fen(), depth)
                if not moves:
                    continue
                top = moves[0][1]
                kept = [[move, max(1, MARGIN + 5 - (top - cp))] for move, cp in moves
                        if top - cp <= MARGIN and move in board.legal_move_texts()]
                book[key] = kept
                for move, _ in kept:
                    child = board.copy()
                    child.push(str(move))
                    following.append(child)
            frontier = following
    finally:
        engine.close()
    return book


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", choices=list(BOOK_PATHS), default="xiangqi")
    parser.add_argument("--plies", type=int, default=3)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--command", default="/usr/games/fairy-stockfish")
    parser.add_argument("--out", type=Path, default=None, help="the variant's book by default")
    args = parser.parse_args(argv)
    out = args.out or BOOK_PATHS[args.variant]
    book = build(args.variant, args.plies, args.depth, args.command)
    lines = [f"{json.dumps(key)}: {json.dumps(moves, separators=(',', ':'))}"
             for key, moves in sorted(book.items())]
    out.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"{len(book)} positions, {sum(len(v) for v in book.values())} moves -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
