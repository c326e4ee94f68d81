"""Puzzles for xiangqi, janggi and jieqi (SPEC B9): mined from games, verified by a stronger
search, written to ``src/chuhan/server/puzzles/data/{variant}.jsonl`` in the format of
``src/chuhan/server/puzzles`` (one JSON object a line, sorted by ``id``).

    git clone <the CCPD repository> /tmp/ccpd            # commit 368a47a9, see game_positions.py
    nice -n 10 .venv/bin/python bench/puzzles.py xiangqi --source /tmp/ccpd --workers 1
    nice -n 10 .venv/bin/python bench/puzzles.py janggi --workers 1 --deviation-every 0
    nice -n 10 .venv/bin/python bench/puzzles.py jieqi --workers 1 --deviation-every 0
    .venv/bin/python bench/puzzles.py xiangqi --source /tmp/ccpd --limit 20 --output /tmp/x.jsonl

Each command runs until its sources are used up (hours to days on two shared cores); a run
that is stopped leaves a valid file (rewritten after every puzzle), and the same command with
``--max-puzzles N`` (N its line count) rebuilds it exactly. ``--resume`` goes on from such a
file after the last source a puzzle of it came from. The committed files were made by the
commands above with ``--max-puzzles`` set to their line counts (see "Generation" below).

The idea is lichess-puzzler's. A *candidate* is a position where one move swings the outcome:
the side to move (the solver) has a move worth at least ``ATTACK_CP`` (or a forced mate), and
the position before the opponent's last move was not already won for it (its win chance there
below ``DECIDED_WIN``, and the jump at least ``SWING_CP`` and ``SWING_WIN``). Candidates are
scanned cheaply (first ``--prescan-nodes``, MultiPV 2, which drops the positions where even so
short a search sees two moves within ``PRESCAN_WIN`` of each other; then ``--scan-nodes``, MultiPV
2, by the rules below) and only those that pass are verified and
extended with the expensive search (``--verify-nodes`` at the puzzle's position, MultiPV 2;
``--line-nodes`` at the solver's later turns). At every solver turn the move must be the only
good one: the best beats the second by ``UNIQUE_WIN`` in win chance (lichess's scale, -1..1,
``2 / (1 + exp(-0.00368208 cp)) - 1``), or it is the only move that mates (at the last turn
of a mate any mating move is accepted, so several mates in one are fine). The opponent's
replies are the verifying search's principal variation. The line ends at the first solver
turn without a single good move, at a mate, or after ``--max-solver-moves``; it always ends
with a solver move. A position whose best move does not win but whose other moves lose
(best at most ``ATTACK_CP``, second ``UNIQUE_WIN`` below it) is a ``defence`` puzzle.

Dropped: positions the scan or the verification does not confirm; positions already decided
(see above); duplicates (the same position, or a position inside an earlier puzzle's line,
the first in input order kept); one-move puzzles that do not mate and whose move the
verifying search already chose at depth ``EASY_DEPTH`` or less (below the easiest tier);
jieqi lines in which a solver move turns a face-down piece over (its identity, which the
solver cannot know, would decide the line); lines that end by the game's history (a
repetition or a move limit the rules decide, not a mate on the board).

Sources, each recorded in the puzzle's ``source``:

- **xiangqi** (``ccpd``): the Chinese Chess Practical Dataset (Yu-Han Tseng and Bo-Nian Chen,
  CC BY 4.0; see ``bench/game_positions.py``): first its published positions (``殺局_殺法_練習題``
  mates, ``中局`` middlegames, ``殘局`` endgames, ``全盤戰術`` tactics), then its master games
  (``對局``, every ``--every``-th file). In a game, a candidate is a position from which the
  side to move went on to win at least ``GAIN_PAWNS`` of material over its next two or three
  moves while not ahead by more, or to mate, or the last position of a game its opponent
  resigned; a published position is a candidate as it stands too. Read at generation time
  from ``--source``; the dataset is never copied into the repository. The CCPD files about
  half of its games two or more times (under each player, the event, the opening): a game
  whose moves, start and result an earlier file already gave is not worked again (its
  puzzles would be the earlier copy's, dropped as duplicates, so the output is the same).
  Besides the moves played, each game offers *plausible mistakes* (``--deviation-every``): at
  a position not yet decided, a move that a very short search (``--prescan-nodes``, MultiPV
  ``--plausible-lines``, ``PLAUSIBLE_LINES``) ranks below its best, within ``--plausible-cp``
  (``PLAUSIBLE_CP``) of it, which the player did not play.
  The position after it is a candidate like the others, its ``source`` naming the game, the
  ply and the move played instead of the game's (``deviation``, a field added to the format).
- **janggi** (``fairy-stockfish-selfplay``): Fairy-Stockfish against itself at
  ``--selfplay-nodes`` a move, seeded as ``bench/janggi_games.py`` does (setups and opening
  plies from ``--seed`` and the game's number), judged by our rules (bikjang off: FS's
  ``janggicasual``). Each move's own score is the scan: a move whose score jumps after the
  opponent's is a candidate.
- **jieqi** (``chuhan-selfplay``): our advanced level against itself at ``--selfplay-nodes``
  a move, each side searching its own view (A3), dealt and opened from ``--seed``. The solver's
  view (no secret) is analysed; the opponent replies from its own view; a face-down piece the
  opponent turns over inside the line is resolved by the stored game (``reveals``).

Verification: Debian's Fairy-Stockfish (``/usr/games/fairy-stockfish``, ``Threads 1``, hash
cleared before each search so that every result is a function of its position) for xiangqi
and janggi; our engine for jieqi, where MultiPV 2 is two searches of ``--verify-nodes`` each
(the second with the best move excluded). The defaults: xiangqi and janggi 1,000,000 nodes at
the puzzle's position, jieqi 1,200,000 (20x the 60,000 nodes ``bench/strength.py`` gives the
advanced level).

Output: one JSON object a line, sorted by ``id`` (``<variant>-`` + the first 10 hex digits of
sha1 of the FEN, a space and the moves joined by spaces). ``rating`` is a starting estimate:
``RATING_BASE + RATING_PER_DEPTH`` x the depth at which the verifying search settled on the
first move ``+ RATING_PER_MOVE`` x (solver moves - 1), within ``RATING_RANGE``. The same
command gives the same file: node budgets, not time; seeded games; results in input order.
``--max-puzzles`` stops at the first N puzzles in input order, so a longer run extends a
shorter one. The file is rewritten (sorted) every ``--checkpoint`` puzzles.

Generation (2026-12-07, four sessions, under ``nice`` beside other engineers' test runs: load
1-30 on two cores, so our share of a core ran from nearly all to a few per cent). The committed
files rebuild with:

- xiangqi, 779 puzzles: ``bench/puzzles.py xiangqi --source /tmp/ccpd --workers 1
  --max-puzzles 541`` (CCPD commit 368a47a9): the first 166 in 5,565 s wall (31 min CPU), then
  ``--resume`` runs for about 11,400 s more, sources up to
  ``對局/大師對局/以棋手分類/呂欽/00001565.pgn``
  (the 130 mate games, 中局, 殘局, 全盤戰術, then the master games, which yield fewer: files
  00000806 to 00001854 gave 118, none after 00001565); then ``bench/puzzles.py xiangqi
  --source /tmp/ccpd --workers 1 --resume --plausible-cp 150 --plausible-lines 4
  --max-puzzles 779``: the wider plausible mistakes (a short search's first four moves
  within 150 centipawns) gave 238 from files 呂欽/00001566 to 李來群/00000246 in about
  7,250 s wall (about 20 minutes of it paused).
- janggi, 500 puzzles: ``bench/puzzles.py janggi --workers 1 --deviation-every 0 --games 8000
  --max-puzzles 500``: all of the default 4,000 games (249 puzzles, about 8,350 s wall), then
  ``--games 8000 --resume`` for 8,681 s more, games 42/4000 to 42/7659. Games are seeded by
  their number, so ``--games`` changes only where the run stops.
- jieqi, 111 puzzles: ``bench/puzzles.py jieqi --workers 1 --deviation-every 0
  --max-puzzles 111``: 2,312 s wall for games 42/0 to 42/181 (14), then ``--resume`` for about
  7,700 s more (about 20 minutes of it paused), games to 42/1589.

On a quiet machine the rates were about 5 xiangqi (fewer in the master games: 1 to 4 a minute
with the wider mistakes) and 3 janggi puzzles a minute of one core, jieqi 0.6 to 1.6. At these
rates the targets (xiangqi 1,500, janggi 500, jieqi 200) take many hours of two idle cores: run
the last command of each with ``--resume`` (and without ``--max-puzzles``) to go on.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from chuhan.engine.ai import choose_move, searcher_for
from chuhan.engine.search import MATE, MATE_BOUND, Iteration, Limits
from chuhan.engine.uci import ENGINE_NAME
from chuhan.rules import Board, RulesError, make_board
from chuhan.rules.board import code_text
from chuhan.rules.geometry import (
    ADVISOR,
    CANNON,
    CHARIOT,
    ELEPHANT,
    HORSE,
    KING,
    SOLDIER,
)
from chuhan.rules.janggi import PIECE_POINTS, SETUPS
from chuhan.rules.jieqi import JieqiBoard
from chuhan.rules.record import read_record

sys.path.insert(0, str(Path(__file__).resolve().parent))
from game_positions import decode, random_opening, source_commit
from janggi_games import fs_version
from strength import FS_COMMAND, FS_VARIANTS, rules_move

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "chuhan" / "server" / "puzzles" / "data"
CCPD_CREDIT = "Chinese Chess Practical Dataset, Yu-Han Tseng and Bo-Nian Chen, CC BY 4.0"
# The published positions first, then the master games (directories of the CCPD's Dataset).
CCPD_SETS = ("殺局_殺法_練習題", "中局", "殘局", "全盤戰術")
CCPD_GAMES = "對局"

WIN_SLOPE = 0.00368208  # lichess's win-chance curve
ATTACK_CP = 200  # the solver's best must be worth this much (or mate) for an attack
UNIQUE_WIN = 0.7  # best minus second, in win chance (-1..1), for "the only good move"
PRESCAN_WIN = 0.3  # the very short first scan drops a position below this margin
DEVIATION_FROM = 10  # plausible mistakes are tried from this ply on ...
DEVIATION_EVEN_CP = 250  # ... in positions not yet decided (the mover's best within this)
PLAUSIBLE_CP = 60  # a mistake that a very short search ranks within this of the best ...
PLAUSIBLE_LINES = 3  # ... and among its first this many moves
SWING_CP = 200  # the jump the opponent's last move allowed, in centipawns ...
SWING_WIN = 0.3  # ... and in win chance
DECIDED_WIN = 0.6  # the solver's win chance before the opponent's move: already decided
DEFENCE_FLOOR = -0.3  # a defence's best move keeps at least this win chance
GAIN_PAWNS = 2.0  # material won in the game that makes a position a candidate
EASY_DEPTH = 2  # a one-mover settled at this depth or less is below the easiest tier
ENDGAME_PIECES = 4  # at most this many attacking pieces on the board: "endgame"
RATING_BASE, RATING_PER_DEPTH, RATING_PER_MOVE = 800, 70, 120
RATING_RANGE = (600, 2800)
# Material by kind (king, advisor, elephant, horse, chariot, cannon, soldier), in soldiers.
XIANGQI_VALUES = {
    KING: 0.0,
    ADVISOR: 2.0,
    ELEPHANT: 2.0,
    HORSE: 4.0,
    CHARIOT: 9.0,
    CANNON: 4.5,
    SOLDIER: 1.0,
}
JANGGI_VALUES = {kind: PIECE_POINTS[kind] / PIECE_POINTS[SOLDIER] for kind in XIANGQI_VALUES}
ATTACKERS = {
    "xiangqi": (HORSE, CHARIOT, CANNON),
    "jieqi": (HORSE, CHARIOT, CANNON),
    "janggi": (HORSE, CHARIOT, CANNON, ELEPHANT),
}
SOURCE_KINDS = {"xiangqi": "ccpd", "janggi": "fairy-stockfish-selfplay", "jieqi": "chuhan-selfplay"}
JIEQI_ADVANCED_NODES = 60_000  # bench/strength.py's node budget for the advanced level

Score = tuple[str, int]  # ("cp", 120) or ("mate", 3): the mover's view; a negative mate loses


def win_chance(score: Score) -> float:
    """Lichess's win chance of a score, -1 (lost) .. 1 (won)."""
    kind, value = score
    if kind == "mate":
        return 1.0 if value > 0 else -1.0
    return 2 / (1 + math.exp(-WIN_SLOPE * value)) - 1


