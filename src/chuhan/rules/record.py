"""Game records: a PGN-style text that other xiangqi software reads and writes (SPEC N4).

A record is a block of tags and then the numbered moves::

    [Game "Chinese Chess"]
    [Variant "xiangqi"]
    [FEN "…"]                  (only when the game did not start from the standard position)
    [Result "1-0"]             (1-0 first mover won, 0-1 second mover, 1/2-1/2 draw, * open)
    [Termination "checkmate"]  (the reason, as ``Outcome.reason`` names it)
    [Format "WXF"]             (ICCS, WXF, Chinese or Coords; Korean for janggi)

    1. C2.5 H8+7
    2. H2+3 R9.8
    1-0

This follows the xqbase "Chinese Chess PGN" conventions (``Game``, ``Format``, ``FEN``), so
XQF-to-PGN exports and xqbase files with ``[Format "Chinese"]`` import. Janggi records keep
their rule options in ``[Rules "bikjang=points"]`` and their setup in the FEN; ``.gib`` files
(tags ``초차림``/``한차림`` "마상상마", ``대국결과`` "한 기권승", moves ``79卒78``) import too.
A jieqi record carries the ``[Commitment]`` of its arrangement; a finished game's record also
the arrangement and salt (``[Arrangement]``, ``[Salt]``: public once the game is over, Q5/Q7,
checked against the commitment on import). An unfinished one carries only the reveals written
in its moves (``R9+1(C)``), enough to replay it on a board that learns from them.

Reading skips comments (``{…}``, ``;`` to the end of the line), variations (``(…)``), NAGs
(``$1``) and move numbers; moves are read in the ``Format`` given (detected per move when the
tag is missing; lower-case ICCS such as ``h2e2`` is recognised by the whole record). A
placeholder for Red's first move (``1. ... 炮8平5``, ``1. .....``) makes Black move first.
``.gib`` setups are both written from the board's left as Cho sees it, and ``.gib`` moves may
end with the piece taken and ``장군`` (``65졸55병``). A game that its players went on with
after our rules ended it (a threefold repetition: other sites and clubs play on) is kept
move for move; :attr:`GameRecord.rules_end` says where and why our rules would have ended it.
:func:`write_gib` writes a janggi game as a ``.gib``. A record that does not hold together
raises :class:`RecordError` naming the line and the reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from . import make_board
from .board import Board, GameOverError, Move, Outcome, RulesError
from .geometry import FIRST
from .jieqi import JieqiBoard, verify_commitment
from .notation import check_notation, read_move, read_reveal, write_move

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
# The most half-moves one record may hold (SPEC Z7): long enough for any game played (janggi
# ends at 400, xiangqi games over 300 are rare), short enough that replaying one is quick.
MAX_RECORD_PLIES = 1000
_NO_MOVE_ENDS = ("checkmate", "stalemate")
# Record format tag values, by notation name.
FORMAT_TAGS = {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese", "korean": "Korean"}
FORMAT_TAGS["coords"] = "Coords"
GAME_NAMES = {"xiangqi": "Chinese Chess", "janggi": "Janggi", "jieqi": "Jieqi"}
_GAME_VARIANTS = {
    "chinese chess": "xiangqi",
    "xiangqi": "xiangqi",
    "janggi": "janggi",
    "korean chess": "janggi",
    "jieqi": "jieqi",
}


class RecordError(RulesError):
    """A record that cannot be read: ``line`` (from 1) and ``reason`` say where and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class RecordTooLongError(RecordError):
    """A record with more than :data:`MAX_RECORD_PLIES` half-moves; ``line`` holds the first
    one past the cap."""


@dataclass(frozen=True)
class RulesEnd:
    """Where our rules would have ended a game that its players played on (E1–E3: a club
    that does not stop at a threefold repetition): after ``ply`` half-moves, for ``reason``
    (``Outcome.reason``), won by ``winner`` (a side number, None for a draw)."""

    ply: int
    reason: str
    winner: int | None

    def as_json(self, side_names: tuple[str, str]) -> dict[str, object]:
        winner = None if self.winner is None else side_names[self.winner]
        return {"ply": self.ply, "reason": self.reason, "winner": winner}


