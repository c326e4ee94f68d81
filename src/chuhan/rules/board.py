"""The xiangqi board: FEN, legal moves, make/unmake, check and the end of the game.

Variants (``janggi``, ``jieqi``) subclass :class:`Board` and change its step tables and a few
hooks; the move generator here is the only one (STYLE: variants are data and small hooks).

A move is an int ``from * 90 + to`` (``PASS_CODE`` for a janggi pass); the game API
(``push``, ``pop``, ``legal_moves``, ``outcome``) speaks :class:`Move` and keeps the history
that repetitions and the end of the game are judged by.

The move-code API is for the engine and the WXF judge, which play many moves and take
them back without touching the game's history; it is public and documented here so that they
need nothing private:

- :meth:`Board.legal_codes`: the legal moves of the side to move (X3, X4);
  :meth:`Board.pseudo_codes`: every move that obeys piece movement, before the own general's
  safety; :meth:`Board.capture_codes`: the pseudo-legal captures.
- :meth:`Board.make` plays a code without any check and returns an :class:`UndoRecord`;
  :meth:`Board.unmake` takes it back. Between the two the board's ``squares``, ``kings``,
  ``turn``, ``halfmove`` and ``key`` (the incremental Zobrist key) are the position after the
  move; the game's history (``ply``, repetitions, outcome) does not see it.
- :meth:`Board.attacked` says whether a side attacks a point (the generals' safety); which
  pieces could take a piece (the WXF judge's question) is :meth:`Board.capture_codes` asked
  with their side to move.
- :meth:`Board.code_history`, :meth:`Board.key_history` and :meth:`Board.check_history`: the
  game's moves, positions and checks so far, as copies (a search continues them).
- :data:`Board.NO_CAPTURE_LIMIT`: half-moves without a capture that draw (E2).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from copy import copy as shallow_copy
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, cast

from mypy_extensions import mypyc_attr

from .geometry import (
    ADVISOR,
    CANNON,
    CHARIOT,
    DIAG_STEPS,
    ELEPHANT,
    ELEPHANT_MOVES_ANY,
    FIRST,
    HORSE,
    HORSE_ATTACKERS,
    HORSE_MOVES,
    KIND_LETTERS,
    KING,
    KING_SAFETY_MASK,
    LETTER_KINDS,
    NUM_POINTS,
    ORTHO_STEPS,
    RAYS,
    SECOND,
    SOLDIER,
    in_palace,
    own_half,
    parse_square,
    square_name,
)
from .wxf import RULE_SETS, check_rule_set, game_verdict

PASS_CODE: Final = NUM_POINTS * NUM_POINTS
# Every move code as an int object, made once: the move generator appends these where the
# compiled build would make a new int object per move (CPython keeps only those up to 256).
# Typed ``object`` so that the compiled code hands them on as they are.
CODE_OBJECTS: Final[list[object]] = list(range(PASS_CODE + 1))


class RulesError(ValueError):
    """Base class of every error the rules raise."""


class FenError(RulesError):
    """The FEN text does not describe a valid position of the variant."""


class InvalidMoveError(RulesError):
    """The text is not a move at all (``"h3"``, ``"z9z1"``)."""


class IllegalMoveError(RulesError):
    """The move is well formed but not legal in the position."""


class GameOverError(IllegalMoveError):
    """A move was tried after the game ended."""


@dataclass(frozen=True, slots=True)
class Move:
    """A move from one point to another (``h3e3``), or the janggi ``pass``."""

    from_point: int
    to_point: int

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read canonical text: ``"h3e3"``, ``"a10a9"`` or ``"pass"``.

        Raises :class:`InvalidMoveError` when the text is not a move.
        """
        text = text.strip()
        if text == "pass":
            return PASS
        for split in (2, 3):
            head, tail = text[:split], text[split:]
            try:
                return cls(parse_square(head), parse_square(tail))
            except ValueError:
                continue
        raise InvalidMoveError(f"not a move: {text!r} (expected e.g. 'h3e3' or 'pass')")

    @classmethod
    def from_code(cls, code: int) -> Move:
        if code == PASS_CODE:
            return PASS
        return cls(code // NUM_POINTS, code % NUM_POINTS)

    @property
    def code(self) -> int:
        if self.from_point < 0:
            return PASS_CODE
        return self.from_point * NUM_POINTS + self.to_point

    @property
    def is_pass(self) -> bool:
        return self.from_point < 0

    def __str__(self) -> str:
        if self.is_pass:
            return "pass"
        return square_name(self.from_point) + square_name(self.to_point)


PASS: Final = Move(-1, -1)


def code_text(code: int) -> str:
    """Canonical text of an internal move code."""
    if code == PASS_CODE:
        return "pass"
    return square_name(code // NUM_POINTS) + square_name(code % NUM_POINTS)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended. ``winner`` is 0 (first mover), 1 (second mover) or None for a draw.

    ``points`` holds both sides' totals (first mover, second mover) when points decided (J8).
    ``ruling`` is the evidence of a repetition verdict (E1, the WXF rules: see
    :func:`chuhan.rules.wxf.ruling_json`), None for any other ending; it is not compared.
    """

    winner: int | None
    reason: str
    points: tuple[float, float] | None = None
    ruling: dict[str, Any] | None = field(default=None, compare=False)


# 62 bits: a key and every XOR of keys stays a short (machine) integer in the compiled build,
# where 64-bit keys were heap integers and each XOR of them a slow-path operation.
ZOBRIST_BITS: Final = 62


def _zobrist_table() -> list[list[int]]:
    rng = random.Random(0x43485548414E)  # fixed: keys are the same in every process
    return [[rng.getrandbits(ZOBRIST_BITS) for _ in range(NUM_POINTS)] for _ in range(17)]


# Rows 0..14 are the piece codes -7..7 shifted by 7; rows 15 and 16 face-down pieces (jieqi).
ZOBRIST: Final = _zobrist_table()
ZOBRIST_SIDE: Final = random.Random(0x5349444).getrandbits(ZOBRIST_BITS)
FACE_DOWN_KEY: Final = (15, 16)


class UndoRecord:
    """What :meth:`Board.unmake` needs to take a move back (``extra``: a variant's own).

    A plain class, not a dataclass: compiled, its ``__init__`` is native, where a dataclass's
    is generated at import and runs as Python for every move the search makes.
    """

    # Defaults so that pickle and copy, which call the class without arguments and then set
    # the fields, can rebuild one (a board's history holds them).
    def __init__(
        self, code: int = 0, captured: int = 0, halfmove: int = 0, key: int = 0, extra: Any = None
    ) -> None:
        self.code = code
        self.captured = captured
        self.halfmove = halfmove
        self.key = key
        self.extra = extra


def _table(fn: Callable[[int, int], Any]) -> Any:
    """Per-side, per-point table: ``table[side][point] = fn(point, side)``."""
    return tuple([fn(p, side) for p in range(NUM_POINTS)] for side in (FIRST, SECOND))


def placement(fen: str) -> list[int]:
    """The piece on each point of ``fen``'s placement field (0 where none, and for a letter of
    no kind: jieqi's face-down ``x``), read without a check: for a variant's start position."""
    pieces = [0] * NUM_POINTS
    for row_index, row in enumerate(fen.split()[0].split("/")):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            kind = LETTER_KINDS.get(ch.lower(), 0)
            pieces[(9 - row_index) * 9 + file] = kind if ch.isupper() else -kind
            file += 1
    return pieces


def attackers_table(
    steps: tuple[list[tuple[int, ...]], ...],
) -> tuple[list[tuple[int, ...]], ...]:
    """``table[side][point]``: the points from which a step of ``steps[side]`` reaches
    ``point`` (where a soldier of ``side`` stands when it attacks ``point``)."""
    return tuple(
        [tuple(q for q in range(NUM_POINTS) if p in steps[side][q]) for p in range(NUM_POINTS)]
        for side in (FIRST, SECOND)
    )


# Compiled (chuhan.native) as a native class, its variants with it (attribute reads and method
# calls in the hot loops are then C struct reads and direct calls); interpreted subclasses
# (tests) stay possible.
@mypyc_attr(allow_interpreted_subclasses=True)
class Board:
    """A xiangqi position with its game history (SPEC X1–X5, E1–E3).

    ``turn`` is 0 when the first mover (Red) is to move, 1 for Black. ``squares`` holds the
    90 points: 0 empty, a positive kind for Red, a negative kind for Black.
    """

    variant: ClassVar[str] = "xiangqi"
    SIDE_NAMES: ClassVar[tuple[str, str]] = ("red", "black")
    START_FEN: ClassVar[str] = (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    )
    FLYING_GENERAL: ClassVar[bool] = True
    NO_CAPTURE_LIMIT: ClassVar[int] = 120
    # How a repetition is judged (E1): "casual" by default, "wxf" the tournament rules.
    RULE_SETS: ClassVar[tuple[str, ...]] = RULE_SETS

    # Step tables per side and point; ray tables per point. Subclasses replace them.
    KING_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = _table(
        lambda p, s: tuple(q for q in ORTHO_STEPS[p] if in_palace(q, s)) if in_palace(p, s) else ()
    )
    ADVISOR_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = _table(
        lambda p, s: tuple(q for q in DIAG_STEPS[p] if in_palace(q, s)) if in_palace(p, s) else ()
    )
    # (destination, block, block): both blocking points must be empty (xiangqi: the eye twice).
    ELEPHANT_STEPS: ClassVar[tuple[list[tuple[tuple[int, int, int], ...]], ...]] = _table(
        lambda p, s: tuple((q, e, e) for q, e in ELEPHANT_MOVES_ANY[p] if own_half(q, s))
    )
    SOLDIER_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = _table(
        lambda p, s: tuple(
            q
            for q in ORTHO_STEPS[p]
            if (q // 9 - p // 9) == (1 if s == FIRST else -1)
            or (q // 9 == p // 9 and not own_half(p, s))
        )
    )
    SOLDIER_ATTACKERS: ClassVar[tuple[list[tuple[int, ...]], ...]] = attackers_table(SOLDIER_STEPS)
    SLIDER_RAYS: ClassVar[list[tuple[tuple[int, ...], ...]]] = RAYS
    # (elephant point, block, block) from which an elephant attacks a general's point: never in
    # xiangqi (its elephants keep to their own half); janggi's table.
    ELEPHANT_ATTACKERS: ClassVar[list[tuple[tuple[int, int, int], ...]]] = [()] * NUM_POINTS
    # The kind no cannon jumps or takes (janggi: another cannon, J4); 0 for none.
    CANNON_UNSCREEN: ClassVar[int] = 0
    # Whether a cannon's quiet moves are past its screen (janggi, J4) or before it (xiangqi).
    CANNON_JUMPS_TO_MOVE: ClassVar[bool] = False
    # Per general point: which points a move must touch to change an attack on it (geometry).
    KING_SAFETY_MASK: ClassVar[list[bytes]] = KING_SAFETY_MASK

    def __init__(
        self, fen: str | None = None, *, rules: object = "casual", **options: object
    ) -> None:
        """``rules``: the rule set that judges repetitions (``casual`` or ``wxf``, E1).

        Raises RulesError for an unknown option or rule set, FenError for a bad FEN.
        """
        if options:
            names = ", ".join(sorted(options))
            raise RulesError(f"{self.variant} has no option {names}")
        try:
            self.rules = check_rule_set(rules, self.RULE_SETS)
        except ValueError as exc:
            raise RulesError(f"{self.variant}: {exc}") from None
        self.squares: list[int] = [0] * NUM_POINTS
        self.turn = FIRST
        self.halfmove = 0
        self.fullmove = 1
        self.kings = [-1, -1]
        self.face_down: set[int] = set()
        self.key = 0
        self._stack: list[UndoRecord] = []
        self._keys: list[int] = []
        # How often each key of ``_keys`` occurs: repetition in O(1) per move, not O(moves).
        self._key_counts: dict[int, int] = {}
        self._checks: list[bool] = []
        self._outcome_cache: tuple[int, Outcome | None] | None = None
        self._legal_cache: tuple[int, int, list[int]] | None = None
        # The variant's attack tables, read by every call of attacked (the search's hottest
        # path): as fields they are struct reads when compiled, slot reads when not.
        self._slider_rays = self.SLIDER_RAYS
        self._soldier_attackers = self.SOLDIER_ATTACKERS
        self._elephant_attackers = self.ELEPHANT_ATTACKERS
        self._flying_king = KING if self.FLYING_GENERAL else 0  # 0 matches no piece
        self._unscreen = self.CANNON_UNSCREEN
        # The move generator's tables likewise (a class attribute is a dictionary lookup).
        self._king_steps = self.KING_STEPS
        self._advisor_steps = self.ADVISOR_STEPS
        self._elephant_steps = self.ELEPHANT_STEPS
        self._soldier_steps = self.SOLDIER_STEPS
        self._jumps_to_move = self.CANNON_JUMPS_TO_MOVE
        self._safety_mask = self.KING_SAFETY_MASK
        self.set_fen(fen or self.START_FEN)

    # ------------------------------------------------------------------ FEN

    def set_fen(self, fen: str) -> None:
        """Set up the position of ``fen`` as the game's start. Raises :class:`FenError`."""
        parts = fen.split()
        if not 1 <= len(parts) <= 6:
            raise FenError(f"expected 1 to 6 fields, got {len(parts)}")
        rows = parts[0].split("/")
        if len(rows) != 10:
            raise FenError(f"expected 10 ranks, got {len(rows)}")
        squares = [0] * NUM_POINTS
        face_down: set[int] = set()
        for row_index, row in enumerate(rows):
            rank = 9 - row_index
            file = 0
            for ch in row:
                if ch.isdigit():
                    file += int(ch)
                    continue
                if file >= 9:
                    raise FenError(f"rank {rank + 1} has more than 9 points")
                point = rank * 9 + file
                squares[point], is_down = self._piece_from_letter(ch, point)
                if is_down:
                    face_down.add(point)
                file += 1
            if file != 9:
                raise FenError(f"rank {rank + 1} has {file} points, expected 9")
        side = parts[1] if len(parts) > 1 else "w"
        if side not in ("w", "b", "r"):
            raise FenError(f"side to move must be 'w' or 'b', got {side!r}")
        try:
            halfmove = int(parts[4]) if len(parts) > 4 else 0
            fullmove = int(parts[5]) if len(parts) > 5 else 1
        except ValueError as exc:
            raise FenError("half-move and move number must be whole numbers") from exc
        if halfmove < 0 or fullmove < 1:
            raise FenError("half-move must be ≥ 0 and move number ≥ 1")
        kings = [-1, -1]
        for point, piece in enumerate(squares):
            if abs(piece) == KING:
                side_of = FIRST if piece > 0 else SECOND
                if kings[side_of] != -1:
                    raise FenError(f"{self.SIDE_NAMES[side_of]} has more than one general")
                kings[side_of] = point
        for s in (FIRST, SECOND):
            if kings[s] == -1:
                raise FenError(f"{self.SIDE_NAMES[s]} has no general")
            if kings[s] not in self._king_points(s):
                raise FenError(f"{self.SIDE_NAMES[s]} general outside its palace")
        self.squares = squares
        self.face_down = face_down
        self.kings = kings
        self.turn = FIRST if side in ("w", "r") else SECOND
        self.halfmove = halfmove
        self.fullmove = fullmove
        self._validate_position()
        if self.attacked(self.kings[1 - self.turn], self.turn):
            raise FenError("the side not to move is in check")
        self.key = self._full_key()
        self._stack = []
        self._keys = [self.key]
        self._key_counts = {self.key: 1}
        self._checks = []
        self._outcome_cache = None
        self._legal_cache = None

    def _king_points(self, side: int) -> set[int]:
        return {p for p in range(NUM_POINTS) if in_palace(p, side)}

    def _piece_from_letter(self, ch: str, point: int) -> tuple[int, bool]:
        """The board code of a FEN letter, and whether it is face down. Hook for jieqi."""
        kind = LETTER_KINDS.get(ch.lower())
        if kind is None:
            raise FenError(f"unknown piece letter {ch!r}")
        return (kind if ch.isupper() else -kind), False

    def _validate_position(self) -> None:
        """Reject placements the variant cannot reach (xiangqi: pieces off their points)."""
        counts: dict[int, int] = {}
        limits = {KING: 1, ADVISOR: 2, ELEPHANT: 2, HORSE: 2, CHARIOT: 2, CANNON: 2, SOLDIER: 5}
        for point, piece in enumerate(self.squares):
            if not piece:
                continue
            counts[piece] = counts.get(piece, 0) + 1
            side = FIRST if piece > 0 else SECOND
            kind = abs(piece)
            name = f"{self.SIDE_NAMES[side]} {KIND_LETTERS[kind]}"
            if counts[piece] > limits[kind]:
                raise FenError(f"too many pieces: {name}")
            if kind in (ADVISOR, ELEPHANT) and point not in self._reachable(kind, side):
                raise FenError(f"{name} on {square_name(point)} cannot stand there")
            if kind == SOLDIER and self._soldier_behind(point, side):
                raise FenError(f"{name} on {square_name(point)} cannot stand there")

    _REACHABLE: ClassVar[dict[tuple[type, int, int], frozenset[int]]] = {}

    def _reachable(self, kind: int, side: int) -> frozenset[int]:
        """Points an advisor or elephant of ``side`` can ever stand on, from its start points."""
        cache_key = (type(self), kind, side)
        found = Board._REACHABLE.get(cache_key)
        if found is None:
            piece = kind if side == FIRST else -kind
            todo = [p for p, x in enumerate(placement(self.START_FEN)) if x == piece]
            seen = set(todo)
            while todo:
                point = todo.pop()
                if kind == ADVISOR:
                    nxt = list(self.ADVISOR_STEPS[side][point])
                else:
                    nxt = [q for q, _, _ in self.ELEPHANT_STEPS[side][point]]
                for q in nxt:
                    if q not in seen:
                        seen.add(q)
                        todo.append(q)
            found = frozenset(seen)
            Board._REACHABLE[cache_key] = found
        return found

    def _soldier_behind(self, point: int, side: int) -> bool:
        rank = point // 9
        return rank < 3 if side == FIRST else rank > 6

    def _letter(self, point: int) -> str:
        piece = self.squares[point]
        if point in self.face_down:
            return "X" if piece > 0 else "x"
        letter = KIND_LETTERS[abs(piece)]
        return letter.upper() if piece > 0 else letter

    def board_fen(self) -> str:
        rows = []
        for rank in range(9, -1, -1):
            row, empty = "", 0
            for file in range(9):
                point = rank * 9 + file
                if not self.squares[point]:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += self._letter(point)
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    def fen(self) -> str:
        side = "w" if self.turn == FIRST else "b"
        return f"{self.board_fen()} {side} - - {self.halfmove} {self.fullmove}"

    def _full_key(self) -> int:
        key = ZOBRIST_SIDE if self.turn == SECOND else 0
        for point, piece in enumerate(self.squares):
            if piece:
                key ^= self._piece_key(point, piece)
        return key

    def _piece_key(self, point: int, piece: int) -> int:
        if point in self.face_down:
            return ZOBRIST[FACE_DOWN_KEY[0 if piece > 0 else 1]][point]
        return ZOBRIST[piece + 7][point]

    # ------------------------------------------------------------------ attacks

    def attacked(self, point: int, by: int) -> bool:
        """True if side ``by`` attacks ``point`` (used for the generals: X3, X4; janggi J4):
        a variant's differences are its tables (rays, soldiers, elephants), whether generals
        face each other (FLYING_GENERAL) and what no cannon jumps (CANNON_UNSCREEN)."""
        b = self.squares
        # The attacker's signed pieces, chosen rather than multiplied by the side's sign: a
        # compiled product with a negative factor leaves the machine-integer fast path.
        if by == 0:
            chariot, cannon, king = CHARIOT, CANNON, self._flying_king
            horse, soldier, elephant = HORSE, SOLDIER, ELEPHANT
        else:
            chariot, cannon, king = -CHARIOT, -CANNON, -self._flying_king
            horse, soldier, elephant = -HORSE, -SOLDIER, -ELEPHANT
        unscreen = self._unscreen
        for ray in self._slider_rays[point]:
            screened = False
            for q in ray:
                x = b[q]
                if x:
                    if screened:
                        if x == cannon:
                            return True
                        break
                    if x == chariot or x == king:  # noqa: SIM109 (no tuple per test)
                        return True
                    if x == unscreen or x == -unscreen:
                        break
                    screened = True
        for q, leg in HORSE_ATTACKERS[point]:
            if b[q] == horse and not b[leg]:
                return True
        # A plain loop: any() over a generator costs a call per point in this hot path.
        for q in self._soldier_attackers[by][point]:
            if b[q] == soldier:
                return True
        for q, block1, block2 in self._elephant_attackers[point]:
            if b[q] == elephant and not b[block1] and not b[block2]:
                return True
        return False

    def is_check(self) -> bool:
        """True when the side to move has its general attacked."""
        return self.attacked(self.kings[self.turn], 1 - self.turn)

    # ------------------------------------------------------------------ move generation

    def pseudo_codes(self) -> list[int]:
        """Every move of the side to move that obeys piece movement, before X3/X4."""
        return self._piece_codes(True)

    def capture_codes(self) -> list[int]:
        """The captures among :meth:`pseudo_codes`, in the same order, generated directly:
        the quiescence search asks for nothing else, and most of its nodes end there."""
        return self._piece_codes(False)

    def _piece_codes(self, quiet: bool) -> list[int]:
        """The one move generator: every pseudo-legal move, or only the captures when not
        ``quiet``. A point ``to`` is a target when its piece, seen from the side to move, is
        below ``limit``: an enemy piece, or also an empty point (limit 1) for the quiet moves;
        a slider adds the empty points it passes only when ``quiet``. A cannon (X2, J4)
        captures the first piece past one screen; it slides to empty points before the screen,
        or in janggi only past it."""
        b = self.squares
        side = self.turn
        # ``white``: the side to move is the first mover. A piece is read from the side to
        # move's view by negating it for the second mover (a compiled product with a negative
        # factor would leave the machine-integer fast path).
        white = side == 0
        limit = 1 if quiet else 0
        out: list[object] = []  # of CODE_OBJECTS: returned as the list[int] it is
        code_objects = CODE_OBJECTS
        king_steps = self._king_steps[side]
        advisor_steps = self._advisor_steps[side]
        elephant_steps = self._elephant_steps[side]
        soldier_steps = self._soldier_steps[side]
        rays = self._slider_rays
        unscreen = self._unscreen
        jumps = self._jumps_to_move
        # enumerate: compiled, a list's own iteration reads each point without a bounds check.
        for fr, x in enumerate(b):
            p = x if white else -x
            if p <= 0:
                continue
            base = fr * NUM_POINTS
            if p == CHARIOT:
                for ray in rays[fr]:
                    for to in ray:
                        x = b[to]
                        if x:
                            if (x < 0) if white else (x > 0):
                                out.append(code_objects[base + to])
                            break
                        if quiet:
                            out.append(code_objects[base + to])
            elif p == HORSE:
                for to, leg in HORSE_MOVES[fr]:
                    if not b[leg] and (b[to] if white else -b[to]) < limit:
                        out.append(code_objects[base + to])
            elif p == CANNON:
                for ray in rays[fr]:
                    screened = False
                    for to in ray:
                        x = b[to]
                        if not x:
                            if quiet and screened == jumps:
                                out.append(code_objects[base + to])
                        elif not screened:
                            if x == unscreen or x == -unscreen:
                                break
                            screened = True
                        else:
                            if ((x < 0) if white else (x > 0)) and x != unscreen and x != -unscreen:
                                out.append(code_objects[base + to])
                            break
            elif p == SOLDIER:
                for to in soldier_steps[fr]:
                    if (b[to] if white else -b[to]) < limit:
                        out.append(code_objects[base + to])  # noqa: PERF401 (compiled hot loop)
            elif p == ELEPHANT:
                for to, eye1, eye2 in elephant_steps[fr]:
                    if not b[eye1] and not b[eye2] and (b[to] if white else -b[to]) < limit:
                        out.append(code_objects[base + to])
            elif p == ADVISOR:
                for to in self.advisor_targets(fr, advisor_steps):
                    if (b[to] if white else -b[to]) < limit:
                        out.append(code_objects[base + to])  # noqa: PERF401 (compiled hot loop)
            else:
                for to in king_steps[fr]:
                    if (b[to] if white else -b[to]) < limit:
                        out.append(code_objects[base + to])  # noqa: PERF401 (compiled hot loop)
        return cast(list[int], out)

    def advisor_targets(self, point: int, steps: list[tuple[int, ...]]) -> tuple[int, ...]:
        """Where the advisor on ``point`` may step (``steps``: its side's table; jieqi: Q3/Q4)."""
        return steps[point]

    def legal_codes(self) -> list[int]:
        """Every legal move (X3, X4): pseudo-legal moves that leave the own general safe."""
        pseudo = self.pseudo_codes()
        b = self.squares
        side = self.turn
        enemy = 1 - side
        ksq = self.kings[side]
        in_check = self.attacked(ksq, enemy)
        mask = self._safety_mask[ksq]
        out = []
        for code in pseudo:
            if code == PASS_CODE:
                if not in_check:  # a pass leaves the general where it is: legal unless in check
                    out.append(code)
                continue
            fr = code // NUM_POINTS
            to = code - fr * NUM_POINTS
            if fr != ksq and not mask[fr]:
                # A move that leaves no point of the mask changes no attack on the general by
                # arriving on a point that is not 1 either; in check, one that arrives on no
                # point of the mask and takes nothing leaves every attack as it was.
                if not in_check:
                    if mask[to] != 1:
                        out.append(code)
                        continue
                elif not mask[to] and not b[to]:
                    continue
            piece, captured = b[fr], b[to]
            b[to], b[fr] = piece, 0
            unsafe = self.attacked(to if fr == ksq else ksq, enemy)
            b[fr], b[to] = piece, captured
            if not unsafe:
                out.append(code)
        return out

    # ------------------------------------------------------------------ make / unmake

    def make(self, code: int) -> UndoRecord:
        """Play ``code`` without any legality check; returns what :meth:`unmake` needs."""
        b = self.squares
        undo = UndoRecord(code, 0, self.halfmove, self.key)
        key = self.key ^ ZOBRIST_SIDE
        if code != PASS_CODE:
            fr = code // NUM_POINTS
            to = code - fr * NUM_POINTS
            piece, captured = b[fr], b[to]
            undo.captured = captured
            key ^= ZOBRIST[piece + 7][fr] ^ ZOBRIST[piece + 7][to]
            if captured:
                key ^= self._piece_key(to, captured)
                self.halfmove = 0
            else:
                self.halfmove += 1
            b[to], b[fr] = piece, 0
            if piece == KING:
                self.kings[0] = to
            elif piece == -KING:
                self.kings[1] = to
        else:
            self.halfmove += 1
        self._pass_turn(key)
        return undo

    def _pass_turn(self, key: int) -> None:
        """The end of :meth:`make`: the other side to move (a second mover's move ends a full
        move), ``key`` the new position's."""
        if self.turn == SECOND:
            self.fullmove += 1
        self.turn ^= 1
        self.key = key

    def _take_back_turn(self, undo: UndoRecord) -> None:
        """The start of :meth:`unmake`: the side to move, the counters and the key as they
        were before the move of ``undo``."""
        self.turn ^= 1
        if self.turn == SECOND:
            self.fullmove -= 1
        self.halfmove = undo.halfmove
        self.key = undo.key

    def unmake(self, undo: UndoRecord) -> None:
        """Take back the move :meth:`make` returned ``undo`` for (the last one made)."""
        self._take_back_turn(undo)
        code = undo.code
        if code == PASS_CODE:
            return
        b = self.squares
        fr = code // NUM_POINTS
        to = code - fr * NUM_POINTS
        piece = b[to]
        b[fr], b[to] = piece, undo.captured
        if piece == KING:
            self.kings[0] = fr
        elif piece == -KING:
            self.kings[1] = fr

    # ------------------------------------------------------------------ public API

    def _position_legal_codes(self) -> list[int]:
        """:meth:`legal_codes` of the current position, generated once for all the public
        readers (outcome, legal moves, game state); the search calls ``legal_codes`` itself.
        Keyed by ply and Zobrist key, so a position reached by ``make`` is never served stale.
        """
        cache = self._legal_cache
        if cache is not None and cache[0] == len(self._stack) and cache[1] == self.key:
            return cache[2]
        codes = self.legal_codes()
        self._legal_cache = (len(self._stack), self.key, codes)
        return codes

    @property
    def legal_moves(self) -> list[Move]:
        """The legal moves of the side to move (empty when it has none)."""
        return [Move.from_code(c) for c in self._position_legal_codes()]

    def is_legal(self, move: Move) -> bool:
        return move.code in self._position_legal_codes()

    def parse_move(self, text: str | Move) -> Move:
        """A legal :class:`Move` from canonical text; raises InvalidMoveError/IllegalMoveError."""
        move = text if isinstance(text, Move) else Move.parse(text)
        if not self.is_legal(move):
            raise IllegalMoveError(f"illegal move {move} in {self.fen()}")
        return move

    def push(self, move: Move | str) -> None:
        """Play a legal move. Raises GameOverError after the end, IllegalMoveError otherwise."""
        if self.outcome() is not None:
            raise GameOverError(f"the game is over; {move} cannot be played")
        legal = self.parse_move(move)
        self._push_code(legal.code)

    def _push_code(self, code: int) -> None:
        self._stack.append(self.make(code))
        self._remember_key()
        self._checks.append(self.is_check())
        self._outcome_cache = None

    def pop(self) -> Move:
        """Take back the last move and return it. Raises IndexError when there is none."""
        if not self._stack:
            raise IndexError("no move to take back")
        undo = self._stack.pop()
        self._forget_key()
        self._checks.pop()
        self.unmake(undo)
        self._outcome_cache = None
        return Move.from_code(undo.code)

    def _remember_key(self) -> None:
        """Add the position just reached to the history that repetition counts (E1)."""
        key = self.key
        self._keys.append(key)
        self._key_counts[key] = self._key_counts.get(key, 0) + 1

    def _forget_key(self) -> None:
        key = self._keys.pop()
        left = self._key_counts[key] - 1
        if left:
            self._key_counts[key] = left
        else:
            del self._key_counts[key]

    def peek(self) -> Move:
        """The last move played. Raises IndexError when there is none."""
        return Move.from_code(self._stack[-1].code)

    @property
    def move_stack(self) -> list[Move]:
        return [Move.from_code(u.code) for u in self._stack]

    def code_history(self) -> list[int]:
        """The codes of the moves played since the starting position, oldest first (a copy)."""
        return [undo.code for undo in self._stack]

    def key_history(self) -> list[int]:
        """The Zobrist key of every position of the game: the start's, then one per move."""
        return self._keys[:]

    def check_history(self) -> list[bool]:
        """Per move played, oldest first: whether it gave check (E1 judges cycles by them)."""
        return self._checks[:]

    @property
    def ply(self) -> int:
        """Half-moves played since this board's starting position."""
        return len(self._stack)

    @property
    def turn_name(self) -> str:
        return self.SIDE_NAMES[self.turn]

    def copy(self) -> Board:
        """An independent board with the same position and history."""
        other = shallow_copy(self)
        self._copy_containers(other)
        return other

    def _copy_containers(self, other: Board) -> None:
        """Give ``other``, a shallow copy of this board, containers of its own: those that play
        changes in place (every other field is a value play replaces); variants extend it."""
        other.squares = self.squares[:]
        other.kings = self.kings[:]
        other.face_down = set(self.face_down)
        other._stack = self._stack[:]
        other._keys = self._keys[:]
        other._key_counts = dict(self._key_counts)
        other._checks = self._checks[:]

    def piece_letter(self, point: int) -> str | None:
        """The FEN letter on ``point`` (``X``/``x`` face down), or None when empty."""
        return self._letter(point) if self.squares[point] else None

    # ------------------------------------------------------------------ end of game

    def outcome(self) -> Outcome | None:
        """The result if the game has ended, else None (SPEC X5, E1–E3)."""
        if self._outcome_cache is not None and self._outcome_cache[0] == len(self._stack):
            return self._outcome_cache[1]
        result = self._compute_outcome()
        self._outcome_cache = (len(self._stack), result)
        return result

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def _compute_outcome(self) -> Outcome | None:
        # X5: no legal move loses, in check (mate) or not (stalemate); it outranks every draw.
        if not self._position_legal_codes():
            return Outcome(1 - self.turn, "checkmate" if self.is_check() else "stalemate")
        repetition = self._repetition_outcome()
        if repetition is not None:
            return repetition
        if self.halfmove >= self.NO_CAPTURE_LIMIT:
            return Outcome(None, "no_capture_limit")
        if self._insufficient_material():
            return Outcome(None, "insufficient_material")
        return None

    def repetition_count(self) -> int:
        """How often the current position (placement, faces, side to move) has occurred."""
        return self._key_counts.get(self.key, 0)

    def _repetition_outcome(self) -> Outcome | None:
        """E1: at the third occurrence the moves since the first are judged by the board's
        rule set: ``casual``, a side that checked with every move loses; ``wxf``, the WXF
        rules (perpetual check and chase, :mod:`chuhan.rules.wxf`)."""
        if self.repetition_count() < 3:
            return None
        winner, reason, ruling = game_verdict(self, self._keys.index(self.key))
        return Outcome(winner, reason, ruling=ruling)

    def _insufficient_material(self) -> bool:
        """E3 (xiangqi): neither side has a chariot, horse, cannon or soldier."""
        return not any(abs(p) in (HORSE, CHARIOT, CANNON, SOLDIER) for p in self.squares)

    # ------------------------------------------------------------------ perft

    def perft(self, depth: int) -> int:
        """Leaf count of the legal move tree (game-end rules other than no-move ignored)."""
        if depth <= 0:
            return 1
        codes = self.legal_codes()
        if depth == 1:
            return len(codes)
        total = 0
        make, unmake, perft = self.make, self.unmake, self.perft
        for code in codes:
            undo = make(code)
            total += perft(depth - 1)
            unmake(undo)
        return total

    def divide(self, depth: int) -> list[tuple[str, int]]:
        """Perft split by first move: ``[(move text, leaf count), …]``."""
        result = []
        for code in self.legal_codes():
            undo = self.make(code)
            result.append((code_text(code), self.perft(depth - 1)))
            self.unmake(undo)
        return result

    def push_many(self, moves: Iterable[str | Move]) -> None:
        for move in moves:
            self.push(move)

    def extra_state(self, view: str | None = None) -> dict[str, object]:
        """Variant-specific fields for a game state (jieqi: captured pieces, commitment)."""
        return {}

    def legal_move_texts(self) -> Sequence[str]:
        return [code_text(c) for c in self._position_legal_codes()]
