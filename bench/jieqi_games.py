"""Quiet jieqi positions from our own self-play, labelled by the game's result: the data of
``bench/jieqi_tune.py`` (issue 30), written to ``bench/data/jieqi_positions.txt.gz``.

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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from chuhan.engine import choose_move
from chuhan.rules import Move, make_board
from chuhan.rules.jieqi import JieqiBoard

sys.path.insert(0, str(Path(__file__).resolve().parent))
from game_positions import write_positions  # noqa: E402
from strength import adjudicate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "bench" / "data" / "jieqi_positions.txt.gz"


def play_game(index: int, args: argparse.Namespace) -> tuple[float, str, list[str]]:
    """Game ``index``: (first mover's result, how it ended, its sampled quiet positions)."""
    rng = random.Random(f"{args.seed}:{index}")
    board = make_board("jieqi", seed=rng.randrange(2**32))
    for _ in range(args.random_plies):
        codes = [c for c in board.legal_codes() if not board.squares[c % 90]]
        board.push(Move.from_code(rng.choice(codes)))
    quiet: list[str] = []
    last_took = False
    while True:
        outcome = board.outcome()
        if outcome is not None:
            winner, reason = outcome.winner, outcome.reason
            break
        if board.ply >= args.max_plies:
            winner, reason = adjudicate(board), "adjudicated"
            break
        view = JieqiBoard.from_view(board.view(board.turn))  # type: ignore[attr-defined]
        if board.ply >= args.skip_plies and not last_took and not board.is_check():
            pools = [",".join(str(view.pool[side][kind]) for kind in range(1, 8))
                     for side in (0, 1)]
            quiet.append(f"{view.fen()}\t{pools[0]}\t{pools[1]}")
        result = choose_move(view, "advanced", seed=index, nodes=args.nodes)
        last_took = bool(board.squares[result.move.code % 90])
        board.push(result.move)
    chosen = sorted(rng.sample(range(len(quiet)), min(args.per_game, len(quiet))))
    score = 0.5 if winner is None else 1.0 if winner == 0 else 0.0
    return score, reason, [quiet[i] for i in chosen]


def _work(job: tuple[list[int], argparse.Namespace]) -> list[tuple[int, float, str, list[str]]]:
    indices, args = job
    return [(i, *play_game(i, args)) for i in indices]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--nodes", type=int, default=4000, help="our advanced's a move")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--random-plies", type=int, default=2)
    parser.add_argument("--per-game", type=int, default=40)
    parser.add_argument("--skip-plies", type=int, default=8)
    parser.add_argument("--max-plies", type=int, default=240)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)

    started = time.monotonic()
    chunks = [list(range(i, min(i + 10, args.games))) for i in range(0, args.games, 10)]
    lines: list[str] = []
    reasons: dict[str, int] = {}
    tally = [0, 0, 0]  # first mover won, drawn, lost
    with ProcessPoolExecutor(args.workers) as pool:
        for done in pool.map(_work, [(chunk, args) for chunk in chunks]):
            for index, result, reason, positions in done:
                lines.extend(f"{position}\t{result:g}\t{index}" for position in positions)
                reasons[reason] = reasons.get(reason, 0) + 1
                tally[0 if result == 1 else 1 if result == 0.5 else 2] += 1
            print(f"  {done[-1][0] + 1}/{args.games} games, {len(lines)} positions, "
                  f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    header = [
        f"# source: self-play of our advanced level, {args.nodes} nodes a move, each side on "
        "its own view",
        f"# made by bench/jieqi_games.py --games {args.games} --nodes {args.nodes} "
        f"--seed {args.seed} --random-plies {args.random_plies} --per-game {args.per_game} "
        f"--skip-plies {args.skip_plies} --max-plies {args.max_plies}",
        f"# games {args.games} (Red {tally[0]}-{tally[1]}-{tally[2]}), positions {len(lines)}, "
        "ended by " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())),
        "# FEN\tRed's unknown pool\tBlack's unknown pool (kinds 1-7)\tresult (Red: 1 won, "
        "0.5 drawn, 0 lost)\tgame",
    ]
    print(header[2])
    write_positions(args.output, header, lines, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
