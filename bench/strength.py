"""Strength of the AI levels (A1, A2): level-vs-level matches and move latency per level.

    .venv/bin/python bench/strength.py                       # 20 games a pair, every variant
    .venv/bin/python bench/strength.py --quick               # 4 games a pair, xiangqi only
    .venv/bin/python bench/strength.py --variants xiangqi --games 20 --workers 2
    .venv/bin/python bench/strength.py --fs --fs-skills 0,2,4 --fs-games 6

By default every level searches to a node budget with the clock off (``--budget nodes``;
the advanced level gets ``--advanced-nodes``, about its 2 s on an idle 2-core machine), so that
the scores do not depend on what else the machine is running; ``--budget time`` plays the
levels exactly as the server does. Latency is reported as the CPU time of each decision (the
search is single-threaded, so this is its wall time on an idle core) and as wall time.

Games start from varied openings (a fixed first move per game index, then seeded random
plies) and colours alternate. A game that reaches ``--max-plies`` is adjudicated by material
(the side 3 pawns ahead wins, otherwise a draw) and counted as such. With ``--fs`` the
advanced level also plays Fairy-Stockfish (npm ``fairy-stockfish-nnue.wasm`` under Node.js
through ``/work/shared/tools/fsuci.js``, installed into ``bench/.fs``) at several
``Skill Level`` settings, as a reference. Figures are scores (wins + draws / 2) as a share of
the games, and latencies in seconds (median, 95th percentile) measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from chuhan.engine import LEVELS, SearchResult, choose_move
from chuhan.engine.evaluation import JANGGI_EVALUATOR, XIANGQI_EVALUATOR
from chuhan.engine.uci import uci_move_text
from chuhan.rules import Board, Move, make_board

ROOT = Path(__file__).resolve().parent.parent
FS_DIR = ROOT / "bench" / ".fs"
FS_BRIDGE = Path(__file__).resolve().parents[2] / "shared" / "tools" / "fsuci.js"
PAIRS = (("advanced", "intermediate"), ("intermediate", "beginner"), ("advanced", "beginner"))
OPENING_RANDOM_PLIES = 2
ADJUDICATE_MARGIN = 300


@dataclass
class GameRecord:
    white: str
    black: str
    winner: int | None  # 0 first mover, 1 second mover, None draw
    reason: str
    plies: int
    latencies: dict[str, list[float]] = field(default_factory=dict)
    wall: dict[str, list[float]] = field(default_factory=dict)
    depths: dict[str, list[int]] = field(default_factory=dict)


def new_board(variant: str, game: int) -> Board:
    """The starting board of game ``game`` (janggi: a setup per game; jieqi: a seeded deal)."""
    if variant == "janggi":
        setups = ("HEHE", "EHEH", "HEEH", "EHHE")
        return make_board("janggi", setup=f"{setups[game % 4]}:{setups[(game // 4) % 4]}")
    if variant == "jieqi":
        return make_board("jieqi", seed=1000 + game // 2)
    return make_board(variant)


def play_opening(board: Board, game: int) -> None:
    """A few seeded random plies, the same for both games of a colour-swapped pair."""
    rng = random.Random(game // 2)
    for _ in range(OPENING_RANDOM_PLIES):
        codes = [c for c in board._legal_codes() if board.squares[c % 90] == 0]
        code = rng.choice(codes)
        _push(board, code)


def _push(board: Board, code: int) -> None:
    board.push(Move.from_code(code))


def ai_view(board: Board) -> Board:
    """What the side to move may know (jieqi: its view, A3); the board itself otherwise."""
    if board.variant == "jieqi":
        from chuhan.rules.jieqi import JieqiBoard

        return JieqiBoard.from_view(board.view(board.turn))  # type: ignore[attr-defined]
    return board


def adjudicate(board: Board) -> int | None:
    if board.variant == "janggi":
        cho, han = board.points()  # type: ignore[attr-defined]
        return 0 if cho > han else 1
    score = (JANGGI_EVALUATOR if board.variant == "janggi" else XIANGQI_EVALUATOR).full(
        board.squares
    )
    if abs(score) < ADJUDICATE_MARGIN:
        return None
    return 0 if score > 0 else 1


def decide(board: Board, level: str, game: int, budget: Budget) -> SearchResult:
    """The level's move: to a node budget with the clock off, or as the server plays it."""
    if budget.nodes_mode:
        nodes = budget.advanced_nodes if level == "advanced" else LEVELS[level].nodes
        return choose_move(ai_view(board), level, seed=game, nodes=nodes)
    movetime = budget.movetime if level == "advanced" else None
    return choose_move(ai_view(board), level, seed=game, movetime=movetime)


