"""Quiet janggi positions from Fairy-Stockfish self-play, labelled by the game's result: the data
of ``bench/tune.py --variant janggi`` (A1), written to ``bench/data/janggi_positions.txt.gz``.

    .venv/bin/python bench/janggi_games.py      # the committed file (about 20 min, 2 cores)
    .venv/bin/python bench/janggi_games.py --games 20 --output /tmp/j.txt.gz   # a quick look

No public collection of janggi games is at hand, so the games are Fairy-Stockfish (Debian's
native ``/usr/games/fairy-stockfish``, ``--fs-command``) against itself at a fixed node budget
(``--nodes`` a move, ``Threads 1``, full strength, its hash cleared before each game), so that
the same command writes the same file on any machine with the same Fairy-Stockfish. Game ``i``
starts from a setup pair (J3) and ``--random-plies`` random non-capturing moves, both drawn
from a generator seeded by ``--seed`` and ``i``. Fairy-Stockfish plays its ``janggicasual``
(our default bikjang-off rules, J7: the same moves); the game is driven by our rules, which
decide its end: mate, or points (J8) after two passes, a third repetition or at
``--max-plies`` (as at J9's 400th half-move, earlier to keep the run short). Fairy-Stockfish
scores a repetition or two passes as a draw and may walk into them; the label is still what
our rules say, the side ahead on points winning (janggi has no drawn result).

From each game up to ``--per-game`` positions are drawn at random (same seed) among its
*quiet* positions from ply ``--skip-plies`` on: the side to move is not in check, the move that
led there took nothing, and no capture is on that wins material at once (taking a piece worth
as much as the taker by J8's points, or an undefended one), judged without the evaluation.

The output has the format of ``bench/data/xiangqi_positions.txt.gz`` (``game_positions.py``):
``FEN <TAB> result <TAB> game``, the result from the first mover's (Cho's) view (1 won,
0 lost), ``#`` header lines naming the engine, the command and the counts.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

from chuhan.rules import Board, Move, make_board
from chuhan.rules.board import PASS_CODE
from chuhan.rules.janggi import PIECE_POINTS, SETUPS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from game_positions import (
    GameResult,
    ended_by,
    game_end,
    made_by,
    play_games,
    random_opening,
    self_play_parser,
    write_positions,
)
from strength import FS_COMMAND, FairyStockfish

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "bench" / "data" / "janggi_positions.txt.gz"
# J8's points judge "a capture that wins at once"; the general cannot be taken.
_VALUE = tuple(10_000 if kind == 1 else points for kind, points in enumerate(PIECE_POINTS))


def is_quiet(board: Board, last_took: bool) -> bool:
    """No check, no capture just made, no capture on that wins material outright."""
    if last_took or board.is_check():
        return False
    squares = board.squares
    enemy = 1 - board.turn
    for code in board.legal_codes():
        if code == PASS_CODE:
            continue
        fr, to = divmod(code, 90)
        victim = squares[to]
        if not victim:
            continue
        if _VALUE[abs(victim)] >= _VALUE[abs(squares[fr])] or not board.attacked(to, enemy):
            return False
    return True


def ahead_on_points(board: Board) -> int:
    """Who leads on points (J8, Han's 1.5 counted): janggi has no drawn result."""
    cho, han = board.points()  # type: ignore[attr-defined]
    return 0 if cho > han else 1


def play_game(
    fs: FairyStockfish, index: int, args: argparse.Namespace
) -> tuple[float, str, list[str]]:
    """Game ``index``: its result for Cho, how it ended and its sampled quiet positions."""
    rng = random.Random(args.seed * 1_000_003 + index)
    setup = f"{rng.choice(SETUPS)}:{rng.choice(SETUPS)}"
    board = make_board("janggi", setup=setup)
    random_opening(board, rng, args.random_plies)
    start_fen = board.fen()
    moves: list[str] = []
    fs.send("ucinewgame")
    quiet: list[str] = []
    took = False
    while (end := game_end(board, args.max_plies, ahead_on_points, "max_plies")) is None:
        if board.ply >= args.skip_plies and is_quiet(board, took):
            quiet.append(board.fen())
        text = fs.best_move(start_fen, moves, 0.0, args.nodes)
        move = Move.parse(text)
        code = PASS_CODE if move.from_point == move.to_point else move.code
        took = code != PASS_CODE and bool(board.squares[code % 90])
        board.push(Move.from_code(code))
        moves.append(text)
    winner, reason = end
    chosen = sorted(rng.sample(range(len(quiet)), min(args.per_game, len(quiet))))
    result = 1.0 if winner == 0 else 0.0
    return result, reason, [quiet[i] for i in chosen]


def _work(job: tuple[list[int], argparse.Namespace]) -> list[GameResult]:
    indices, args = job
    fs = FairyStockfish(args.fs_command, "janggi", 20)
    try:
        return [(i, *play_game(fs, i, args)) for i in indices]
    finally:
        fs.close()


def fs_version(command: str) -> str:
    try:
        done = subprocess.run(
            command.split(), input="quit\n", capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.splitlines()[0].strip() if done.stdout else "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = self_play_parser(
        __doc__.split("\n\n")[0],
        OUTPUT,
        1000,
        "Fairy-Stockfish's a move",
        random_plies=4,
        skip_plies=12,
        max_plies=300,
        workers=2,
    )
    parser.add_argument("--fs-command", default=FS_COMMAND)
    args = parser.parse_args(argv)
    started = time.monotonic()
    lines, reasons, tally = play_games(_work, args, 20, started)
    cho_wins = tally[0]
    header = [
        f"# source: self-play of {fs_version(args.fs_command)} (janggicasual, Threads 1, "
        f"go nodes {args.nodes}), driven and judged by our janggi rules",
        made_by("janggi_games.py", args),
        f"# games {args.games} (Cho won {cho_wins}), positions {len(lines)}, " + ended_by(reasons),
        "# FEN\tresult (first mover: 1 won, 0 lost)\tgame",
    ]
    print(header[2])
    write_positions(args.output, header, lines, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