@dataclass
class GameRecord:
    """A game read from a record: its start, moves, result and tags, and the final board.

    ``rules_end`` is set when the record goes on past a position where our rules end the
    game (a repetition, the no-capture limit…): the moves are kept as played.
    """

    variant: str
    start_fen: str
    moves: list[Move]
    result: str
    termination: str | None
    board: Board
    tags: dict[str, str] = field(default_factory=dict)
    rules_end: RulesEnd | None = None


def default_format(variant: str) -> str:
    """The notation a record of ``variant`` is written in unless told: ``korean`` for janggi,
    ``iccs`` otherwise."""
    return "korean" if variant == "janggi" else "iccs"


def result_text(outcome: Outcome | None) -> str:
    """``1-0``, ``0-1``, ``1/2-1/2`` for an ended game, ``*`` for one still going."""
    if outcome is None:
        return "*"
    if outcome.winner is None:
        return "1/2-1/2"
    return "1-0" if outcome.winner == FIRST else "0-1"


def _start_of(board: Board) -> Board:
    start = board.copy()
    while start.ply:
        start.pop()
    return start


def _ending(board: Board, result: str | None, termination: str | None) -> tuple[str, str | None]:
    """The ``result`` and ``termination`` a record states: the given ones, else the board's
    outcome's (one rule for every written format). Raises ValueError for an unknown result."""
    outcome = board.outcome()
    result = result or result_text(outcome)
    if result not in RESULTS:
        raise ValueError(f"result must be one of {', '.join(RESULTS)}, got {result!r}")
    if termination is None and outcome is not None:
        termination = outcome.reason
    return result, termination


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_record(
    board: Board,
    fmt: str | None = None,
    *,
    result: str | None = None,
    termination: str | None = None,
    tags: Mapping[str, str] | None = None,
) -> str:
    """The record of the game played on ``board`` (from its start to now), moves in ``fmt``.

    ``result`` and ``termination`` default to the board's outcome; pass them for a game that
    ended off the board (resignation, timeout, agreement). ``tags`` adds or overrides tags.
    Raises :class:`~chuhan.rules.notation.NotationError` for a format the variant cannot use
    and ValueError for an unknown result.
    """
    fmt = fmt or default_format(board.variant)
    if fmt not in FORMAT_TAGS:
        raise ValueError(f"unknown record format {fmt!r}; choose one of {', '.join(FORMAT_TAGS)}")
    check_notation(board, fmt)
    result, termination = _ending(board, result, termination)
    start = _start_of(board)
    header: dict[str, str] = {"Game": GAME_NAMES.get(board.variant, board.variant)}
    header["Variant"] = board.variant
    standard = start.fen() == make_board(board.variant, None, **_options_of(board)).fen()
    if not standard:
        header["FEN"] = start.fen()
    rules = _rules_of(board)
    if rules:
        header["Rules"] = rules
    header["Result"] = result
    if termination:
        header["Termination"] = termination
    header["Format"] = FORMAT_TAGS[fmt]
    if isinstance(board, JieqiBoard) and board.commitment:
        header["Commitment"] = board.commitment
    ended = result != "*" or board.outcome() is not None
    if isinstance(board, JieqiBoard) and board.has_secret and ended:
        header["Arrangement"], header["Salt"] = board.reveal()
    header.update(tags or {})
    lines = [f'[{name} "{_quote(value)}"]' for name, value in header.items()]
    lines.append("")
    lines.extend(_movetext(start, board.move_stack, _reveals(board), fmt))
    lines.append(result)
    return "\n".join(lines) + "\n"


_GIB_LETTERS = {"H": "마", "E": "상"}
_GIB_WINS = {"checkmate": "완승", "resignation": "기권승", "timeout": "시간승"}
_GIB_WINS.update({"double_pass": "판정승", "repetition": "판정승", "move_limit": "판정승"})
_GIB_WINS["bikjang"] = "판정승"


