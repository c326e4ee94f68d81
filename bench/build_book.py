"""Build an opening book (src/chuhan/engine/book.json, book_janggi.json) from deep searches
or, for xiangqi, master games.

    .venv/bin/python bench/build_book.py [--variant xiangqi|janggi] [--plies 3] [--depth 12]
                                         [--command PATH]

    .venv/bin/python bench/build_book.py --games /tmp/ccpd [--plies 24] [--min-games 40]
                                         [--check-depth 10]      # xiangqi, from master games

Deep searches (janggi, no public game collection at hand): from the start, every position the
book's own moves lead to within ``--plies`` half-moves is searched by Fairy-Stockfish
(``MultiPV 4`` to ``--depth``), and the moves scoring within ``MARGIN`` centipawns of the best
are kept with a weight that falls with the loss. The output is reproducible for a given engine
build and depth (Threads 1). Janggi starts from each of the sixteen pairs of setups (J3: four
for Cho, four for Han) and is searched as Fairy-Stockfish's ``janggicasual`` (our rules:
bikjang off, J7); passes are never booked.

Master games (xiangqi, ``--games``: a checkout of the CCPD collection, the source of
``bench/game_positions.py``, which says how to get it; its 53,685 master games): every position
of the first ``--plies`` half-moves of every game (and of its mirror image: the rules are
symmetric between the a- and i-files, so a line opened on the other wing is booked too) is
counted, with each move played there and the result it led to. A position reached in at least
``--min-games`` games is booked with the moves played in at least ``MIN_SHARE`` of them
(``MIN_MOVE_GAMES`` at least) whose result for the mover is no more than ``SCORE_MARGIN`` below
the position's own, weighted by how often masters chose them. Popular is not always sound, so
with ``--check-depth`` Fairy-Stockfish then searches each booked position to that depth and
drops a move it scores more than ``CHECK_MARGIN`` centipawns below its best (a position left
without moves leaves the book).
The counts are a function of the files; the check, of the engine build and depth.
"""

from __future__ import annotations

import argparse
import functools
import json
import shlex
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from chuhan.engine.book import BOOK_PATHS, book_key
from chuhan.rules import make_board
from chuhan.rules.board import Board
from chuhan.rules.janggi import SETUPS
from chuhan.rules.record import RulesError, read_record
from game_positions import GAMES_DIR, RESULT_SCORES, decode

MARGIN = 35
MULTIPV = 4
# Master games: a move is booked when masters chose it in this share of the position's games
# (and at least MIN_MOVE_GAMES times) and it scored no worse than SCORE_MARGIN below the
# position's average result for the mover; the engine's check drops a move CHECK_MARGIN
# centipawns below its best.
MIN_SHARE = 0.1
MIN_MOVE_GAMES = 5
SCORE_MARGIN = 0.1
CHECK_MARGIN = 60
UCI_VARIANTS = {"xiangqi": "xiangqi", "janggi": "janggicasual"}


def starts(variant: str) -> list[Board]:
    """The positions a book of ``variant`` grows from."""
    if variant == "janggi":
        return [make_board("janggi", setup=f"{cho}:{han}") for cho in SETUPS for han in SETUPS]
    return [make_board(variant)]


class Engine:
    def __init__(self, command: str, variant: str) -> None:
        self.proc = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        for line in (
            "uci",
            "setoption name Threads value 1",
            "setoption name Hash value 64",
            f"setoption name UCI_Variant value {UCI_VARIANTS[variant]}",
            f"setoption name MultiPV value {MULTIPV}",
            "isready",
        ):
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

    def scores(self, fen: str, moves: list[str], depth: int) -> tuple[int, dict[str, int]]:
        """The best score at ``depth`` and the score of each of ``moves`` (``searchmoves``)."""
        top = self.candidates(fen, depth)
        if not top:
            return 0, {}
        best, scored = top[0][1], dict(top)
        missing = [move for move in moves if move not in scored]
        for move in missing:  # one search each: MultiPV ranks only the engine's own best
            self.send(f"position fen {fen}")
            self.send(f"go depth {depth} searchmoves {move}")
            for line in self.wait("bestmove"):
                words = line.split()
                if (
                    line.startswith("info")
                    and "cp" in words
                    and "pv" in words
                    and (int(words[words.index("depth") + 1]) == depth)
                ):
                    scored[move] = int(words[words.index("cp") + 1])
        return best, {move: scored[move] for move in moves if move in scored}

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
                kept = [
                    [move, max(1, MARGIN + 5 - (top - cp))]
                    for move, cp in moves
                    if top - cp <= MARGIN and move in board.legal_move_texts()
                ]
                book[key] = kept
                for move, _ in kept:
                    child = board.copy()
                    child.push(str(move))
                    following.append(child)
            frontier = following
    finally:
        engine.close()
    return book


def _game_openings(path: Path, plies: int) -> tuple[tuple[str, ...], float, int] | None:
    """The first ``plies`` moves of one master game, its result (first mover's view) and a
    hash of all its moves (a game filed twice is counted once)."""
    try:
        record = read_record(decode(path.read_bytes()))
    except (RulesError, ValueError):
        return None
    if record.variant != "xiangqi" or record.result not in RESULT_SCORES:
        return None
    if record.start_fen.split()[0] != make_board("xiangqi").board_fen():
        return None
    # Where the players went on past a repetition our rules end, stop at our rules' end.
    moves = record.moves[: record.rules_end.ply] if record.rules_end else record.moves
    whole = hash(tuple(move.code for move in record.moves))
    return tuple(str(move) for move in moves[:plies]), RESULT_SCORES[record.result], whole


