"""The search: iterative-deepening principal-variation alpha-beta over a rules board (A1).

One :class:`Searcher` owns one board for one decision. It plays moves on that board in place
(``make``/``unmake``), keys its transposition table by the board's incremental Zobrist key,
and carries the evaluation as a single number updated per move (see ``evaluation``). Ordering:
the table's move, captures by MVV-LVA, two killers per ply, the countermove (the quiet reply
that last refuted the previous move), then history (raised for a quiet move that cuts off,
lowered for the quiet moves tried before it). Pruning: null move (never in check, never without
a chariot, horse or cannon), reverse futility and futility in the last plies, late-move
pruning (the late quiet moves of a non-PV node near the leaves), late-move reductions.
Quiescence searches captures (all evasions when in check).

Moves are generated pseudo-legally and a move that leaves the own general attacked is
discarded after it is made (X4), which costs less in Python than filtering every move up
front; the root always uses the board's exact legal moves.

Scores are centipawns from the side to move's view; ``MATE - n`` means mate in ``n`` plies.
Both mate and stalemate lose (X5). A repetition inside the search is scored as the rules score
the third occurrence (E1): the side that gave check with every move of the cycle loses,
otherwise a draw (janggi: points, J9 — see :class:`VariantRules`).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from ..rules.board import PASS_CODE, ZOBRIST_SIDE, Board, code_text
from ..rules.geometry import CANNON, CHARIOT, HORSE, HORSE_MOVES, KING, NUM_POINTS
from ..rules.wxf import cycle_loser
from .evaluation import (
    MOBILITY_MARGIN,
    Evaluator,
    drawn_scaled,
    general_safety,
    mobility,
    piece_counts,
)

MATE: Final = 30_000
MATE_BOUND: Final = MATE - 1_000
INFINITE: Final = 32_000
MAX_PLY: Final = 96
TT_MAX_ENTRIES: Final = 2_000_000  # about 400 MB of Python tuples at most; then start afresh

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2
# What the table probe answers when its entry does not decide the node (no score reaches it).
NO_CUTOFF: Final = INFINITE + 1
FUTILITY_MARGIN: Final = 150  # per ply of remaining depth, up to FUTILITY_DEPTH
FUTILITY_DEPTH: Final = 2
REVERSE_FUTILITY_MARGIN: Final = 120  # per ply of remaining depth, up to REVERSE_FUTILITY_DEPTH
REVERSE_FUTILITY_DEPTH: Final = 3
# Late-move pruning: near the leaves, the quiet moves after this many legal ones (by depth) are
# not searched at all in a node that is not on the principal variation.
LATE_MOVE_COUNT: Final = (0, 8, 13, 20)
DELTA_MARGIN: Final = 200
# Move ordering sorts one integer per move, its key shifted left past the move's code (every
# code, the pass included, is below 1 << ORDER_SHIFT): no tuple per move. The sorted keys are
# ascending (the move to try first last) and the search reads each code off its key as it goes.
ORDER_SHIFT: Final = 14
ORDER_MASK: Final = (1 << ORDER_SHIFT) - 1
CONTEMPT: Final = 25  # a draw counts this much below zero for the side that searches: play on
# Late-move reductions by depth and move number: about ln(depth) * ln(moves) / 2.2, at least 1.
LMR: Final = [
    [max(1, int(0.6 + math.log(d) * math.log(m) / 2.2)) if d and m else 0 for m in range(128)]
    for d in range(MAX_PLY + 2)
]
# The time manager (A1): a new iteration starts while the time used is under this share
# of the move's budget, scaled up when the best move just changed or the score fell (an unclear
# position) and down when the best move has held for several iterations or the reply is forced.
SOFT_SHARE: Final = 0.6
SETTLED_FACTOR: Final = 0.6
HARD_SHARE: Final = 0.85
# Before depth TIME_FACTOR_DEPTH the iterations are too short to read anything from.
TIME_FACTOR_DEPTH: Final = 5
UNSETTLED_FACTOR: Final = 1.8  # the best move changed in the last iteration: look deeper
SETTLED_ITERATIONS: Final = 4  # this many iterations in a row kept it: SETTLED_FACTOR applies
# A score that fell by more than FALL_MARGIN (from depth TIME_FACTOR_DEPTH) hints at a threat
# found late: FALL_FACTOR more time to find the answer.
FALL_MARGIN: Final = 40
FALL_FACTOR: Final = 1.5
# In check with at most FORCED_REPLIES evasions the choice is nearly forced: the soft share is
# cut by FORCED_SHARE.
FORCED_REPLIES: Final = 3
FORCED_SHARE: Final = 0.5
# Null move: the side to move passes and the rest is searched this much shallower (more from
# NULL_MOVE_DEEP_DEPTH on, where a 2-ply reduction saves too little); below NULL_MOVE_MIN_DEPTH
# the null search would be quiescence only, which tells nothing the static score does not.
NULL_MOVE_MIN_DEPTH: Final = 3
NULL_MOVE_REDUCTION: Final = 2
NULL_MOVE_DEEP_REDUCTION: Final = 3
NULL_MOVE_DEEP_DEPTH: Final = 6
# Aspiration windows: from ASPIRATION_DEPTH on, an iteration searches a window of
# +-ASPIRATION_WINDOW centipawns around the last score (scores move little from one depth to
# the next, and a narrow window cuts more); a fail widens it ASPIRATION_GROWTH times, and past
# ASPIRATION_GIVE_UP the window is the whole range (the score jumped: a tactic).
ASPIRATION_DEPTH: Final = 4
ASPIRATION_WINDOW: Final = 40
ASPIRATION_GROWTH: Final = 4
ASPIRATION_GIVE_UP: Final = 1000
# Check extensions stop at ply EXTENSION_CAP_PER_DEPTH * depth + EXTENSION_CAP_BASE: a line of
# checks (perpetual check, a cannon and chariot battery) would otherwise extend without end.
EXTENSION_CAP_PER_DEPTH: Final = 2
EXTENSION_CAP_BASE: Final = 4


# The search lets other threads of its process run every this many nodes (a few
# milliseconds compiled; see ``_check_limits``).
YIELD_NODES: Final = 1024


class SearchAborted(Exception):
    """Raised inside the search when a node, time or stop limit is reached."""


@dataclass(slots=True)
class Limits:
    """When to stop: a depth, a node count, a time in seconds, or an external stop flag.

    ``quiescence`` off makes the leaves static (the beginner's horizon blindness).
    """

    depth: int = MAX_PLY // 2
    nodes: int | None = None
    movetime: float | None = None
    quiescence: bool = True
    stop: threading.Event | None = None


@dataclass(slots=True)
class Iteration:
    """What one finished iteration found: shown as a UCI ``info`` line."""

    depth: int
    score: int
    nodes: int
    seconds: float
    pv: list[str] = field(default_factory=list)


class VariantRules:
    """How the search scores rule-decided endings of one variant (xiangqi and jieqi: E1–E3)."""

    # Half-moves without a capture after which the game is drawn (E2).
    draw_halfmoves: int = Board.NO_CAPTURE_LIMIT
    # True when the board's only legality rule beyond "the own general is not attacked
    # afterwards" is one the search applies itself (janggi: no move after two passes, J6).
    pseudo_legal_search: bool = False

    def repetition_score(self, board: Board, loser: int | None) -> int:
        """Score for the side to move when a cycle closes; ``loser`` gave perpetual check."""
        if loser is None:
            return 0
        return -MATE_BOUND + 1 if loser == board.turn else MATE_BOUND - 1

    def draw_score(self, board: Board) -> int:
        """Score for the side to move when the no-capture limit is reached."""
        return 0

    def points_score(self, board: Board) -> int:
        """Score for the side to move when points decide the game (janggi J6, J8, J9)."""
        return 0


def toggle_turn(board: Board) -> None:
    """Hand the move to the other side without moving (the null move); its own inverse."""
    board.turn ^= 1
    board.key ^= ZOBRIST_SIDE


def _off_mask_check(board: Board, piece: int, turn: int, to: int) -> bool:
    """Whether the move just made of ``piece`` (side ``turn``) to ``to`` gives check, when it
    touched no point of the enemy general's safety mask. Such a move uncovers no attack, and
    the enemy general was not attacked before it (no position of the search leaves the side
    that moved in check): only the piece itself can attack it now. A chariot, cannon, soldier
    or general attacks a general only from the points of its mask (its lines; the soldier from
    a point next to it), a horse from its own point over a free leg; the others are asked."""
    kind = piece if turn == 0 else -piece
    if kind >= CHARIOT or kind == KING:  # the chariot, cannon and soldier are the kinds 5 to 7
        return False
    king = board.kings[1 - turn]
    if kind == HORSE:
        for target, leg in HORSE_MOVES[to]:
            if target == king:
                return not board.squares[leg]
        return False
    return board.attacked(king, turn)


def _uses_plain_legality(board: Board) -> bool:
    """True when legality is the core rule "the own general is not attacked afterwards"."""
    return type(board).legal_codes is Board.legal_codes


class Searcher:
    """Searches one board (which it changes and restores) for the best move of the side to move.

    ``root_noise`` maps a root move code to a bonus in centipawns (the beginner's whims); it is
    only applied at the root. ``on_iteration`` is called after every completed depth.
    """

    def __init__(
        self,
        board: Board,
        evaluator: Evaluator,
        limits: Limits,
        rules: VariantRules | None = None,
        root_noise: dict[int, int] | None = None,
        on_iteration: Callable[[Iteration], None] | None = None,
    ) -> None:
        self.board = board
        self.evaluator = evaluator
        self.tables = evaluator.tables
        self.order_value = evaluator.order_value
        self.limits = limits
        self.rules = rules or VariantRules()
        self.root_noise = root_noise or {}
        self.on_iteration = on_iteration
        # The time manager's shares (a variant's searcher may spend its budget differently).
        self.soft_share = SOFT_SHARE
        self.settled_factor = SETTLED_FACTOR
        self.hard_share = HARD_SHARE
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.mobility_cache: dict[int, int] = {}  # Zobrist key -> mobility balance
        self.mobility_probes = 0
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_PLY + 2)]
        self.history: list[int] = [0] * (PASS_CODE + 1)
        # countermoves[m]: the quiet move that last refuted move m (ordered after the killers).
        self.countermoves: list[int] = [0] * (PASS_CODE + 1)
        self.nodes = 0
        self.plain_legality = self.rules.pseudo_legal_search or _uses_plain_legality(board)
        # The board's class tables, read once (a class attribute is a dictionary lookup).
        self.safety_masks = board.KING_SAFETY_MASK
        self.slider_rays = board.SLIDER_RAYS
        self.safety = evaluator.safety
        self.endings = evaluator.endings
        self.root_side = board.turn
        # The root's key, which the tables a search keeps for its game are filed under (ai).
        self.root_key = board.key
        # J7 with the "points" option: the move that makes the generals face each other ends
        # the game on points (a position already facing at the root cannot arise otherwise).
        self.bikjang = getattr(board, "bikjang", "off") == "points"
        self.counts = piece_counts(board.squares)
        # keys[i]: the position after move i (keys[0] the start); checks[i]: move i gave check.
        keys = board.key_history()
        checks = board.check_history()
        played = board.code_history()
        if not keys or keys[-1] != board.key:
            keys.append(board.key)
            checks.append(board.is_check())
        checks = [False] * (len(keys) - len(checks)) + checks
        passes = [code == PASS_CODE for code in played]
        self.keys = keys
        self.checks = checks
        # passes[i]: move i was a real pass (janggi J6); null moves of the search are not.
        self.passes = [False] * (len(keys) - len(passes)) + passes
        # codes[i]: the move that led to keys[i + 1]; the WXF rules judge a cycle by its moves.
        self.codes = [0] * (len(keys) - 1 - len(played)) + played
        self.wxf = getattr(board, "rules", "casual") == "wxf"
        self.repetition_floor = 0
        self.deadline: float | None = None
        self.next_check = 0
        self.next_yield = 0
        self.root_best = 0
        self.root_best_score = -INFINITE
        self.extension_cap = MAX_PLY
        # Whether this search's tables are kept for the game's next decision (``ai``).
        self.carries = False

    # ------------------------------------------------------------------ variant hooks

    def initial_score(self) -> int:
        """The first mover's score of the board as it stands (the search updates it)."""
        return self.evaluator.full(self.board.squares)

    def _take(self, victim: int) -> int:
        """Remove ``victim`` from the piece counts; returns the change of general safety.

        The caller puts it back (``counts[victim + 7] += 1``) after searching the capture.
        """
        counts = self.counts
        before = general_safety(counts)
        counts[victim + 7] -= 1
        return general_safety(counts) - before

    def _hidden_move(
        self, code: int, depth: int, alpha: int, beta: int, ply: int, score: int, quiescence: bool
    ) -> int | None:
        """Value of a move that turns up or takes a face-down piece (jieqi; see ``jieqi``).

        Returns None when the move is illegal. Boards without face-down pieces never call it.
        """
        raise NotImplementedError

    # ------------------------------------------------------------------ limits

    def _check_limits(self) -> None:
        # Hand the interpreter lock to any other thread that waits for it, every few
        # milliseconds: compiled, the search runs no Python code that would, and a thread of
        # the same process (the AI worker's event loop, its heartbeats) would wait for the
        # whole search.
        if self.nodes >= self.next_yield:
            self.next_yield = self.nodes + YIELD_NODES
            time.sleep(0)
        limits = self.limits
        if limits.nodes is not None and self.nodes >= limits.nodes:
            raise SearchAborted
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchAborted
        if limits.stop is not None and limits.stop.is_set():
            raise SearchAborted
        if len(self.tt) > TT_MAX_ENTRIES:
            self.tt.clear()
        if len(self.mobility_cache) > TT_MAX_ENTRIES:
            self.mobility_cache.clear()
        step = 256
        if limits.nodes is not None:
            step = min(step, max(1, limits.nodes - self.nodes))
        self.next_check = self.nodes + step

    # ------------------------------------------------------------------ rules inside the search

    def _cycle_score(self, j: int) -> int:
        """The score of the cycle closed by the position just reached, which repeats the one
        after move ``j`` of the path (E1): a perpetual check (or, by the WXF rules, chase)
        loses, anything else is drawn."""
        keys = self.keys
        n = len(keys)
        checks = self.checks
        if self.wxf:  # perpetual check and chase judged (E1)
            loser = cycle_loser(self.board, self.codes[j:], checks[j + 1 :])
            score = self.rules.repetition_score(self.board, loser)
            return score or self._draw()
        # Moves j+1 .. n-1 form the cycle; the last one was by the side not to move.
        last_mover = 1 - self.board.turn
        always = [True, True]
        for i in range(j + 1, n):
            if not checks[i]:
                always[last_mover if (n - 1 - i) % 2 == 0 else 1 - last_mover] = False
        loser = None
        if always[0] != always[1]:
            loser = 0 if always[0] else 1
        score = self.rules.repetition_score(self.board, loser)
        return score or self._draw()

    def _draw(self) -> int:
        """A drawn ending, from the side to move's view, with the searcher's contempt."""
        return -CONTEMPT if self.board.turn == self.root_side else CONTEMPT

    def _has_pieces(self) -> bool:
        """Whether the side to move has a chariot, horse or cannon (null move is then safe)."""
        white = self.board.turn == 0
        for piece in self.board.squares:
            p = piece if white else -piece
            if p == CHARIOT or p == HORSE or p == CANNON:  # noqa: SIM109 (no tuple per test)
                return True
        return False

    # ------------------------------------------------------------------ ordering

    def _ordered(self, codes: list[int], tt_move: int, ply: int) -> list[int]:
        """The order keys of ``codes``, ascending (the move to try first last; ``key &
        ORDER_MASK`` is its code): the table's move, winning and even captures (MVV-LVA),
        killers, captures that lose the capturer (a bigger piece taking a defended one: a cheap
        exchange test), history.

        The history keys are sorted apart from the others: they are small, and CPython sorts
        integers of one machine digit without a comparison call, where one big key among them
        would slow every comparison. The two runs are joined, and sorted again together only
        when they overlap (a history above a losing capture's or a killer's key)."""
        board = self.board
        b = board.squares
        enemy = 1 - board.turn
        value = self.order_value
        history = self.history
        k1, k2 = self.killers[ply]
        counter = self.countermoves[self.codes[-1]] if self.codes else 0
        keys: list[int] = []  # the table's move, captures, killers, countermove
        quiet: list[int] = []  # history (and the pass)
        for code in codes:
            if code == tt_move:
                keys.append(((1 << 40) << ORDER_SHIFT) + code)
            elif code == PASS_CODE:
                quiet.append((-1 << ORDER_SHIFT) + code)
            else:
                to = code % NUM_POINTS
                victim = b[to]
                if victim:
                    gain = value[victim + 7]
                    risk = value[b[code // NUM_POINTS] + 7]
                    k = (1 << 30) + gain * 64 - risk // 16
                    if risk > gain + 50 and board.attacked(to, enemy):
                        k -= 3 << 28  # below the killers, above the quiet moves
                elif code == k1:
                    k = (1 << 29) + 1
                elif code == k2:
                    k = 1 << 29
                elif code == counter:
                    k = (1 << 29) - 1
                else:
                    quiet.append((history[code] << ORDER_SHIFT) + code)
                    continue
                keys.append((k << ORDER_SHIFT) + code)  # one integer sorts as (k, code) would
        quiet.sort()
        if keys:
            keys.sort()
            overlap = len(quiet) > 0 and quiet[-1] > keys[0]
            quiet.extend(keys)
            if overlap:
                quiet.sort()
        return quiet

    # ------------------------------------------------------------------ quiescence

    def _leaf_score(self, score: int, alpha: int, beta: int) -> int:
        """``score`` with the mobility balance added, at a leaf of the main search.

        Lazy: a leaf whose score lies further than ``MOBILITY_MARGIN`` outside the window is
        decided by material alone, so mobility is only counted where it can change the choice.
        The quiescence search below carries the sum unchanged through its captures. In an
        ending the side ahead cannot win, the whole sum shrinks (``drawn_scaled``).
        """
        if self.endings:
            scaled = drawn_scaled(self.counts, score)
            if scaled != score:
                board = self.board
                moves = mobility(board.squares, self.slider_rays, self.evaluator.cannon_mobility)
                return drawn_scaled(self.counts, score + moves)
        static = score if self.board.turn == 0 else -score
        if static <= alpha - MOBILITY_MARGIN or static >= beta + MOBILITY_MARGIN:
            return score
        board = self.board
        key = board.key
        balance = self.mobility_cache.get(key)
        if balance is None:
            balance = mobility(board.squares, self.slider_rays, self.evaluator.cannon_mobility)
            self.mobility_cache[key] = balance
        self.mobility_probes += 1
        return score + balance

    def _quiesce(self, alpha: int, beta: int, ply: int, score: int, in_check: bool) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check_limits()
        board = self.board
        turn = board.turn
        static = score if turn == 0 else -score
        if not self.limits.quiescence:
            return static
        if not in_check:
            if static >= beta:
                return static
            if static > alpha:
                alpha = static
            best = static
        else:
            best = -MATE + ply
        if ply >= MAX_PLY:
            return static
        b = board.squares
        value = self.order_value
        if in_check:
            order_keys = self._ordered(board.legal_codes(), 0, ply)
        else:
            if self.plain_legality:
                pseudo = board.capture_codes()
            else:
                pseudo = [c for c in board.legal_codes() if c != PASS_CODE and b[c % NUM_POINTS]]
            order_keys = [
                (
                    (value[b[c % NUM_POINTS] + 7] * 64 - value[b[c // NUM_POINTS] + 7] // 16)
                    << ORDER_SHIFT
                )
                + c
                for c in pseudo
            ]
            if not order_keys:
                return best
            order_keys.sort()
        tables = self.tables
        kings = board.kings
        check_legal = self.plain_legality and not in_check
        safety, counts = self.safety, self.counts
        ksq = kings[turn]
        # Only a move on the general's lines (or off a diagonal neighbour) can expose it.
        mask = self.safety_masks[ksq]
        # The enemy general's: a move off it can only check with the piece moved (_off_mask_check).
        enemy_mask = self.safety_masks[kings[1 - turn]]
        face_down = board.face_down
        for order_key in reversed(order_keys):
            code = order_key & ORDER_MASK
            fr = code // NUM_POINTS
            to = code - fr * NUM_POINTS
            if face_down and (fr in face_down or to in face_down):
                hidden = self._hidden_move(code, 0, alpha, beta, ply, score, True)
                if hidden is None:
                    continue
                v = hidden
            else:
                victim = 0
                if code != PASS_CODE:
                    victim = b[to]
                    piece = b[fr]
                    if not in_check:
                        if static + value[victim + 7] + DELTA_MARGIN <= alpha:
                            continue
                        # A bigger piece taking a defended one loses material: not worth a look.
                        if value[piece + 7] > value[victim + 7] + 50 and board.attacked(
                            to, 1 - turn
                        ):
                            continue
                    row = tables[piece + 7]
                    new_score = score + row[to] - row[fr] - tables[victim + 7][to]
                else:
                    new_score = score
                undo = board.make(code)
                if (
                    check_legal
                    and (fr == ksq or mask[fr] or mask[to] == 1)
                    and board.attacked(kings[turn], 1 - turn)
                ):
                    board.unmake(undo)
                    continue
                if code != PASS_CODE and not enemy_mask[fr] and not enemy_mask[to]:
                    gives_check = _off_mask_check(board, piece, turn, to)
                else:
                    gives_check = board.attacked(kings[1 - turn], turn)
                taken = safety and victim
                if taken:
                    new_score += self._take(victim)
                try:  # a limit may stop the search in there: the board goes back all the same
                    v = -self._quiesce(-beta, -alpha, ply + 1, new_score, gives_check)
                finally:
                    if taken:
                        counts[victim + 7] += 1
                    board.unmake(undo)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        return best

    # ------------------------------------------------------------------ main search

    def _search(
        self,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        score: int,
        in_check: bool,
        can_null: bool,
    ) -> int:
        """The value of the position for the side to move, searched ``depth`` plies in the
        window (alpha, beta); ``score`` is the first mover's incremental evaluation."""
        if ply:
            self.nodes += 1
            if self.nodes >= self.next_check:
                self._check_limits()
            ending = self._rule_ending()
            if ending is not None:
                return ending
            # Mate-distance pruning: nothing here beats a mate already found nearer the root.
            alpha = max(alpha, -MATE + ply)
            beta = min(beta, MATE - ply - 1)
            if alpha >= beta:
                return alpha
        if depth <= 0:
            return self._quiesce(alpha, beta, ply, self._leaf_score(score, alpha, beta), in_check)
        pv_node = beta - alpha > 1
        tt_move, cutoff = self._probe(depth, alpha, beta, ply, pv_node)
        if cutoff != NO_CUTOFF:
            return cutoff
        static = score if self.board.turn == 0 else -score
        if ply and not pv_node and not in_check and abs(beta) < MATE_BOUND:
            if depth <= REVERSE_FUTILITY_DEPTH and static - REVERSE_FUTILITY_MARGIN * depth >= beta:
                return static
            if can_null and depth >= NULL_MOVE_MIN_DEPTH and static >= beta and self._has_pieces():
                v = self._null_move(depth, beta, ply, score)
                if v >= beta:
                    return beta if v >= MATE_BOUND else v
        return self._moves(depth, alpha, beta, ply, score, in_check, pv_node, static, tt_move)

    # ------------------------------------------------------------------ transposition table

    def _probe(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> tuple[int, int]:
        """The table's entry for the board's position: (its best move or 0, its value when
        that alone decides this node in the window (alpha, beta), else ``NO_CUTOFF``). Only
        a deep enough entry outside the principal variation, and never at the root, decides."""
        entry = self.tt.get(self.board.key)
        if entry is None:
            return 0, NO_CUTOFF
        e_depth, e_flag, e_value, tt_move = entry
        if ply and e_depth >= depth and not pv_node:
            if e_value >= MATE_BOUND:  # mate scores are stored as distances from the node
                e_value -= ply
            elif e_value <= -MATE_BOUND:
                e_value += ply
            if (
                e_flag == EXACT
                or (e_flag == LOWER and e_value >= beta)
                or (e_flag == UPPER and e_value <= alpha)
            ):
                return tt_move, e_value
        return tt_move, NO_CUTOFF

    def _store(self, key: int, depth: int, flag: int, best: int, best_move: int, ply: int) -> None:
        """File a searched node's value (a bound or EXACT, by ``flag``) and best move."""
        stored = best  # mate scores are stored as distances from this node
        if stored >= MATE_BOUND:
            stored += ply
        elif stored <= -MATE_BOUND:
            stored -= ply
        self.tt[key] = (depth, flag, stored, best_move)

    # ------------------------------------------------------------------ the move loop

    def _moves(
        self,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        score: int,
        in_check: bool,
        pv_node: bool,
        static: int,
        tt_move: int,
    ) -> int:
        """The node's value from its moves, each searched in turn (:meth:`_search` has
        already tried to decide it without them), filed in the table. ``static`` is the side
        to move's static score, ``tt_move`` the table's move (0 if none)."""
        board = self.board
        key = board.key
        turn = board.turn
        b = board.squares
        # The table's move is tried before any move is generated: it usually cuts the node
        # off, and then no generation or ordering is spent. It comes from this very position
        # (the table is keyed by the whole Zobrist key); the piece test guards a collision.
        staged = (
            ply > 0
            and self.plain_legality
            and tt_move != 0
            and (tt_move == PASS_CODE or self._own_piece_move(tt_move))
        )
        checked = ply == 0 or not self.plain_legality
        if staged:
            ordered = [tt_move]  # its own key: the code is below ORDER_MASK
        elif checked:
            ordered = self._ordered(board.legal_codes(), tt_move, ply)
        else:
            ordered = self._ordered(board.pseudo_codes(), tt_move, ply)
        tables = self.tables
        kings = board.kings
        keys, checks = self.keys, self.checks
        noise = self.root_noise if ply == 0 else None
        face_down = board.face_down
        passes = self.passes
        safety, counts = self.safety, self.counts
        ksq = kings[turn]
        # Out of check, only a move on the general's lines (or off a diagonal neighbour) can
        # expose it: the others need no test (as in the rules' own legal move filter).
        mask = self.safety_masks[ksq] if not in_check else None
        # In check, a move that touches no point of the general's mask and takes nothing leaves
        # it in check: no need to make it to know (as in the rules' legal move filter).
        evading = in_check and not checked
        own_mask = self.safety_masks[ksq]
        # The enemy general's: a move off it can only check with the piece moved (_off_mask_check).
        enemy_mask = self.safety_masks[kings[1 - turn]]
        prunable = not in_check and not pv_node and ply > 0
        frontier_futile = (
            prunable and depth <= FUTILITY_DEPTH and static + FUTILITY_MARGIN * depth <= alpha
        )
        late_count = LATE_MOVE_COUNT[depth] if prunable and depth < len(LATE_MOVE_COUNT) else 999
        best = -INFINITE
        best_move = 0
        flag = UPPER
        quiets: list[int] = []  # the quiet moves searched so far (a cutoff lowers their history)
        legal = 0
        pruned = 0
        original_alpha = alpha
        skip = -1  # the table's move once it has been searched on its own (no code is -1)
        while True:
            for order_key in reversed(ordered):
                code = order_key & ORDER_MASK
                if code == skip:
                    continue
                fr = code // NUM_POINTS
                to = code - fr * NUM_POINTS
                if face_down and (fr in face_down or to in face_down):
                    victim = b[to]
                    if frontier_futile and not victim and legal:
                        pruned += 1
                        continue
                    hidden = self._face_down_move(
                        code, depth, alpha, beta, ply, score, legal, pv_node, in_check, victim
                    )
                    if hidden is None:
                        continue
                    legal += 1
                    v = hidden
                else:
                    if code != PASS_CODE:
                        victim = b[to]
                        piece = b[fr]
                        row = tables[piece + 7]
                        new_score = score + row[to] - row[fr] - tables[victim + 7][to]
                    else:
                        victim = 0
                        new_score = score
                    if not victim and legal and (frontier_futile or legal >= late_count):
                        pruned += 1
                        continue
                    if (
                        evading
                        and not victim
                        and code != PASS_CODE
                        and fr != ksq
                        and not own_mask[fr]
                        and not own_mask[to]
                    ):
                        continue
                    undo = board.make(code)
                    exposes = (
                        mask is None
                        or fr == ksq
                        or (code != PASS_CODE and (mask[fr] or mask[to] == 1))
                    )
                    if not checked and exposes and board.attacked(kings[turn], 1 - turn):
                        board.unmake(undo)
                        continue
                    legal += 1
                    if code != PASS_CODE and not enemy_mask[fr] and not enemy_mask[to]:
                        gives_check = _off_mask_check(board, piece, turn, to)
                    else:
                        gives_check = board.attacked(kings[1 - turn], turn)
                    taken = safety and victim
                    if taken:
                        new_score += self._take(victim)
                    keys.append(board.key)
                    checks.append(gives_check)
                    passes.append(code == PASS_CODE)
                    self.codes.append(code)
                    if not victim:
                        quiets.append(code)
                    new_depth = depth - 1
                    if gives_check and ply < self.extension_cap:
                        new_depth += 1
                    try:
                        v = self._child(
                            code,
                            legal,
                            depth,
                            new_depth,
                            alpha,
                            beta,
                            ply,
                            new_score,
                            gives_check,
                            not victim and not in_check,
                            pv_node,
                        )
                    finally:
                        if taken:
                            counts[victim + 7] += 1
                        keys.pop()
                        checks.pop()
                        passes.pop()
                        self.codes.pop()
                        board.unmake(undo)
                if noise:
                    v += noise.get(code, 0)
                if v > best:
                    best = v
                    best_move = code
                    if v > alpha:
                        if ply == 0:  # proved better than the window's floor: playable if cut off
                            self.root_best = code
                            self.root_best_score = v
                        alpha = v
                        flag = EXACT
                        if v >= beta:
                            flag = LOWER
                            if not victim:
                                self._reward_quiet_cutoff(code, depth, ply, quiets)
                            break
            if flag == LOWER or not staged:
                break
            staged = False  # no cutoff: the other moves, in order
            ordered = self._ordered(board.pseudo_codes(), tt_move, ply)
            skip = tt_move
        if not legal:
            if pruned and board.legal_codes():
                return static
            return -MATE + ply  # X5: checkmate and stalemate both lose
        if best < original_alpha and pruned:
            # The pruned moves are taken to fail low: no better than the window's floor.
            best = max(best, min(static, original_alpha))
        self._store(key, depth, flag, best, best_move, ply)
        return best

    def _child(
        self,
        code: int,
        legal: int,
        depth: int,
        new_depth: int,
        alpha: int,
        beta: int,
        ply: int,
        score: int,
        gives_check: bool,
        quiet: bool,
        pv_node: bool,
    ) -> int:
        """The value of the move ``code`` just made, the ``legal``-th legal move of its node
        (``quiet``: no capture, not in check): the first in the full window, the others in a
        null window first, late quiet moves reduced, and in full only when one may beat alpha."""
        if legal == 1:
            return -self._search(new_depth, -beta, -alpha, ply + 1, score, gives_check, True)
        reduction = 0
        killers = self.killers[ply]
        if (
            depth >= 3
            and legal > 3
            and quiet
            and not gives_check
            and code != killers[0]
            and code != killers[1]
        ):
            reduction = LMR[depth][min(legal, 127)] - pv_node
            if reduction > new_depth - 1:
                reduction = new_depth - 1
        v = -self._search(
            new_depth - reduction, -alpha - 1, -alpha, ply + 1, score, gives_check, True
        )
        if v > alpha and (reduction or v < beta):
            v = -self._search(new_depth, -beta, -alpha, ply + 1, score, gives_check, True)
        return v

    def _own_piece_move(self, code: int) -> bool:
        """True when ``code`` moves a piece of the side to move to a point it does not hold."""
        b = self.board.squares
        piece = b[code // NUM_POINTS]
        target = b[code % NUM_POINTS]
        if self.board.turn == 0:
            return piece > 0 and target <= 0
        return piece < 0 and target >= 0

    def _rule_ending(self) -> int | None:
        """The score when the rules end the game at the position just reached inside the
        search (a repetition E1/J9, two passes J6, facing generals J7, the no-capture limit
        E2), from the side to move's view; None when the game goes on."""
        board = self.board
        keys = self.keys
        n = len(keys)
        key = keys[-1]
        # Only positions since the last capture (and not across a null move) can repeat.
        oldest = max(self.repetition_floor, n - 1 - board.halfmove)
        for j in range(n - 3, oldest - 1, -2):
            if keys[j] == key:
                return self._cycle_score(j)
        if self.passes[-1] and self.passes[-2]:
            return self.rules.points_score(board)  # J6: two passes in a row
        if (
            self.bikjang and board.kings[0] % 9 == board.kings[1] % 9 and board.generals_facing()  # type: ignore[attr-defined]
        ):
            return self.rules.points_score(board)
        if board.halfmove >= self.rules.draw_halfmoves:
            return self.rules.draw_score(board) or self._draw()
        return None

    def _null_move(self, depth: int, beta: int, ply: int, score: int) -> int:
        """The value of passing the move (the null move), searched shallower in a null window
        at ``beta``: a position that stays above beta even then is cut off."""
        board = self.board
        keys, checks = self.keys, self.checks
        reduction = NULL_MOVE_REDUCTION
        if depth >= NULL_MOVE_DEEP_DEPTH:
            reduction = NULL_MOVE_DEEP_REDUCTION
        toggle_turn(board)
        keys.append(board.key)
        checks.append(False)
        self.passes.append(False)
        self.codes.append(0)
        floor = self.repetition_floor
        # A cycle through a null move is no repetition the rules would see.
        self.repetition_floor = len(keys) - 1
        try:
            return -self._search(
                depth - 1 - reduction, -beta, -beta + 1, ply + 1, score, False, False
            )
        finally:
            self.repetition_floor = floor
            keys.pop()
            checks.pop()
            self.passes.pop()
            self.codes.pop()
            toggle_turn(board)

    def _face_down_move(
        self,
        code: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        score: int,
        legal: int,
        pv_node: bool,
        in_check: bool,
        victim: int,
    ) -> int | None:
        """The jieqi hook of the main search: the value of a move that turns up or takes a
        face-down piece (:meth:`_hidden_move`), searched as the other moves are; None when it
        is illegal. ``legal``: the legal moves searched before it in this node."""
        if not legal:
            return self._hidden_move(code, depth - 1, alpha, beta, ply, score, False)
        # As for the other moves: a null window first, late quiet moves reduced, and a full
        # search only for a move that may beat alpha.
        reduction = 0
        killers = self.killers[ply]
        if (
            depth >= 3
            and legal > 3
            and not victim
            and not in_check
            and code != killers[0]
            and code != killers[1]
        ):
            reduction = min(LMR[depth][min(legal, 127)] - pv_node, depth - 2)
        hidden = self._hidden_move(code, depth - 1 - reduction, alpha, alpha + 1, ply, score, False)
        if hidden is not None and hidden > alpha and (reduction or hidden < beta):
            hidden = self._hidden_move(code, depth - 1, alpha, beta, ply, score, False)
        return hidden

    def _reward_quiet_cutoff(self, code: int, depth: int, ply: int, quiets: list[int]) -> None:
        """A quiet move cut off: it becomes the first killer of its ply and the countermove of
        the move before it, its history rises and the quiet moves tried before it fall."""
        killers = self.killers[ply]
        if killers[0] != code:
            killers[1] = killers[0]
            killers[0] = code
        history = self.history
        bonus = depth * depth
        for other in quiets:
            if other != code:
                history[other] -= bonus
        history[code] += bonus
        if self.codes:
            self.countermoves[self.codes[-1]] = code

    # ------------------------------------------------------------------ driver

    def principal_variation(self, first: int, depth: int) -> list[str]:
        """The expected line from the root, read back from the transposition table."""
        board = self.board
        line: list[str] = []
        undos = []
        seen = {board.key}
        code = first
        try:
            while code and len(line) < max(depth, 1):
                if code not in board.legal_codes():
                    break
                line.append(code_text(code))
                if code // NUM_POINTS in board.face_down:
                    break  # what turns up is chance: the line ends here
                undos.append(board.make(code))
                if board.key in seen:
                    break
                seen.add(board.key)
                entry = self.tt.get(board.key)
                code = entry[3] if entry else 0
        finally:
            for undo in reversed(undos):
                board.unmake(undo)
        return line

    def _aspiration(self, depth: int, previous: int, score: int, in_check: bool) -> int:
        """The root searched to ``depth`` in a window around the last iteration's score,
        widened on each fail until the value falls inside it."""
        window = ASPIRATION_WINDOW
        alpha, beta = previous - window, previous + window
        while True:
            v = self._search(depth, alpha, beta, 0, score, in_check, False)
            if v <= alpha:
                alpha = max(-INFINITE, alpha - window * ASPIRATION_GROWTH)
            elif v >= beta:
                beta = min(INFINITE, beta + window * ASPIRATION_GROWTH)
            else:
                return v
            window *= ASPIRATION_GROWTH
            if window > ASPIRATION_GIVE_UP:
                alpha, beta = -INFINITE, INFINITE

    def run(self) -> tuple[int, int, int, list[str]]:
        """Search until a limit; returns (best move code, score, depth reached, pv).

        Raises ValueError when the side to move has no legal move.
        """
        board = self.board
        root_codes = board.legal_codes()
        if not root_codes:
            raise ValueError("no legal move: the game is over")
        start = time.monotonic()
        if self.limits.movetime is not None:
            self.deadline = start + self.limits.movetime
        # Out of time (or stopped) before the first node, as on a host that left this process
        # waiting: the first iteration then stops at once and the best-ordered move is the
        # answer. An error here would fail the player's move.
        with contextlib.suppress(SearchAborted):
            self._check_limits()
        score = self.initial_score()
        in_check = board.is_check()
        best_move, best_score, reached = self._ordered(root_codes, 0, 0)[-1] & ORDER_MASK, 0, 0
        pv: list[str] = [code_text(best_move)]
        previous = 0
        stable = 0  # completed iterations in a row that kept the best move
        movetime = self.limits.movetime
        soft = 0.0
        if movetime is not None:
            soft = movetime * self.soft_share
            if in_check and len(root_codes) <= FORCED_REPLIES:
                soft *= FORCED_SHARE  # a forced reply: few evasions, little to think about
        for depth in range(1, self.limits.depth + 1):
            self.extension_cap = EXTENSION_CAP_PER_DEPTH * depth + EXTENSION_CAP_BASE
            self.root_best, self.root_best_score = 0, -INFINITE
            try:
                if depth >= ASPIRATION_DEPTH and abs(previous) < MATE_BOUND:
                    v = self._aspiration(depth, previous, score, in_check)
                else:
                    v = self._search(depth, -INFINITE, INFINITE, 0, score, in_check, False)
            except SearchAborted:
                # A move this unfinished iteration proved above its window's floor is the
                # deeper-searched choice (the previous best is searched first).
                if self.root_best and depth > 1 and self.root_best != best_move:
                    best_move, best_score = self.root_best, self.root_best_score
                    pv = [code_text(best_move)]
                break
            stable = stable + 1 if self.root_best == best_move else 0
            fell = depth >= TIME_FACTOR_DEPTH and v < previous - FALL_MARGIN
            best_move, best_score, reached, previous = self.root_best, v, depth, v
            pv = self.principal_variation(best_move, depth)
            if self.on_iteration is not None:
                self.on_iteration(Iteration(depth, v, self.nodes, time.monotonic() - start, pv))
            if abs(v) >= MATE_BOUND and MATE - abs(v) <= depth:
                break
            if len(root_codes) == 1 and self.limits.movetime is not None:
                break
            if movetime is not None:
                factor = 1.0
                if depth >= TIME_FACTOR_DEPTH:
                    if stable == 0:
                        factor = UNSETTLED_FACTOR
                    elif stable >= SETTLED_ITERATIONS:
                        factor = self.settled_factor
                    if fell:
                        factor *= FALL_FACTOR
                budget = min(soft * factor, self.hard_share * movetime)
                if time.monotonic() - start > budget:
                    break
        return best_move, best_score, reached, pv
