"""Engine analysis of a game (N4): each position evaluated at a fixed node budget, each
move judged by how much it lost.

:func:`evaluate` gives one position's :class:`Evaluation` (score for the side to move, best
move) with our engine, or with any UCI engine that speaks the variant (``engine_path``, e.g.
Debian's ``/usr/games/fairy-stockfish`` for xiangqi and janggi; jieqi always uses ours, which
searches a player's *view* and averages over what a face-down piece may be, A3).
:func:`judge` turns the evaluations before and after a move into the centipawns it lost and
its class:

- ``inaccuracy``: it lost at least :data:`INACCURACY` (60) centipawns,
- ``mistake``: at least :data:`MISTAKE` (150), about a soldier and a half,
- ``blunder``: at least :data:`BLUNDER` (300), about a horse or a cannon less a soldier.

Scores are clamped to ±:data:`SCORE_CAP` first, so a missed mate counts as a blunder and a
mate already on the board makes no difference between two winning moves. The server decides
which views are evaluated (jieqi: the mover's own, Z2) and where the work runs.

An evaluation explains itself: ``mate`` (moves to mate, signed, for the side to
move) and the engine's line ``pv`` (at most :data:`LINE_MOVES` moves, each legal in turn),
written on the evaluated board in each notation of the variant (``line``). On a jieqi view
the line ends with the first move that turns a piece face up: what it turns into is chance
to the viewer, and the line is written on the viewer's board, so it never names it (Z2).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..rules import RulesError, make_board
from ..rules.board import Board, Move
from ..rules.geometry import KIND_LETTERS
from ..rules.jieqi import JieqiBoard
from ..rules.notation import write_move
from ..rules.record import push_played
from .search import MATE, MATE_BOUND, Limits

ANALYSIS_NODES = 8_000  # per position: about 0.25 s of our engine on one core
INACCURACY, MISTAKE, BLUNDER = 60, 150, 300
SCORE_CAP = 1_500
UCI_VARIANTS = {"xiangqi": "xiangqi", "janggi": "janggicasual"}
UCI_VARIANTS_BIKJANG = {"janggi": "janggi"}
OURS = "chuhan"
LINE_MOVES = 5
# The notations a line is written in: those of the game's move list (its state's
# ``notation``) and coordinates.
LINE_NOTATIONS = {
    "xiangqi": ("coords", "wxf", "chinese"),
    "jieqi": ("coords", "wxf", "chinese"),
    "janggi": ("coords", "korean"),
}


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One position: ``score`` in centipawns for the side to move (``±SCORE_CAP`` or more for
    a mate), ``best`` the engine's move (canonical text; None when the game is over there),
    ``engine`` who said so, ``pv`` the line it expects from ``best`` on (canonical texts) and
    ``line`` that line in each notation of the variant."""

    score: int
    best: str | None
    engine: str
    pv: tuple[str, ...] = ()
    line: dict[str, list[str]] = field(default_factory=dict)

    @property
    def mate(self) -> int | None:
        return mate_in(self.score)

    def as_json(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "best": self.best,
            "engine": self.engine,
            "mate": self.mate,
            "pv": list(self.pv),
            "line": self.line,
        }


def mate_in(score: int) -> int | None:
    """Moves to mate for the side to move scored ``score``: N when it mates in N, -N when it
    is mated in N, 0 when it is mated (or stalemated, X5) already; None for no mate."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return None


def playable_line(board: Board, moves: Sequence[str]) -> tuple[str, ...]:
    """The longest start of ``moves`` legal in turn from ``board`` (left unchanged), at most
    :data:`LINE_MOVES`; it ends with the first jieqi move that turns a piece face up (Z2)."""
    replay = board.copy()
    line: list[str] = []
    for text in moves[:LINE_MOVES]:
        try:
            move = replay.parse_move(text)
        except RulesError:
            break
        line.append(str(move))
        if move.from_point in replay.face_down:
            break  # what turns up is chance to the viewer: nothing after it is known
        push_played(replay, move)
    return tuple(line)


def write_line(board: Board, line: Sequence[str]) -> dict[str, list[str]]:
    """``line`` (from :func:`playable_line`) written from ``board``'s position in each notation
    of the variant. A jieqi view board cannot know what a face-down piece turns into, so its
    lines carry no reveal mark (Z2)."""
    out: dict[str, list[str]] = {}
    for notation in LINE_NOTATIONS[board.variant]:
        replay = board.copy()
        texts = []
        for index, text in enumerate(line):
            texts.append(write_move(replay, text, notation))
            if index + 1 < len(line):
                push_played(replay, text)
        out[notation] = texts
    return out


def clamp(score: int) -> int:
    return max(-SCORE_CAP, min(SCORE_CAP, score))


def classify(loss: int) -> str | None:
    """``blunder``, ``mistake``, ``inaccuracy`` or None for a move that lost ``loss``."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def judge(before: int, after: int, played: str, best: str | None) -> tuple[int, str | None]:
    """The centipawns a move lost and its class. ``before`` is the position before the move
    and ``after`` the one after it, both scored for the mover; the engine's own move loses
    nothing (a fixed-node search may see it a little differently one ply later)."""
    if best is not None and played == best:
        return 0, None
    loss = max(0, clamp(before) - clamp(after))
    return loss, classify(loss)


