"""Strength of the AI levels (A1, A2): level-vs-level matches and move latency per level.

    .venv/bin/python bench/strength.py                       # 20 games a pair, every variant
    .venv/bin/python bench/strength.py --quick               # 4 games a pair, xiangqi only
    .venv/bin/python bench/strength.py --variants xiangqi --games 20 --workers 2
    .venv/bin/python bench/strength.py --fs-only --variants xiangqi --fs-skills 5,10 \
        --fs-games 20 --fs-movetime 2

By default every level searches to a node budget with the clock off (``--budget nodes``;
the advanced level gets ``--advanced-nodes``, 60,000 by default: a small part of the about
900,000 nodes the compiled advanced searches in its 2 s on an idle 2-core machine since
2026-12-05, kept so that level-vs-level runs keep their length), so that the scores do not
depend on what else the machine is running; ``--budget time`` plays the levels exactly as the
server does. Latency is reported as the CPU time of each decision (the
search is single-threaded, so this is its wall time on an idle core) and as wall time.

Games start from varied openings (a fixed first move per game index, then seeded random
plies) and colours alternate. A game that reaches ``--max-plies`` is adjudicated by material
(the side 3 pawns ahead wins, otherwise a draw) and counted as such.

With ``--fs`` (or ``--fs-only``) a level (``--fs-level``, default advanced) also plays
Fairy-Stockfish at EQUAL TIME: both get ``--fs-movetime`` seconds a move (``go movetime``
for Fairy-Stockfish, the level's time budget for ours), one game at a time by default so each
engine has a core while it thinks. The reference is Debian's native ``fairy-stockfish``
(``--fs-command``; any UCI command works, e.g. ``node /path/to/fsuci.js`` for the npm
WebAssembly build), with ``Threads 1``, ``Hash 64`` and the ``Skill Level`` of each row.
Janggi is played as Fairy-Stockfish's ``janggicasual`` (our default bikjang-off rule, J7:
the same moves and perft). Its game ends are not ours: it counts no points, so it scores a
repetition or two passes as a draw where ours decide them by points (J9), and walks into
them; a janggi row therefore prints a second score, those games counted as draws.
``--fs-record FILE`` appends every game (its start FEN after the opening plies, the moves in
UCI text, the result) to FILE as a JSON line, so the losses can be replayed and studied.
Each row prints the score, the Elo difference it implies and the half-width of its 95 %
interval; the ladder line names the highest Skill Level scored at least 50 % against.
Fairy-Stockfish (like Stockfish) plays Skill Level N below 20 from a ``MultiPV 4`` search,
picking its move, at random and weighted towards the best, when iteration N + 1 completes:
a Skill row is mostly a depth-(N + 1) opponent with noise, so the native and the WebAssembly
builds play alike at a move time both reach that depth in.
With ``--baseline SRC`` (the ``src`` directory of another checkout, e.g. a ``git worktree``
of an older commit) the level instead plays that checkout's same level, pure Python, at
``--fs-movetime`` seconds a move each, ``--versus-games`` games per variant: a before/after
match at equal time (jieqi included: each engine gets only its own side's view);
``--baseline-native DIR`` runs the baseline on its own mypyc build instead (build it with
``CHUHAN_NATIVE_DIR=DIR PYTHONPATH=SRC python -m chuhan.native build``); ``--versus-first N``
starts at game N, so a later run adds new deals to an earlier one's; ``--versus-nodes N`` gives
both N nodes a move with the clock off instead of the time (the same moves on any machine at
any load: a screen of an evaluation change, not of its speed).
Measured figures: bench/RESULTS.md, under "bench/strength.py".
Figures are scores (wins + draws / 2) as a share of the games, and latencies in seconds
(median, 95th percentile) measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shlex
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
        codes = [c for c in board.legal_codes() if board.squares[c % 90] == 0]
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
            print(
                f"  game {len(records)}/{len(jobs)}: {record.white} - {record.black}: "
                f"{record.winner} ({record.reason}, {record.plies} plies)",
                file=sys.stderr,
                flush=True,
            )
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
        print(
            f"{first + ' vs ' + second:<28}{score:>7.0%}{f'{wins}-{draws}-{losses}':>12}"
            f"{statistics.median(plies):>8.0f}  {reason_text}"
        )
    print(
        f"\n{'level':<14}{'moves':>7}{'cpu median':>12}{'cpu p95':>9}{'cpu max':>9}"
        f"{'wall median':>13}{'wall p95':>10}{'median depth':>14}"
    )
    for level in ("beginner", "intermediate", "advanced"):
        times = [t for r in records for t in r.latencies.get(level, [])]
        wall = [t for r in records for t in r.wall.get(level, [])]
        depths = [d for r in records for d in r.depths.get(level, [])]
        if times:
            print(
                f"{level:<14}{len(times):>7}{statistics.median(times):>12.3f}"
                f"{percentile(times, 0.95):>9.3f}{max(times):>9.3f}"
                f"{statistics.median(wall):>13.3f}{percentile(wall, 0.95):>10.3f}"
                f"{statistics.median(depths):>14.0f}"
            )


# ---------------------------------------------------------------------- Fairy-Stockfish

FS_COMMAND = "/usr/games/fairy-stockfish"
# Our janggi (bikjang off by default, J7) is Fairy-Stockfish's `janggicasual`: its `janggi`
# makes facing generals a forced separation or a game-ending pass, which is not our rule.
FS_VARIANTS = {"xiangqi": "xiangqi", "janggi": "janggicasual"}
# Endings our rules decide by points (J9) that `janggicasual` scores as draws: it counts no
# material (its `janggimodern` does, but forbids repeating a move, which ours allow). Moves
# and perft agree with `janggicasual`; these endings do not.
FS_UNSCORED_ENDINGS = {"janggi": ("repetition", "double_pass", "move_limit")}


class FairyStockfish:
    """Fairy-Stockfish over UCI: Debian's native ``fairy-stockfish`` by default, or any
    command that speaks the same UCI (e.g. ``node path/to/fsuci.js`` for the npm build)."""

    def __init__(self, command: str, variant: str, skill: int) -> None:
        self.proc = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 64")
        self.send(f"setoption name UCI_Variant value {FS_VARIANTS[variant]}")
        self.send(f"setoption name Skill Level value {skill}")
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

    def best_move(self, fen: str, moves: list[str], movetime: float, nodes: int = 0) -> str:
        self.send(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))
        self.send(f"go nodes {nodes}" if nodes else f"go movetime {round(movetime * 1000)}")
        return self.wait("bestmove").split()[1]

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=20)


@dataclass(frozen=True)
class FsJob:
    variant: str
    skill: int
    game: int
    max_plies: int
    movetime: float
    command: str
    level: str = "advanced"
    # Node budgets instead of the clock (--fs-nodes, --our-nodes): a before/after screen that
    # the machine's load does not move.
    fs_nodes: int = 0
    our_nodes: int | None = None
    record: str | None = None  # --fs-record: a JSON line per game appended to this file


def play_fs_game(job: FsJob) -> tuple[int | None, int, str, int]:
    """One game of ``job.level`` against Fairy-Stockfish, both at ``job.movetime`` seconds a
    move; returns (winner side, our side, reason, plies)."""
    board = new_board(job.variant, job.game)
    play_opening(board, job.game)
    start_fen = board.fen()
    moves: list[str] = []
    result = _play_fs_moves(job, board, start_fen, moves)
    if job.record:
        winner, ours, reason, plies = result
        line = {
            "variant": job.variant,
            "skill": job.skill,
            "game": job.game,
            "ours": ours,
            "winner": winner,
            "reason": reason,
            "plies": plies,
            "fen": start_fen,
            "moves": moves,
        }
        with open(job.record, "a", encoding="utf-8") as out:  # one short append per game
            out.write(json.dumps(line) + "\n")
    return result


def _play_fs_moves(
    job: FsJob, board: Board, start_fen: str, moves: list[str]
) -> tuple[int | None, int, str, int]:
    ours = job.game % 2
    fs = FairyStockfish(job.command, job.variant, job.skill)
    try:
        while True:
            outcome = board.outcome()
            if outcome is not None:
                return outcome.winner, ours, outcome.reason, board.ply
            if board.ply >= job.max_plies + OPENING_RANDOM_PLIES:
                return adjudicate(board), ours, "adjudicated", board.ply
            if board.turn == ours:
                result = choose_move(
                    board, job.level, seed=job.game, movetime=job.movetime, nodes=job.our_nodes
                )
                code = result.move.code
                text = uci_move_text(board, code)
            else:
                text = fs.best_move(start_fen, moves, job.movetime, job.fs_nodes)
                code = rules_move(text).code
            board.push(Move.from_code(code))
            moves.append(text)
    finally:
        fs.close()


def rules_move(text: str) -> Move:
    """A move in Fairy-Stockfish's UCI text as the rules board takes it: its janggi pass names
    the general's point twice ("d9d9"), which the rules call "pass"."""
    move = Move.parse(text)
    if move.from_point == move.to_point:
        return Move.parse("pass")
    return move


