"""Jieqi in the search (A3): reasoning over what a face-down piece may be, without peeking.

The engine only ever holds a board rebuilt from its own side's view (no secret). A face-down
piece is valued at the average value of the pieces its side may still turn up
(``unknown_pool``, fixed at the root). When a face-down piece moves, the search averages over
what it could turn out to be, each identity weighted by how many such pieces are unaccounted
for (expectimax at reveal nodes); taking a face-down piece removes its expected value.
"""

from __future__ import annotations

from ..rules.board import Board
from ..rules.geometry import ADVISOR, CANNON, CHARIOT, ELEPHANT, HORSE, KING, NUM_POINTS, SOLDIER
from ..rules.jieqi import JieqiBoard
from .evaluation import Evaluator, _xiangqi_square, build_tables
from .search import Limits, Searcher, VariantRules

# Face-up advisors and elephants roam the whole board in jieqi (Q4): worth more than at home.
JIEQI_VALUES = {KING: 0, ADVISOR: 230, ELEPHANT: 230, HORSE: 400, CHARIOT: 900, CANNON: 450,
                SOLDIER: 100}


def _jieqi_square(kind: int, file: int, rank: int) -> int:
    if kind in (ADVISOR, ELEPHANT):
        return 4 * min(file, 8 - file) + (10 if 3 <= rank <= 6 else 0)
    return _xiangqi_square(kind, file, rank)


JIEQI_EVALUATOR = Evaluator(build_tables(JIEQI_VALUES, _jieqi_square), JIEQI_VALUES)


def reveal_odds(pool: dict[int, int]) -> list[tuple[int, float]]:
    """``[(kind, probability), …]`` of what one face-down piece is, from an unknown pool."""
    total = sum(pool.values())
    return [(kind, count / total) for kind, count in sorted(pool.items()) if count > 0]


def expected_value(pool: dict[int, int]) -> int:
    """The average value (centipawns) of a piece drawn from ``pool``; 0 for an empty pool."""
    total = sum(pool.values())
    if not total:
        return 0
    return sum(JIEQI_VALUES[kind] * count for kind, count in pool.items()) // total


_GOLDEN = 0x9E3779B97F4A7C15  # spreads move codes over the key's bits (Fibonacci hashing)
_MASK = (1 << 64) - 1


def _draw(
    outcomes: list[tuple[int | None, float, int]], key: int
) -> tuple[int | None, float, int]:
    """One of ``outcomes`` (kind, odds, score), drawn by its odds from the 64-bit ``key``."""
    point = ((key & _MASK) >> 11) / float(1 << 53)  # uniform in [0, 1)
    for outcome in outcomes:
        point -= outcome[1]
        if point < 0:
            return outcome
    return outcomes[-1]


