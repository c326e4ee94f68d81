"""Move notations, written and read back (SPEC N1–N3).

* ``coords`` (N1, the move list's default): ``h3-e3``; reads ``h3e3`` and ``h3-e3``.
* ``iccs``: ``H2-E2``, files A–I and ranks 0–9 from the first mover's side.
* ``wxf`` (N2), after the WXF specification: piece letter (K A E H R C P), the file counted
  from the mover's right, ``+`` forward / ``-`` backward / ``.`` sideways, then the
  destination file (sideways moves and the diagonal movers A E H) or the number of points.
  Two pieces of a kind on one file: ``+``/``-`` in place of the file (``R+.4``, ``C-+1``).
  Soldiers: three on a file are ``P+``, ``P3`` (the middle one keeps its file) and ``P-``;
  four or five are ``++``, ``P+``, (``P3``,) ``P-``, ``--``; when two files each hold two or
  more soldiers the file comes first and then ``+``/``-`` or the file again for the middle
  one (``3+.4``, ``33.4``, ``7-.6``). Advisors and elephants are never disambiguated: the
  direction already tells which one moves (in jieqi, where they roam, they get ``+``/``-``
  only when two on a file could make moves written alike).
* ``chinese`` (N3): ``炮二平五``, ``马8进7``. Red counts files with Chinese numerals, Black
  with digits, each from its own right. Two pieces on a file: ``前``/``后`` replace the file
  (``前车进一``); three soldiers ``前``/``中``/``后``; four or five soldiers, or soldiers
  stacked on two files, are numbered ``一``, ``二``, … from the front (files taken from the
  mover's right to left, then front to back), as the xqbase rendering of the Chinese rules
  does (``二兵平四``). Written in simplified characters; traditional characters, ``進``,
  ``後``, full-width and ASCII digits are read too.
* ``korean`` (janggi): the point notation of the Korean Janggi Association and ``.gib``
  files: from-point, piece, to-point, each point written row first as two digits seen from
  Cho (the first mover) at the bottom: the row counted from the top (``1``…``9``, ``0`` for
  the tenth, Cho's back row) then the column from Cho's left (``1``…``9``). ``79卒78`` is
  Cho's soldier i4→h4, ``08馬87`` Cho's horse h1→g3. Cho's soldier is ``卒``, Han's ``兵``;
  the other pieces are ``車 包 馬 象 士 將``. A pass is ``한수쉼``. Reading also takes what
  ``.gib`` files add after the to-point: the piece taken (``65졸55병``) and ``장군``/``멍군``.
* Jieqi (Q3): a move that turns a face-down piece face up is written with what it became,
  ``(R)`` after the move (``(车)`` in Chinese); reveals are public, so every viewer may see it.

:func:`write_move` writes a move of the board's side to move (:func:`write_moves` a line of
play, :func:`write_legal_moves` every legal move at once); :func:`read_move` reads one,
detecting the notation when none is named. Reading is forgiving where the text still points
at a single legal move (``R5+1`` with two chariots on file 5 of which only one can make that
move) and raises :class:`AmbiguousMoveError` (``ambiguous: two chariots on file 5``) or
:class:`NotationError` otherwise. It also takes ``=`` for ``.``, the letters G B N S (SPEC
N2), the traditional Chinese forms ``前兵九平八``/``前九平八`` and Fairy-Stockfish's soldiers
written place-then-file (``24=3``; where its ``33=4`` clashes with WXF's middle soldier, WXF wins).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .board import Board, IllegalMoveError, InvalidMoveError, Move, RulesError
from .geometry import (
    ADVISOR,
    CANNON,
    CHARIOT,
    ELEPHANT,
    FILES,
    FIRST,
    HORSE,
    KING,
    SECOND,
    SOLDIER,
    square_name,
)

NOTATIONS = ("coords", "iccs", "wxf", "chinese", "korean")

# Notations that only make sense on the xiangqi board (janggi has no river and its own
# convention) and the one that only makes sense for janggi.
_XIANGQI_ONLY = ("wxf", "chinese")
_JANGGI_ONLY = ("korean",)


class NotationError(RulesError):
    """The text cannot be read as a legal move in the notation."""


class AmbiguousMoveError(NotationError):
    """The text fits more than one legal move (``ambiguous: two chariots on file 5``)."""


# ---------------------------------------------------------------------------- vocabulary

_KINDS = (KING, ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER)


def _by_kind(*values: tuple[str, str]) -> dict[int, tuple[str, str]]:
    """``values`` in the order of :data:`_KINDS`, keyed by kind."""
    return dict(zip(_KINDS, values, strict=True))


def _kinds(*spellings: str) -> dict[str, int]:
    """The kind each character names: ``spellings`` in the order of :data:`_KINDS`."""
    return {ch: kind for kind, chars in zip(_KINDS, spellings, strict=True) for ch in chars}


WXF_LETTERS = dict(zip(_KINDS, "KAEHRCP", strict=True))
_WXF_KINDS = _kinds("KG", "A", "EBM", "HN", "R", "C", "PS")

# Simplified characters, written by default: (Red, Black).
CHINESE_PIECES = _by_kind(
    ("帅", "将"), ("仕", "士"), ("相", "象"), ("马", "马"), ("车", "车"), ("炮", "炮"), ("兵", "卒")
)
_CHINESE_KINDS = _kinds("帅帥将將", "仕士", "相象", "马馬傌", "车車俥", "炮砲包", "兵卒")
CHINESE_NUMERALS = "一二三四五六七八九"
_CHINESE_DIGITS = {ch: str(i) for i, ch in enumerate(CHINESE_NUMERALS, start=1)}
_CHINESE_WORDS = {
    **_CHINESE_DIGITS,
    "进": "+",
    "進": "+",
    "退": "-",
    "平": ".",
    "前": "f",
    "中": "m",
    "后": "r",
    "後": "r",
}

KOREAN_PIECES = _by_kind(
    ("將", "將"), ("士", "士"), ("象", "象"), ("馬", "馬"), ("車", "車"), ("包", "包"), ("卒", "兵")
)
_KOREAN_KINDS = {
    **_CHINESE_KINDS,
    **_kinds("楚漢将帥장궁초한", "사", "상", "마", "차", "포", "졸병"),
}
KOREAN_PASS = "한수쉼"

_KIND_NAMES = _by_kind(
    ("general", "generals"),
    ("advisor", "advisors"),
    ("elephant", "elephants"),
    ("horse", "horses"),
    ("chariot", "chariots"),
    ("cannon", "cannons"),
    ("soldier", "soldiers"),
)
_COUNT_WORDS = ("no", "one", "two", "three", "four", "five")

# Pieces that move along files and ranks: forward/backward moves count points.
_STRAIGHT = (KING, CHARIOT, CANNON, SOLDIER)


# ---------------------------------------------------------------------------- geometry


def mover_file(point: int, side: int) -> int:
    """The file of ``point`` counted 1–9 from ``side``'s own right (SPEC N2, N3)."""
    return 9 - point % 9 if side == FIRST else point % 9 + 1