@dataclass(frozen=True)
class Budget:
    nodes_mode: bool
    advanced_nodes: int
    movetime: float | None


def play_game(args: tuple[str, str, str, int, int, Budget]) -> GameRecord:
    variant, white, black, game, max_plies, budget = args
    board = new_board(variant, game)
    play_opening(board, game)
    record = GameRecord(white, black, None, "", 0)
    levels = (white, black)
    while True:
        outcome = board.outcome()
        if outcome is not None:
            record.winner, record.reason = outcome.winner, outcome.reason
            break
        if board.ply >= max_plies:
            record.winner, record.reason = adjudicate(board), "adjudicated"
            break
        level = levels[board.turn]
        started, cpu_started = time.perf_counter(), time.process_time()
        result = decide(board, level, game, budget)
        record.latencies.setdefault(level, []).append(time.process_time() - cpu_started)
        record.wall.setdefault(level, []).append(time.perf_counter() - started)
        record.depths.setdefault(level, []).append(result.depth)
        board.push(result.move)
    record.plies = board.ply
    return record


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_matches(variant: str, games: int, workers: int, max_plies: int, budget: Budget) -> None:
    jobs = []
    for first, second in PAIRS:
        for game in range(games):
            white, black = (first, second) if game % 2 == 0 else (second, first)
            jobs.append((variant, white, black, game, max_plies, budget))
    started = time.monotonic()
    records = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for record in pool.map(play_game, jobs):
            records.append(record)
            print(f"  game {len(records)}/{len(jobs)}: {record.white} - {record.black}: "
                  f"{record.winner} ({record.reason}, {record.plies} plies)",
                  file=sys.stderr, flush=True)
    print(f"\n== {variant}: {games} games a pair, {time.monotonic() - started:.0f} s ==")
    print(f"{'pair':<28}{'score':>8}{'W-D-L':>12}{'plies':>8}  reasons")
    for first, second in PAIRS:
        wins = draws = losses = 0
        plies: list[int] = []
        reasons: dict[str, int] = {}
        for r in records:
            if {r.white, r.black} != {first, second}:
                continue
            first_side = 0 if r.white == first else 1
            if r.winner is None:
                draws += 1
            elif r.winner == first_side:
                wins += 1
            else:
                losses += 1
            plies.append(r.plies)
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
        total = wins + draws + losses
        score = (wins + draws / 2) / total if total else 0.0
        reason_text = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
        print(f"{first + ' vs ' + second:<28}{score:>7.0%}{f'{wins}-{draws}-{losses}':>12}"
              f"{statistics.median(plies):>8.0f}  {reason_text}")
    print(f"\n{'level':<14}{'moves':>7}{'cpu median':>12}{'cpu p95':>9}{'cpu max':>9}"
          f"{'wall median':>13}{'wall p95':>10}{'median depth':>14}")
    for level in ("beginner", "intermediate", "advanced"):
        times = [t for r in records for t in r.latencies.get(level, [])]
        wall = [t for r in records for t in r.wall.get(level, [])]
        depths = [d for r in records for d in r.depths.get(level, [])]
        if times:
            print(f"{level:<14}{len(times):>7}{statistics.median(times):>12.3f}"
                  f"{percentile(times, 0.95):>9.3f}{max(times):>9.3f}"
                  f"{statistics.median(wall):>13.3f}{percentile(wall, 0.95):>10.3f}"
                  f"{statistics.median(depths):>14.0f}")


# ---------------------------------------------------------------------- Fairy-Stockfish