def score_cp(score: Score) -> int:
    """A score in centipawns, a mate as +-100,000 less its length."""
    kind, value = score
    if kind == "mate":
        return 100_000 - abs(value) if value > 0 else -100_000 + abs(value)
    return value


def score_text(score: Score | None) -> str | None:
    return None if score is None else f"{score[0]} {score[1]}"


def mates(score: Score) -> bool:
    return score[0] == "mate" and score[1] > 0


@dataclass(slots=True)
class PvLine:
    """One line of a MultiPV search: the move (canonical text), its score, its continuation."""

    move: str
    score: Score
    pv: list[str]


@dataclass(slots=True)
class Analysis:
    """A search's lines, best first, and the depth from which it kept its best move."""

    lines: list[PvLine]
    settled_depth: int

    @property
    def best(self) -> PvLine:
        return self.lines[0]

    @property
    def second(self) -> PvLine | None:
        return self.lines[1] if len(self.lines) > 1 else None


class Analyser:
    """A search for one variant: ``analyse(board, nodes, multipv)``."""

    name = ""

    def analyse(self, board: Board, nodes: int, multipv: int) -> Analysis:
        raise NotImplementedError

    def reply(self, game: Board, nodes: int) -> str:
        """The opponent's best move in ``game`` (its own view, for jieqi)."""
        return self.analyse(game, nodes, 1).best.move

    def close(self) -> None:
        pass


