"""Jieqi in the search (A3): reasoning over what a face-down piece may be, without peeking.

The engine only ever holds a board rebuilt from its own side's view (no secret). A face-down
piece is valued at the average value of the pieces its side may still turn up
(``unknown_pool``, fixed at the root). The first time a face-down piece moves on a line, the
search averages over what it could turn out to be, each identity weighted by how many such
pieces are unaccounted for (expectimax at that reveal); a reveal further down the line is
searched for one identity, the one nearest the average, its value moved to the average (a second
average would multiply the tree by the pool size again); one ply from the horizon a reveal is
valued where it stands. A face-down piece is worth its pool's average plus a bonus for the kind
whose starting point it stands on (it moves as that kind, Q3; ``HIDDEN_BONUS``, fitted by
``bench/jieqi_tune.py`` on self-play); taking one removes that value.
"""

from __future__ import annotations

import math
from typing import Final

from ..rules.board import Board
from ..rules.geometry import ADVISOR, ELEPHANT, NUM_POINTS
from ..rules.jieqi import JieqiBoard
from .evaluation import Evaluator, _xiangqi_square, build_tables, tuned_jieqi
from .search import INFINITE, Limits, Searcher, VariantRules

# How far a chance node first widens the window of an identity that only gave a bound.
CHANCE_WIDEN: Final = 300
# The share of a move's time after which no new iteration starts (search.SOFT_SHARE is 0.6).
JIEQI_SOFT_SHARE: Final = 0.85

# The value of each kind face up (hand-set: advisor and elephant 230, as they roam the whole
# board, Q4; horse 400, chariot 900, cannon 450, soldier 100; values fitted on self-play lost
# at the board) and what a face-down piece is worth beyond its pool's average, by the kind
# whose starting point it stands on (it moves as that kind, Q3), fitted by bench/jieqi_tune.py
# on self-play: all below the average, most on the advisors' and soldiers' points and in the
# corners. Data in tuned.json.
JIEQI_VALUES, HIDDEN_BONUS = tuned_jieqi()


def _jieqi_square(kind: int, file: int, rank: int) -> int:
    if kind in (ADVISOR, ELEPHANT):
        return 4 * min(file, 8 - file) + (10 if 3 <= rank <= 6 else 0)
    return _xiangqi_square(kind, file, rank)