class FairyStockfish:
    """Fairy-Stockfish (WebAssembly, Node.js) over UCI through the shared bridge."""

    def __init__(self, variant: str) -> None:
        if not (FS_DIR / "node_modules" / "fairy-stockfish-nnue.wasm").exists():
            subprocess.run(
                ["npm", "install", "--prefix", str(FS_DIR), "fairy-stockfish-nnue.wasm"],
                check=True,
            )
        env = dict(os.environ, FS_WASM_DIR=str(FS_DIR))
        self.proc = subprocess.Popen(
            ["node", str(FS_BRIDGE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, env=env, bufsize=1,
        )
        self.send("uci")
        self.wait("uciok")
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, prefix: str) -> str:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("Fairy-Stockfish stopped")
            if line.startswith(prefix):
                return line.strip()

    def best_move(self, fen: str, moves: list[str], skill: int, nodes: int) -> str:
        self.send(f"setoption name Skill Level value {skill}")
        self.send(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))
        self.send(f"go nodes {nodes}")
        return self.wait("bestmove").split()[1]

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=20)


def play_fs_game(args: tuple[str, int, int, int, int, Budget]) -> tuple[int | None, int, str]:
    """One game advanced vs Fairy-Stockfish; returns (winner side, our side, reason)."""
    variant, skill, game, max_plies, fs_nodes, budget = args
    board = new_board(variant, game)
    play_opening(board, game)
    start_fen = board.fen()
    moves: list[str] = []
    ours = game % 2
    fs = FairyStockfish(variant)
    try:
        while True:
            outcome = board.outcome()
            if outcome is not None:
                return outcome.winner, ours, outcome.reason
            if board.ply >= max_plies + OPENING_RANDOM_PLIES:
                return adjudicate(board), ours, "adjudicated"
            if board.turn == ours:
                code = decide(board, "advanced", game, budget).move.code
                text = uci_move_text(board, code)
            else:
                text = fs.best_move(start_fen, moves, skill, fs_nodes)
                move = Move.parse(text)
                code = move.code
                if move.from_point == move.to_point:
                    code = Move.parse("pass").code
            board.push(Move.from_code(code))
            moves.append(text)
    finally:
        fs.close()


def run_fs(variant: str, skills: list[int], games: int, workers: int, max_plies: int,
           fs_nodes: int, budget: Budget) -> None:
    print(f"\n== {variant}: advanced vs Fairy-Stockfish ({fs_nodes} nodes a move), {games} "
          "games per skill ==")
    jobs = [(variant, s, g, max_plies, fs_nodes, budget) for s in skills for g in range(games)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(play_fs_game, jobs))
    for skill in skills:
        chunk = results[skills.index(skill) * games:(skills.index(skill) + 1) * games]
        wins = sum(1 for w, ours, _ in chunk if w == ours)
        draws = sum(1 for w, _, _ in chunk if w is None)
        losses = len(chunk) - wins - draws
        score = (wins + draws / 2) / len(chunk)
        print(f"Skill Level {skill:>2}: advanced scores {score:.0%} ({wins}-{draws}-{losses})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="xiangqi,janggi,jieqi")
    parser.add_argument("--games", type=int, default=20, help="games per pair of levels")
    parser.add_argument("--quick", action="store_true", help="4 games a pair, xiangqi only")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--budget", choices=["nodes", "time"], default="nodes")
    parser.add_argument("--advanced-nodes", type=int, default=60_000,
                        help="advanced's node budget with --budget nodes")
    parser.add_argument("--movetime", type=float, default=None,
                        help="seconds per advanced move with --budget time (default: 2)")
    parser.add_argument("--fs", action="store_true", help="also play Fairy-Stockfish")
    parser.add_argument("--fs-only", action="store_true")
    parser.add_argument("--fs-skills", default="0,2,4")
    parser.add_argument("--fs-games", type=int, default=6)
    parser.add_argument("--fs-nodes", type=int, default=20_000,
                        help="Fairy-Stockfish's node budget per move")
    args = parser.parse_args(argv)
    variants = ["xiangqi"] if args.quick else args.variants.split(",")
    games = 4 if args.quick else args.games
    budget = Budget(args.budget == "nodes", args.advanced_nodes, args.movetime)
    for variant in variants:
        if not args.fs_only:
            run_matches(variant, games, args.workers, args.max_plies, budget)
            sys.stdout.flush()
        if (args.fs or args.fs_only) and variant in ("xiangqi", "janggi"):
            skills = [int(s) for s in args.fs_skills.split(",")]
            run_fs(variant, skills, args.fs_games, args.workers, args.max_plies, args.fs_nodes,
                   budget)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
