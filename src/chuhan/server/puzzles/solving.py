"""Playing a puzzle (SPEC B9, Z1, Z2): the position after the moves played, the judgement of
a solver's move against the stored line, and what the solver may see. Pure rules, no I/O.

- The stored move at each solver turn is right; at the line's LAST solver move, where the
  stored move mates, any move that mates is right too (the rules decide, no engine). A
  jieqi face-down piece's move is never such an alternative: what it mates with would depend
  on an identity nobody may know yet.
- The board of a jieqi puzzle is rebuilt from the solver's view (no secret, Z2); a face-down
  mover of the line turns into the identity the stored game gave it (``reveals``), which the
  solver learns only once the move is played, as in a game (Q3).
- What a puzzle shows depends only on its position, its line and the moves played, none of
  which change once it is stored (a loaded puzzle is never rewritten; only its rating and
  plays move): :func:`shown` keeps what it worked out in memory, so serving the next puzzle
  or a move's answer replays no board that was replayed before (a bounded number of them).
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ...rules import Board, JieqiBoard, RulesError, make_board
from ...rules.notation import write_move
from ..db.puzzles import Puzzle
from ..games.changes import NOTATIONS
from ..games.views import captured_known

FROM_POINT = re.compile(r"[a-i](?:10|[1-9])")
SHOWN_KEPT = 20_000  # what :func:`shown` keeps (a few KB each): every state of ~2,000 puzzles
T = TypeVar("T")


@dataclass(frozen=True)
class Verdict:
    """A solver's move judged: ``right``; ``done`` when it ends the line (solved);
    ``reply`` the opponent's stored answer when the line goes on."""

    right: bool
    done: bool
    reply: str | None = None


def start_board(puzzle: Puzzle) -> Board:
    """The puzzle's position, the solver to move. Raises RulesError for one that does not
    hold together."""
    if puzzle.variant == "jieqi":
        if puzzle.view is None:
            raise RulesError("a jieqi puzzle needs its view")
        return JieqiBoard.from_view(puzzle.view)
    return make_board(puzzle.variant, puzzle.fen)


def _reveal(puzzle: Puzzle, index: int) -> str | None:
    if puzzle.reveals is None or index >= len(puzzle.reveals):
        return None
    return puzzle.reveals[index]


def push(board: Board, puzzle: Puzzle, index: int, move: str) -> None:
    """Play the line's move number ``index`` (or a solver's other mating move) on ``board``."""
    reveal = _reveal(puzzle, index) if move == puzzle.moves[index] else None
    if isinstance(board, JieqiBoard) and reveal is not None:
        board.push(move, reveal=reveal)
    else:
        board.push(move)


def board_after(puzzle: Puzzle, played: list[str]) -> Board:
    """The puzzle's board after the moves ``played`` (the line's, the last perhaps another
    mating move)."""
    board = start_board(puzzle)
    for index, move in enumerate(played):
        push(board, puzzle, index, move)
    return board


def mates(board: Board, move: str, reveal: str | None = None) -> bool:
    """Whether ``move`` (legal on ``board``; jieqi: a face-down mover's ``reveal``) ends the
    game in the mover's win."""
    mover = board.turn
    after = board.copy()
    if isinstance(after, JieqiBoard) and reveal is not None:
        after.push(move, reveal=reveal)
    else:
        after.push(move)
    outcome = after.outcome()
    return outcome is not None and outcome.winner == mover


def judge(puzzle: Puzzle, played: list[str], move: str) -> Verdict:
    """The solver's ``move`` after ``played`` (the solver to move). Raises RulesError for a
    move that is not legal here (refused: it is no answer)."""
    board = board_after(puzzle, played)
    legal = set(board.legal_move_texts())
    if move not in legal:
        raise RulesError(f"{move} is not a legal move here")
    index = len(played)
    stored = puzzle.moves[index]
    last = index == len(puzzle.moves) - 1
    right = move == stored
    if not right and last and mates(board, stored, _reveal(puzzle, index)):
        code = board.parse_move(move).code
        face_down = isinstance(board, JieqiBoard) and board.needs_reveal(code)
        right = not face_down and mates(board, move)
    if not right:
        return Verdict(False, True)
    if last:
        return Verdict(True, True)
    return Verdict(True, False, puzzle.moves[index + 1])