class FairyStockfish(Analyser):
    """Fairy-Stockfish over UCI at a node budget, its hash cleared before each search."""

    def __init__(self, command: str, variant: str) -> None:
        import subprocess

        self.name = fs_version(command)
        self.proc = subprocess.Popen(
            command.split(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.wait("uciok")
        for option, value in (("Threads", 1), ("Hash", 16), ("UCI_Variant", FS_VARIANTS[variant])):
            self.send(f"setoption name {option} value {value}")
        self.multipv = 0

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

    def analyse(self, board: Board, nodes: int, multipv: int) -> Analysis:
        if multipv != self.multipv:
            self.send(f"setoption name MultiPV value {multipv}")
            self.multipv = multipv
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")
        self.send(f"position fen {board.fen()}")
        self.send(f"go nodes {nodes}")
        assert self.proc.stdout is not None
        # Fairy-Stockfish prints its lines as a block, 1 to MultiPV, after each iteration
        # (and at the stop): the last block is the search's answer, its moves distinct.
        block: dict[int, PvLine] = {}
        firsts: list[tuple[int, str]] = []  # (depth, best move) per printed block
        while True:
            text = self.proc.stdout.readline()
            if not text:
                raise RuntimeError("Fairy-Stockfish stopped")
            words = text.split()
            if not words:
                continue
            if words[0] == "bestmove":
                break
            if words[0] != "info" or "pv" not in words or "score" not in words:
                continue
            at = words.index("score")
            score: Score = (words[at + 1], int(words[at + 2]))
            k = int(words[words.index("multipv") + 1]) if "multipv" in words else 1
            pv = [str(rules_move(m)) for m in words[words.index("pv") + 1 :]]
            if k == 1:
                block = {}
                firsts.append((int(words[words.index("depth") + 1]), pv[0]))
            block[k] = PvLine(pv[0], score, pv)
        ordered = [block[k] for k in sorted(block)]
        return Analysis(ordered, settled_depth(firsts, ordered[0].move if ordered else ""))

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=20)


def settled_depth(firsts: list[tuple[int, str]], best: str) -> int:
    """The depth from which every finished iteration chose ``best``."""
    settled = firsts[-1][0] if firsts else 0
    for depth, move in reversed(firsts):
        if move != best:
            break
        settled = depth
    return settled


class ChuhanJieqi(Analyser):
    """Our engine on a jieqi board rebuilt from the side to move's view (no secret). MultiPV 2
    is a second search with the best move pushed below every other (a root penalty)."""

    EXCLUDE = -10 * MATE

    def __init__(self) -> None:
        self.name = f"{ENGINE_NAME} (chuhan.engine, jieqi view search)"

    def _search(
        self, board: Board, nodes: int, noise: dict[int, int] | None
    ) -> tuple[int, int, list[Iteration]]:
        iterations: list[Iteration] = []
        searcher = searcher_for(board, Limits(nodes=nodes), noise)
        searcher.on_iteration = iterations.append
        code, score, _, _ = searcher.run()
        return code, score, iterations

    def analyse(self, board: Board, nodes: int, multipv: int) -> Analysis:
        view = own_view(board)
        code, score, iterations = self._search(view, nodes, None)
        firsts = [(it.depth, it.pv[0]) for it in iterations if it.pv]
        best = PvLine(
            code_text(code),
            engine_score(score),
            iterations[-1].pv if iterations else [code_text(code)],
        )
        lines = [best]
        excluded = {code: self.EXCLUDE}
        while len(lines) < min(multipv, len(view.legal_codes())):
            other, other_score, others = self._search(view, nodes, dict(excluded))
            if other in excluded:
                break
            excluded[other] = self.EXCLUDE
            lines.append(
                PvLine(
                    code_text(other),
                    engine_score(other_score),
                    others[-1].pv if others else [code_text(other)],
                )
            )
        return Analysis(lines, settled_depth(firsts, best.move))


def engine_score(score: int) -> Score:
    if abs(score) >= MATE_BOUND:
        moves = (MATE - abs(score) + 1) // 2
        return ("mate", moves if score > 0 else -moves)
    return ("cp", score)


def own_view(board: Board) -> Board:
    """What the side to move knows: a jieqi board rebuilt from its view; others as they are."""
    if isinstance(board, JieqiBoard):
        return JieqiBoard.from_view(board.view(board.turn))
    return board


# --- judging a position -----------------------------------------------------------------


def single_good_move(analysis: Analysis, last_turn_mate_ok: bool = True) -> bool:
    """The best move is the only good one: a clear margin, or the only mate (several mates
    in one are fine: the server accepts any mating last move)."""
    best, second = analysis.best, analysis.second
    if second is None:
        return True
    if mates(best.score):
        return not mates(second.score) or (last_turn_mate_ok and best.score[1] == 1)
    return win_chance(best.score) - win_chance(second.score) >= UNIQUE_WIN


def kind_of(analysis: Analysis) -> str | None:
    """``attack`` or ``defence`` when the position is a puzzle's start, else None."""
    if analysis.second is None or not single_good_move(analysis):
        return None
    best = analysis.best.score
    if mates(best) or score_cp(best) >= ATTACK_CP:
        return "attack"
    if win_chance(best) >= DEFENCE_FLOOR:
        return "defence"
    return None


def swung(now: Score, before: Score | None) -> bool:
    """The opponent's last move turned a position not yet won into a win for the solver."""
    if before is None:
        return True
    if win_chance(before) >= DECIDED_WIN:
        return False
    if mates(now):
        return not mates(before)
    return (
        score_cp(now) - score_cp(before) >= SWING_CP
        and win_chance(now) - win_chance(before) >= SWING_WIN
    )


def material(board: Board, side: int) -> float:
    """``side``'s material less its opponent's, in soldiers (jieqi: true identities)."""
    values = JANGGI_VALUES if board.variant == "janggi" else XIANGQI_VALUES
    hidden = getattr(board, "hidden", None) or {}
    total = 0.0
    for point, piece in enumerate(board.squares):
        if not piece:
            continue
        piece = hidden.get(point, piece)
        value = values[abs(piece)]
        total += value if (piece > 0) == (side == 0) else -value
    return total


def is_endgame(board: Board) -> bool:
    attackers = ATTACKERS[board.variant]
    return sum(1 for p in board.squares if p and abs(p) in attackers) <= ENDGAME_PIECES


# --- building and verifying a puzzle ------------------------------------------------------


@dataclass
class Source:
    kind: str
    game: str
    ply: int
    credit: str | None = None
    deviation: str | None = None  # the move played at ply - 1 instead of the game's

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "game": self.game, "ply": self.ply}
        if self.credit:
            out["credit"] = self.credit
        if self.deviation:
            out["deviation"] = self.deviation
        return out


