"""Per-variant pieces of the AI: which evaluation, which end-of-game scoring, which board.

A :class:`Profile` is all the search needs to know about a variant (STYLE: variants differ by
data and small hooks). :func:`profile_for` picks it from the board's ``variant``.
"""

from __future__ import annotations

from typing import Final

from ..rules.board import Board
from .evaluation import JANGGI_EVALUATOR, XIANGQI_EVALUATOR, Evaluator
from .jieqi import JIEQI_EVALUATOR, JieqiSearcher
from .search import INFINITE, Limits, SearchAborted, Searcher, VariantRules, toggle_turn

QUIET_MARGIN: Final = 30


class Profile:
    """The xiangqi profile; janggi and jieqi subclass it."""

    evaluator: Evaluator = XIANGQI_EVALUATOR
    rules: VariantRules = VariantRules()
    # Whether a search's tables stay valid for the game's next decision (see ``ai.search``).
    carries_tables: bool = True

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
        score = searcher.initial_score()
        try:
            if _capture_gain(searcher, score) > QUIET_MARGIN:
                return False
            toggle_turn(board)  # the other side's captures, as after a null move
            try:
                return _capture_gain(searcher, score) <= QUIET_MARGIN
            finally:
                toggle_turn(board)
        except SearchAborted:
            return False


def _capture_gain(searcher: Searcher, score: int) -> int:
    """What the side to move wins by captures, in centipawns, over standing still."""
    static = score if searcher.board.turn == 0 else -score
    return searcher._quiesce(-INFINITE, INFINITE, 0, score, False) - static


WIN_ON_POINTS: Final = 20_000


class JanggiRules(VariantRules):
    """Janggi ends by points (J8) after two passes (J6) or a third repetition (J9)."""

    draw_halfmoves = 1 << 30  # janggi has no no-capture draw
    pseudo_legal_search = True  # the search ends the game after two passes itself

    def points_score(self, board: Board) -> int:
        cho, han = board.points()  # type: ignore[attr-defined]
        leader = 0 if cho > han else 1
        return WIN_ON_POINTS if leader == board.turn else -WIN_ON_POINTS

    def repetition_score(self, board: Board, loser: int | None) -> int:
        return self.points_score(board)


class JanggiProfile(Profile):
    evaluator: Evaluator = JANGGI_EVALUATOR
    rules: VariantRules = JanggiRules()


class JieqiProfile(Profile):
    """Jieqi: the search sees only the side to move's view (A3)."""

    carries_tables: bool = False  # a reveal changes the pool the values average over

    def search_board(self, board: Board) -> Board:
        from ..rules.jieqi import JieqiBoard

        assert isinstance(board, JieqiBoard)
        if board.has_secret:
            return JieqiBoard.from_view(board.view(board.turn))
        return board.copy()

    def evaluator_for(self, board: Board) -> Evaluator:
        return JIEQI_EVALUATOR

    def searcher(
        self, board: Board, limits: Limits, noise: dict[int, int] | None = None
    ) -> Searcher:
        return JieqiSearcher(board, limits, self.rules, noise)


PROFILES: Final[dict[str, Profile]] = {
    "xiangqi": Profile(),
    "janggi": JanggiProfile(),
    "jieqi": JieqiProfile(),
}


def profile_for(board: Board) -> Profile:
    """The profile of ``board``'s variant. Raises ValueError for a variant without one."""
    try:
        return PROFILES[board.variant]
    except KeyError:
        raise ValueError(f"the AI does not play {board.variant!r}") from None