class JieqiSearcher(Searcher):
    """A :class:`Searcher` for a jieqi view board: chance nodes where a piece turns face up."""

    def __init__(
        self,
        board: Board,
        limits: Limits,
        rules: VariantRules | None = None,
        root_noise: dict[int, int] | None = None,
    ) -> None:
        super().__init__(board, JIEQI_EVALUATOR, limits, rules, root_noise)
        # Chance nodes (reveals averaged over every identity) on the current search path.
        self.chances = 0
        self.odds_cache: dict[tuple[int, ...], list[tuple[int, float]]] = {}
        assert isinstance(board, JieqiBoard)
        # The board typed as what it is: its _make takes the revealed identity (compiled, a
        # call through Board's _make would not pass it).
        self.jieqi_board = board
        pools = [board.unknown_pool(side) for side in (0, 1)]
        # First mover's score of one face-down piece of each side.
        self.hidden_score = (expected_value(pools[0]), -expected_value(pools[1]))

    def initial_score(self) -> int:
        board = self.board
        tables = self.tables
        total = self.evaluator.bias
        for point, piece in enumerate(board.squares):
            if not piece:
                continue
            if point in board.face_down:
                total += self.hidden_score[0 if piece > 0 else 1]
            else:
                total += tables[piece + 7][point]
        return total

    def _hidden_move(
        self, code: int, depth: int, alpha: int, beta: int, ply: int, score: int, quiescence: bool
    ) -> int | None:
        board = self.jieqi_board
        b = board.squares
        turn = board.turn
        fr, to = divmod(code, NUM_POINTS)
        face_down = board.face_down
        captured = b[to]
        if to in face_down:
            score -= self.hidden_score[1 - turn]
        elif captured:
            score -= self.tables[captured + 7][to]
        if fr in face_down:
            score -= self.hidden_score[turn]
            sign = 1 if turn == 0 else -1
            odds_list = self._odds(turn)
            # One ply from the horizon a reveal is valued without searching every identity:
            # the chance nodes there cost most of the tree and their subtrees are single
            # replies.
            if quiescence or depth <= 1:
                return self._reveal_estimate(code, score, odds_list)
            outcomes: list[tuple[int | None, float, int]] = [
                (kind, odds, score + self.tables[sign * kind + 7][to]) for kind, odds in odds_list
            ]
        else:
            row = self.tables[b[fr] + 7]
            outcomes = [(None, 1.0, score + row[to] - row[fr])]
        make = board._make
        attacked = board._attacked
        kings = board.kings
        reveal = fr in face_down
        correction = 0
        if reveal and self.chances:
            # A reveal below another one on the path: one identity, drawn from the pool by the
            # position (so the table sees the same draw again), its material shifted to the
            # pool's average. Averaging every identity here too multiplied the tree by the
            # pool size at each reveal on the path, and nearly every early move is one.
            sign = 1 if turn == 0 else -1
            expected = sum(odds * new_score for _, odds, new_score in outcomes)
            drawn = _draw(outcomes, board.key ^ (code * _GOLDEN))
            correction = round((expected - drawn[2]) * sign)
            outcomes = [(drawn[0], 1.0, drawn[2])]
        elif reveal and depth >= 2:
            # The first reveal on the path is a chance node over every identity, one ply
            # shorter: it multiplies the tree by the pool size.
            depth -= 1
        if reveal:
            self.chances += 1
        try:
            total = 0.0
            for kind, odds, new_score in outcomes:
                undo = make(code, kind)
                if attacked(kings[turn], 1 - turn):
                    board._unmake(undo)
                    return None  # the same for every identity: the mover's point matters
                gives_check = attacked(kings[1 - turn], turn)
                self.keys.append(board.key)
                self.checks.append(gives_check)
                self.passes.append(False)
                self.codes.append(code)
                try:
                    if quiescence:
                        v = -self._quiesce(-beta, -alpha, ply + 1, new_score, gives_check)
                    else:
                        extend = 1 if gives_check and ply < self.extension_cap else 0
                        v = -self._search(depth + extend, -beta, -alpha, ply + 1, new_score,
                                          gives_check, True)
                finally:
                    self.keys.pop()
                    self.checks.pop()
                    self.passes.pop()
                    self.codes.pop()
                    board._unmake(undo)
                total += odds * v
        finally:
            if reveal:
                self.chances -= 1
        return round(total) + correction

    def _odds(self, side: int) -> list[tuple[int, float]]:
        """:func:`reveal_odds` of ``side``'s unknown pool, cached by the pool's counts."""
        counts = tuple(self.jieqi_board.pool[side])
        odds = self.odds_cache.get(counts)
        if odds is None:
            odds = reveal_odds(self.jieqi_board.unknown_pool(side))
            self.odds_cache[counts] = odds
        return odds

    def _reveal_estimate(self, code: int, score: int, odds: list[tuple[int, float]]) -> int | None:
        """A reveal at the horizon, valued without searching every identity: the average
        score after it (``score``: the first mover's, the mover already lifted off), less the
        mover's expected value when the opponent can take back on that point. Returns None
        when the move is illegal.
        """
        board = self.jieqi_board
        turn = board.turn
        to = code % NUM_POINTS
        undo = board._make(code, odds[0][0])
        try:
            if board._attacked(board.kings[turn], 1 - turn):
                return None
            exposed = board._attacked(to, 1 - turn)
        finally:
            board._unmake(undo)
        sign = 1 if turn == 0 else -1
        tables = self.tables
        total = 0.0
        for kind, chance in odds:
            value = (score + tables[sign * kind + 7][to]) * sign
            if exposed:
                value -= JIEQI_VALUES[kind]
            total += chance * value
        return round(total)