@dataclass
class Puzzle:
    variant: str
    fen: str
    moves: list[str]
    themes: list[str]
    rating: int
    source: Source
    verify: dict[str, Any]
    positions: list[str] = field(default_factory=list)  # placements inside the line
    view: dict[str, Any] | None = None
    reveals: list[str | None] | None = None

    @property
    def id(self) -> str:
        return puzzle_id(self.variant, self.fen, self.moves)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "variant": self.variant,
            "fen": self.fen,
            "moves": self.moves,
            "themes": self.themes,
            "rating": self.rating,
            "source": self.source.as_json(),
            "verify": self.verify,
        }
        if self.view is not None:
            out["view"] = self.view
            out["reveals"] = self.reveals
        return out


def puzzle_id(variant: str, fen: str, moves: list[str]) -> str:
    digest = hashlib.sha1((fen + " " + " ".join(moves)).encode()).hexdigest()[:10]
    return f"{variant}-{digest}"


def position_key(board: Board) -> str:
    """The position without its move counters (duplicates are judged by it)."""
    return " ".join(board.fen().split()[:2])


def recaptures(game: Board, text: str) -> bool:
    """The move takes back on the point where the opponent has just taken (an exchange)."""
    if not game.move_stack:
        return False
    before = game.copy()
    last = before.pop()
    return (
        not last.is_pass
        and game.parse_move(text).to_point == last.to_point
        and bool(before.squares[last.to_point])
    )


def easy_one_mover(analyser: Analyser, game: Board, scanned: Analysis, nodes: int) -> bool:
    """By the cheap search: the puzzle would be one non-mating move, settled at depth
    ``EASY_DEPTH`` or less (so its expensive verification is not worth making)."""
    best = scanned.best
    if scanned.settled_depth > EASY_DEPTH or mates(best.score) or len(best.pv) < 2:
        return False
    after = game.copy()
    try:
        play(after, best.move)
        play(after, best.pv[1])
    except RulesError:
        return False
    if after.outcome() is not None:
        return True
    following = analyser.analyse(after, nodes, 2)
    return not following.lines or not single_good_move(following)


