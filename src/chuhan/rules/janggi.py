"""Janggi (Korean chess) as a variant of the xiangqi board (SPEC J1–J9).

:class:`JanggiBoard` keeps the one move generator of :class:`~chuhan.rules.board.Board` and
changes its data (palace lines, the janggi elephant, soldiers that step sideways, a cannon that
moves only past a bridge and never over or onto a cannon) and a few hooks: attacks on the
general, the pass, and the end of the game by points.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Final, Literal, get_args

from mypy_extensions import mypyc_attr

from .board import PASS_CODE, Board, Outcome, RulesError, UndoRecord, attackers_table
from .geometry import (
    CANNON,
    DIAGONAL,
    ELEPHANT,
    FIRST,
    NUM_POINTS,
    ORTHO_STEPS,
    ORTHOGONAL,
    RAYS,
    SECOND,
    in_palace,
    on_board,
    point_at,
)


class SetupError(RulesError):
    """A janggi setup choice is not ``HEHE``, ``EHEH``, ``HEEH`` or ``EHHE`` (J3)."""


class RuleOptionError(RulesError):
    """A janggi rule option has a value the rules do not know (J7)."""


# J3: horses (H) and elephants (E) on a side's 2nd, 3rd, 7th and 8th points, read from its left.
# The one list: the server's request models take ``SetupChoice``, the rest ``SETUPS``;
# the web client's copy (``web/js/screens.js``) is checked against it (test_architecture).
SetupChoice = Literal["HEHE", "EHEH", "HEEH", "EHHE"]
SETUPS: Final[tuple[str, ...]] = get_args(SetupChoice)
DEFAULT_SETUP: Final = "HEEH:HEEH"
BIKJANG_OPTIONS: Final = ("off", "points")

# J8: points per piece kind (index = kind: -, general, advisor, elephant, horse, chariot,
# cannon, soldier); Han, who moves second, gets HAN_BONUS on top.
PIECE_POINTS: Final = (0, 0, 3, 3, 5, 13, 7, 2)
HAN_BONUS: Final = 1.5

# J9: the game ends when this many half-moves (passes included) have been played.
MOVE_LIMIT: Final = 400

_PALACE_CENTRES: Final = (point_at(4, 1), point_at(4, 8))


def _palace_diagonal_rays(point: int) -> tuple[tuple[int, ...], ...]:
    """Rays from ``point`` along the palace diagonals (J1): corner → centre → corner."""
    rays: list[tuple[int, ...]] = []
    for centre in _PALACE_CENTRES:
        cf, cr = centre % 9, centre // 9
        if point == centre:
            rays.extend((point_at(cf + df, cr + dr),) for df, dr in DIAGONAL)
            continue
        df, dr = cf - point % 9, cr - point // 9
        if (abs(df), abs(dr)) == (1, 1):
            rays.append((centre, point_at(cf + df, cr + dr)))
    return tuple(rays)


PALACE_DIAGONAL_RAYS: Final = [_palace_diagonal_rays(p) for p in range(NUM_POINTS)]
PALACE_DIAGONAL_STEPS: Final = [tuple(ray[0] for ray in rays) for rays in PALACE_DIAGONAL_RAYS]


def _palace_steps(point: int, side: int) -> tuple[int, ...]:
    """General and advisor (J4): one point along the palace lines, never out of the palace."""
    if not in_palace(point, side):
        return ()
    orthogonal = tuple(q for q in ORTHO_STEPS[point] if in_palace(q, side))
    return orthogonal + PALACE_DIAGONAL_STEPS[point]


def _soldier_steps(point: int, side: int) -> tuple[int, ...]:
    """Soldier (J4): forward or sideways; diagonally forward on the enemy palace's lines."""
    forward = 1 if side == FIRST else -1
    rank = point // 9
    steps = tuple(q for q in ORTHO_STEPS[point] if q // 9 - rank in (0, forward))
    if in_palace(point, 1 - side):
        steps += tuple(q for q in PALACE_DIAGONAL_STEPS[point] if q // 9 - rank == forward)
    return steps


def _elephant_steps(point: int) -> tuple[tuple[int, int, int], ...]:
    """Elephant (J4): (destination, first block, second block), one straight two diagonal."""
    f, r = point % 9, point // 9
    out = []
    for sf, sr in ORTHOGONAL:
        for turn in (-1, 1):
            df, dr = (sf, turn) if sf else (turn, sr)
            if on_board(f + sf + 2 * df, r + sr + 2 * dr):
                first = point_at(f + sf, r + sr)
                second = point_at(f + sf + df, r + sr + dr)
                out.append((point_at(f + sf + 2 * df, r + sr + 2 * dr), first, second))
    return tuple(out)


ELEPHANT_STEPS: Final = [_elephant_steps(p) for p in range(NUM_POINTS)]
# (elephant point, first block, second block) from which an elephant attacks a point.
ELEPHANT_ATTACKERS: Final = [
    tuple(
        (src, b1, b2) for src in range(NUM_POINTS) for to, b1, b2 in ELEPHANT_STEPS[src] if to == p
    )
    for p in range(NUM_POINTS)
]
SLIDER_RAYS: Final = [RAYS[p] + PALACE_DIAGONAL_RAYS[p] for p in range(NUM_POINTS)]


def _per_side(fn: Callable[[int, int], tuple[int, ...]]) -> tuple[list[tuple[int, ...]], ...]:
    """``table[side][point] = fn(point, side)``."""
    return tuple([fn(p, side) for p in range(NUM_POINTS)] for side in (FIRST, SECOND))


PALACE_STEPS: Final = _per_side(_palace_steps)
SOLDIER_STEPS: Final = _per_side(_soldier_steps)


def _safety_mask(king: int) -> bytes:
    """For a general on ``king``: 1 where a piece leaving or arriving may change an attack on
    it (its file, rank and palace lines: chariot rays and cannon bridges), 2 where only
    leaving may (horse legs and elephant blocks, one and two points diagonally away).
    """
    mask = bytearray(NUM_POINTS)
    f, r = king % 9, king // 9
    for dist in (1, 2):
        for df, dr in DIAGONAL:
            if on_board(f + dist * df, r + dist * dr):
                mask[point_at(f + dist * df, r + dist * dr)] = 2
    for ray in SLIDER_RAYS[king]:
        for q in ray:
            mask[q] = 1
    return bytes(mask)


def _elephant_reachable(side: int) -> frozenset[int]:
    """Every point an elephant of ``side`` can reach from any of its setup points (J3)."""
    back_rank = 0 if side == FIRST else 9
    todo = [point_at(f, back_rank) for f in (1, 2, 6, 7)]
    seen = set(todo)
    while todo:
        for q, _, _ in ELEPHANT_STEPS[todo.pop()]:
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return frozenset(seen)


_ELEPHANT_REACHABLE: Final = (_elephant_reachable(FIRST), _elephant_reachable(SECOND))


def parse_setup(text: str) -> tuple[str, str]:
    """``"EHHE:HEHE"`` → ``("EHHE", "HEHE")`` (Cho's choice, Han's choice; J3).

    Raises :class:`SetupError` unless both halves are one of :data:`SETUPS`.
    """
    cho, sep, han = text.strip().upper().partition(":")
    if not sep or cho not in SETUPS or han not in SETUPS:
        choices = "|".join(SETUPS)
        raise SetupError(f"setup must be CHO:HAN with each one of {choices}, got {text!r}")
    return cho, han


def _back_rank(choice: str, from_i_side: bool) -> str:
    minors = ["n" if c == "H" else "b" for c in choice]
    if from_i_side:
        minors.reverse()
    return f"r{minors[0]}{minors[1]}a1a{minors[2]}{minors[3]}r"


def janggi_start_fen(cho: str = "HEEH", han: str = "HEEH") -> str:
    """The start position for the two setup choices (J2, J3).

    Each choice is read from its player's own left: Cho's from the a-file, Han's (who sits
    opposite) from the i-file. Raises :class:`SetupError` for an unknown choice.
    """
    parse_setup(f"{cho}:{han}")
    cho_rank = _back_rank(cho.upper(), from_i_side=False).upper()
    han_rank = _back_rank(han.upper(), from_i_side=True)
    return f"{han_rank}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{cho_rank} w - - 0 1"


def _setup_of(fen: str) -> str | None:
    placement = fen.split()[0] if fen.split() else ""
    for cho in SETUPS:
        for han in SETUPS:
            if janggi_start_fen(cho, han).split()[0] == placement:
                return f"{cho}:{han}"
    return None


@mypyc_attr(allow_interpreted_subclasses=True)  # native when compiled, like Board
class JanggiBoard(Board):
    """A janggi position with its game history (SPEC J1–J9).

    ``turn`` is 0 for Cho (first mover, upper case, ``w``) and 1 for Han. ``setup`` is the
    ``"CHO:HAN"`` choice the start position came from (None for a FEN that is no setup's
    start); ``bikjang`` is the J7 option, ``"off"`` or ``"points"``.
    """

    variant: ClassVar[str] = "janggi"
    SIDE_NAMES: ClassVar[tuple[str, str]] = ("cho", "han")
    START_FEN: ClassVar[str] = janggi_start_fen()
    FLYING_GENERAL: ClassVar[bool] = False
    ELEPHANT_ATTACKERS: ClassVar[list[tuple[tuple[int, int, int], ...]]] = ELEPHANT_ATTACKERS
    CANNON_UNSCREEN: ClassVar[int] = CANNON
    CANNON_JUMPS_TO_MOVE: ClassVar[bool] = True
    RULE_SETS: ClassVar[tuple[str, ...]] = ("casual",)  # J9 judges repetitions by points

    KING_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = PALACE_STEPS
    ADVISOR_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = PALACE_STEPS
    ELEPHANT_STEPS: ClassVar[tuple[list[tuple[tuple[int, int, int], ...]], ...]] = (
        ELEPHANT_STEPS,
        ELEPHANT_STEPS,
    )
    SOLDIER_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = SOLDIER_STEPS
    SOLDIER_ATTACKERS: ClassVar[tuple[list[tuple[int, ...]], ...]] = attackers_table(SOLDIER_STEPS)
    SLIDER_RAYS: ClassVar[list[tuple[tuple[int, ...], ...]]] = SLIDER_RAYS
    KING_SAFETY_MASK: ClassVar[list[bytes]] = [_safety_mask(p) for p in range(NUM_POINTS)]

    def __init__(
        self,
        fen: str | None = None,
        *,
        setup: str | None = None,
        bikjang: str = "off",
        **options: object,
    ) -> None:
        """Raises :class:`SetupError`, :class:`RuleOptionError`, or FenError for a bad FEN.

        ``setup`` (``"CHO:HAN"``; :data:`DEFAULT_SETUP` when neither it nor ``fen`` is given)
        builds the start position and cannot be combined with ``fen``.
        """
        if bikjang not in BIKJANG_OPTIONS:
            raise RuleOptionError(f"bikjang must be 'off' or 'points', got {bikjang!r}")
        if setup is not None and fen is not None:
            raise SetupError("give either a FEN or a setup, not both")
        if setup is not None:
            cho, han = parse_setup(setup)
            fen = janggi_start_fen(cho, han)
        self.bikjang = bikjang
        # ``rules`` by name: mypyc passes an empty ``**options`` on as the first keyword.
        rules = options.pop("rules", "casual")
        super().__init__(fen, rules=rules, **options)  # any other option: RulesError
        self.setup = _setup_of(fen or self.START_FEN)

    # ------------------------------------------------------------------ position

    def _reachable(self, kind: int, side: int) -> frozenset[int]:
        if kind == ELEPHANT:
            return _ELEPHANT_REACHABLE[side]
        return super()._reachable(kind, side)

    def points(self) -> tuple[float, float]:
        """J8: (Cho, Han) totals of the pieces on the board, Han's bonus included."""
        totals = [0.0, HAN_BONUS]
        for piece in self.squares:
            if piece > 0:
                totals[FIRST] += PIECE_POINTS[piece]
            elif piece < 0:
                totals[SECOND] += PIECE_POINTS[-piece]
        return totals[FIRST], totals[SECOND]

    def generals_facing(self) -> bool:
        """True when both generals stand on one file with nothing between (bikjang, J7)."""
        cho, han = self.kings
        if cho % 9 != han % 9:
            return False
        b = self.squares
        return not any(b[q] for q in range(cho + 9, han, 9))

    # ------------------------------------------------------------------ moves

    def set_fen(self, fen: str) -> None:
        """As :meth:`Board.set_fen`; a FEN records no pass, so the pass count starts at 0."""
        super().set_fen(fen)
        self.consecutive_passes = 0

    def make(self, code: int) -> UndoRecord:
        # The base class named, not super(): compiled, that is a native call, super() a
        # Python one (these three run at every node of the search).
        undo = Board.make(self, code)
        undo.extra = self.consecutive_passes
        self.consecutive_passes = self.consecutive_passes + 1 if code == PASS_CODE else 0
        return undo

    def unmake(self, undo: UndoRecord) -> None:
        Board.unmake(self, undo)
        self.consecutive_passes = undo.extra

    def pseudo_codes(self) -> list[int]:
        """Piece moves and the pass (J6), which is legal only when it leaves no check (J5)."""
        codes = Board.pseudo_codes(self)
        codes.append(PASS_CODE)
        return codes

    # ------------------------------------------------------------------ end of game

    def half_moves_played(self) -> int:
        """Half-moves (passes included) since the game's first move, from the FEN's counter."""
        return 2 * (self.fullmove - 1) + self.turn

    def _compute_outcome(self) -> Outcome | None:
        """The end of a janggi game (J5–J9), first match wins: two passes in a row, mate, the
        move that creates bikjang (option ``points``), the third occurrence of a position, the
        400th half-move. All but mate are decided by points (J8).
        """
        if self.consecutive_passes >= 2:
            return self._points_outcome("double_pass")
        # J5: no legal move means mate (a side not in check can always pass, J6).
        if not self._position_legal_codes():
            return Outcome(1 - self.turn, "checkmate")
        if self.bikjang == "points" and self._bikjang_created():
            return self._points_outcome("bikjang")
        if self.repetition_count() >= 3:
            return self._points_outcome("repetition")
        if self.half_moves_played() >= MOVE_LIMIT:
            return self._points_outcome("move_limit")
        return None

    def _points_outcome(self, reason: str) -> Outcome:
        """J8: the higher total wins; Han's half point makes a tie impossible."""
        cho, han = self.points()
        return Outcome(FIRST if cho > han else SECOND, reason, points=(cho, han))

    def _bikjang_created(self) -> bool:
        """J7: the last move left the generals facing, and they were not before it."""
        if not self._stack or self._stack[-1].code == PASS_CODE or not self.generals_facing():
            return False
        last = self._stack[-1]
        self.unmake(last)
        facing_before = self.generals_facing()
        self._stack[-1] = self.make(last.code)
        return not facing_before

    def perft(self, depth: int) -> int:
        """Leaf count as :meth:`Board.perft`; a line ends after two consecutive passes (J6).

        Fairy-Stockfish generates no move after two passes, and its perft figures count that.
        """
        if self.consecutive_passes >= 2 and depth > 0:
            return 0
        return super().perft(depth)

    def _insufficient_material(self) -> bool:
        """Janggi has no draw by material (E3 is xiangqi's): always False."""
        return False


__all__ = [
    "BIKJANG_OPTIONS",
    "DEFAULT_SETUP",
    "SETUPS",
    "JanggiBoard",
    "RuleOptionError",
    "SetupError",
    "janggi_start_fen",
    "parse_setup",
]