def position_board(
    variant: str,
    fen: str | None,
    options: dict[str, Any],
    moves: tuple[str, ...] | list[str],
    view: dict[str, Any] | None = None,
) -> Board:
    """The board to evaluate: a jieqi player's ``view`` (never the secret), else ``moves``
    played from ``fen`` with ``options``, also past where our rules ended a game that its
    players went on with (an imported record). Raises RulesError for what does not fit."""
    if view is not None:
        return JieqiBoard.from_view(view)
    board = make_board(variant, fen, **options)
    for text in moves:
        push_played(board, text)
    return board


def evaluate(
    board: Board, nodes: int = ANALYSIS_NODES, engine_path: str | None = None
) -> Evaluation:
    """The position on ``board`` (left unchanged) at a budget of ``nodes``.

    A position without legal moves is lost for the side to move (no search). Every other
    end our rules know (a repetition…) is searched like any position: records played on past
    it are analysed as played. ``engine_path``: a UCI engine for xiangqi and janggi.
    """
    if not board.legal_moves:
        return Evaluation(-MATE, None, OURS)
    if engine_path and board.variant in UCI_VARIANTS:
        found = _uci_engine(engine_path).evaluate(board, nodes)
    else:
        from .ai import search  # the search, with the variant's profile (jieqi: expectimax)

        result = search(board, Limits(depth=48, nodes=nodes))
        found = Evaluation(result.score, str(result.move), OURS, tuple(result.pv))
    if found.best is None:
        return found
    expected = found.pv if found.pv[:1] == (found.best,) else (found.best,)
    pv = playable_line(board, expected)
    return replace(found, pv=pv, line=write_line(board, pv))