def write_gib(board: Board, *, result: str | None = None, termination: str | None = None) -> str:
    """The janggi game played on ``board`` as a ``.gib`` file's text (Korean software's
    record: tags ``초차림``/``한차림``/``대국결과``, then the half-moves numbered one by one in
    the Korean point notation). ``result``/``termination`` as for :func:`write_record`.

    Raises ValueError for another variant, an unknown result, or a game that did not start
    from one of the sixteen setups (a ``.gib`` has no FEN).
    """
    if board.variant != "janggi":
        raise ValueError(".gib records are for janggi")
    start = _start_of(board)
    setup = getattr(start, "setup", None)
    if setup is None:
        raise ValueError("a .gib record starts from a setup; this game starts from a FEN")
    result, termination = _ending(board, result, termination)
    cho, han = setup.split(":")
    # Both setups are written from the board's left as Cho sees it (Han's own left reversed).
    lines = [
        f'[초차림 "{"".join(_GIB_LETTERS[c] for c in cho)}"]',
        f'[한차림 "{"".join(_GIB_LETTERS[c] for c in reversed(han))}"]',
    ]
    if result in ("1-0", "0-1"):
        winner = "초" if result == "1-0" else "한"
        lines.append(f'[대국결과 "{winner} {_GIB_WINS.get(termination or "", "승")}"]')
    elif result == "1/2-1/2":
        lines.append('[대국결과 "무승부"]')
    lines.append("")
    moves = _written_moves(start, board.move_stack, "korean")
    lines.append(" ".join(f"{ply}. {text}" for ply, text in enumerate(moves, start=1)))
    return "\n".join(lines) + "\n"


def _written_moves(start: Board, moves: list[Move], fmt: str) -> list[str]:
    """``moves`` played from ``start`` (left unchanged) written in ``fmt``, also past our
    rules' end (:func:`push_played`); jieqi reveals come from ``start``'s own board."""
    replay = start.copy()
    out = []
    for move in moves:
        out.append(write_move(replay, move, fmt))
        push_played(replay, move)
    return out


def _options_of(board: Board) -> dict[str, object]:
    bikjang = getattr(board, "bikjang", None)
    options: dict[str, object] = {"bikjang": bikjang} if bikjang not in (None, "off") else {}
    if board.rules != "casual":
        options["rules"] = board.rules  # [Rules "rules=wxf"]: the repetition rule set (E1)
    return options


def _rules_of(board: Board) -> str:
    return " ".join(f"{name}={value}" for name, value in _options_of(board).items())


def _reveals(board: Board) -> list[str | None]:
    """What each move of a jieqi game turned face up (public, Q3); None for the others."""
    if not isinstance(board, JieqiBoard):
        return [None] * board.ply
    # A board rebuilt from one player's view can only give that view; reveals are in all.
    knower = "all" if board.has_secret or board.viewer is None else board.viewer
    view = board.view(knower)
    return [record["reveal"] for record in view["moves"]]


def _movetext(
    start: Board, moves: list[Move], reveals: list[str | None], fmt: str
) -> Iterator[str]:
    replay = start
    line = f"{start.fullmove}..." if start.turn != FIRST else ""
    for move, reveal in zip(moves, reveals, strict=True):
        if replay.turn == FIRST:
            if line:
                yield line
            line = f"{replay.fullmove}."
        line += " " + write_move(replay, move, fmt, reveal=reveal)
        push_played(replay, move, reveal)
    if line:
        yield line


# ---------------------------------------------------------------------------- reading


