"""Per-variant pieces of the AI: which evaluation, which end-of-game scoring, which board.

A :class:`Profile` is all the search needs to know about a variant (STYLE: variants differ by
data and small hooks). :func:`profile_for` picks it from the board's ``variant``.
"""

from __future__ import annotations

from ..rules.board import PASS_CODE, Board
from .evaluation import XIANGQI_EVALUATOR, Evaluator
from .search import INFINITE, Limits, SearchAborted, Searcher, VariantRules

QUIET_MARGIN = 30


class Profile:
    """The xiangqi profile; janggi and jieqi subclass it."""

    evaluator: Evaluator = XIANGQI_EVALUATOR
    rules: VariantRules = VariantRules()

    def search_board(self, board: Board) -> Board:
        """A private copy of ``board`` for the search to play moves on."""
        return board.copy()

    def evaluator_for(self, board: Board) -> Evaluator:
        return self.evaluator

    def searcher(
        self, board: Board, limits: Limits, noise: dict[int, int] | None = None
    ) -> Searcher:
        return Searcher(board, self.evaluator_for(board), limits, self.rules, noise)

    def is_quiet(self, board: Board) -> bool:
        """No check and no capture that wins material for either side (A5 "quiet")."""
        if board.is_check():
            return False
        searcher = self.searcher(board, Limits(nodes=20_000))
        searcher._check_limits()
        score = searcher.evaluator.full(board.squares)
        try:
            if _capture_gain(searcher, score) > QUIET_MARGIN:
                return False
            undo = board._make(PASS_CODE)  # the other side's turn, as after a null move
            try:
                return _capture_gain(searcher, score) <= QUIET_MARGIN
            finally:
                board._unmake(undo)
        except SearchAborted:
            return False


def _capture_gain(searcher: Searcher, score: int) -> int:
    """What the side to move wins by captures, in centipawns, over standing still."""
    static = score if searcher.board.turn == 0 else -score
    return searcher._quiesce(-INFINITE, INFINITE, 0, score, False) - static


PROFILES: dict[str, Profile] = {"xiangqi": Profile()}


def profile_for(board: Board) -> Profile:
    """The profile of ``board``'s variant. Raises ValueError for a variant without one."""
    try:
        return PROFILES[board.variant]
    except KeyError:
        raise ValueError(f"the AI does not play {board.variant!r}") from None