def reveals_a_piece(game: Board, text: str) -> bool:
    """A jieqi move of a face-down piece (what it turns out to be is not the solver's to know)."""
    return isinstance(game, JieqiBoard) and game.needs_reveal(game.parse_move(text).code)


def play(game: Board, text: str) -> str | None:
    """Play ``text`` on the game board; the identity a face-down mover turned out to be."""
    move = game.parse_move(text)
    game.push(move)
    if isinstance(game, JieqiBoard):
        return game.view("all")["moves"][-1]["reveal"]
    return None


@dataclass(frozen=True)
class Budget:
    prescan: int
    scan: int
    verify: int
    line: int
    max_solver_moves: int
    deviation_every: int = 0
    plausible_cp: int = PLAUSIBLE_CP
    plausible_lines: int = PLAUSIBLE_LINES


def scan(analyser: Analyser, game: Board, budget: Budget) -> Analysis | str:
    """The cheap searches of a candidate: a very short one that drops the positions where
    even it sees two moves of about the same worth, then ``budget.scan``'s; the second's
    analysis when the position may be a puzzle's start, else why not."""
    quick = analyser.analyse(game, budget.prescan, 2)
    if not quick.lines:
        return "no move"
    best, second = quick.best, quick.second
    if (
        second is not None
        and not mates(best.score)
        and (win_chance(best.score) - win_chance(second.score) < PRESCAN_WIN)
    ):
        return "prescan: two moves of about the same worth"
    scanned = analyser.analyse(game, budget.scan, 2)
    if kind_of(scanned) is None:
        return "scan: no single good move"
    return scanned


def verify_puzzle(
    analyser: Analyser,
    game: Board,
    budget: Budget,
    source: Source,
    before: Score | None,
    scanned: Analysis,
) -> Puzzle | str:
    """The puzzle at ``game``'s position (the solver to move), or why there is none.

    ``before``: the solver's score before the opponent's last move (None: no such move).
    ``scanned``: the cheap search of this position (:func:`scan`).
    """
    if kind_of(scanned) == "attack" and not swung(scanned.best.score, before):
        return "scan: already decided or no swing"
    if recaptures(game, scanned.best.move):
        return "scan: takes back what was just taken"
    if easy_one_mover(analyser, game, scanned, budget.scan):
        return "scan: one move, below the easiest tier"
    game = game.copy()
    solver = game.turn
    fen = own_view(game).fen()
    view = game.view(solver) if isinstance(game, JieqiBoard) else None
    start_material = material(game, solver)
    first = analyser.analyse(game, budget.verify, 2)
    kind = kind_of(first)
    if kind is None:
        return "verify: no single good move"
    if kind == "attack" and not swung(first.best.score, before):
        return "verify: already decided or no swing"
    if reveals_a_piece(game, first.best.move):
        return "jieqi: the solver's move turns a piece over"
    moves: list[str] = []
    reveals: list[str | None] = []
    positions: list[str] = []
    analysis = last = first
    while True:
        moves.append(analysis.best.move)
        reveals.append(play(game, analysis.best.move))
        last = analysis
        if game.outcome() is not None or (len(moves) + 1) // 2 >= budget.max_solver_moves:
            break
        pv = analysis.best.pv
        if isinstance(game, JieqiBoard) or len(pv) < 2:
            reply = analyser.reply(game, budget.line)  # jieqi: from the opponent's own view
        else:
            reply = pv[1]
        try:
            reveal = play(game, reply)
        except RulesError:
            break
        following = None if game.outcome() is not None else analyser.analyse(game, budget.line, 2)
        if (
            following is None
            or not following.lines
            or not single_good_move(following)
            or (
                kind == "attack"
                and not mates(following.best.score)
                and score_cp(following.best.score) < ATTACK_CP
            )
            or reveals_a_piece(game, following.best.move)
        ):
            game.pop()
            break
        positions.append(position_key(game))
        moves.append(reply)
        reveals.append(reveal)
        analysis = following
    solver_moves = (len(moves) + 1) // 2
    outcome = game.outcome()
    # A mate (or a stalemate, a loss in these games) is the position's; an ending the game's
    # own history decided (a repetition, a move limit) is not one the puzzle can show: such
    # a line (a king shuffling into a repetition the rules score as a win) is dropped.
    mated = outcome is not None and outcome.winner == solver and outcome.reason in MATED
    if outcome is not None and not mated:
        return "the line ends by the game's history (a repetition, a move limit)"
    themes: list[str] = []
    if mated:
        themes += ["mate", f"mateIn{solver_moves}"] if solver_moves <= 5 else ["mate"]
    after = game.copy()
    if not mated and len(last.best.pv) > 1:
        with contextlib.suppress(RulesError):
            play(after, last.best.pv[1])  # the engine's reply to the last move, then count
    if not mated and material(after, solver) - start_material >= GAIN_PAWNS:
        themes.append("material")
    if is_endgame(game):
        themes.append("endgame")
    if kind == "defence" and not mated:
        themes.append("defence")
    if solver_moves == 1:
        themes.append("short")
        if not mated and first.settled_depth <= EASY_DEPTH:
            return "one move, below the easiest tier"
    elif solver_moves >= 3:
        themes.append("long")
    rating = (
        RATING_BASE + RATING_PER_DEPTH * first.settled_depth + RATING_PER_MOVE * (solver_moves - 1)
    )
    rating = max(RATING_RANGE[0], min(RATING_RANGE[1], rating))
    verify = {
        "engine": analyser.name,
        "nodes": budget.verify,
        "best": score_text(first.best.score),
        "second": score_text(first.second.score if first.second else None),
    }
    return Puzzle(
        game.variant,
        fen,
        moves,
        sorted(themes, key=THEME_ORDER.index),
        rating,
        source,
        verify,
        positions,
        view,
        reveals if view is not None else None,
    )