JIEQI_EVALUATOR: Final = Evaluator(build_tables(JIEQI_VALUES, _jieqi_square), JIEQI_VALUES)


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
        # A jieqi iteration costs several times the last one (chance nodes multiply), so the
        # shared time manager's 0.6 share stopped most searches at 40 % of the budget; and a
        # best move that held says less where every reveal can turn the position round.
        self.soft_share = JIEQI_SOFT_SHARE
        self.settled_factor = 1.0
        # Chance nodes (reveals averaged over every identity) on the current search path.
        self.chances = 0
        self.odds_cache: dict[tuple[int, ...], list[tuple[int, float]]] = {}
        assert isinstance(board, JieqiBoard)
        # The board typed as what it is: its make takes the revealed identity (compiled, a
        # call through Board's make would not pass it).
        self.jieqi_board = board
        # hidden_table[side][point]: the first mover's score of a face-down piece of ``side``
        # on ``point`` (face-down pieces never move, so the root's points are all there are).
        self.hidden_table = self.hidden_values(HIDDEN_BONUS)

    def hidden_values(self, bonus: dict[int, int]) -> list[list[int]]:
        """Per side and point, the first mover's score of the face-down piece there: its
        pool's average plus ``bonus`` for the kind it moves as."""
        board = self.jieqi_board
        table = [[0] * NUM_POINTS, [0] * NUM_POINTS]
        for side in (0, 1):
            average = expected_value(board.unknown_pool(side))
            sign = 1 if side == 0 else -1
            for point in board.face_down:
                piece = board.squares[point]
                if (piece > 0) == (side == 0):
                    table[side][point] = sign * (average + bonus.get(abs(piece), 0))
        return table

    def initial_score(self) -> int:
        board = self.board
        tables = self.tables
        total = self.evaluator.bias
        for point, piece in enumerate(board.squares):
            if not piece:
                continue
            if point in board.face_down:
                total += self.hidden_table[0 if piece > 0 else 1][point]
            else:
                total += tables[piece + 7][point]
        return total

    def _hidden_move(
        self, code: int, depth: int, alpha: int, beta: int, ply: int, score: int, quiescence: bool
    ) -> int | None:
        board = self.jieqi_board
        b = board.squares
        turn = board.turn
        fr = code // NUM_POINTS
        to = code - fr * NUM_POINTS
        face_down = board.face_down
        captured = b[to]
        if to in face_down:
            score -= self.hidden_table[1 - turn][to]
        elif captured:
            score -= self.tables[captured + 7][to]
        if fr not in face_down:  # a face-up piece takes a face-down one
            row = self.tables[b[fr] + 7]
            return self._identity(
                code, None, depth, alpha, beta, ply, score + row[to] - row[fr], quiescence
            )
        score -= self.hidden_table[turn][fr]
        odds_list = self._odds(turn)
        # One ply from the horizon a reveal is valued without searching its identities (the
        # chance nodes there cost most of the tree and their subtrees are single replies).
        if quiescence or depth <= 1:
            return self._reveal_estimate(code, score, odds_list)
        sign = 1 if turn == 0 else -1
        if self.chances:
            # Below the line's first reveal (a second chance node would multiply the tree by the
            # pool size again): the search goes on with one identity, the one whose material on
            # that point is nearest the average, its value moved by its distance from the
            # average. Chosen by the pool and the point, not drawn: a drawn identity let the
            # search pick the lines whose draws happened to be lucky; valuing this reveal where
            # it stood ended every line of reveals (most of the opening) at the second one.
            choices = [(kind, score + self.tables[sign * kind + 7][to]) for kind, _ in odds_list]
            expected = sum(odds * self.tables[sign * kind + 7][to] for kind, odds in odds_list)
            kind, new_score = min(choices, key=lambda c: abs(c[1] - score - expected))
            shift = round((score + expected - new_score) * sign)
            v = self._identity(
                code, kind, depth - 1, alpha - shift, beta - shift, ply, new_score, False
            )
            return None if v is None else v + shift
        # The line's first reveal: a chance node over every identity, one ply shorter (it
        # multiplies the tree by the pool size). Each identity is searched in the node's window
        # shifted by how far its material stands from the average (the mover's view), so that
        # a child's bound is a bound of its share of the average (Ballard's *-minimax with the
        # material as the guess); where the bounds leave the average undecided, the children
        # that only gave a bound are searched again in a wider window, then a full one.
        outcomes = [
            (kind, odds, score + self.tables[sign * kind + 7][to]) for kind, odds in odds_list
        ]
        expected = sum(odds * new_score for _, odds, new_score in outcomes)
        shifts = [round((new_score - expected) * sign) for _, _, new_score in outcomes]
        values: list[int] = []
        bounds: list[int] = []  # 0: exact, -1: an upper bound, 1: a lower bound
        self.chances += 1
        try:
            for (kind, _, new_score), shift in zip(outcomes, shifts, strict=True):
                v = self._identity(
                    code, kind, depth - 1, alpha + shift, beta + shift, ply, new_score, False
                )
                if v is None:
                    return None  # the same for every identity: the mover's point matters
                values.append(v)
                bounds.append(-1 if v <= alpha + shift else 1 if v >= beta + shift else 0)
            for widen in (CHANCE_WIDEN, INFINITE):
                low = high = 0.0
                for (_, odds, _), v, bound in zip(outcomes, values, bounds, strict=True):
                    low += odds * (v if bound >= 0 else -INFINITE)
                    high += odds * (v if bound <= 0 else INFINITE)
                if high <= alpha:
                    return math.floor(high)
                if low >= beta:
                    return math.ceil(low)
                if not any(bounds):
                    break
                for i, (kind, _, new_score) in enumerate(outcomes):
                    if bounds[i]:
                        lo, hi = alpha + shifts[i] - widen, beta + shifts[i] + widen
                        v = self._identity(code, kind, depth - 1, lo, hi, ply, new_score, False)
                        assert v is not None
                        values[i] = v
                        full = widen == INFINITE
                        bounds[i] = 0 if full else -1 if v <= lo else 1 if v >= hi else 0
        finally:
            self.chances -= 1
        return round(sum(odds * v for (_, odds, _), v in zip(outcomes, values, strict=True)))

    def _identity(
        self,
        code: int,
        kind: int | None,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        new_score: int,
        quiescence: bool,
    ) -> int | None:
        """The mover's value of ``code`` played with the identity ``kind`` (None: no reveal),
        searched in the window (alpha, beta); None when it leaves the mover's general attacked.
        """
        board = self.jieqi_board
        turn = board.turn
        undo = board.make(code, kind)
        if board.attacked(board.kings[turn], 1 - turn):
            board.unmake(undo)
            return None
        gives_check = board.attacked(board.kings[1 - turn], turn)
        self.keys.append(board.key)
        self.checks.append(gives_check)
        self.passes.append(False)
        self.codes.append(code)
        try:
            if quiescence:
                return -self._quiesce(-beta, -alpha, ply + 1, new_score, gives_check)
            extend = 1 if gives_check and ply < self.extension_cap else 0
            return -self._search(
                depth + extend, -beta, -alpha, ply + 1, new_score, gives_check, True
            )
        finally:
            self.keys.pop()
            self.checks.pop()
            self.passes.pop()
            self.codes.pop()
            board.unmake(undo)

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
        undo = board.make(code, odds[0][0])
        try:
            if board.attacked(board.kings[turn], 1 - turn):
                return None
            exposed = board.attacked(to, 1 - turn)
        finally:
            board.unmake(undo)
        sign = 1 if turn == 0 else -1
        tables = self.tables
        total = 0.0
        for kind, chance in odds:
            value = (score + tables[sign * kind + 7][to]) * sign
            if exposed:
                value -= JIEQI_VALUES[kind]
            total += chance * value
        return round(total)