def elo(score: float) -> float:
    """The Elo difference that expects ``score`` (a share of the points), clamped at ±800."""
    score = min(max(score, 0.01), 0.99)
    return -400 * math.log10(1 / score - 1)


def elo_with_margin(points: list[float]) -> tuple[float, float, float]:
    """(score, Elo difference, half-width of its 95 % interval) from per-game points 0/½/1."""
    n = len(points)
    score = sum(points) / n
    deviation = statistics.pstdev(points)
    if deviation == 0:  # every game the same result: no spread measured, assume a binomial
        smoothed = (sum(points) + 0.5) / (n + 1)
        deviation = math.sqrt(smoothed * (1 - smoothed))
    half = 1.96 * deviation / math.sqrt(n)
    low, high = elo(score - half), elo(score + half)
    return score, elo(score), (high - low) / 2


def run_fs(
    variant: str,
    skills: list[int],
    games: int,
    workers: int,
    max_plies: int,
    movetime: float,
    command: str,
    level: str,
    fs_nodes: int = 0,
    our_nodes: int | None = None,
    first: int = 0,
    record: str | None = None,
) -> None:
    budget = (
        f"{fs_nodes} nodes a move for it, {our_nodes} for ours"
        if fs_nodes and our_nodes
        else f"{movetime:g} s a move each"
    )
    print(
        f"\n== {variant}: {level} vs Fairy-Stockfish ({FS_VARIANTS[variant]}, {command}), "
        f"{budget}, {games} games per Skill Level, load average "
        f"{os.getloadavg()[0]:.1f} ==",
        flush=True,
    )
    started = time.monotonic()
    jobs = [
        FsJob(variant, s, g, max_plies, movetime, command, level, fs_nodes, our_nodes, record)
        for s in skills
        for g in range(first, first + games)
    ]
    results: dict[int, list[tuple[int | None, int, str, int]]] = {s: [] for s in skills}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for job, result in zip(jobs, pool.map(play_fs_game, jobs), strict=True):
            results[job.skill].append(result)
            winner, ours, reason, plies = result
            verdict = "draw" if winner is None else ("win" if winner == ours else "loss")
            print(
                f"  skill {job.skill} game {job.game}: {level} {verdict} as "
                f"{'first' if ours == 0 else 'second'} mover ({reason}, {plies} plies)",
                file=sys.stderr,
                flush=True,
            )
    print(f"{'Skill':>6}{'score':>8}{'W-D-L':>10}{'Elo':>7}{'±95%':>7}  reasons")
    even = None
    for skill in skills:
        chunk = results[skill]
        points = [0.5 if w is None else float(w == ours) for w, ours, _, _ in chunk]
        wins = sum(1 for p in points if p == 1)
        draws = sum(1 for p in points if p == 0.5)
        score, diff, margin = elo_with_margin(points)
        # W-D-L of ours by how each game ended: who won by mate, who by a rule.
        reasons: dict[str, list[int]] = {}
        for (_, _, reason, _), point in zip(chunk, points, strict=True):
            tally = reasons.setdefault(reason, [0, 0, 0])
            tally[0 if point == 1 else 1 if point == 0.5 else 2] += 1
        reason_text = ", ".join(
            f"{k} {w}-{d}-{lost}" for k, (w, d, lost) in sorted(reasons.items())
        )
        print(
            f"{skill:>6}{score:>7.0%}{f'{wins}-{draws}-{len(chunk) - wins - draws}':>10}"
            f"{diff:>+7.0f}{margin:>7.0f}  {reason_text}"
        )
        if variant in FS_UNSCORED_ENDINGS:
            # What Fairy-Stockfish played for: its casual janggi scores these endings as
            # draws (no points counted), ours by points (J9), so it walks into them.
            judged = [
                0.5 if reason in FS_UNSCORED_ENDINGS[variant] else p
                for (_, _, reason, _), p in zip(chunk, points, strict=True)
            ]
            fs_score, fs_diff, fs_margin = elo_with_margin(judged)
            print(
                f"{'':>6}{fs_score:>7.0%}{'':>10}{fs_diff:>+7.0f}{fs_margin:>7.0f}  "
                f"the same games with {', '.join(FS_UNSCORED_ENDINGS[variant])} "
                f"counted as draws, as {FS_VARIANTS[variant]} judges them"
            )
        if score >= 0.5:
            even = skill if even is None else max(even, skill)
    ladder = "none" if even is None else str(even)
    print(
        f"ladder: highest Skill Level {level} scores >= 50 % against: {ladder} "
        f"({time.monotonic() - started:.0f} s, load average now {os.getloadavg()[0]:.1f})",
        flush=True,
    )


