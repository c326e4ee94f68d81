"""Static evaluation: material and piece-square tables per variant, kept incrementally.

The search carries one number, the first mover's score in centipawns, and updates it per move
with :meth:`Evaluator.delta` (three table reads) instead of rescanning the board. Every table
is indexed ``[piece + 7][point]`` with the sign folded in: a second-mover piece reads the
mirrored point and counts negatively, and row 7 (an empty point) is all zeros, so the delta of a
quiet move and of a capture are the same expression.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Final

from ..rules.geometry import (
    ADVISOR,
    CANNON,
    CHARIOT,
    ELEPHANT,
    HORSE,
    HORSE_MOVES,
    KING,
    NUM_POINTS,
    RAYS,
    SOLDIER,
)

Table = list[list[int]]
Bonus = dict[int, tuple[tuple[int, ...], ...]]

_KINDS: Final = {
    "king": KING,
    "advisor": ADVISOR,
    "elephant": ELEPHANT,
    "horse": HORSE,
    "chariot": CHARIOT,
    "cannon": CANNON,
    "soldier": SOLDIER,
}


def _tuned(variant: str) -> tuple[dict[int, int], Bonus]:
    """The tuned piece values and per-point bonuses of ``variant`` (``tuned.json``, written by
    ``bench/tune.py``): a value in centipawns per kind and, per kind, the bonus on each point
    from the owner's side: row 0 is its back rank, columns the files a-e (f-i mirror them); the
    rows stop at the farthest rank the kind can reach (none beyond it). A value is the mean over
    the points where the kind stood in the games."""
    # The package's file, not this module's neighbour: a compiled build of this module lives
    # outside the package (chuhan/native.py).
    text = resources.files("chuhan.engine").joinpath("tuned.json").read_text()
    weights = json.loads(text)[variant]
    values = {_KINDS[name]: int(value) for name, value in weights["values"].items()}
    bonus = {
        _KINDS[name]: tuple(tuple(int(b) for b in row) for row in rows)
        for name, rows in weights["bonus"].items()
    }
    return values, bonus


def tuned_jieqi() -> tuple[dict[int, int], dict[int, int]]:
    """Jieqi's value of each kind face up and the bonus of a face-down piece by the kind whose
    starting point it stands on (``tuned.json``'s ``jieqi`` entry, ``bench/jieqi_tune.py``)."""
    text = resources.files("chuhan.engine").joinpath("tuned.json").read_text()
    weights = json.loads(text)["jieqi"]
    values = {KING: 0} | {_KINDS[name]: int(v) for name, v in weights["values"].items()}
    return values, {_KINDS[name]: int(v) for name, v in weights["hidden"].items()}


# The xiangqi weights, fitted to the results of master games by ``bench/tune.py`` (A1)
# from the hand-set A1 values (advisor and elephant 200, horse 400, chariot 900, cannon 450,
# soldier 100 at home) and bonuses (``_xiangqi_square``, still jieqi's). The values and tables
# are data (tuned.json); the block below holds the tuned weights the search reads per node.
XIANGQI_VALUES, XIANGQI_BONUS = _tuned("xiangqi")
# --- tuned by bench/tune.py: do not edit by hand, rerun it (see its docstring) ---
# Centipawns per point a chariot, horse, cannon can move to (``mobility``), and
# per missing defender and attacker unit (``general_safety``).
CHARIOT_MOBILITY: Final = 4
HORSE_MOBILITY: Final = 6
XIANGQI_CANNON_MOBILITY: Final = 5
SAFETY_WEIGHT: Final = 12
# More than the mobility balance of any ordinary position (99.9 % of the games'
# positions): see ``Searcher._leaf_score``.
MOBILITY_MARGIN: Final = 140
# --- end of the tuned weights ---

# The janggi weights, fitted by ``bench/tune.py --variant janggi`` (A1) to the results of
# Fairy-Stockfish self-play (``bench/janggi_games.py``), from J8's points × 100 (chariot 13,
# cannon 7, horse 5, elephant 3, advisor 3, soldier 2; Han's 1.5) and the hand-set bonuses.
JANGGI_VALUES, JANGGI_BONUS = _tuned("janggi")
# --- tuned by bench/tune.py --variant janggi: do not edit by hand, rerun it ---
# Han's 1.5 points (J8), in centipawns, that the first mover's score starts
# behind by.
JANGGI_SECOND_MOVER_BONUS: Final = 132
# --- end of the tuned janggi weights ---

_CENTRE: Final = (0, 1, 2, 3, 4, 3, 2, 1, 0)  # distance-from-edge score per file


def _xiangqi_square(kind: int, file: int, rank: int) -> int:
    """The hand-set positional bonus of a first-mover piece of ``kind`` on (file, rank) under
    xiangqi rules: jieqi's tables (its face-up pieces move as in xiangqi), and the start of
    the tuning that made the xiangqi tables (:data:`XIANGQI_BONUS`)."""
    centre = _CENTRE[file]
    if kind == SOLDIER:
        if rank <= 4:  # before the river: the centre soldier and the third/seventh matter
            return 10 if file == 4 else (5 if file in (2, 6) else 0)
        if rank == 9:  # on the last rank it can only walk sideways
            return 30 + (20 if 3 <= file <= 5 else 0)
        palace_file = 3 <= file <= 5
        return (
            80
            + 12 * centre
            + (25 if palace_file and rank in (6, 7, 8) else 0)
            + (10 if rank in (6, 7) else 0)
        )
    if kind == HORSE:
        rank_bonus = (-10, 0, 5, 10, 15, 25, 30, 35, 20, 0)[rank]
        near_palace = 20 if rank in (7, 8) and 2 <= file <= 6 else 0
        return rank_bonus + 6 * min(centre, 3) - (15 if file in (0, 8) else 0) + near_palace
    if kind == CHARIOT:
        rank_bonus = (-5, 5, 0, 5, 10, 15, 20, 25, 20, 10)[rank]
        file_bonus = (0, 5, 5, 12, 5, 12, 5, 5, 0)[file]
        corner = -10 if rank == 0 and file in (0, 8) else 0
        return rank_bonus + file_bonus + corner
    if kind == CANNON:
        file_bonus = (-10, 0, 0, 5, 20, 5, 0, 0, -10)[file]
        rank_bonus = (0, 5, 5, 0, 0, 0, 5, 5, 0, 0)[rank]
        return file_bonus + rank_bonus
    if kind == ADVISOR:
        return 10 if (file, rank) == (4, 1) else 0
    if kind == ELEPHANT:
        return 10 if (file, rank) == (4, 2) else (-5 if file in (0, 8) else 0)
    if kind == KING:
        return (5, -10, -25)[min(rank, 2)] - (5 if file != 4 else 0)
    return 0


def general_safety(counts: list[int]) -> int:
    """The first mover's general-safety balance from piece counts (``counts[piece + 7]``).

    Each advisor or elephant a side has lost costs it ``SAFETY_WEIGHT`` per enemy attacker
    unit (chariot 2, horse 1, cannon 1): a bare general matters only while attackers remain.
    The weight is tuned on xiangqi games and shared by janggi.
    """
    red_defenders = counts[ADVISOR + 7] + counts[ELEPHANT + 7]
    black_defenders = counts[7 - ADVISOR] + counts[7 - ELEPHANT]
    red_attack = 2 * counts[CHARIOT + 7] + counts[HORSE + 7] + counts[CANNON + 7]
    black_attack = 2 * counts[7 - CHARIOT] + counts[7 - HORSE] + counts[7 - CANNON]
    return SAFETY_WEIGHT * ((4 - black_defenders) * red_attack - (4 - red_defenders) * black_attack)


# How much of its lead a side keeps in an ending it cannot win (a right shift: 1/16): enough
# to prefer the better of two drawn endings, too little to avoid a draw for it.
DRAWN_SHIFT: Final = 4


def cannot_win(counts: list[int], side: int) -> bool:
    """Whether ``side`` (0 first mover, 1 second) cannot win a xiangqi ending with what it has,
    from piece counts (``counts[piece + 7]``). Known draws of the endgame books, where the
    side has a single piece that can cross the river (or none):

    - nothing that crosses the river (only the general, advisors, elephants);
    - a lone chariot against both advisors and both elephants;
    - a lone horse against both advisors (it cannot break a double-advisor palace);
    - a lone cannon with neither advisor nor elephant of its own against a bare general (no
      piece on the board to screen it);
    - a lone soldier against both advisors.
    """
    white = side == 0
    chariots = _count(counts, CHARIOT, white)
    horses = _count(counts, HORSE, white)
    cannons = _count(counts, CANNON, white)
    soldiers = _count(counts, SOLDIER, white)
    attackers = chariots + horses + cannons + soldiers
    if attackers == 0:
        return True
    if attackers > 1:
        return False
    advisors = _count(counts, ADVISOR, not white)  # the defender's
    if chariots:
        return advisors == 2 and _count(counts, ELEPHANT, not white) == 2
    if cannons:
        own = _count(counts, ADVISOR, white) + _count(counts, ELEPHANT, white)
        theirs = sum(
            _count(counts, kind, not white)
            for kind in (ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER)
        )
        return own + theirs == 0
    return advisors == 2  # a lone horse or soldier


def _count(counts: list[int], kind: int, white: bool) -> int:
    """How many pieces of ``kind`` the first mover (``white``) or the second mover has; chosen
    by index rather than by a product with the side's sign, which a compiled build computes
    on the slow path when the sign is negative."""
    return counts[7 + kind] if white else counts[7 - kind]


def drawn_scaled(counts: list[int], score: int) -> int:
    """``score`` (first mover's view) shrunk to ``1 / 2**DRAWN_SHIFT`` when the side it favours
    cannot win (:func:`cannot_win`), so the search neither trades into such an ending to keep a
    paper lead nor avoids one when behind."""
    if score > 0 and cannot_win(counts, 0):
        return score >> DRAWN_SHIFT
    if score < 0 and cannot_win(counts, 1):
        return -((-score) >> DRAWN_SHIFT)
    return score


# Centipawns per point a piece can move to (empty or enemy): a boxed-in chariot or a horse
# with blocked legs is worth less than a free one (mobility). The chariot's and the
# horse's weights are tuned on xiangqi games (above) and shared by every variant; the
# cannon's is per evaluator (``Evaluator.cannon_mobility``): this is jieqi's.
CANNON_MOBILITY: Final = 1


def mobility(
    squares: list[int],
    rays: list[tuple[tuple[int, ...], ...]] = RAYS,
    cannon_weight: int = CANNON_MOBILITY,
) -> int:
    """The first mover's mobility balance in centipawns from chariot, horse and cannon moves.

    A chariot counts every point it can move to along ``rays``, a horse its steps with a free
    leg, a cannon the empty points it can slide to (weighted ``cannon_weight``; 0 where cannons
    cannot slide, as in janggi). Only these three pieces are counted: they are the ones whose
    freedom decides games, and counting them is cheap. Each side's sum is kept apart and
    enemies are told by comparison: compiled, a product with a negative factor leaves the
    machine-integer fast path.
    """
    red = black = 0
    # enumerate: compiled, a list's own iteration reads each point without a bounds check.
    for point, piece in enumerate(squares):
        if piece > 0:
            white = True
            kind = piece
        elif piece < 0:
            white = False
            kind = -piece
        else:
            continue
        if kind == CHARIOT:
            reach = 0
            for ray in rays[point]:
                for to in ray:
                    x = squares[to]
                    if x:
                        if (x < 0) if white else (x > 0):
                            reach += 1
                        break
                    reach += 1
            gain = CHARIOT_MOBILITY * reach
        elif kind == HORSE:
            reach = 0
            for to, leg in HORSE_MOVES[point]:
                if not squares[leg] and ((squares[to] <= 0) if white else (squares[to] >= 0)):
                    reach += 1
            gain = HORSE_MOBILITY * reach
        elif kind == CANNON and cannon_weight:
            reach = 0
            for ray in rays[point]:
                for to in ray:
                    if squares[to]:
                        break
                    reach += 1
            gain = cannon_weight * reach
        else:
            continue
        if white:
            red += gain
        else:
            black += gain
    return red - black


def piece_counts(squares: list[int]) -> list[int]:
    """How many of each signed piece stand on ``squares``, indexed ``piece + 7``."""
    counts = [0] * 15
    for piece in squares:
        counts[piece + 7] += 1
    return counts


def build_tables(values: dict[int, int], square_bonus: Callable[[int, int, int], int]) -> Table:
    """The 15 signed rows ``[piece + 7][point]`` from piece values and a first-mover bonus."""
    rows: Table = [[0] * NUM_POINTS for _ in range(15)]
    for kind, value in values.items():
        for point in range(NUM_POINTS):
            file, rank = point % 9, point // 9
            rows[kind + 7][point] = value + square_bonus(kind, file, rank)
            mirrored = (9 - rank) * 9 + file
            rows[-kind + 7][mirrored] = -(value + square_bonus(kind, file, rank))
    return rows


def _tuned_xiangqi_square(kind: int, file: int, rank: int) -> int:
    """The tuned bonus of a first-mover piece on (file, rank): files mirror about the middle,
    and a rank past the kind's rows (one it cannot reach) has none."""
    rows = XIANGQI_BONUS[kind]
    return rows[rank][min(file, 8 - file)] if rank < len(rows) else 0


def _tuned_janggi_square(kind: int, file: int, rank: int) -> int:
    """The tuned janggi bonus (:data:`JANGGI_BONUS`), read as :func:`_tuned_xiangqi_square`."""
    rows = JANGGI_BONUS[kind]
    return rows[rank][min(file, 8 - file)] if rank < len(rows) else 0


XIANGQI_TABLES: Final = build_tables(XIANGQI_VALUES, _tuned_xiangqi_square)
JANGGI_TABLES: Final = build_tables(JANGGI_VALUES, _tuned_janggi_square)


class Evaluator:
    """Scores positions of one variant from the first mover's point of view.

    ``tables`` are the signed piece-square rows; ``values`` the plain piece values used for
    move ordering (MVV-LVA) and pruning margins; ``bias`` a constant added for the first mover
    (janggi: minus Han's 1.5 points); ``safety`` adds :func:`general_safety`;
    ``cannon_mobility`` is the cannon's weight in :func:`mobility`, which the search adds at
    the leaves of its main search; ``endings`` scales leaves of known drawn endings
    (:func:`drawn_scaled`, xiangqi).
    """

    def __init__(
        self,
        tables: Table,
        values: dict[int, int],
        bias: int = 0,
        safety: bool = False,
        cannon_mobility: int = CANNON_MOBILITY,
        endings: bool = False,
    ) -> None:
        self.tables = tables
        self.values = values
        self.bias = bias
        self.safety = safety
        # Known drawn endings (drawn_scaled) at the leaves; needs the piece counts of ``safety``.
        self.endings = endings and safety
        self.cannon_mobility = cannon_mobility
        # Ordering value by signed piece (index piece + 7), always positive.
        self.order_value: list[int] = [0] * 15
        for kind, value in values.items():
            self.order_value[kind + 7] = self.order_value[-kind + 7] = value or 10_000

    def full(self, squares: list[int]) -> int:
        """The first mover's score of a whole placement."""
        tables = self.tables
        total = self.bias + sum(
            tables[piece + 7][point] for point, piece in enumerate(squares) if piece
        )
        if self.safety:
            total += general_safety(piece_counts(squares))
        return total

    def delta(self, squares: list[int], code: int) -> int:
        """How the first mover's score changes when ``code`` is played on ``squares``."""
        fr, to = divmod(code, NUM_POINTS)
        if fr >= NUM_POINTS:  # a janggi pass
            return 0
        piece = squares[fr]
        row = self.tables[piece + 7]
        return row[to] - row[fr] - self.tables[squares[to] + 7][to]


XIANGQI_EVALUATOR: Final = Evaluator(
    XIANGQI_TABLES,
    XIANGQI_VALUES,
    safety=True,
    cannon_mobility=XIANGQI_CANNON_MOBILITY,
    endings=True,
)
# A janggi cannon never slides without a screen: its free points are no measure of it.
JANGGI_EVALUATOR: Final = Evaluator(
    JANGGI_TABLES, JANGGI_VALUES, bias=-JANGGI_SECOND_MOVER_BONUS, safety=True, cannon_mobility=0
)