def decode_record(data: bytes) -> str:
    """The text of a record file: UTF-8 (with or without BOM), else GB18030 (xqbase, XQF
    exports) or CP949 (.gib), whichever yields more of the pieces' characters."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    chinese = "车車马馬炮砲兵卒相象仕士帅帥将將进進退平前后後"
    candidates = []
    korean = "車包馬象士將卒兵楚漢차포마상사장졸병초한"
    for encoding, marks in (("gb18030", chinese), ("cp949", korean)):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        candidates.append((sum(ch in marks for ch in text), text))
    if not candidates:
        return data.decode("latin-1")
    return max(candidates, key=lambda c: c[0])[1]


_TAG = re.compile(r'^\[\s*([^\s\]"]+)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_MOVE_NUMBER = re.compile(r"^\d+\s*\.+")
_NAG = re.compile(r"^\$\d+$")
_GIB_MARK = re.compile(r"^<[^>]*>$")  # .gib files carry marks such as <0> between moves


@dataclass
class _Token:
    text: str
    line: int


def _tokens(lines: list[str], first: int, end: int) -> Iterator[_Token]:
    """Movetext tokens from ``lines[first:end]`` with their line numbers, comments and
    variations dropped. Raises RecordError for an unclosed comment or variation."""
    in_comment = 0
    depth = 0
    opened = 0
    attached = False
    for index in range(first, end):
        number = index + 1
        word = ""
        for ch in lines[index] + "\n":
            if in_comment:
                if ch == "}":
                    in_comment = 0
                continue
            if ch == "{":
                in_comment, opened = number, number
            elif ch == ";" and not depth:
                break
            elif ch == "(" and word and not depth:
                attached = True  # a jieqi reveal, ``R9+1(E)``: part of the move
                word += ch
                continue
            elif ch == ")" and attached:
                attached = False
                word += ch
                continue
            elif ch == "(":
                depth += 1
                opened = number
            elif ch == ")":
                if not depth:
                    raise RecordError(number, "')' without a variation to close")
                depth -= 1
            elif depth:
                continue
            elif ch.isspace() and not attached:
                pass
            else:
                word += ch
                continue
            if word and not depth:
                yield from _split_number(word, number)
            word = ""
        if word and not depth:
            yield from _split_number(word, number)
    if in_comment:
        raise RecordError(in_comment, "comment '{' is never closed")
    if depth:
        raise RecordError(opened, "variation '(' is never closed")


# Moves that begin with a digit: WXF soldiers on two files (``33.4``), Korean (``79卒78``).
_DIGIT_MOVE = re.compile(r"^(?:\d[\d+\-][+\-.=]\d|\d\d\D+\d\d\D*)(?:\(.\))?$")


def _split_number(word: str, line: int) -> Iterator[_Token]:
    """``1.`` is skipped; ``1.C2.5`` gives ``C2.5``, ``1.33.4`` gives ``33.4``; ``33.4``
    alone is a move, not move number 33."""
    number = _MOVE_NUMBER.match(word)
    if number:
        rest = word[number.end() :]
        if not rest[:1].isdigit() or (_DIGIT_MOVE.match(rest) and not _DIGIT_MOVE.match(word)):
            word = rest
    if word:
        yield _Token(word, line)


# .gib (Korean janggi) tags: each side's horse/elephant setup and the result ("초 완승": Cho
# wins). Both setups are written from the board's left as Cho sees it, so Han's reads from
# Han's own left (J3) reversed: 한차림 "마상마상" is Han's EHEH (only 마상마상/상마상마 differ).
_GIB_SETUP_TAGS = (("초차림", "초포진"), ("한차림", "한포진"))
_GIB_PIECES = {"마": "H", "상": "E"}


def _variant_from(tags: dict[str, str], lines_of: dict[str, int]) -> str:
    if "Variant" in tags:
        variant = tags["Variant"].strip().lower()
        if variant not in GAME_NAMES:
            raise RecordError(lines_of["Variant"], f"unknown variant {tags['Variant']!r}")
        return variant
    if any(name in tags for names in _GIB_SETUP_TAGS for name in names) or "대국결과" in tags:
        return "janggi"
    if tags.get("Format", "").strip().lower() == "korean":
        return "janggi"
    game = tags.get("Game", "").strip().lower()
    return _GAME_VARIANTS.get(game, "xiangqi")


def _gib_setup(tags: dict[str, str], lines_of: dict[str, int]) -> str | None:
    """``"HEEH:EHHE"`` from the .gib tags ``초차림 "마상상마"`` / ``한차림 "상마마상"``."""
    choices = []
    for han, names in enumerate(_GIB_SETUP_TAGS):
        name = next((n for n in names if n in tags), None)
        if name is None:
            return None
        value = tags[name].replace(" ", "")
        letters = "".join(_GIB_PIECES.get(ch, "?") for ch in value)
        if len(letters) != 4 or "?" in letters:
            raise RecordError(lines_of[name], f"unknown setup {tags[name]!r} (e.g. 마상상마)")
        choices.append(letters[::-1] if han else letters)
    return ":".join(choices)


def _gib_result(text: str) -> str:
    text = text.strip()
    if text[:1] in ("초", "楚"):
        return "1-0"
    if text[:1] in ("한", "漢"):
        return "0-1"
    return "1/2-1/2" if text.startswith("무승부") else "*"


def _format_from(tags: dict[str, str], lines_of: dict[str, int]) -> str | None:
    if "Format" not in tags:
        return None
    wanted = tags["Format"].strip().lower()
    for name, tag in FORMAT_TAGS.items():
        if wanted in (name, tag.lower()):
            return name
    if wanted in ("axf", "wxf"):
        return "wxf"
    choices = ", ".join(FORMAT_TAGS.values())
    raise RecordError(lines_of["Format"], f"unknown Format {tags['Format']!r}; use {choices}")


def _options_from(tags: dict[str, str], lines_of: dict[str, int]) -> dict[str, object]:
    options: dict[str, object] = {}
    for item in tags.get("Rules", "").split():
        name, sep, value = item.partition("=")
        if not sep or not value:
            raise RecordError(lines_of["Rules"], f"Rules expects NAME=VALUE items, got {item!r}")
        options[name] = value
    if "Arrangement" in tags:
        options["arrangement"] = tags["Arrangement"]
        if "Salt" in tags:
            options["salt"] = tags["Salt"]
            commitment = tags.get("Commitment")
            if commitment and not verify_commitment(commitment, tags["Arrangement"], tags["Salt"]):
                raise RecordError(
                    lines_of["Arrangement"], "the arrangement does not match the Commitment (Q7)"
                )
    return options


def _start_board(variant: str, tags: dict[str, str], lines_of: dict[str, int]) -> Board:
    options = _options_from(tags, lines_of)
    fen = tags.get("FEN") or None
    if variant == "janggi" and fen is None:
        setup = _gib_setup(tags, lines_of)
        if setup is not None:
            options["setup"] = setup
    where = lines_of.get("FEN") or lines_of.get("Rules") or lines_of.get("Variant") or 1
    try:
        if variant == "jieqi" and "arrangement" not in options:
            start_fen = fen or JieqiBoard.START_FEN
            # No arrangement: a board that learns each piece from the reveals in the moves.
            rules = {"rules": options["rules"]} if "rules" in options else {}
            return JieqiBoard.from_view(
                {"start_fen": start_fen, "moves": [], "viewer": "all", "commitment": "", **rules}
            )
        return make_board(variant, fen, **options)
    except RulesError as exc:
        raise RecordError(where, str(exc)) from None


def read_records(text: str) -> list[GameRecord]:
    """Every game of a record file (a PGN file may hold several, one after another).

    Raises :class:`RecordError` for the first game that does not hold together (see
    :func:`read_record`); line numbers count from the start of the file.
    """
    lines = _lines(text)
    return [_read_game(lines, begin, end) for begin, end in _games(lines)]


def read_record(text: str) -> GameRecord:
    """The (first) game of a record: start, moves, result and the board after the last move.

    Raises :class:`RecordError` (with the line) for a malformed tag, an unknown variant or
    format, a bad FEN, a move that cannot be read or played, or a result that contradicts
    the final position.
    """
    lines = _lines(text)
    begin, end = _games(lines)[0]
    return _read_game(lines, begin, end)


def _lines(text: str) -> list[str]:
    lines = [unicodedata.normalize("NFKC", line).rstrip() for line in text.splitlines()]
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines


def _games(lines: list[str]) -> list[tuple[int, int]]:
    """``(first line, end line)`` of each game: a game's tags start after the previous
    game's moves."""
    starts = [0]
    in_moves = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        is_tag = bool(_TAG.match(stripped))
        if is_tag and in_moves:
            starts.append(index)
            in_moves = False
        elif not stripped.startswith("["):
            in_moves = True
    return list(zip(starts, [*starts[1:], len(lines)], strict=True))


