"""The JSON state of a board: what ``chuhan game`` prints and the server builds on."""

from __future__ import annotations

from typing import Any

from .board import Board


def game_state(board: Board, view: str | None = None) -> dict[str, Any]:
    """The board's current position as a JSON-ready dict.

    Keys: ``fen``, ``turn``, ``status`` (``ongoing``/``finished``), ``winner``, ``reason``,
    ``in_check``, ``legal_moves`` (empty once finished), ``points`` when the end is decided by
    points (janggi), ``ruling`` when a repetition was judged (see
    :func:`~chuhan.rules.wxf.ruling_json`), then the variant's own fields as seen by ``view``
    (a side name, or None for everything the board knows).
    """
    outcome = board.outcome()
    names = board.SIDE_NAMES
    state: dict[str, Any] = {
        "fen": board.fen(),
        "turn": names[board.turn],
        "status": "finished" if outcome else "ongoing",
        "winner": names[outcome.winner] if outcome and outcome.winner is not None else None,
        "reason": outcome.reason if outcome else None,
        "in_check": board.is_check(),
        "legal_moves": [] if outcome else list(board.legal_move_texts()),
    }
    if outcome and outcome.ruling is not None:
        state["ruling"] = outcome.ruling  # the evidence of a repetition verdict (E1, WXF)
    if outcome and outcome.points is not None:
        state["points"] = {names[0]: outcome.points[0], names[1]: outcome.points[1]}
    state.update(board.extra_state(view))
    return state