# ---------------------------------------------------------------------- another version

BASELINE_CHILD = """
import json, sys
from chuhan.engine import choose_move
from chuhan.rules import make_board
from chuhan.rules.jieqi import JieqiBoard
for line in sys.stdin:
    job = json.loads(line)
    if "view" in job:
        board = JieqiBoard.from_view(job["view"])
    else:
        board = make_board(job["variant"], job["fen"])
        for text in job["moves"]:
            board.push(text)
    extra = {"nodes": job["nodes"]} if job.get("nodes") else {}  # older checkouts: time only
    result = choose_move(board, job["level"], seed=job["seed"], movetime=job["movetime"], **extra)
    print(json.dumps([str(result.move), result.depth]), flush=True)
"""


def checkout_env(src: str, native: str | None = None) -> dict[str, str]:
    """The environment of a child process that imports another checkout's ``src``: pure
    Python unless ``native`` names that checkout's own mypyc build (python -m chuhan.native
    build)."""
    env = dict(os.environ, PYTHONPATH=src, CHUHAN_PURE_PYTHON="1")
    if native:
        del env["CHUHAN_PURE_PYTHON"]
        env["CHUHAN_NATIVE_DIR"] = native
    return env


class Baseline:
    """Another checkout's engine (``src`` directory) in a child process, pure Python unless
    that checkout builds its own: the "today's advanced" of a before/after match."""

    def __init__(self, src: str, native: str | None = None) -> None:
        env = checkout_env(src, native)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", BASELINE_CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            bufsize=1,
        )

    def choose(self, job: dict[str, object]) -> tuple[str, int]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the baseline engine stopped")
        text, depth = json.loads(line)
        return str(text), int(depth)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=20)