def _read_game(lines: list[str], begin: int, end: int) -> GameRecord:
    tags: dict[str, str] = {}
    lines_of: dict[str, int] = {}
    first = end
    for index in range(begin, end):
        stripped = lines[index].strip()
        if not stripped:
            continue
        if not stripped.startswith("["):
            first = index
            break
        found = _TAG.match(stripped)
        if not found:
            expected = '(expected [Name "value"])'
            raise RecordError(index + 1, f"malformed tag {stripped!r} {expected}")
        name, value = found.group(1), re.sub(r"\\(.)", r"\1", found.group(2))
        tags[name] = value
        lines_of[name] = index + 1
    if "Result" not in tags and "대국결과" in tags:
        tags["Result"] = _gib_result(tags["대국결과"])
        lines_of["Result"] = lines_of["대국결과"]
    variant = _variant_from(tags, lines_of)
    notation = _format_from(tags, lines_of)
    tokens = list(_tokens(lines, first, end))
    try:
        return _replay(variant, tags, lines_of, tokens, notation)
    except RecordError as first_error:
        # Lower-case ICCS without a Format tag (``h2e2``) reads as coordinates, whose ranks
        # count from 1: when that fails, the whole record is tried as ICCS once.
        if notation is not None or not any(_COORDINATE_LIKE.match(t.text) for t in tokens):
            raise
        try:
            return _replay(variant, tags, lines_of, tokens, "iccs")
        except RecordError:
            raise first_error from None


