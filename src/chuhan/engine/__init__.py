"""The AI: search, evaluation and levels for xiangqi, janggi and jieqi (SPEC A1–A6).

``choose_move(board, level, seed)`` for the AI's move, ``hint(board)`` for the human's,
``accepts_draw(board, engine_side)`` for draw offers, ``choose_setup(side)`` for the janggi
setup, and ``chuhan uci`` (:mod:`chuhan.engine.uci`) for other software.
"""

from .ai import LEVELS, SearchResult, accepts_draw, choose_move, choose_setup, hint

__all__ = ["LEVELS", "SearchResult", "accepts_draw", "choose_move", "choose_setup", "hint"]
