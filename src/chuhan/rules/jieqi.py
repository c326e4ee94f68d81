"""Jieqi: xiangqi with face-down pieces (SPEC Q1–Q7), and what each player may know (Z2).

The public position and the secret arrangement live apart:

- ``squares`` holds, for a face-down piece, the *movement* kind of its starting point (a
  face-down piece on ``a1`` is stored as a chariot, Q3). That is public, so the xiangqi move
  generator and check detection work unchanged. ``face_down`` holds the points of the
  face-down pieces; the FEN shows them as ``X`` (Red) / ``x`` (Black).
- The secret (what each face-down piece really is) is held only by a *full* board: the one
  the server keeps. A board rebuilt from a player's view (:meth:`JieqiBoard.from_view`) has no
  secret; pushing a move of a face-down piece there needs the revealed identity from the
  caller (``push(move, reveal="R")`` or ``make(code, reveal_kind)``), and
  :meth:`JieqiBoard.unknown_pool` says which identities are still possible.

Fair shuffle (Q7)
-----------------
The arrangement is drawn with :class:`secrets.SystemRandom` (``random.Random(seed)`` only when
a ``seed`` is given: tests, analysis, ``chuhan --seed``; the server never passes one). The
*canonical arrangement text* lists every face-down piece of the starting position in point
order (``a1, b1, …, i1, a2, …, i10``) as ``point=Letter``, separated by single spaces, with
Red's letters upper case and Black's lower case, e.g. ``"a1=P b1=R c1=A … i10=c"``.
The salt is 32 lower-case hex digits. The commitment published at the start is::

    sha256((arrangement_text + "|" + salt).encode("utf-8")).hexdigest()

and :func:`verify_commitment` checks it. :meth:`JieqiBoard.reveal` gives the text and the salt.

View format (a JSON object; :meth:`JieqiBoard.view`)
----------------------------------------------------
``variant``     ``"jieqi"``
``format``      ``1``
``viewer``      ``"red"``, ``"black"`` or ``"all"`` (``"all"`` is the server's own record and
                holds the secret: it must never be sent to a player)
``start_fen``   the public FEN of the game's start (face-down pieces as ``X``/``x``)
``fen``         the public FEN now
``moves``       one object per half-move played: ``{"move": "a1a2", "reveal": "R" | null,
                "captured": "c" | "?" | null}``. ``reveal`` is what a face-down mover turned
                out to be (public, Q3); ``captured`` the piece taken: its letter when the
                viewer knows it, ``"?"`` for a face-down piece the viewer's opponent took
                (Q5), null for no capture.
``captured``    ``{"red": [...], "black": [...]}``: each colour's captured pieces in the
                order they fell, as letters the viewer knows, ``"?"`` where it does not.
``commitment``  the SHA-256 hex published at the start (Q7).
``finished``    true once the game is over (everything is then revealed to both players).
``rules``       only when not ``"casual"``: the rule set that judges repetitions (``"wxf"``).
``arrangement`` and ``salt``: only when finished or for ``"all"``: the canonical
                arrangement text and the salt, which verify against ``commitment``.
``hidden``      only for ``"all"``: ``{"a1": "C", …}``, what each face-down piece now is.

No other key ever appears, and a player's view of an ongoing game contains no identity of a
face-down piece (not even its own) nor of a piece of its own that the opponent took face down.

Using it
--------
- Server: keep the full board (``make_board("jieqi")``); send ``board.view("red")`` /
  ``board.view("black")`` (``game_over=True`` when the game ended by resignation, timeout or
  agreement); store ``board.view("all")`` to restore the game with ``JieqiBoard.from_view``.
- Engine: ``JieqiBoard.from_view(player_view)`` gives a board without the secret, with the same
  legal moves and repetition history. ``needs_reveal(code)`` tells a move of a face-down
  piece; ``unknown_pool(side)`` (or the list ``pool[side]``, indexed by kind) gives what it may
  turn out to be, with counts; ``make(code, kind)`` / ``unmake(undo)`` play and take back a
  move in search, ``kind`` being the unsigned identity for a reveal (ignored otherwise);
  ``push(move, reveal="N")`` plays a game move. Taking a face-down piece there leaves its
  identity unknown (the pool keeps it).
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from .board import (
    PASS_CODE,
    ZOBRIST,
    ZOBRIST_SIDE,
    Board,
    FenError,
    GameOverError,
    Move,
    RulesError,
    UndoRecord,
    _table,
    code_text,
    placement,
)
from .geometry import (
    ADVISOR,
    DIAG_STEPS,
    ELEPHANT,
    ELEPHANT_MOVES_ANY,
    FIRST,
    KIND_LETTERS,
    KING,
    LETTER_KINDS,
    NUM_POINTS,
    SECOND,
    SOLDIER,
    parse_square,
    square_name,
)

SIDE_NAMES: Final = ("red", "black")
# What a move did to face-down pieces (kept in ``UndoRecord.extra``): the signed piece a face-down
# mover turned out to be (0: none), and for a captured face-down piece the signed piece it was
# (0: unknown to this board; None: the capture, if any, was of a face-up piece).
_Reveal = tuple[int, int | None]
VIEWERS: Final = ("red", "black", "all")


# Q3: a face-down piece moves as the piece that starts on its point.
START_PIECE: Final[list[int]] = placement(Board.START_FEN)
# How many pieces of each kind a side has besides its general (X1): the start position's.
STANDARD_COUNTS: Final[dict[int, int]] = {
    kind: START_PIECE.count(kind) for kind in range(ADVISOR, SOLDIER + 1)
}

# For each point: (diagonal neighbour, the point beyond it). An advisor attacks from the
# neighbour; an elephant from beyond it when the neighbour (the eye) is empty. Where nothing
# lies beyond, the neighbour stands in for it: it is empty whenever it is looked at there.
_DIAGONAL_PAIRS: Final[list[tuple[tuple[int, int], ...]]] = [
    tuple(
        (eye, next((far for far, e in ELEPHANT_MOVES_ANY[point] if e == eye), eye))
        for eye in DIAG_STEPS[point]
    )
    for point in range(NUM_POINTS)
]


def _letter_of(piece: int) -> str:
    letter = KIND_LETTERS[abs(piece)]
    return letter.upper() if piece > 0 else letter


def _piece_of(letter: str) -> int:
    """Signed piece code of a FEN letter; RulesError for anything else."""
    kind = LETTER_KINDS.get(letter.lower()) if len(letter) == 1 else None
    if kind is None:
        raise RulesError(f"not a piece letter: {letter!r}")
    return kind if letter.isupper() else -kind


def arrangement_text(arrangement: Mapping[int, int]) -> str:
    """The canonical text of an arrangement ``{point: signed piece}`` (see the module doc)."""
    return " ".join(f"{square_name(p)}={_letter_of(arrangement[p])}" for p in sorted(arrangement))


def parse_arrangement(text: str) -> dict[int, int]:
    """``"a1=R b1=P"`` → ``{0: CHARIOT, 1: SOLDIER}``. Raises RulesError for bad text."""
    out: dict[int, int] = {}
    for item in text.split():
        name, sep, letter = item.partition("=")
        try:
            point = parse_square(name)
        except ValueError as exc:
            raise RulesError(f"bad arrangement entry {item!r}") from exc
        if not sep or point in out:
            raise RulesError(f"bad arrangement entry {item!r}")
        out[point] = _piece_of(letter)
    return out


def commitment_of(text: str, salt: str) -> str:
    """SHA-256 hex of the canonical arrangement text and the salt (Q7)."""
    return hashlib.sha256(f"{text}|{salt}".encode()).hexdigest()


def verify_commitment(commitment: str, arrangement_text: str, salt: str) -> bool:
    """True when ``arrangement_text`` and ``salt`` are what ``commitment`` promised (Q7)."""
    expected = commitment_of(arrangement_text, salt).encode()
    return secrets.compare_digest(expected, commitment.strip().lower().encode())


def _viewer_index(viewer: str | int | None) -> int | None:
    """0 (Red), 1 (Black) or None (everything). Raises RulesError for anything else."""
    if viewer is None or viewer == "all":
        return None
    if viewer in (FIRST, SECOND) and not isinstance(viewer, bool):
        return int(viewer)
    if viewer in SIDE_NAMES:
        return SIDE_NAMES.index(str(viewer))
    raise RulesError(f"unknown viewer {viewer!r}; choose one of {', '.join(VIEWERS)}")


@mypyc_attr(allow_interpreted_subclasses=True)  # native when compiled, like Board
class JieqiBoard(Board):
    """A jieqi game (SPEC Q1–Q7): a xiangqi board whose pieces start face down.

    ``JieqiBoard(fen, seed=None, arrangement=None, salt=None)``: ``arrangement`` (canonical
    text or ``{point: signed piece}``) fixes what the face-down pieces of ``fen`` are (tests,
    the server restoring a game); otherwise they are drawn from the pieces the side lacks on
    the board, with a cryptographic source unless ``seed`` is given.
    """

    variant: ClassVar[str] = "jieqi"
    START_FEN: ClassVar[str] = (
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w - - 0 1"
    )
    # Q4: face-up advisors step diagonally anywhere (face-down ones: see _advisor_targets);
    # face-up elephants cross the river, the eye still blocks.
    ADVISOR_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = _table(lambda p, s: DIAG_STEPS[p])
    ELEPHANT_STEPS: ClassVar[tuple[list[tuple[tuple[int, int, int], ...]], ...]] = _table(
        lambda p, s: tuple((q, e, e) for q, e in ELEPHANT_MOVES_ANY[p])
    )
    PALACE_ADVISOR_STEPS: ClassVar[tuple[list[tuple[int, ...]], ...]] = Board.ADVISOR_STEPS

    def __init__(
        self,
        fen: str | None = None,
        *,
        seed: int | None = None,
        arrangement: str | Mapping[int, int] | None = None,
        salt: str | None = None,
        **options: object,
    ) -> None:
        rng: random.Random = secrets.SystemRandom() if seed is None else random.Random(seed)
        if isinstance(arrangement, str):
            arrangement = parse_arrangement(arrangement)
        self._deal: tuple[random.Random, Mapping[int, int] | None, str | None] | None = (
            rng,
            arrangement,
            salt,
        )
        self.viewer: int | None = None
        # ``rules`` by name: mypyc passes an empty ``**options`` on as the first keyword.
        rules = options.pop("rules", "casual")
        super().__init__(fen, rules=rules, **options)  # any other option: RulesError

    @classmethod
    def _secretless(cls, fen: str, viewer: int | None, rules: str = "casual") -> JieqiBoard:
        board = cls.__new__(cls)
        board._deal = None
        board.viewer = viewer
        Board.__init__(board, fen, rules=rules)
        return board

    # ------------------------------------------------------------------ setup

    def set_fen(self, fen: str) -> None:
        """Set up ``fen`` as the game's start and deal its face-down pieces (Q2, Q7).

        Raises :class:`FenError` for an invalid position or an arrangement that does not fit.
        """
        self.roamers = [1, 1]  # not yet counted: the check test of set_fen must look
        super().set_fen(fen)
        self.start_fen = self.fen()
        # pool[side][kind]: pieces of ``side`` whose identity this board's knower cannot
        # place: the pieces the side lacks face up, less those revealed or known captured.
        self.pool = [[0] * 8 for _ in (FIRST, SECOND)]
        for side in (FIRST, SECOND):
            for kind, count in STANDARD_COUNTS.items():
                self.pool[side][kind] = count
        # roamers[side]: face-up advisors and elephants of ``side``, the only pieces whose
        # attacks the xiangqi check test misses (Q4). Never too low, so zero skips the scan.
        self.roamers = [0, 0]
        for point, piece in enumerate(self.squares):
            if piece and abs(piece) != KING and point not in self.face_down:
                self.pool[0 if piece > 0 else 1][abs(piece)] -= 1
                if abs(piece) in (ADVISOR, ELEPHANT):
                    self.roamers[0 if piece > 0 else 1] += 1
        self.hidden: dict[int, int] | None = None
        self.salt: str | None = None
        self.commitment = ""
        self._arrangement: dict[int, int] = {}
        if self._deal is not None:
            self._deal_arrangement(*self._deal)

    def _deal_arrangement(
        self, rng: random.Random, fixed: Mapping[int, int] | None, salt: str | None
    ) -> None:
        """Fix what each face-down piece is (``fixed``, or drawn from the pool with ``rng``),
        draw the salt unless given, and publish the commitment (Q2, Q7)."""
        if fixed is not None:
            arrangement = dict(fixed)
            if set(arrangement) != self.face_down:
                raise FenError("the arrangement must name exactly the face-down points")
            for side in (FIRST, SECOND):
                counts = [0] * 8
                for point, piece in arrangement.items():
                    if (self.squares[point] > 0) != (piece > 0):
                        raise FenError(f"arrangement: wrong colour on {square_name(point)}")
                    if piece > 0 if side == FIRST else piece < 0:
                        counts[abs(piece)] += 1
                if abs_over := [k for k in range(8) if counts[k] > self.pool[side][k]]:
                    letters = "".join(KIND_LETTERS[k] for k in abs_over)
                    raise FenError(f"arrangement: too many {SIDE_NAMES[side]} {letters}")
        else:
            arrangement = {}
            for side in (FIRST, SECOND):
                points = sorted(p for p in self.face_down if (self.squares[p] > 0) == (side == 0))
                bag = [k for k in range(8) for _ in range(self.pool[side][k])]
                sign = 1 if side == FIRST else -1
                for point, kind in zip(points, rng.sample(bag, len(points)), strict=True):
                    arrangement[point] = sign * kind
        self._arrangement = arrangement
        self.hidden = dict(arrangement)
        self.salt = salt if salt is not None else f"{rng.getrandbits(128):032x}"
        self.commitment = commitment_of(arrangement_text(arrangement), self.salt)

    def _piece_from_letter(self, ch: str, point: int) -> tuple[int, bool]:
        """``X``/``x`` only on that side's starting points (Q2); other letters as xiangqi."""
        if ch in ("X", "x"):
            piece = START_PIECE[point]
            if not piece or abs(piece) == KING or (piece > 0) != (ch == "X"):
                side = "Red" if ch == "X" else "Black"
                raise FenError(
                    f"face-down {ch!r} on {square_name(point)}: not a {side} starting point"
                )
            return piece, True
        return super()._piece_from_letter(ch, point)

    def _validate_position(self) -> None:
        """Face-up pieces may stand anywhere (Q3, Q4); no side has more than its 16 pieces."""
        for side in (FIRST, SECOND):
            counts = [0] * 8
            total = 0
            for point, piece in enumerate(self.squares):
                if piece and (piece > 0) == (side == FIRST) and abs(piece) != KING:
                    total += 1
                    if point not in self.face_down:
                        counts[abs(piece)] += 1
            for kind, limit in STANDARD_COUNTS.items():
                if counts[kind] > limit:
                    letter = KIND_LETTERS[kind]
                    raise FenError(f"too many pieces: {SIDE_NAMES[side]} {letter}")
            if total > 15:
                raise FenError(f"{SIDE_NAMES[side]} has more than 16 pieces")

    # ------------------------------------------------------------------ movement

    def advisor_targets(self, point: int, steps: list[tuple[int, ...]]) -> tuple[int, ...]:
        """Face-down advisors keep to the palace (Q3); face-up ones go anywhere (Q4)."""
        if point in self.face_down:
            side = FIRST if self.squares[point] > 0 else SECOND
            return self.PALACE_ADVISOR_STEPS[side][point]
        return steps[point]

    def attacked(self, point: int, by: int) -> bool:
        """As on the xiangqi board, and face-up advisors and elephants roam (Q4)."""
        # The base class named, not super(): a native call when compiled (every node).
        return Board.attacked(self, point, by) or self._attacked_extra(point, by)

    def _attacked_extra(self, point: int, by: int) -> bool:
        """Face-up advisors and elephants that roam (Q4) can attack a general."""
        if not self.roamers[by]:
            return False
        b = self.squares
        advisor, elephant = (ADVISOR, ELEPHANT) if by == FIRST else (-ADVISOR, -ELEPHANT)
        for eye, far in _DIAGONAL_PAIRS[point]:
            x = b[eye]
            if x:
                if x == advisor:
                    return True
            elif b[far] == elephant:
                return True
        return False

    def _insufficient_material(self) -> bool:
        """E3 in jieqi: only the two generals are left."""
        return all(abs(p) == KING for p in self.squares if p)

    # ------------------------------------------------------------------ make / unmake

    def needs_reveal(self, code: int) -> bool:
        """True when the move ``code`` turns a face-down piece face up."""
        return code != PASS_CODE and code // NUM_POINTS in self.face_down

    def make(self, code: int, reveal_kind: int | None = None) -> UndoRecord:
        """Play ``code`` without a legality check (Q3: a face-down mover turns face up).

        A board with the secret reveals from it (``reveal_kind``, when given, must agree); a
        board without one needs ``reveal_kind`` for a face-down mover, an unsigned kind that
        :meth:`unknown_pool` still holds. Raises RulesError otherwise.
        Capturing a face-down piece records what it was when this board knows it.
        """
        fr = code // NUM_POINTS
        to = code - fr * NUM_POINTS
        b = self.squares
        piece, captured = b[fr], b[to]
        side = 0 if piece > 0 else 1
        down = self.face_down
        hidden = self.hidden
        revealed = 0
        if fr in down:
            if hidden is not None:
                revealed = hidden[fr]
                if reveal_kind is not None and reveal_kind != abs(revealed):
                    raise RulesError("the revealed identity disagrees with the arrangement")
            elif reveal_kind is None:
                raise RulesError(f"{code_text(code)} reveals a piece: its identity is needed")
            else:
                revealed = reveal_kind if side == FIRST else -reveal_kind
            if self.pool[side][abs(revealed)] <= 0:
                raise RulesError(f"no face-down {SIDE_NAMES[side]} {KIND_LETTERS[abs(revealed)]}")
        down_captured: int | None = None
        if to in down:
            down_captured = hidden.pop(to) if hidden is not None else 0
            down.discard(to)
            if down_captured:
                self.pool[1 - side][abs(down_captured)] -= 1
            captured_key = ZOBRIST[15 + (1 - side)][to]
        elif captured:
            captured_key = ZOBRIST[captured + 7][to]
            if captured in (ADVISOR, ELEPHANT, -ADVISOR, -ELEPHANT):
                self.roamers[1 - side] -= 1
        else:
            captured_key = 0
        if revealed:
            down.discard(fr)
            if hidden is not None:
                del hidden[fr]
            self.pool[side][abs(revealed)] -= 1
            if revealed in (ADVISOR, ELEPHANT, -ADVISOR, -ELEPHANT):
                self.roamers[side] += 1
            moved_key = ZOBRIST[15 + side][fr] ^ ZOBRIST[revealed + 7][to]
            b[to] = revealed
        else:
            moved_key = ZOBRIST[piece + 7][fr] ^ ZOBRIST[piece + 7][to]
            b[to] = piece
        b[fr] = 0
        undo = UndoRecord(code, captured, self.halfmove, self.key, (revealed, down_captured))
        key = self.key ^ ZOBRIST_SIDE ^ moved_key
        if captured:
            key ^= captured_key
            self.halfmove = 0
        else:
            self.halfmove += 1
        if piece == KING:
            self.kings[0] = to
        elif piece == -KING:
            self.kings[1] = to
        self._pass_turn(key)
        return undo

    def unmake(self, undo: UndoRecord) -> None:
        self._take_back_turn(undo)
        fr = undo.code // NUM_POINTS
        to = undo.code - fr * NUM_POINTS
        b = self.squares
        piece = b[to]
        extra: _Reveal = undo.extra
        revealed, down_captured = extra
        side = 0 if piece > 0 else 1
        if revealed:
            b[fr] = START_PIECE[fr]
            self.face_down.add(fr)
            if self.hidden is not None:
                self.hidden[fr] = revealed
            self.pool[side][abs(revealed)] += 1
            if revealed in (ADVISOR, ELEPHANT, -ADVISOR, -ELEPHANT):
                self.roamers[side] -= 1
        else:
            b[fr] = piece
        captured = b[to] = undo.captured
        if down_captured is not None:
            self.face_down.add(to)
            if down_captured:
                if self.hidden is not None:
                    self.hidden[to] = down_captured
                self.pool[1 - side][abs(down_captured)] += 1
        elif captured in (ADVISOR, ELEPHANT, -ADVISOR, -ELEPHANT):
            self.roamers[1 - side] += 1
        if piece == KING:
            self.kings[0] = fr
        elif piece == -KING:
            self.kings[1] = fr

    def _push_code(
        self, code: int, reveal_kind: int | None = None, captured_piece: int | None = None
    ) -> None:
        """Play ``code`` as a game move. ``captured_piece`` is what a face-down piece taken by
        it was, when a board without the secret learns it (replaying its capturer's view).

        Raises RulesError when the reveal or the captured piece is impossible.
        """
        undo = self.make(code, reveal_kind)
        extra: _Reveal = undo.extra
        revealed, down_captured = extra
        if captured_piece is not None and down_captured is not None:
            side = 0 if captured_piece > 0 else 1
            if down_captured:
                fits = down_captured == captured_piece
            else:
                fits = (undo.captured > 0) == (captured_piece > 0) and (
                    self.pool[side][abs(captured_piece)] > 0
                )
            if not fits:
                self.unmake(undo)
                raise RulesError(f"{code_text(code)} cannot capture {_letter_of(captured_piece)}")
            if not down_captured:
                self.pool[side][abs(captured_piece)] -= 1
                undo.extra = (revealed, captured_piece)
        self._stack.append(undo)
        self._remember_key()
        self._checks.append(self.is_check())
        self._outcome_cache = None

    def push(self, move: Move | str, reveal: str | int | None = None) -> None:
        """Play a legal move (Q3). ``reveal`` (a letter like ``"R"`` or a kind) is what a
        face-down mover is: required on a board without the secret, checked on one with it.

        Raises GameOverError after the end, IllegalMoveError for an illegal move, RulesError
        for a missing, impossible or wrong ``reveal``.
        """
        if self.outcome() is not None:
            raise GameOverError(f"the game is over; {move} cannot be played")
        legal = self.parse_move(move)
        kind: int | None = None
        if reveal is not None:
            kind = abs(_piece_of(reveal)) if isinstance(reveal, str) else int(reveal)
            if not self.needs_reveal(legal.code):
                raise RulesError(f"{legal} moves a face-up piece: nothing to reveal")
            if not 1 < kind < 8:
                raise RulesError(f"a face-down piece cannot be {reveal!r}")
        self._push_code(legal.code, kind)

    def reveals_since(self, ply: int) -> bool:
        """Whether a move from half-move ``ply`` on made a face-down piece known: its mover
        turned face up (Q3) or it was taken face down (Q5). Taking such a move back would put
        back face down a piece whose identity a player has seen (Z2), so undo may not (P3)."""
        for undo in self._stack[ply:]:
            revealed, down_captured = undo.extra
            if revealed or down_captured is not None:
                return True
        return False

    def _copy_containers(self, other: Board) -> None:
        super()._copy_containers(other)
        assert isinstance(other, JieqiBoard)
        other.pool = [row[:] for row in self.pool]
        other.roamers = self.roamers[:]
        other.hidden = None if self.hidden is None else dict(self.hidden)

    def perft(self, depth: int) -> int:
        """Leaf count of the legal move tree; reveals follow the arrangement.

        Raises RulesError on a board without the secret when a reveal is reached.
        """
        return super().perft(depth)

    # ------------------------------------------------------------------ knowledge

    @property
    def has_secret(self) -> bool:
        """True for the full board (the server's); False for one rebuilt from a player view."""
        return self.hidden is not None

    def unknown_pool(self, side: int) -> dict[int, int]:
        """What a face-down piece of ``side`` may be: ``{kind: count}`` (kinds as in geometry).

        Counts the pieces of ``side`` whose identity and whereabouts this board's knower
        cannot tell apart: the face-down ones and those the knower saw captured face down
        without learning them (never read from the secret). Every face-down piece of
        ``side`` is one of these with probability count / total.
        """
        return {kind: n for kind, n in enumerate(self.pool[side]) if n > 0}

    def _move_records(
        self, viewer: int | None, everything: bool
    ) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
        """The ``moves`` and ``captured`` fields of a view (Q5: "?" where ``viewer`` is blind)."""
        records = []
        captured_by_colour: dict[str, list[str]] = {"red": [], "black": []}
        mover = (self.turn - len(self._stack)) % 2
        for undo in self._stack:
            extra: _Reveal = undo.extra
            revealed, down_captured = extra
            captured: str | None = None
            if down_captured is not None:
                known = everything or viewer is None or viewer == mover
                captured = _letter_of(down_captured) if known and down_captured else "?"
            elif undo.captured:
                captured = _letter_of(undo.captured)
            if captured is not None:
                captured_by_colour[SIDE_NAMES[1 - mover]].append(captured)
            records.append(
                {
                    "move": code_text(undo.code),
                    "reveal": _letter_of(revealed) if revealed else None,
                    "captured": captured,
                }
            )
            mover ^= 1
        return records, captured_by_colour

    def view(
        self, viewer: str | int | None = "all", game_over: bool | None = None
    ) -> dict[str, Any]:
        """What ``viewer`` (``"red"``, ``"black"``, 0, 1 or ``"all"``) may know, as a JSON-ready
        dict in the format of the module docstring (Q5, Z2).

        ``game_over`` tells that the game has ended off the board (resignation, timeout,
        agreement); by default it is :meth:`is_game_over`. A finished game shows everything.
        A board without the secret gives no ``hidden``, ``arrangement`` or ``salt``; one rebuilt
        from a player's view gives only that player's view.
        Raises RulesError for an unknown viewer or another player's view of a player's board.
        """
        side = _viewer_index(viewer)
        finished = self.is_game_over() if game_over is None else game_over
        if self.hidden is None and self.viewer is not None and side != self.viewer:
            raise RulesError(f"this board knows only what {SIDE_NAMES[self.viewer]} knows")
        everything = finished and self.hidden is not None
        moves, captured = self._move_records(side, everything)
        result: dict[str, Any] = {
            "variant": self.variant,
            "format": 1,
            "viewer": VIEWERS[2 if side is None else side],
            "start_fen": self.start_fen,
            "fen": self.fen(),
            "moves": moves,
            "captured": captured,
            "commitment": self.commitment,
            "finished": finished,
        }
        if self.rules != "casual":
            result["rules"] = self.rules
        if (finished or side is None) and self.hidden is not None:
            result["arrangement"], result["salt"] = self.reveal()
        if side is None and self.hidden is not None:
            result["hidden"] = {
                square_name(p): _letter_of(k) for p, k in sorted(self.hidden.items())
            }
        return result

    def reveal(self) -> tuple[str, str]:
        """The canonical arrangement text and the salt, for the end of the game (Q7).

        Raises RulesError on a board without the secret.
        """
        if self.hidden is None or self.salt is None:
            raise RulesError("this board has no secret to reveal")
        return arrangement_text(self._arrangement), self.salt

    def extra_state(self, view: str | None = None) -> dict[str, object]:
        """``captured`` and ``commitment`` as ``view`` knows them (default ``"all"``); the
        ``hidden`` map for ``"all"`` only; ``arrangement`` and ``salt`` once it is known."""
        if view is None:
            view = VIEWERS[2 if self.hidden is not None or self.viewer is None else self.viewer]
        full = self.view(view)
        keys = ("captured", "commitment", "hidden", "arrangement", "salt")
        return {k: full[k] for k in keys if k in full}

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> JieqiBoard:
        """Rebuild a board from :meth:`view`: same position, legal moves and repetition
        history. A player's view of an ongoing game gives a board without the secret; a view
        with ``arrangement`` and ``salt`` gives the full board again.

        Raises RulesError when the view is malformed or does not hold together.
        """
        try:
            start_fen = str(view["start_fen"])
            records = list(view["moves"])
            side = _viewer_index(view["viewer"])
            commitment = str(view["commitment"])
        except (KeyError, TypeError) as exc:
            raise RulesError(f"not a jieqi view: {exc}") from exc
        rules = str(view.get("rules", "casual"))
        if "arrangement" in view and "salt" in view:
            text, salt = str(view["arrangement"]), str(view["salt"])
            if not verify_commitment(commitment, text, salt):
                raise RulesError("the arrangement does not match the commitment")
            board = cls(start_fen, arrangement=text, salt=salt, rules=rules)
            board.viewer = side
        else:
            board = cls._secretless(start_fen, side, rules)
            board.commitment = commitment
        for index, record in enumerate(records, start=1):
            try:
                if board.outcome() is not None:
                    raise RulesError("the game was already over")
                move = board.parse_move(str(record["move"]))
                reveal = record.get("reveal")
                kind = abs(_piece_of(reveal)) if reveal else None
                if board.needs_reveal(move.code) != (kind is not None):
                    raise RulesError("reveal given for a face-up mover, or missing")
                taken = record.get("captured")
                captured_piece = _piece_of(taken) if taken and taken != "?" else None
                board._push_code(move.code, kind, captured_piece)
            except (RulesError, KeyError, TypeError, AttributeError) as exc:
                raise RulesError(f"view move {index} ({record!r}) does not fit: {exc}") from exc
        if "fen" in view and view["fen"] != board.fen():
            raise RulesError("the view's position does not follow from its moves")
        return board


__all__ = [
    "JieqiBoard",
    "arrangement_text",
    "commitment_of",
    "parse_arrangement",
    "verify_commitment",
]