_COORDINATE_LIKE = re.compile(r"^[a-iA-I](?:10|\d)-?[a-iA-I](?:10|\d)$")
# A black-first record leaves Red's first move out: ``1. ... 炮8平5``, ``1. .....``.
_PLACEHOLDER = re.compile(r"^(?:\.{2,}|…+)$")


def _replay(
    variant: str,
    tags: dict[str, str],
    lines_of: dict[str, int],
    tokens: list[_Token],
    notation: str | None,
) -> GameRecord:
    board = _start_board(variant, tags, lines_of)
    moves: list[Move] = []
    text_result: _Token | None = None
    rules_end: RulesEnd | None = None
    played = _move_tokens(tokens)
    if len(played) > MAX_RECORD_PLIES:  # refused before any replay (Z7)
        raise RecordTooLongError(
            played[MAX_RECORD_PLIES].line, f"a record holds at most {MAX_RECORD_PLIES} half-moves"
        )
    for token in tokens:
        if token.text.startswith("["):
            raise RecordError(token.line, "malformed tag among the moves")
        if _NAG.match(token.text) or _GIB_MARK.match(token.text):
            continue
        if _PLACEHOLDER.match(token.text):
            if not moves and board.turn == FIRST:
                board = _black_first(variant, tags, lines_of, token)
            continue
        if token.text in RESULTS:
            text_result = token
            continue
        if text_result is not None:
            raise RecordError(token.line, f"move {token.text!r} after the result")
        if rules_end is None:
            # Once our rules have ended the game, the record only has to stay legal: judging
            # the repetition again at every later ply made a cycling record quadratic (Z7).
            outcome = board.outcome()
            if outcome is not None:
                rules_end = RulesEnd(board.ply, outcome.reason, outcome.winner)
        _play(board, token, notation, len(moves) + 1)
        moves.append(board.peek())
    result = _check_result(board, tags, lines_of, text_result, played_on=rules_end is not None)
    return GameRecord(
        variant=variant,
        start_fen=_start_of(board).fen(),
        moves=moves,
        result=result,
        termination=tags.get("Termination") or _termination(board),
        board=board,
        tags=tags,
        rules_end=rules_end,
    )


