"""Quiet positions from real xiangqi games, labelled by the game's result: the data of
``bench/tune.py`` (A1), written to ``bench/data/xiangqi_positions.txt.gz``.

    git clone https://github.com/Yvonne761/Chinese-Chess-Practical-Dataset /tmp/ccpd
    git -C /tmp/ccpd checkout 368a47a947773dd8692c026e286dd19b6277b993
    .venv/bin/python bench/game_positions.py /tmp/ccpd

The source is the Chinese Chess Practical Dataset (CCPD) by Yu-Han Tseng and Bo-Nian Chen,
licensed CC BY 4.0: some 54 000 master games (``Dataset/對局``), one xqbase-style PGN per game
in Big5 with Chinese moves and a ``[Result]``. Every game is read with the project's record
importer (``chuhan.rules.record``); the same game filed under both players and its event is
kept once (games are compared by their moves); games without a result, shorter than
``--min-plies`` or that the importer refuses are skipped and counted.

From each game up to ``--per-game`` positions are drawn at random (seeded by ``--seed`` and
the game's place in the sorted file list, so the output is the same on every machine) among
its *quiet* positions after the opening (ply >= ``--skip-plies``): the side to move is not in
check, the move that led there took nothing, and no capture is on that wins material at once
(taking a bigger piece, or an undefended one). Quietness is judged without the evaluation, so
the data does not depend on the engine being tuned.

Each output line is ``FEN <TAB> result <TAB> game``: the result from the first mover's (Red's)
view (1 won, 0.5 drawn, 0 lost) and the game's number, so a tuner can split by game rather
than by position. The header lines (``#``) name the source, its commit and the counts.
"""

from __future__ import annotations

import argparse
import gzip
import random
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from chuhan.rules import Board, Move, make_board
from chuhan.rules.board import PASS_CODE
from chuhan.rules.record import RulesError, decode_record, read_record

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "bench" / "data" / "xiangqi_positions.txt.gz"
SOURCE_URL = "https://github.com/Yvonne761/Chinese-Chess-Practical-Dataset"
SOURCE_LICENCE = "CC BY 4.0 (Yu-Han Tseng and Bo-Nian Chen, Chinese Chess Practical Dataset)"
GAMES_DIR = "Dataset/對局"
RESULT_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
# Rough values to judge "a capture that wins at once"; not the engine's (see module doc).
_VALUE = (0, 10_000, 2, 2, 4, 9, 4.5, 1)  # by piece kind: king advisor elephant horse ...


def decode(data: bytes) -> str:
    """The CCPD files are Big5; other xqbase files UTF-8 or GB18030 (``decode_record``)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("big5")
    except UnicodeDecodeError:
        return decode_record(data)


def is_quiet(board: Board, last_took: bool) -> bool:
    """No check, no capture just made, no capture on that wins material outright."""
    if last_took or board.is_check():
        return False
    squares = board.squares
    enemy = 1 - board.turn
    for move in board.legal_moves:
        victim = squares[move.to_point]
        if not victim:
            continue
        gain = _VALUE[abs(victim)]
        risk = _VALUE[abs(squares[move.from_point])]
        if gain >= risk or not board.attacked(move.to_point, enemy):
            return False
    return True


def game_positions(
    path: Path, index: int, seed: int, skip_plies: int, per_game: int, min_plies: int
) -> tuple[str, tuple[int, ...], list[str]] | str:
    """The moves (for de-duplication) and the sampled positions of one game file, or why it
    was skipped."""
    try:
        record = read_record(decode(path.read_bytes()))
    except (RulesError, ValueError) as error:
        return f"unreadable: {type(error).__name__}"
    if record.variant != "xiangqi" or record.result not in RESULT_SCORES:
        return "no result"
    if len(record.moves) < min_plies:
        return "short"
    board = make_board("xiangqi", record.start_fen)
    quiet: list[str] = []
    took = False
    # Where the players went on past a repetition our rules end, stop at our rules' end.
    moves = record.moves[: record.rules_end.ply] if record.rules_end else record.moves
    for ply, move in enumerate(moves):
        if ply >= skip_plies and is_quiet(board, took):
            quiet.append(board.fen())
        took = bool(board.squares[move.to_point])
        board.push(move)
    rng = random.Random(seed * 1_000_003 + index)
    chosen = sorted(rng.sample(range(len(quiet)), min(per_game, len(quiet))))
    result = RESULT_SCORES[record.result]
    codes = tuple(move.code for move in record.moves)
    return record.start_fen, codes, [f"{quiet[i]}\t{result:g}" for i in chosen]


def _work(args: tuple[str, int, int, int, int, int]) -> tuple[int, object]:
    path, index, seed, skip, per_game, min_plies = args
    return index, game_positions(Path(path), index, seed, skip, per_game, min_plies)


def source_commit(source: Path) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a checkout of the CCPD repository")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--per-game", type=int, default=10)
    parser.add_argument("--skip-plies", type=int, default=16)
    parser.add_argument("--min-plies", type=int, default=30)
    parser.add_argument(
        "--every", type=int, default=5, help="read every Nth file of the sorted list (1: all)"
    )
    parser.add_argument("--limit", type=int, default=None, help="read only the first N files")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)

    files = sorted((args.source / GAMES_DIR).rglob("*.pgn"))[:: args.every]
    if args.limit:
        files = files[: args.limit]
    if not files:
        print(f"no games under {args.source / GAMES_DIR}", file=sys.stderr)
        return 1
    started = time.monotonic()
    jobs = [
        (str(path), i, args.seed, args.skip_plies, args.per_game, args.min_plies)
        for i, path in enumerate(files)
    ]
    seen: set[tuple[str, tuple[int, ...]]] = set()
    skipped: dict[str, int] = {}
    lines: list[str] = []
    games = 0
    with ProcessPoolExecutor(args.workers) as pool:
        # Results come back in file order, so de-duplication keeps the first filed copy.
        for _, outcome in pool.map(_work, jobs, chunksize=64):
            if isinstance(outcome, str):
                skipped[outcome] = skipped.get(outcome, 0) + 1
                continue
            start, codes, positions = outcome  # type: ignore[misc]
            if (start, codes) in seen:
                skipped["duplicate"] = skipped.get("duplicate", 0) + 1
                continue
            seen.add((start, codes))
            lines.extend(f"{line}\t{games}" for line in positions)
            games += 1
    header = [
        f"# source: {SOURCE_URL} commit {source_commit(args.source)} ({GAMES_DIR})",
        f"# licence: {SOURCE_LICENCE}",
        f"# made by bench/game_positions.py --seed {args.seed} --per-game {args.per_game} "
        f"--skip-plies {args.skip_plies} --min-plies {args.min_plies} --every {args.every}",
        f"# files {len(files)}, games {games}, positions {len(lines)}, skipped "
        + ", ".join(f"{k} {v}" for k, v in sorted(skipped.items())),
        "# FEN\tresult (first mover: 1 won, 0.5 drawn, 0 lost)\tgame",
    ]
    print("\n".join(header[3:4]))
    write_positions(args.output, header, lines, started)
    return 0


def self_play_parser(
    description: str,
    output: Path,
    nodes: int,
    nodes_help: str,
    random_plies: int,
    skip_plies: int,
    max_plies: int,
    workers: int,
) -> argparse.ArgumentParser:
    """The options of a self-play positions script (``janggi_games.py``, ``jieqi_games.py``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--output", type=Path, default=output)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--nodes", type=int, default=nodes, help=nodes_help)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--random-plies", type=int, default=random_plies)
    parser.add_argument("--per-game", type=int, default=40)
    parser.add_argument("--skip-plies", type=int, default=skip_plies)
    parser.add_argument("--max-plies", type=int, default=max_plies)
    parser.add_argument("--workers", type=int, default=workers)
    return parser