MATED = ("checkmate", "stalemate")  # the endings a "mate" puzzle ends with
THEME_ORDER = [
    "mate",
    "mateIn1",
    "mateIn2",
    "mateIn3",
    "mateIn4",
    "mateIn5",
    "material",
    "endgame",
    "defence",
    "points",
    "short",
    "long",
]


# --- xiangqi: the CCPD ---------------------------------------------------------------------


def ccpd_files(source: Path, every: int, sets: bool = True) -> list[tuple[str, Path]]:
    """(name, path) of the published positions, then every ``every``-th master game."""
    files: list[tuple[str, Path]] = []
    base = source / "Dataset"
    for folder in CCPD_SETS if sets else ():
        files += [(f"{folder}/{p.name}", p) for p in sorted((base / folder).glob("*.pgn"))]
    games = sorted((base / CCPD_GAMES).rglob("*.pgn"))[::every]
    keys: set[str] = set()
    for path in games:
        key = game_key(path)
        if key not in keys:  # the same game filed again (by player, by event, by opening)
            keys.add(key)
            files.append((str(path.relative_to(base)), path))
    return files


# The tags that change what ``read_record`` makes of a file; the others only describe it.
RECORD_TAGS = ("Variant", "Format", "Game", "Rules", "FEN", "Result", "Arrangement", "Salt")


def game_key(path: Path) -> str:
    """What ``ccpd_job`` reads of a game file: the tags that change its reading and its moves,
    comments and spacing left out (equal keys: the same game filed again, see the top)."""
    text = decode(path.read_bytes())
    tags, body = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            name = stripped[1:].split(" ", 1)[0]
            if name in RECORD_TAGS:
                tags.append(stripped)
        else:
            body.append(stripped)
    moves = " ".join(re.sub(r"\{[^}]*\}", " ", " ".join(body)).split())
    return "\n".join(sorted(tags)) + "\n" + moves


def game_candidates(boards: list[Board], published: bool, resigned: bool) -> list[int]:
    """Plies worth a scan: the solver went on to win material or mate (or the opponent
    resigned there); a published position's first ply always."""
    plies = {0} if published else set()
    end = len(boards) - 1
    last = boards[end]
    outcome = last.outcome()
    for ply in range(end):
        side = boards[ply].turn
        now = material(boards[ply], side)
        if now > GAIN_PAWNS:
            continue  # already ahead: a gain from here proves little
        later = [material(boards[min(ply + k, end)], side) for k in (4, 6)]
        if min(later) - now >= GAIN_PAWNS:
            plies.add(ply)
    if outcome is not None and outcome.winner is not None:
        plies.update(p for p in (end - 1, end - 3, end - 5) if p >= 0)
    elif resigned:
        plies.add(end)
    return sorted(plies)


def ccpd_job(job: tuple[str, str, Budget]) -> tuple[str, list[Puzzle], dict[str, int]]:
    name, path, budget = job
    analyser = worker_analyser("xiangqi")
    try:
        record = read_record(decode(Path(path).read_bytes()))
    except (RulesError, ValueError):
        return name, [], {"unreadable": 1}
    if record.variant != "xiangqi":
        return name, [], {"not xiangqi": 1}
    board = make_board("xiangqi", record.start_fen)
    boards = [board.copy()]
    moves = record.moves[: record.rules_end.ply] if record.rules_end else record.moves
    for move in moves:
        board.push(move)
        boards.append(board.copy())
    winner = {"1-0": 0, "0-1": 1}.get(record.result)
    resigned = winner is not None and boards[-1].turn == winner
    published = not name.startswith(CCPD_GAMES)
    found = Found(analyser, budget)
    for ply in game_candidates(boards, published, resigned):
        found.consider(
            boards[ply],
            Source("ccpd", name, ply, CCPD_CREDIT),
            None,
            boards[ply - 1] if ply else None,
        )
    for ply, move, before in deviations(analyser, boards, budget):
        if found.at_ply(ply + 1):
            continue  # one plausible mistake a ply: the others make near twins of its puzzle
        here = boards[ply].copy()
        play(here, move)
        found.consider(here, Source("ccpd", name, ply + 1, CCPD_CREDIT, move), before)
    return name, found.puzzles, found.tally


class Found:
    """The puzzles of one source game, and why its other candidates were dropped."""

    def __init__(self, analyser: Analyser, budget: Budget) -> None:
        self.analyser, self.budget = analyser, budget
        self.puzzles: list[Puzzle] = []
        self.tally: dict[str, int] = {}
        self.covered: set[str] = set()

    def at_ply(self, ply: int) -> bool:
        """A puzzle of this game starts at ``ply`` already."""
        return any(p.source.ply == ply for p in self.puzzles)

    def consider(
        self, here: Board, source: Source, before: Score | None, previous: Board | None = None
    ) -> None:
        """Scan and verify ``here``; ``before`` is the solver's score before the opponent's
        last move, or it is searched in ``previous`` (the position before that move)."""
        if here.outcome() is not None or position_key(here) in self.covered:
            return
        scanned = scan(self.analyser, here, self.budget)
        if not isinstance(scanned, str) and previous is not None:
            before = negate(self.analyser.analyse(previous, self.budget.scan, 1).best.score)
        result = (
            scanned
            if isinstance(scanned, str)
            else verify_puzzle(self.analyser, here, self.budget, source, before, scanned)
        )
        if isinstance(result, str):
            self.tally[result] = self.tally.get(result, 0) + 1
            return
        self.covered.add(position_key(here))
        self.covered.update(result.positions)
        self.puzzles.append(result)


