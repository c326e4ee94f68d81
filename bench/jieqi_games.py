"""Quiet jieqi positions from our own self-play, labelled by the game's result: the data of
``bench/jieqi_tune.py`` (A1), written to ``bench/data/jieqi_positions.txt.gz``.

    .venv/bin/python bench/jieqi_games.py      # the committed file (about 20 min on one core)
    .venv/bin/python bench/jieqi_games.py --games 10 --output /tmp/q.txt.gz   # a quick look

No engine but ours plays jieqi (Fairy-Stockfish has no hidden pieces), so the games are our
advanced level against itself at a fixed node budget (``--nodes`` a move, the clock off: the
same command writes the same file on any machine), each side searching its own view only
(A3), as in play. Game ``i`` is dealt from the seed ``--seed`` and ``i`` and opens with
``--random-plies`` random non-capturing moves from the same generator. The game ends by our
rules, or at ``--max-plies`` where the side 3 pawns ahead by the full board's material wins
(a draw otherwise).

From each game up to ``--per-game`` positions are drawn at random among its quiet ones from
ply ``--skip-plies`` on: the side to move is not in check and the move that led there took
nothing. A position is what the side to move knew there: its view's FEN (face-down pieces
``x``/``X``) and the counts of each side's unknown pool (kinds 1-7, what a face-down piece of
that side may still be: the pieces taken face down stay in it, Q5).

Line format: ``FEN <TAB> first mover's pool <TAB> second mover's pool <TAB> result <TAB> game``,
pools as seven comma-separated counts, the result from the first mover's (Red's) view (1 won,
0.5 drawn, 0 lost); ``#`` header lines name the command and the counts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from chuhan.engine import choose_move
from chuhan.rules import make_board
from chuhan.rules.jieqi import JieqiBoard

sys.path.insert(0, str(Path(__file__).resolve().parent))
import game_positions as positions
from strength import adjudicate

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "bench" / "data" / "jieqi_positions.txt.gz"


def play_game(index: int, args: argparse.Namespace) -> tuple[float, str, list[str]]:
    """Game ``index``: (first mover's result, how it ended, its sampled quiet positions)."""
    rng = random.Random(f"{args.seed}:{index}")
    board = make_board("jieqi", seed=rng.randrange(2**32))
    positions.random_opening(board, rng, args.random_plies)
    quiet: list[str] = []
    last_took = False
    while (end := positions.game_end(board, args.max_plies, adjudicate)) is None:
        view = JieqiBoard.from_view(board.view(board.turn))  # type: ignore[attr-defined]
        if board.ply >= args.skip_plies and not last_took and not board.is_check():
            pools = [
                ",".join(str(view.pool[side][kind]) for kind in range(1, 8)) for side in (0, 1)
            ]
            quiet.append(f"{view.fen()}\t{pools[0]}\t{pools[1]}")
        result = choose_move(view, "advanced", seed=index, nodes=args.nodes)
        last_took = bool(board.squares[result.move.code % 90])
        board.push(result.move)
    winner, reason = end
    chosen = sorted(rng.sample(range(len(quiet)), min(args.per_game, len(quiet))))
    score = 0.5 if winner is None else 1.0 if winner == 0 else 0.0
    return score, reason, [quiet[i] for i in chosen]


def _work(job: tuple[list[int], argparse.Namespace]) -> list[positions.GameResult]:
    indices, args = job
    return [(i, *play_game(i, args)) for i in indices]


def main(argv: list[str] | None = None) -> int:
    parser = positions.self_play_parser(
        __doc__.split("\n\n")[0],
        OUTPUT,
        4000,
        "our advanced's a move",
        random_plies=2,
        skip_plies=8,
        max_plies=240,
        workers=1,
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    lines, reasons, tally = positions.play_games(_work, args, 10, started)
    header = [
        f"# source: self-play of our advanced level, {args.nodes} nodes a move, each side on "
        "its own view",
        positions.made_by("jieqi_games.py", args),
        f"# games {args.games} (Red {tally[0]}-{tally[1]}-{tally[2]}), positions {len(lines)}, "
        + positions.ended_by(reasons),
        "# FEN\tRed's unknown pool\tBlack's unknown pool (kinds 1-7)\tresult (Red: 1 won, "
        "0.5 drawn, 0 lost)\tgame",
    ]
    print(header[2])
    positions.write_positions(args.output, header, lines, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