def _move_tokens(tokens: list[_Token]) -> list[_Token]:
    """The tokens that are moves: not a tag, NAG, mark, placeholder or result."""
    return [
        token
        for token in tokens
        if not token.text.startswith("[")
        and not _NAG.match(token.text)
        and not _GIB_MARK.match(token.text)
        and not _PLACEHOLDER.match(token.text)
        and token.text not in RESULTS
    ]


def _black_first(
    variant: str, tags: dict[str, str], lines_of: dict[str, int], token: _Token
) -> Board:
    """The start board with the second mover to move, for a record whose first move is a
    placeholder (the game began with Black's move)."""
    if variant == "janggi":
        raise RecordError(token.line, "a janggi game starts with Cho's move, not a placeholder")
    fen = (tags.get("FEN") or make_board(variant).fen()).split()
    if len(fen) < 2:
        raise RecordError(lines_of.get("FEN", token.line), "the FEN has no side to move")
    fen[1] = "b"
    return _start_board(variant, {**tags, "FEN": " ".join(fen)}, lines_of)


def push_played(board: Board, move: Move | str, reveal: str | None = None) -> None:
    """Play a move as a game record has it, also where our rules had already ended the game
    (a repetition, the no-capture limit: other sites and clubs play on). ``reveal`` is what a
    face-down jieqi mover turned out to be (needed on a board without the secret).

    Raises what ``Board.push`` raises for an illegal move or a wrong reveal, and
    GameOverError only when the side to move has no legal move at all.
    """
    if not board._position_legal_codes():
        raise GameOverError(f"the game is over; {move} cannot be played")
    # Every rule but "no legal move" can end a game that still has moves: the board is told
    # that it goes on, so that push checks the move (and its reveal) as usual, without judging
    # the end it ignores (a repetition's verdict reads every move since the first occurrence).
    board._outcome_cache = (board.ply, None)
    if isinstance(board, JieqiBoard):
        board.push(move, reveal=reveal)
    else:
        board.push(move)


def _termination(board: Board) -> str | None:
    outcome = board.outcome()
    return outcome.reason if outcome else None


def _play(board: Board, token: _Token, notation: str | None, ply: int) -> None:
    """Read and play one move (also past our rules' end: :func:`push_played`); raises
    RecordError naming the line, the move and why."""
    try:
        move = read_move(board, token.text, notation)
        reveal = read_reveal(token.text)
        if isinstance(board, JieqiBoard) and board.needs_reveal(move.code):
            if reveal is None and not board.has_secret:
                raise RulesError("the move turns a piece face up: write what it was, e.g. (R)")
        else:
            reveal = None
        push_played(board, move, reveal)
    except RulesError as exc:
        raise RecordError(token.line, f"{token.text!r} (half-move {ply}): {exc}") from None


def _check_result(
    board: Board,
    tags: dict[str, str],
    lines_of: dict[str, int],
    text_result: _Token | None,
    played_on: bool = False,
) -> str:
    """The record's result, checked against the final position. A game played on past our
    rules' end is only held to an end without legal moves (mate, stalemate)."""
    tag_result = tags.get("Result")
    if tag_result is not None and tag_result not in RESULTS:
        raise RecordError(lines_of["Result"], f"Result must be one of {', '.join(RESULTS)}")
    if text_result and tag_result and text_result.text != tag_result and tag_result != "*":
        raise RecordError(
            text_result.line, f"the moves end in {text_result.text} but Result says {tag_result}"
        )
    result = tag_result if tag_result and tag_result != "*" else None
    result = result or (text_result.text if text_result else None) or "*"
    outcome = board.outcome()
    if played_on and outcome is not None and outcome.reason not in _NO_MOVE_ENDS:
        outcome = None
    if outcome is not None and result != "*" and result != result_text(outcome):
        line = lines_of.get("Result") or (text_result.line if text_result else len(tags) + 1)
        raise RecordError(
            line,
            f"result {result} contradicts the final position "
            f"({outcome.reason}: {result_text(outcome)})",
        )
    if outcome is not None and result == "*":
        result = result_text(outcome)
    return result