def deviations(
    analyser: Analyser, boards: list[Board], budget: Budget
) -> list[tuple[int, str, Score]]:
    """Plausible mistakes the game's player did not make: at every ``budget.deviation_every``-th
    ply from ``DEVIATION_FROM`` (a position not yet decided), the moves a very short search
    (``budget.prescan`` nodes, MultiPV ``budget.plausible_lines``) ranks below its best within
    ``budget.plausible_cp`` of it. Each is (ply, move, the opponent's score after it with
    the best reply, before)."""
    out: list[tuple[int, str, Score]] = []
    if not budget.deviation_every:
        return out
    for ply in range(DEVIATION_FROM, len(boards) - 1, budget.deviation_every):
        board = boards[ply]
        if board.outcome() is not None:
            continue
        quick = analyser.analyse(board, budget.prescan, budget.plausible_lines)
        if len(quick.lines) < 2 or quick.best.score[0] == "mate":
            continue
        best = score_cp(quick.best.score)
        if abs(best) > DEVIATION_EVEN_CP:
            continue
        played = str(boards[ply + 1].peek())
        out.extend(
            (ply, line.move, negate(quick.best.score))
            for line in quick.lines[1:]
            if line.move != played and best - score_cp(line.score) <= budget.plausible_cp
        )
    return out


def negate(score: Score) -> Score:
    return (score[0], -score[1])


# --- janggi and jieqi: self-play ---------------------------------------------------------


def selfplay_job(
    job: tuple[str, int, int, int, int, Budget],
) -> tuple[str, list[Puzzle], dict[str, int]]:
    """Play game ``index`` seeded, scoring each move with the mover's own search, and turn
    the positions where a score jumped into puzzles."""
    variant, seed, index, selfplay_nodes, max_plies, budget = job
    analyser = worker_analyser(variant)
    rng = random.Random(seed * 1_000_003 + index)
    if variant == "janggi":
        board = make_board("janggi", setup=f"{rng.choice(SETUPS)}:{rng.choice(SETUPS)}")
        random_opening(board, rng, 4)
        kind, credit = "fairy-stockfish-selfplay", f"self-play of {analyser.name}"
    else:
        board = make_board("jieqi", seed=rng.randrange(2**32))
        random_opening(board, rng, 2)
        kind, credit = "chuhan-selfplay", f"self-play of {ENGINE_NAME}"
    scores: list[Score | None] = [None] * board.ply
    boards: list[Board] = [board.copy()]
    while board.outcome() is None and board.ply < max_plies:
        if variant == "janggi":
            best = analyser.analyse(board, selfplay_nodes, 1).best
            move, score = best.move, best.score
        else:
            view = own_view(board)
            result = choose_move(view, "advanced", seed=index, nodes=selfplay_nodes)
            move, score = str(result.move), engine_score(result.score)
        scores.append(score)
        play(board, move)
        boards.append(board.copy())
    found = Found(analyser, budget)
    game = f"{seed}/{index}"
    start = len(scores) - len(boards) + 1
    for i, here in enumerate(boards[:-1]):
        ply = start + i
        now, previous = scores[ply], scores[ply - 1] if ply > 0 else None
        if now is None or previous is None:
            continue
        before = negate(previous)
        if (mates(now) or score_cp(now) >= ATTACK_CP) and swung(now, before):
            found.consider(here, Source(kind, game, ply, credit), before)
    for i, move, before in deviations(analyser, boards, budget):
        if found.at_ply(start + i + 1):
            continue
        here = boards[i].copy()
        play(here, move)
        found.consider(here, Source(kind, game, start + i + 1, credit, move), before)
    return game, found.puzzles, found.tally


# --- the run ----------------------------------------------------------------------------

_analysers: dict[str, Analyser] = {}
_fs_command = FS_COMMAND


def worker_analyser(variant: str) -> Analyser:
    """This process's analyser for ``variant`` (one engine process a worker)."""
    if variant not in _analysers:
        _analysers[variant] = (
            ChuhanJieqi() if variant == "jieqi" else FairyStockfish(_fs_command, variant)
        )
    return _analysers[variant]


def _init_worker(fs_command: str) -> None:
    global _fs_command
    _fs_command = fs_command


def write_puzzles(output: Path, rows: list[dict[str, Any]]) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    ordered = sorted(rows, key=lambda row: row["id"])
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in ordered)
    tmp = output.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)


def line_positions(row: dict[str, Any]) -> list[str]:
    """The positions inside a written puzzle's line (after each opponent reply)."""
    if row["variant"] == "jieqi":
        board: Board = JieqiBoard.from_view(row["view"])
    else:
        board = make_board(row["variant"], row["fen"])
    reveals = row.get("reveals") or [None] * len(row["moves"])
    out = []
    for i, (move, reveal) in enumerate(zip(row["moves"], reveals, strict=True)):
        if isinstance(board, JieqiBoard):
            board.push(move, reveal=reveal)
        else:
            board.push(move)
        if i % 2:
            out.append(position_key(board))
    return out


def resume_from(output: Path, names: list[str]) -> tuple[list[dict[str, Any]], int]:
    """The puzzles already in ``output`` and the index of the first source to work on: the
    one after the last source any of them came from (the sources after it that gave nothing
    are worked again, with the same result)."""
    if not output.exists():
        return [], 0
    rows = [json.loads(line) for line in output.read_text("utf-8").splitlines() if line]
    place = {name: i for i, name in enumerate(names)}
    last = max((place[row["source"]["game"]] for row in rows), default=-1)
    return rows, last + 1