def hint_point(puzzle: Puzzle, played: list[str]) -> str:
    """The point of the piece the solver should move now (a hint shows no more); ``pass``
    where the answer is a janggi pass."""
    found = FROM_POINT.match(puzzle.moves[len(played)])
    return found[0] if found else "pass"


def notations(puzzle: Puzzle, moves: list[str]) -> dict[str, list[str]]:
    """``moves`` (from the puzzle's start) in the variant's notations (N2, N3)."""
    names = NOTATIONS.NOTATIONS[puzzle.variant]
    written: dict[str, list[str]] = {name: [] for name in names}
    if not moves:
        return written
    board = start_board(puzzle)
    for index, move in enumerate(moves):
        reveal = _reveal(puzzle, index) if move == puzzle.moves[index] else None
        for name in names:
            written[name].append(write_move(board, move, name, reveal))
        push(board, puzzle, index, move)
    return written


def position(puzzle: Puzzle, played: list[str], over: bool) -> dict[str, Any]:
    """What the solver sees after ``played``: the public FEN (jieqi: face-down pieces as
    ``X``/``x``, Z2), whose turn, check, the last move, the legal moves while it is the
    solver's turn in an attempt still going, the captured pieces (jieqi: as the solver
    knows them) and the moves in the variant's notations."""
    board = board_after(puzzle, played)
    solver = board.turn if len(played) % 2 == 0 else 1 - board.turn
    names = board.SIDE_NAMES
    state: dict[str, Any] = {
        "fen": board.fen(),
        "turn": names[board.turn],
        "in_check": board.is_check(),
        "last_move": played[-1] if played else None,
        "legal_moves": (
            list(board.legal_move_texts()) if not over and board.turn == solver else []
        ),
        "moves": list(played),
        "notation": notations(puzzle, played),
    }
    if isinstance(board, JieqiBoard):
        state["captured"] = captured_known(board, solver)
    return state


@dataclass(frozen=True)
class Start:
    """A puzzle's start as the solver sees it: the solver's side name and the FEN."""

    solver: str
    fen: str


def start(puzzle: Puzzle) -> Start:
    board = start_board(puzzle)
    return Start(board.SIDE_NAMES[board.turn], board.fen())


def solution(puzzle: Puzzle) -> dict[str, Any]:
    """The whole line as shown once the attempt is over: the moves, their notations and
    the FEN after them."""
    line = list(puzzle.moves)
    return {
        "moves": line,
        "notation": notations(puzzle, line),
        "fen": board_after(puzzle, line).fen(),
    }


_shown: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_shown_lock = threading.Lock()


def _identity(puzzle: Puzzle) -> tuple[Any, ...]:
    """What a puzzle's boards depend on (not its rating nor its plays)."""
    view = json.dumps(puzzle.view, sort_keys=True) if puzzle.view is not None else None
    reveals = puzzle.reveals or ()
    return (puzzle.id, puzzle.variant, puzzle.fen, tuple(puzzle.moves), view, *reveals)


def shown(puzzle: Puzzle, part: str, make: Callable[[], T], *state: Any) -> T:
    """``make()``, worked out once per puzzle, ``part`` and ``state`` (e.g. the moves played)
    and kept (the last :data:`SHOWN_KEPT` used). What it returns is shared: never changed
    by a caller."""
    key = (_identity(puzzle), part, *state)
    with _shown_lock:
        found = _shown.get(key)
        if found is not None:
            _shown.move_to_end(key)
            return cast(T, found)
    made = make()
    with _shown_lock:
        _shown[key] = made
        while len(_shown) > SHOWN_KEPT:
            _shown.popitem(last=False)
    return made
