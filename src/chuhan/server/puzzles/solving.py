"""Playing a puzzle (SPEC B9, Z1, Z2): the position after the moves played, the judgement of
a solver's move against the stored line, and what the solver may see. Pure rules, no I/O.

- The stored move at each solver turn is right; at the line's LAST solver move, where the
  stored move mates, any move that mates is right too (the rules decide, no engine). A
  jieqi face-down piece's move is never such an alternative: what it mates with would depend
  on an identity nobody may know yet.
- The board of a jieqi puzzle is rebuilt from the solver's view (no secret, Z2); a face-down
  mover of the line turns into the identity the stored game gave it (``reveals``), which the
  solver learns only once the move is played, as in a game (Q3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...rules import Board, JieqiBoard, RulesError, make_board
from ...rules.notation import write_move
from ..db.puzzles import Puzzle
from ..games.changes import NOTATIONS
from ..games.views import captured_known

FROM_POINT = re.compile(r"[a-i](?:10|[1-9])")


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