def collect(
    results: Iterator[tuple[str, list[Puzzle], dict[str, int]]],
    args: argparse.Namespace,
    started: float,
    stop: Callable[[], None],
    kept: list[dict[str, Any]],
) -> dict[str, int]:
    """Add to ``kept`` the puzzles in input order, without duplicates, up to
    ``--max-puzzles``; returns the count of each reason a candidate was dropped."""
    seen: set[str] = set()
    for row in kept:
        seen.add(" ".join(row["fen"].split()[:2]))
        seen.update(line_positions(row))
    dropped: dict[str, int] = {}
    done = 0
    for name, puzzles, tally in results:
        done += 1
        for reason, count in tally.items():
            dropped[reason] = dropped.get(reason, 0) + count
        for puzzle in puzzles:
            if len(kept) >= args.max_puzzles:
                break
            key = " ".join(puzzle.fen.split()[:2])
            if key in seen:
                dropped["duplicate"] = dropped.get("duplicate", 0) + 1
                continue
            seen.add(key)
            seen.update(puzzle.positions)
            kept.append(puzzle.as_json())
            if len(kept) % args.checkpoint == 0:
                write_puzzles(args.output, kept)
        print(
            f"{time.monotonic() - started:7.0f} s  {done} sources ({name}), "
            f"{len(kept)} puzzles; dropped {sum(dropped.values())}",
            file=sys.stderr,
            flush=True,
        )
        if len(kept) >= args.max_puzzles:
            stop()
            break
    return dropped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", choices=("xiangqi", "janggi", "jieqi"))
    parser.add_argument("--source", type=Path, help="a checkout of the CCPD (xiangqi)")
    parser.add_argument("--output", type=Path)
    parser.add_argument("--every", type=int, default=1, help="xiangqi: every Nth master game")
    parser.add_argument(
        "--no-sets",
        action="store_true",
        help="xiangqi: the master games only, not the published positions",
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N sources")
    parser.add_argument("--games", type=int, default=4000, help="janggi, jieqi: self-play games")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--selfplay-nodes", type=int, default=None)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--prescan-nodes", type=int, default=2_000)
    parser.add_argument("--scan-nodes", type=int, default=None)
    parser.add_argument("--verify-nodes", type=int, default=None)
    parser.add_argument("--line-nodes", type=int, default=None)
    parser.add_argument("--max-solver-moves", type=int, default=5)
    parser.add_argument(
        "--deviation-every",
        type=int,
        default=1,
        help="try plausible mistakes at every Nth ply (0: none)",
    )
    parser.add_argument(
        "--plausible-cp",
        type=int,
        default=PLAUSIBLE_CP,
        help="a plausible mistake is within this of the short search's best",
    )
    parser.add_argument(
        "--plausible-lines",
        type=int,
        default=PLAUSIBLE_LINES,
        help="a plausible mistake is among the short search's first N moves",
    )
    parser.add_argument("--max-puzzles", type=int, default=1_000_000)
    parser.add_argument("--checkpoint", type=int, default=1)
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the puzzles of --output and go on after their last source",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fs-command", default=FS_COMMAND)
    args = parser.parse_args(argv)
    variant = args.variant
    jieqi = variant == "jieqi"
    verify_nodes = args.verify_nodes or (20 * JIEQI_ADVANCED_NODES if jieqi else 1_000_000)
    budget = Budget(
        prescan=args.prescan_nodes,
        scan=args.scan_nodes or (40_000 if jieqi else 20_000),
        verify=verify_nodes,
        line=args.line_nodes or (verify_nodes // 4),
        max_solver_moves=args.max_solver_moves,
        deviation_every=args.deviation_every,
        plausible_cp=args.plausible_cp,
        plausible_lines=args.plausible_lines,
    )
    args.output = args.output or DATA / f"{variant}.jsonl"
    jobs: list[Any]
    if variant == "xiangqi":
        if args.source is None:
            parser.error("xiangqi needs --source (a checkout of the CCPD)")
        files = ccpd_files(args.source, args.every, not args.no_sets)[: args.limit]
        jobs = [(name, str(path), budget) for name, path in files]
        work: Callable[[Any], tuple[str, list[Puzzle], dict[str, int]]] = ccpd_job
        print(f"CCPD commit {source_commit(args.source)}, {len(jobs)} files", file=sys.stderr)
    else:
        nodes = args.selfplay_nodes or (2_000 if jieqi else 1_000)
        count = min(args.games, args.limit or args.games)
        jobs = [(variant, args.seed, i, nodes, args.max_plies, budget) for i in range(count)]
        work = selfplay_job
    names = [job[0] if variant == "xiangqi" else f"{args.seed}/{job[2]}" for job in jobs]
    kept: list[dict[str, Any]] = []
    if args.resume:
        kept, first = resume_from(args.output, names)
        jobs = jobs[first:]
        print(f"resuming after {len(kept)} puzzles at source {first}", file=sys.stderr)
    started = time.monotonic()
    with Pool(args.workers, _init_worker, (args.fs_command,)) as pool:
        dropped = collect(pool.imap(work, jobs), args, started, pool.terminate, kept)
    write_puzzles(args.output, kept)
    themes: dict[str, int] = {}
    for row in kept:
        for theme in row["themes"]:
            themes[theme] = themes.get(theme, 0) + 1
    print(
        f"{variant}: {len(kept)} puzzles in {time.monotonic() - started:.0f} s; budget "
        f"{budget}; themes "
        + ", ".join(f"{k} {v}" for k, v in sorted(themes.items()))
        + "; dropped "
        + ", ".join(f"{k} {v}" for k, v in sorted(dropped.items()))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