Openings = list[tuple[tuple[str, ...], float]]


def read_openings(source: Path, plies: int, workers: int) -> Openings:
    """The first ``plies`` moves and the result of every master game (a game filed twice,
    under each player or event, once)."""
    files = sorted((source / GAMES_DIR / "大師對局").rglob("*.pgn"))
    seen: set[tuple[int, float]] = set()
    games: Openings = []
    with ProcessPoolExecutor(workers) as pool:
        for read in pool.map(functools.partial(_game_openings, plies=plies), files, chunksize=64):
            if read is not None and (read[2], read[1]) not in seen:
                seen.add((read[2], read[1]))
                games.append((read[0], read[1]))
    print(f"{len(files)} files, {len(games)} distinct games")
    return games


def _mirror(move: str) -> str:
    """The move seen in a mirror between the a- and i-files (xiangqi's rules are symmetric)."""
    return "".join("abcdefghi"[8 - "abcdefghi".index(c)] if c in "abcdefghi" else c for c in move)


def from_games(games: Openings, min_games: int) -> dict[str, list[list[object]]]:
    """The master-games book of ``games`` (:func:`read_openings`): see the module's doc."""
    # key -> move -> [games, the mover's total result]
    seen: dict[str, dict[str, list[float]]] = {}
    mirrored = [(tuple(map(_mirror, moves)), result) for moves, result in games]
    for moves, result in games + mirrored:
        board = make_board("xiangqi")
        for move in moves:
            mover_result = result if board.turn == 0 else 1.0 - result
            entry = seen.setdefault(book_key(board), {}).setdefault(move, [0, 0.0])
            entry[0] += 1
            entry[1] += mover_result
            board.push(move)
    book: dict[str, list[list[object]]] = {}
    for key, moves in seen.items():
        total = sum(int(count) for count, _ in moves.values())
        if total < min_games:
            continue
        average = sum(score for _, score in moves.values()) / total
        kept = [
            [move, int(count)]
            for move, (count, score) in moves.items()
            if count >= max(MIN_MOVE_GAMES, MIN_SHARE * total)
            and score / count >= average - SCORE_MARGIN
        ]
        if kept:
            book[key] = sorted(kept, key=lambda entry: (-int(entry[1]), str(entry[0])))
    print(f"{len(book)} positions booked, {sum(len(v) for v in book.values())} moves")
    return book


def checked(book: dict[str, list[list[object]]], depth: int, command: str) -> None:
    """Drop the booked moves Fairy-Stockfish scores more than CHECK_MARGIN below its best."""
    engine = Engine(command, "xiangqi")
    dropped = 0
    sound: dict[str, set[str]] = {}  # key -> the moves the check kept
    try:
        for key in sorted(book):
            placement, side = key.split()
            mirror = "/".join(rank[::-1] for rank in placement.split("/")) + f" {side}"
            if mirror in sound:  # the mirror image was checked: the same verdict, mirrored
                good = {_mirror(move) for move in sound[mirror]}
            else:
                moves = [str(move) for move, _ in book[key]]
                best, scores = engine.scores(f"{placement} {side} - - 0 1", moves, depth)
                good = {move for move, cp in scores.items() if best - cp <= CHECK_MARGIN}
            kept = [entry for entry in book[key] if str(entry[0]) in good]
            sound[key] = {str(move) for move, _ in kept}
            dropped += len(book[key]) - len(kept)
            if kept:
                book[key] = kept
            else:
                del book[key]
    finally:
        engine.close()
    print(f"the check at depth {depth} dropped {dropped} moves")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", choices=list(BOOK_PATHS), default="xiangqi")
    parser.add_argument(
        "--plies",
        type=int,
        default=None,
        help="half-moves from the start (searches 3, master games 24)",
    )
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--command", default="/usr/games/fairy-stockfish")
    parser.add_argument("--out", type=Path, default=None, help="the variant's book by default")
    parser.add_argument(
        "--games",
        type=Path,
        default=None,
        help="a CCPD checkout: book xiangqi from its master games",
    )
    parser.add_argument("--min-games", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2, help="processes reading the games")
    parser.add_argument(
        "--check-depth",
        type=int,
        default=0,
        help="with --games: Fairy-Stockfish's depth to check each move at",
    )
    args = parser.parse_args(argv)
    out = args.out or BOOK_PATHS[args.variant]
    if args.games:
        plies = 24 if args.plies is None else args.plies
        book = from_games(read_openings(args.games, plies, args.workers), args.min_games)
        if args.check_depth:
            checked(book, args.check_depth, args.command)
    else:
        book = build(
            args.variant, 3 if args.plies is None else args.plies, args.depth, args.command
        )
    lines = [
        f"{json.dumps(key)}: {json.dumps(moves, separators=(',', ':'))}"
        for key, moves in sorted(book.items())
    ]
    out.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"{len(book)} positions, {sum(len(v) for v in book.values())} moves -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