GameResult = tuple[int, float, str, list[str]]  # game, first mover's result, end, positions


def random_opening(board: Board, rng: random.Random, plies: int) -> None:
    """``plies`` random moves that take nothing (and no pass) from ``rng``."""
    for _ in range(plies):
        codes = [c for c in board.legal_codes() if c != PASS_CODE and not board.squares[c % 90]]
        board.push(Move.from_code(rng.choice(codes)))


def game_end(
    board: Board,
    max_plies: int,
    at_limit: Callable[[Board], int | None],
    limit_reason: str = "adjudicated",
) -> tuple[int | None, str] | None:
    """(winner, reason) once the game is over by the rules or at ``max_plies`` (the winner
    by ``at_limit``, then ``limit_reason``); None while it goes on."""
    outcome = board.outcome()
    if outcome is not None:
        return outcome.winner, outcome.reason
    if board.ply >= max_plies:
        return at_limit(board), limit_reason
    return None


def play_games(
    work: Callable[[tuple[list[int], argparse.Namespace]], list[GameResult]],
    args: argparse.Namespace,
    chunk: int,
    started: float,
) -> tuple[list[str], dict[str, int], list[int]]:
    """Play ``args.games`` games in chunks of ``chunk`` on ``args.workers`` processes:
    (the lines ``position <TAB> result <TAB> game``, the count of each way a game ended, the
    first mover's wins, draws and losses)."""
    chunks = [list(range(i, min(i + chunk, args.games))) for i in range(0, args.games, chunk)]
    lines: list[str] = []
    reasons: dict[str, int] = {}
    tally = [0, 0, 0]
    with ProcessPoolExecutor(args.workers) as pool:
        for done in pool.map(work, [(c, args) for c in chunks]):
            for index, result, reason, positions in done:
                lines.extend(f"{position}\t{result:g}\t{index}" for position in positions)
                reasons[reason] = reasons.get(reason, 0) + 1
                tally[0 if result == 1 else 1 if result == 0.5 else 2] += 1
            print(
                f"  {done[-1][0] + 1}/{args.games} games, {len(lines)} positions, "
                f"{time.monotonic() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    return lines, reasons, tally


def made_by(script: str, args: argparse.Namespace) -> str:
    """The header line naming the command a self-play positions file was made with."""
    return (
        f"# made by bench/{script} --games {args.games} --nodes {args.nodes} "
        f"--seed {args.seed} --random-plies {args.random_plies} --per-game {args.per_game} "
        f"--skip-plies {args.skip_plies} --max-plies {args.max_plies}"
    )


def ended_by(reasons: dict[str, int]) -> str:
    return "ended by " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))


def write_positions(output: Path, header: list[str], lines: list[str], started: float) -> None:
    """Write a positions file (``header`` lines, then ``lines``) gzipped, the same bytes each
    run (mtime 0), and say where and how long it took since ``started``."""
    output.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(output, "wb", mtime=0) as out:
        out.write(("\n".join(header + lines) + "\n").encode())
    print(f"wrote {output} ({output.stat().st_size} bytes) in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