@dataclass(frozen=True)
class VersusJob:
    variant: str
    game: int
    max_plies: int
    movetime: float
    src: str
    level: str = "advanced"
    native: str | None = None
    nodes: int | None = None  # a node budget a move for both instead of the time


def play_versus_game(job: VersusJob) -> tuple[int | None, int, str, int, list[int], list[int]]:
    """One game of this checkout's level against the baseline's, both at ``job.movetime``
    seconds a move (each sees only its own view in jieqi, A3); returns (winner, our side,
    reason, plies, our depths, the baseline's depths)."""
    board = new_board(job.variant, job.game)
    start_fen = board.fen()
    play_opening(board, job.game)
    ours = job.game % 2
    depths: tuple[list[int], list[int]] = ([], [])
    baseline = Baseline(job.src, job.native)
    try:
        while True:
            outcome = board.outcome()
            if outcome is not None:
                return outcome.winner, ours, outcome.reason, board.ply, *depths
            if board.ply >= job.max_plies + OPENING_RANDOM_PLIES:
                return adjudicate(board), ours, "adjudicated", board.ply, *depths
            if board.turn == ours:
                result = choose_move(
                    ai_view(board), job.level, seed=job.game, movetime=job.movetime, nodes=job.nodes
                )
                move, depth = str(result.move), result.depth
                depths[0].append(depth)
            else:
                request: dict[str, object] = {
                    "level": job.level,
                    "seed": job.game,
                    "movetime": job.movetime,
                    "variant": job.variant,
                    "nodes": job.nodes,
                }
                if job.variant == "jieqi":
                    request["view"] = board.view(board.turn)  # type: ignore[attr-defined]
                else:
                    request["fen"], request["moves"] = start_fen, [str(m) for m in board.move_stack]
                move, depth = baseline.choose(request)
                depths[1].append(depth)
            board.push(move)
    finally:
        baseline.close()