def evaluate_after(
    board: Board, move: str, nodes: int = ANALYSIS_NODES, engine_path: str | None = None
) -> Evaluation:
    """The position after ``move`` on ``board`` (left unchanged) as its mover could foresee
    it: ``score`` for the side to move then, without a best move or line.

    On a jieqi view (A3, Z2) a move that turns the mover's piece face up is averaged over what
    the piece may be (each identity its side's unknown pool holds, weighted by its count; each
    outcome searched with an equal share of ``nodes`` and clamped to ±:data:`SCORE_CAP`), and
    a face-down piece it takes stays unknown (the pool keeps it, so it is worth its pool's
    average): a move is judged by its expected value, not by its luck. Raises RulesError for
    a move that is not legal there.
    """
    if not isinstance(board, JieqiBoard) or not board.needs_reveal(board.parse_move(move).code):
        after = board.copy()
        push_played(after, move)
        found = evaluate(after, nodes, engine_path)
        return Evaluation(found.score, None, found.engine)
    from .jieqi import reveal_odds

    odds = reveal_odds(board.unknown_pool(board.turn))
    share = max(1, nodes // len(odds))
    expected = 0.0
    for kind, chance in odds:
        after = board.copy()
        push_played(after, move, reveal=KIND_LETTERS[kind])
        expected += chance * clamp(evaluate(after, share).score)
    return Evaluation(round(expected), None, OURS)


def run_position(job: dict[str, Any], engine_path: str | None = None) -> dict[str, Any]:
    """One position of an analysis as plain data (what an AI worker runs): ``job`` holds
    ``variant``, ``fen``, ``options``, ``moves``, ``view``, ``nodes``. A jieqi ``view`` with
    one move in ``moves`` asks for the position after that move as its mover foresaw it
    (:func:`evaluate_after`).

    The search runs in a thread of the lowest CPU priority (nice 19; on Linux a thread's
    own), so that a live game's search in another worker gets the processor first; the
    worker's own thread keeps its priority for the next job.
    """
    view = job.get("view")
    moves = job.get("moves") or ()
    board = position_board(job["variant"], job.get("fen"), job.get("options") or {}, moves, view)
    nodes = int(job.get("nodes") or ANALYSIS_NODES)
    outcome: dict[str, Any] = {}

    def work() -> None:
        _lowest_priority(threading.get_native_id())
        try:
            if view is not None and moves:  # a jieqi move as its mover foresaw it (A3)
                found = evaluate_after(board, moves[0], nodes)
            else:
                found = evaluate(board, nodes, engine_path)
            outcome["answer"] = found.as_json()
        except BaseException as exc:  # handed to the worker's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=work, name="analysis")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return dict(outcome["answer"])


def _lowest_priority(task_id: int) -> None:
    """Nice 19 for a thread (Linux) or process; quietly nothing where that is not allowed."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, task_id, 19)


# ---------------------------------------------------------------------------- UCI engines


class UciAnalyser:
    """A UCI engine process (Fairy-Stockfish or any other that speaks the variant), kept for
    every position it is asked about. Thread-safe: one question at a time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = path
        self.variant: str | None = None
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        _lowest_priority(self._process.pid)  # analyses come after live games (run_position)
        self._send("uci")
        for line in self._lines_until("uciok"):
            if line.startswith("id name "):
                self.name = line.removeprefix("id name ").strip()

    def _send(self, command: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(command + "\n")
        self._process.stdin.flush()

    def _lines_until(self, prefix: str) -> list[str]:
        assert self._process.stdout is not None
        lines = []
        while True:
            line = self._process.stdout.readline()
            if not line:
                raise RuntimeError(f"the UCI engine {self.path} stopped")
            lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return lines

    def evaluate(self, board: Board, nodes: int) -> Evaluation:
        start = board.copy()
        while start.ply:
            start.pop()
        moves = [_uci_move(board_at, move) for board_at, move in _replay(start, board.move_stack)]
        bikjang = getattr(board, "bikjang", "off") != "off"
        variant = (UCI_VARIANTS_BIKJANG if bikjang else UCI_VARIANTS)[board.variant]
        with self._lock:
            if variant != self.variant:
                self._send(f"setoption name UCI_Variant value {variant}")
                self.variant = variant
            self._send("ucinewgame")
            tail = f" moves {' '.join(moves)}" if moves else ""
            self._send(f"position fen {start.fen()}{tail}")
            self._send(f"go nodes {nodes}")
            lines = self._lines_until("bestmove")
        score = 0
        pv: list[str] = []
        for line in lines:
            words = line.split()
            if "score" in words:
                kind, value = words[words.index("score") + 1 : words.index("score") + 3]
                score = int(value) if kind == "cp" else _mate_score(int(value))
            if "pv" in words:  # the line of the deepest search so far
                pv = words[words.index("pv") + 1 :]
        best = lines[-1].split()[1]
        expected: list[str] = []
        for text in pv:
            move = _our_move(text)
            if move is None:
                break
            expected.append(move)
        return Evaluation(score, _our_move(best), f"uci:{self.name}", tuple(expected))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._send("quit")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=2)
        if self._process.poll() is None:
            self._process.kill()


def _mate_score(moves: int) -> int:
    plies = 2 * moves - 1 if moves > 0 else -2 * moves
    return MATE - plies if moves > 0 else -(MATE - plies)


def _replay(start: Board, moves: list[Move]) -> list[tuple[Board, Move]]:
    out = []
    board = start.copy()
    for move in moves:
        out.append((board.copy(), move))
        push_played(board, move)
    return out


def _uci_move(board: Board, move: Move) -> str:
    from .uci import uci_move_text

    return uci_move_text(board, move.code)


def _our_move(text: str) -> str | None:
    """A move of the engine (``bestmove``, a ``pv`` move) as our canonical text (a janggi
    pass is the general's point twice in UCI); None for ``(none)``."""
    if len(text) < 4 or text == "(none)":
        return None
    half = len(text) // 2
    if text[:half] == text[half:]:
        return "pass"
    return text


_ENGINES: dict[str, UciAnalyser] = {}
_ENGINES_LOCK = threading.Lock()


def _uci_engine(path: str) -> UciAnalyser:
    """One engine process per path and worker process, started on first use."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(path)
        if engine is None or engine._process.poll() is not None:
            engine = _ENGINES[path] = UciAnalyser(path)
        return engine