def _forward(side: int) -> int:
    return 1 if side == FIRST else -1


def _side_of(board: Board, point: int) -> int:
    return FIRST if board.squares[point] > 0 else SECOND


def _kind_of(board: Board, point: int) -> int:
    """The kind the piece on ``point`` moves as (a face-down jieqi piece: its start point's)."""
    return abs(board.squares[point])


def _direction_and_target(kind: int, side: int, from_point: int, to_point: int) -> tuple[str, int]:
    """``('+', 2)``: forward two points; ``('.', 5)``: sideways to file 5; ``('+', 7)`` for a
    horse: forward to file 7 (diagonal movers always name the destination file)."""
    ranks = (to_point // 9 - from_point // 9) * _forward(side)
    if ranks == 0:
        return ".", mover_file(to_point, side)
    direction = "+" if ranks > 0 else "-"
    if kind in _STRAIGHT:
        return direction, abs(ranks)
    return direction, mover_file(to_point, side)


def _column(board: Board, side: int, kind: int, file: int) -> list[int]:
    """Points of ``side``'s pieces of ``kind`` on board file ``file`` (0–8), front first."""
    sign = 1 if side == FIRST else -1
    points = [p for p in range(file, 90, 9) if board.squares[p] == sign * kind]
    points.sort(key=lambda p: p // 9, reverse=side == FIRST)
    return points


def _stacked_soldier_files(board: Board, side: int) -> list[list[int]]:
    """Columns holding two or more of ``side``'s soldiers, from the mover's right to left."""
    columns = [_column(board, side, SOLDIER, file) for file in range(9)]
    stacked = [c for c in columns if len(c) >= 2]
    stacked.sort(key=lambda c: mover_file(c[0], side))
    return stacked


# ---------------------------------------------------------------------------- selectors


@dataclass(frozen=True, slots=True)
class _Selector:
    """How a written move names its piece.

    ``style`` is ``file`` (the plain file), ``tandem`` (front/middle/rear of two or three on
    a file), ``ranked`` (four or five soldiers on one file) or ``two_files`` (soldiers stacked
    on two files). ``index`` counts from the front of the piece's own file, ``count`` is how
    many stand there, ``overall`` numbers all stacked soldiers across files (Chinese).
    """

    style: str
    file: int
    index: int = 0
    count: int = 1
    overall: int = 0


def _selector(
    board: Board, side: int, kind: int, point: int, to_point: int, legal: Sequence[Move] | None
) -> _Selector:
    file = mover_file(point, side)
    column = _column(board, side, kind, point % 9)
    if len(column) < 2 or kind == KING:
        return _Selector("file", file)
    if kind in (ADVISOR, ELEPHANT) and not _twin_move(board, kind, column, point, to_point, legal):
        return _Selector("file", file)
    index = column.index(point)
    if kind == SOLDIER:
        stacked = _stacked_soldier_files(board, side)
        if len(stacked) >= 2:
            ordered = [p for c in stacked for p in c]
            return _Selector("two_files", file, index, len(column), ordered.index(point))
        if len(column) >= 4:
            return _Selector("ranked", file, index, len(column), index)
    return _Selector("tandem", file, index, len(column), index)


def _twin_move(
    board: Board,
    kind: int,
    column: list[int],
    point: int,
    to_point: int,
    legal: Sequence[Move] | None,
) -> bool:
    """True when another piece of the column can make a move written the same way.

    Advisors and elephants are never disambiguated in xiangqi, where the direction tells
    them apart; jieqi's roaming advisors and river-crossing elephants can need it (Q4).
    """
    side = board.turn
    wanted = _direction_and_target(kind, side, point, to_point)
    return any(
        m.from_point in column
        and m.from_point != point
        and _direction_and_target(kind, side, m.from_point, m.to_point) == wanted
        for m in (board.legal_moves if legal is None else legal)
    )


def _wxf_prefix(kind: int, sel: _Selector) -> str:
    letter = WXF_LETTERS[kind]
    middle = sel.count % 2 == 1 and sel.index == sel.count // 2
    if sel.style == "file":
        return f"{letter}{sel.file}"
    if sel.style == "two_files":
        mark = "+" if sel.index == 0 else "-" if sel.index == sel.count - 1 else str(sel.file)
        return f"{sel.file}{mark}"
    if sel.style == "ranked":
        if sel.index == 0:
            return "++"
        if sel.index == sel.count - 1:
            return "--"
        if middle:
            return f"{letter}{sel.file}"
        return f"{letter}+" if sel.index == 1 else f"{letter}-"
    if middle:
        return f"{letter}{sel.file}"
    return f"{letter}+" if sel.index == 0 else f"{letter}-"


def _chinese_number(value: int, side: int) -> str:
    return CHINESE_NUMERALS[value - 1] if side == FIRST else str(value)


def _chinese_prefix(kind: int, side: int, sel: _Selector) -> str:
    piece = CHINESE_PIECES[kind][side]
    if sel.style == "file":
        return piece + _chinese_number(sel.file, side)
    if sel.style == "tandem":
        if sel.count == 3:
            return "前中后"[sel.index] + piece
        return ("前" if sel.index == 0 else "后") + piece
    return CHINESE_NUMERALS[sel.overall] + piece


# ---------------------------------------------------------------------------- writing


def check_notation(board: Board, notation: str) -> None:
    """Raises :class:`NotationError` unless ``board``'s variant is written in ``notation``
    (``wxf`` and ``chinese`` are not janggi's; ``korean`` is janggi's only)."""
    if notation not in NOTATIONS:
        raise NotationError(f"unknown notation {notation!r}; choose one of {', '.join(NOTATIONS)}")
    if board.variant == "janggi" and notation in _XIANGQI_ONLY:
        raise NotationError(f"{notation} notation is for xiangqi and jieqi; janggi uses korean")
    if board.variant != "janggi" and notation in _JANGGI_ONLY:
        raise NotationError(f"{notation} notation is for janggi")


def _revealed_kind(board: Board, move: Move, reveal: str | None) -> int | None:
    """The kind a face-down jieqi piece turns out to be when ``move`` moves it (Q3): from
    ``reveal`` (a letter) when given, else from the board's own knowledge; None for a face-up
    mover or when the board (a player's) cannot know it yet."""
    if move.is_pass or move.from_point not in board.face_down:
        return None
    letter = reveal
    if letter is None:
        after = board.copy()
        try:
            after.push(move)
        except RulesError:
            return None
        letter = after.piece_letter(move.to_point)
    kind = _WXF_KINDS.get((letter or "").upper())
    if kind is None:
        raise NotationError(f"a face-down piece cannot turn into {letter!r}")
    return kind


def read_reveal(text: str) -> str | None:
    """The piece a written jieqi reveal names, as a FEN letter in upper case (``(H)`` and
    ``(马)`` → ``"N"``); None when the text has no reveal. Raises NotationError for a mark
    that names no piece."""
    found = _REVEAL.search(_clean(text))
    if not found:
        return None
    mark = found.group(1)
    kind = _WXF_KINDS.get(mark.upper()) or _CHINESE_KINDS.get(mark)
    if kind is None or kind == KING:
        raise NotationError(f"{text!r}: a face-down piece cannot turn into {mark!r}")
    return " kabnrcp"[kind].upper()


def write_move(
    board: Board, move: Move | str, notation: str = "coords", reveal: str | None = None
) -> str:
    """``move`` (legal for the side to move on ``board``) written in ``notation``.

    The board is the position before the move and is left unchanged. A jieqi move that turns
    a piece face up gets what it became, ``(R)`` (``(车)`` in Chinese): from ``reveal`` (a
    letter) when given, else from the board when it knows. Raises :class:`NotationError` for
    an unknown notation or one the variant does not use, and
    :class:`~chuhan.rules.IllegalMoveError` when the move is not legal.
    """
    check_notation(board, notation)
    move = board.parse_move(move)
    text = _write_plain(board, move, notation)
    kind = _revealed_kind(board, move, reveal)
    if kind is not None:
        text += _reveal_mark(board, move, kind, notation)
    return text


def _reveal_mark(board: Board, move: Move, kind: int, notation: str) -> str:
    side = _side_of(board, move.from_point)
    mark = CHINESE_PIECES[kind][side] if notation == "chinese" else WXF_LETTERS[kind]
    return f"({mark})"


def _write_plain(
    board: Board, move: Move, notation: str, legal: Sequence[Move] | None = None
) -> str:
    if move.is_pass:
        return KOREAN_PASS if notation == "korean" else "pass"
    fr, to = move.from_point, move.to_point
    if notation == "coords":
        return f"{square_name(fr)}-{square_name(to)}"
    if notation == "iccs":
        return f"{FILES[fr % 9].upper()}{fr // 9}-{FILES[to % 9].upper()}{to // 9}"
    side = _side_of(board, fr)
    kind = _kind_of(board, fr)
    if notation == "korean":
        piece = KOREAN_PIECES[kind][side]
        return f"{_korean_point(fr)}{piece}{_korean_point(to)}"
    direction, target = _direction_and_target(kind, side, fr, to)
    sel = _selector(board, side, kind, fr, to, legal)
    if notation == "wxf":
        return f"{_wxf_prefix(kind, sel)}{direction}{target}"
    word = {"+": "进", "-": "退", ".": "平"}[direction]
    return f"{_chinese_prefix(kind, side, sel)}{word}{_chinese_number(target, side)}"


def _korean_point(point: int) -> str:
    return f"{(10 - point // 9) % 10}{point % 9 + 1}"


def write_legal_moves(board: Board, notation: str = "coords") -> dict[Move, str]:
    """Every legal move of the side to move, written in ``notation`` (a move list, hints).

    Same texts as :func:`write_move`, with the legal moves generated once. Raises
    :class:`NotationError` for an unknown notation or one the variant does not use.
    """
    check_notation(board, notation)
    legal = board.legal_moves
    out = {}
    for move in legal:
        text = _write_plain(board, move, notation, legal)
        kind = _revealed_kind(board, move, None)
        if kind is not None:
            text += _reveal_mark(board, move, kind, notation)
        out[move] = text
    return out


def write_moves(board: Board, moves: Iterable[Move | str], notation: str = "coords") -> list[str]:
    """Each of ``moves``, played in turn from ``board``'s position, written in ``notation``.

    ``board`` is left unchanged. Raises what :func:`write_move` raises, and
    :class:`~chuhan.rules.IllegalMoveError` for a move not legal where it is played.
    """
    check_notation(board, notation)
    replay = board.copy()
    out = []
    for move in moves:
        out.append(write_move(replay, move, notation))
        replay.push(move)
    return out


# ---------------------------------------------------------------------------- reading

_ICCS = re.compile(r"^([A-Ia-i])([0-9])-?([A-Ia-i])([0-9])$")
_COORDS = re.compile(r"^([a-i](?:10|[1-9]))-?([a-i](?:10|[1-9]))$")
_REVEAL = re.compile(r"\((.)\)$")
_ANNOTATION = re.compile(r"[!?]+$")


def detect_notation(text: str, variant: str = "xiangqi") -> str:
    """The notation ``text`` is written in: ``iccs`` for ``H2-E2``, ``coords`` for ``h3e3`` or
    ``h3-e3``, ``korean`` for other janggi text (``79卒78``), ``chinese`` for other text with
    CJK characters, ``wxf`` for the rest."""
    text = _clean(text)
    if re.fullmatch(r"[A-I][0-9]-[A-I][0-9]", text):
        return "iccs"
    if _COORDS.match(text) or text == "pass":
        return "coords"
    if variant == "janggi":
        return "korean"
    if any(ord(ch) > 0x2E80 for ch in text):
        return "chinese"
    return "wxf"


def _clean(text: str) -> str:
    """Full-width forms folded to ASCII, spaces removed, trailing ``!?`` annotations dropped."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"\s+", "", text)
    return _ANNOTATION.sub("", text)


def read_move(board: Board, text: str, notation: str | None = None) -> Move:
    """The legal move of the side to move that ``text`` names, in ``notation`` (detected when
    None; see :func:`detect_notation`).

    Raises :class:`AmbiguousMoveError` when the text fits several legal moves and
    :class:`NotationError` when it fits none or cannot be read; the message says why.
    """
    cleaned = _clean(text)
    reveal = _REVEAL.search(cleaned)
    if reveal:
        cleaned = cleaned[: reveal.start()]
    if not cleaned:
        raise NotationError("empty move text")
    if notation is None:
        notation = detect_notation(cleaned, board.variant)
    check_notation(board, notation)
    if notation in ("coords", "iccs"):
        return _read_coordinates(board, cleaned, notation, text)
    if notation == "korean":
        return _read_korean(board, cleaned, text)
    return _read_descriptive(board, cleaned, notation, text)


def _legal(board: Board, move: Move, text: str) -> Move:
    try:
        return board.parse_move(move)
    except IllegalMoveError as exc:
        raise NotationError(f"{text!r} is not a legal move here ({exc})") from None


def _read_coordinates(board: Board, cleaned: str, notation: str, text: str) -> Move:
    if cleaned.lower() == "pass":
        return _legal(board, Move.parse("pass"), text)
    if notation == "iccs":
        found = _ICCS.match(cleaned)
        if not found:
            raise NotationError(f"not an ICCS move: {text!r} (expected e.g. 'H2-E2')")
        f1, r1, f2, r2 = found.groups()
        move = Move(int(r1) * 9 + FILES.index(f1.lower()), int(r2) * 9 + FILES.index(f2.lower()))
        return _legal(board, move, text)
    found = _COORDS.match(cleaned.lower())
    if not found:
        raise NotationError(f"not a coordinate move: {text!r} (expected e.g. 'h3-e3')")
    try:
        move = Move.parse(found.group(1) + found.group(2))
    except InvalidMoveError as exc:
        raise NotationError(str(exc)) from None
    return _legal(board, move, text)


_KOREAN = re.compile(r"^(\d)(\d)(\D*?)(\d)(\d)(\D*)$")
# What .gib files may write after the to-point: the piece taken (``65졸55병``), then a check
# (``장군``) or an answer to one (``멍군``).
_KOREAN_SUFFIX = re.compile(r"^(\D?)(?:장군|멍군)?$")


def _read_korean(board: Board, cleaned: str, text: str) -> Move:
    if cleaned in (KOREAN_PASS, "pass"):
        return _legal(board, Move.parse("pass"), text)
    found = _KOREAN.match(cleaned)
    if not found:
        raise NotationError(f"not a korean move: {text!r} (expected e.g. '79卒78')")
    r1, c1, piece, r2, c2, suffix = found.groups()
    taken = _KOREAN_SUFFIX.match(suffix)
    if taken is None or (taken.group(1) and taken.group(1) not in _KOREAN_KINDS):
        raise NotationError(f"not a korean move: {text!r} (unknown ending {suffix!r})")
    if "0" in (c1, c2):
        raise NotationError(f"not a korean move: {text!r} (columns are 1–9)")
    fr = (10 - int(r1) if r1 != "0" else 0) * 9 + int(c1) - 1
    to = (10 - int(r2) if r2 != "0" else 0) * 9 + int(c2) - 1
    move = _legal(board, Move(fr, to), text)
    if piece:
        named = _KOREAN_KINDS.get(piece[-1])
        if named is None or (len(piece) > 1 and piece[0] not in "楚漢초한"):
            raise NotationError(f"unknown piece {piece!r} in {text!r}")
        if named != _kind_of(board, fr):
            raise NotationError(f"{text!r}: the piece on {square_name(fr)} is not a {piece}")
    if taken.group(1) and _KOREAN_KINDS[taken.group(1)] != abs(board.squares[to]):
        raise NotationError(f"{text!r}: there is no {taken.group(1)} to take on {square_name(to)}")
    return move


# A descriptive move reduced to ASCII: kind letter, digits, f/m/r for front/middle/rear.


def _normalize_wxf(cleaned: str) -> str:
    out = []
    for ch in cleaned:
        upper = ch.upper()
        if upper in _WXF_KINDS:
            out.append(WXF_LETTERS[_WXF_KINDS[upper]])
        elif ch in "=":
            out.append(".")
        else:
            out.append(ch)
    return "".join(out)


def _normalize_chinese(cleaned: str) -> str:
    out = []
    for ch in cleaned:
        if ch in _CHINESE_KINDS:
            out.append(WXF_LETTERS[_CHINESE_KINDS[ch]])
        elif ch in _CHINESE_WORDS:
            out.append(_CHINESE_WORDS[ch])
        elif ch.isdigit():
            out.append(ch)
        else:
            raise NotationError(f"unexpected {ch!r} in {cleaned!r}")
    return "".join(out)


def _normalize(text: str, notation: str) -> str:
    if notation == "wxf":
        return _normalize_wxf(text)
    return _normalize_chinese(text)


@dataclass(frozen=True, slots=True)
class _Descriptor:
    """What a descriptive move says: its kind, file, place in a column, direction, target.

    ``place`` is ``front``, ``middle``, ``rear``, ``first``/``last`` (WXF ``++``/``--``) or a
    number counted from the front (Chinese ``二兵``); None when the file alone names the piece.
    """

    kind: int
    file: int | None
    place: str | int | None
    direction: str
    target: int


_WXF_FORMS = (
    (re.compile(r"^([KAEHRCP])([1-9])([+\-.])([1-9])$"), "letter_file"),
    (re.compile(r"^([KAEHRCP])([+\-])([+\-.])([1-9])$"), "letter_tandem"),
    (re.compile(r"^([+\-])\1([+\-.])([1-9])$"), "outer"),
    (re.compile(r"^([1-9])([+\-]|[1-9])([+\-.])([1-9])$"), "file_first"),
)
_CHINESE_FORM = re.compile(r"^([fmr]|[1-5])?([KAEHRCP])?([1-9])?([+\-.])([1-9])$")


def _describe(normal: str, notation: str, text: str) -> _Descriptor:
    """Parse the normalized text; raises NotationError when it is not a move at all."""
    if notation == "wxf":
        for pattern, form in _WXF_FORMS:
            found = pattern.match(normal)
            if not found:
                continue
            g = found.groups()
            if form == "letter_file":
                return _Descriptor(_WXF_KINDS[g[0]], int(g[1]), None, g[2], int(g[3]))
            if form == "letter_tandem":
                end = "front" if g[1] == "+" else "rear"
                return _Descriptor(_WXF_KINDS[g[0]], None, end, g[2], int(g[3]))
            if form == "outer":
                end = "first" if g[0] == "+" else "last"
                return _Descriptor(SOLDIER, None, end, g[1], int(g[2]))
            mark = g[1]
            if mark.isdigit() and mark != g[0]:
                # Fairy-Stockfish's soldiers: place from the front, then the file (``24.3``).
                return _Descriptor(SOLDIER, int(mark), int(g[0]), g[2], int(g[3]))
            spot = "front" if mark == "+" else "rear" if mark == "-" else "middle"
            return _Descriptor(SOLDIER, int(g[0]), spot, g[2], int(g[3]))
        raise NotationError(f"not a WXF move: {text!r} (expected e.g. 'C2.5', 'R+.4', 'H8+7')")
    found = _CHINESE_FORM.match(normal)
    if not found:
        raise NotationError(f"not a Chinese move: {text!r} (expected e.g. '炮二平五', '马8进7')")
    head, letter, file, direction, target = found.groups()
    if letter is None and (head is None or file is None):
        raise NotationError(f"{text!r} does not name a piece")
    kind = _WXF_KINDS[letter] if letter else SOLDIER
    if head is None and file is None:
        raise NotationError(f"{text!r} does not say which {_KIND_NAMES[kind][0]} moves")
    place: str | int | None = None
    if head is not None:
        place = int(head) if head.isdigit() else {"f": "front", "m": "middle", "r": "rear"}[head]
    return _Descriptor(kind, int(file) if file else None, place, direction, int(target))


def _fits_place(place: str | int | None, index: int, count: int) -> bool:
    if place is None:
        return True
    if count < 2:
        return False
    if place in ("front", "first"):
        return index == 0
    if place in ("rear", "last"):
        return index == count - 1
    if place == "middle":
        return count % 2 == 1 and index == count // 2
    return isinstance(place, int) and index == place - 1


def _read_descriptive(board: Board, cleaned: str, notation: str, text: str) -> Move:
    normal = _normalize(cleaned, notation)
    legal = board.legal_moves
    # The exact written form first: it resolves every tandem rule of the standard. Only the
    # named kind's moves can match (no letter: the soldier forms ``++.4``, ``3+.4``, 前三…).
    letters = [ch for ch in normal if ch in _WXF_KINDS]
    kind = _WXF_KINDS[letters[0]] if letters else SOLDIER
    exact = [
        m
        for m in legal
        if not m.is_pass
        and _kind_of(board, m.from_point) == kind
        and _normalize(_write_plain(board, m, notation, legal), notation) == normal
    ]
    if len(exact) == 1:
        return exact[0]
    desc = _describe(normal, notation, text)
    side = board.turn
    fits = []
    for move in legal:
        fr, to = move.from_point, move.to_point
        if move.is_pass or _kind_of(board, fr) != desc.kind:
            continue
        if desc.file is not None and mover_file(fr, side) != desc.file:
            continue
        column = _column(board, side, desc.kind, fr % 9)
        if not _fits_place(desc.place, column.index(fr), len(column)):
            continue
        if _direction_and_target(desc.kind, side, fr, to) == (desc.direction, desc.target):
            fits.append(move)
    if len(fits) == 1:
        return fits[0]
    if not fits:
        raise NotationError(_no_fit_reason(board, desc, text))
    raise AmbiguousMoveError(_ambiguity_reason(board, fits, text))


def _no_fit_reason(board: Board, desc: _Descriptor, text: str) -> str:
    side = board.turn
    name = _KIND_NAMES[desc.kind]
    side_name = board.SIDE_NAMES[side]
    if desc.file is not None:
        sign = 1 if side == FIRST else -1
        on_file = [
            p
            for p in range(90)
            if board.squares[p] == sign * desc.kind and mover_file(p, side) == desc.file
        ]
        if not on_file:
            return f"{text!r}: no {side_name} {name[0]} on file {desc.file}"
    return f"{text!r} is not a legal move for {side_name}"


def _ambiguity_reason(board: Board, fits: Sequence[Move], text: str) -> str:
    side = board.turn
    files = {mover_file(m.from_point, side) for m in fits}
    kinds = {_kind_of(board, m.from_point) for m in fits}
    if len(files) == 1 and len(kinds) == 1:
        kind = kinds.pop()
        file = files.pop()
        count = len(_column(board, side, kind, fits[0].from_point % 9))
        if count > 1:
            return f"ambiguous: {_COUNT_WORDS[count]} {_KIND_NAMES[kind][1]} on file {file}"
    options = ", ".join(f"{square_name(m.from_point)}-{square_name(m.to_point)}" for m in fits)
    return f"ambiguous: {text!r} could be {options}"