def run_versus(
    variant: str,
    games: int,
    workers: int,
    max_plies: int,
    movetime: float,
    src: str,
    level: str,
    native: str | None = None,
    first: int = 0,
    nodes: int | None = None,
) -> None:
    build = f"compiled in {native}" if native else "pure Python"
    budget = f"{nodes} nodes" if nodes else f"{movetime:g} s"
    print(
        f"\n== {variant}: this {level} vs the {level} of {src} ({build}), {budget} a "
        f"move each, {games} games, load average {os.getloadavg()[0]:.1f} ==",
        flush=True,
    )
    started = time.monotonic()
    jobs = [
        VersusJob(variant, g, max_plies, movetime, src, level, native, nodes)
        for g in range(first, first + games)
    ]
    points: list[float] = []
    ours_depth: list[int] = []
    theirs_depth: list[int] = []
    reasons: dict[str, int] = {}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for job, result in zip(jobs, pool.map(play_versus_game, jobs), strict=True):
            winner, ours, reason, plies, mine, theirs = result
            points.append(0.5 if winner is None else float(winner == ours))
            ours_depth += mine
            theirs_depth += theirs
            reasons[reason] = reasons.get(reason, 0) + 1
            print(
                f"  game {job.game}: {points[-1]} as {'first' if ours == 0 else 'second'} "
                f"mover ({reason}, {plies} plies)",
                file=sys.stderr,
                flush=True,
            )
    score, diff, margin = elo_with_margin(points)
    wins, draws = points.count(1.0), points.count(0.5)
    print(
        f"score {score:.0%} ({wins}-{draws}-{len(points) - wins - draws}), Elo {diff:+.0f} "
        f"± {margin:.0f}; median depth {statistics.median(ours_depth):.0f} here, "
        f"{statistics.median(theirs_depth):.0f} baseline; "
        + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
        + f" ({time.monotonic() - started:.0f} s, load average {os.getloadavg()[0]:.1f})",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="xiangqi,janggi,jieqi")
    parser.add_argument("--games", type=int, default=20, help="games per pair of levels")
    parser.add_argument("--quick", action="store_true", help="4 games a pair, xiangqi only")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--budget", choices=["nodes", "time"], default="nodes")
    parser.add_argument(
        "--advanced-nodes",
        type=int,
        default=60_000,
        help="advanced's node budget with --budget nodes",
    )
    parser.add_argument(
        "--movetime",
        type=float,
        default=None,
        help="seconds per advanced move with --budget time (default: 2)",
    )
    parser.add_argument("--fs", action="store_true", help="also play Fairy-Stockfish")
    parser.add_argument("--fs-only", action="store_true")
    parser.add_argument("--fs-skills", default="5,10")
    parser.add_argument("--fs-games", type=int, default=20)
    parser.add_argument(
        "--fs-movetime",
        type=float,
        default=2.0,
        help="seconds a move for both engines against Fairy-Stockfish",
    )
    parser.add_argument(
        "--fs-command",
        default=FS_COMMAND,
        help="the UCI engine to start (e.g. 'node /path/to/fsuci.js')",
    )
    parser.add_argument(
        "--fs-workers",
        type=int,
        default=1,
        help="games at once against Fairy-Stockfish (1: a core each)",
    )
    parser.add_argument("--fs-level", default="advanced", choices=list(LEVELS))
    parser.add_argument(
        "--fs-nodes",
        type=int,
        default=0,
        help="Fairy-Stockfish searches this many nodes a move (with --our-nodes)",
    )
    parser.add_argument(
        "--fs-first",
        type=int,
        default=0,
        help="start at this game index (its opening and colours), to add games",
    )
    parser.add_argument(
        "--fs-record",
        default=None,
        metavar="FILE",
        help="append each game against Fairy-Stockfish to FILE as a JSON line "
        "(start FEN, moves, result): the losses to replay and study",
    )
    parser.add_argument(
        "--our-nodes",
        type=int,
        default=None,
        help="the level searches this many nodes a move, clock off",
    )
    parser.add_argument(
        "--baseline", default=None, help="src directory of another checkout: play its level instead"
    )
    parser.add_argument(
        "--baseline-native",
        default=None,
        help="the baseline's own mypyc build directory (CHUHAN_NATIVE_DIR); "
        "without it the baseline runs pure Python",
    )
    parser.add_argument("--versus-games", type=int, default=10)
    parser.add_argument(
        "--versus-nodes",
        type=int,
        default=None,
        help="both engines search this many nodes a move, the clock off (a "
        "match whose result does not depend on the machine's load)",
    )
    parser.add_argument(
        "--versus-first",
        type=int,
        default=0,
        help="the first game's index (its deal and opening): a later run "
        "with --versus-first N plays new games to add to an earlier N",
    )
    args = parser.parse_args(argv)
    variants = ["xiangqi"] if args.quick else args.variants.split(",")
    games = 4 if args.quick else args.games
    budget = Budget(args.budget == "nodes", args.advanced_nodes, args.movetime)
    for variant in variants:
        if args.baseline:
            run_versus(
                variant,
                args.versus_games,
                args.fs_workers,
                args.max_plies,
                args.fs_movetime,
                args.baseline,
                args.fs_level,
                args.baseline_native,
                args.versus_first,
                args.versus_nodes,
            )
            continue
        if not args.fs_only:
            run_matches(variant, games, args.workers, args.max_plies, budget)
            sys.stdout.flush()
        if (args.fs or args.fs_only) and variant in ("xiangqi", "janggi"):
            skills = [int(s) for s in args.fs_skills.split(",")]
            run_fs(
                variant,
                skills,
                args.fs_games,
                args.fs_workers,
                args.max_plies,
                args.fs_movetime,
                args.fs_command,
                args.fs_level,
                args.fs_nodes,
                args.our_nodes,
                args.fs_first,
                args.fs_record,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
