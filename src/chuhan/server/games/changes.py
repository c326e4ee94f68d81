"""Games as the server keeps them: building boards, and the changes that moves, undo,
resignation, draws, abandonment and expiry make (SPEC P1–P6, Z1, E4, E5). What a player may
see of a game is built in :mod:`.views` (Z2).

Every function here is pure: it takes a :class:`GameRecord` and returns a :class:`Change`
(the game after, the events to append, points to award) or raises :class:`GameActionError`.
Storage and connections are the caller's business.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from datetime import datetime
from typing import Any, ClassVar

from ...rules import VARIANTS, Board, RulesError, make_board
from ...rules.jieqi import JieqiBoard
from ...rules.notation import write_move
from ...rules.record import push_played
from ..records import Award, Change, EventType, GameOptions, GameRecord
from ..refusal import GameActionError

LEVEL_POINTS = {"beginner": 10, "intermediate": 30, "advanced": 80}  # SPEC P4
LEVELS = tuple(LEVEL_POINTS)
KINDS = ("ai", "local")


def side_names(variant: str) -> tuple[str, str]:
    return VARIANTS[variant].SIDE_NAMES


def first_turn(start_fen: str) -> int:
    parts = start_fen.split()
    return 1 if len(parts) > 1 and parts[1] == "b" else 0


def turn_of(game: GameRecord) -> int:
    """The side to move after the game's moves (every move, a janggi pass too, alternates)."""
    return (first_turn(game.start_fen) + game.ply) % 2


def ai_to_move(game: GameRecord) -> bool:
    """True when an ongoing AI game waits for the AI's move."""
    return (
        game.kind == "ai"
        and game.ongoing
        and game.human_side is not None
        and turn_of(game) != game.human_side
    )


# ---------------------------------------------------------------------- boards


def board_options(game: GameRecord) -> dict[str, Any]:
    """The ``make_board`` options of the game: public options plus the hidden arrangement."""
    return options_of_board(game.variant, game.options, game.secret)


def options_of_board(
    variant: str, options: GameOptions, secret: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The ``make_board`` options for a game's public ``options`` and ``secret``."""
    made: dict[str, Any] = {}
    if variant == "janggi":
        if options.get("setup"):  # else the game starts from its FEN (a puzzle's, B9)
            made["setup"] = f"{options['setup']['cho']}:{options['setup']['han']}"
        made["bikjang"] = options.get("bikjang", "off")
    else:
        made["rules"] = options.get("rules", "casual")  # E1
    if variant == "jieqi" and secret:
        made["arrangement"] = secret["arrangement"]
        made["salt"] = secret["salt"]
    return made


def new_start(variant: str, options: GameOptions) -> tuple[str, dict[str, Any] | None]:
    """A new game's starting FEN and its secret: in jieqi, a fresh arrangement of the
    face-down pieces and the salt of its commitment (Q5); ``None`` in the other variants."""
    board = make_board(variant, **options_of_board(variant, options))
    secret = None
    if isinstance(board, JieqiBoard):
        arrangement, salt = board.reveal()
        secret = {"arrangement": arrangement, "salt": salt}
    return board.fen(), secret


def start_fen_of(game: GameRecord) -> str | None:
    """The FEN a game's board starts from: None where its options make the start (a janggi
    setup, J3)."""
    return None if game.variant == "janggi" and game.options.get("setup") else game.start_fen


def start_board(game: GameRecord) -> Board:
    """The game's board before any move. A jieqi game kept from one player's view (a
    puzzle's, B9: ``options["view"]``, no secret) starts from that view: what that player
    knew, the captures they saw and the repetition history (Z2)."""
    view = game.options.get("view") if game.variant == "jieqi" else None
    if view is not None:
        return JieqiBoard.from_view(view)
    return make_board(game.variant, start_fen_of(game), **board_options(game))


def reveal_at(game: GameRecord, index: int) -> str | None:
    """What the game's move ``index`` (from 0) turned face up, where the game keeps it
    (``options["reveals"]``: a jieqi game without its secret, B9); else None (a game with
    its secret knows it)."""
    reveals = game.options.get("reveals")
    if not isinstance(reveals, list) or index >= len(reveals):
        return None
    reveal = reveals[index]
    return str(reveal) if reveal else None


# An instance holds thousands of games at once (the scale goal: 5,000 online games, each
# followed on two instances): a cache smaller than that thrashes, and then every event
# replays its game from the start (its notation too: every earlier position). A game needs
# its last position or two, and no more: every board kept is some 35 objects that each full
# garbage collection walks while the event loop waits (a cache of every position, 32,768
# boards, made collections of a second).
CACHED_GAMES = 16_384
POSITIONS_PER_GAME = 2


class BoardCache:
    """The latest boards of each recent game by (game, start, moves), so that a position one
    move on from a cached one costs one move, not a replay of the whole game. Thread-safe,
    bounded by games (``size``) and positions per game."""

    def __init__(self, size: int = CACHED_GAMES, per_game: int = POSITIONS_PER_GAME) -> None:
        self.size = size
        self.per_game = per_game
        # game id → its latest positions, newest last: ((start, moves), board)
        self._games: OrderedDict[str, list[tuple[tuple[str, tuple[str, ...]], Board]]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, tuple[str, ...]]) -> Board | None:
        game_id, position = key[0], key[1:]
        with self._lock:
            for kept, board in self._games.get(game_id, ()):
                if kept == position:
                    self._games.move_to_end(game_id)
                    return board.copy()
        return None

    def put(self, key: tuple[str, str, tuple[str, ...]], board: Board) -> None:
        game_id, position = key[0], key[1:]
        copy = board.copy()
        with self._lock:
            kept = [entry for entry in self._games.get(game_id, ()) if entry[0] != position]
            kept.append((position, copy))
            self._games[game_id] = kept[-self.per_game :]
            self._games.move_to_end(game_id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


BOARDS = BoardCache()


def board_of(game: GameRecord, moves: list[str] | None = None) -> Board:
    """The game's board after ``moves`` (default: all of the game's moves).

    Raises RulesError if a stored move does not fit (a corrupted record)."""
    played = tuple(game.moves if moves is None else moves)
    key = (game.id, game.start_fen, played)
    board = BOARDS.get(key)
    if board is not None:
        return board
    board = BOARDS.get((game.id, game.start_fen, played[:-1])) if played else None
    if board is not None:
        push_played(board, played[-1], reveal_at(game, len(played) - 1))
    else:
        board = start_board(game)
        for index, text in enumerate(played):
            # an imported game may go on past our rules' end
            push_played(board, text, reveal_at(game, index))
    BOARDS.put(key, board)
    return board


class NotationCache:
    """Each game's moves written in its variant's notations, extended move by move: WXF and
    Chinese for xiangqi and jieqi (SPEC N2, N3), Korean for janggi (``79卒78``, 한수쉼)."""

    NOTATIONS: ClassVar[dict[str, tuple[str, ...]]] = {
        "xiangqi": ("wxf", "chinese"),
        "jieqi": ("wxf", "chinese"),
        "janggi": ("korean",),
    }

    def __init__(self, size: int = CACHED_GAMES) -> None:
        self.size = size
        self._written: OrderedDict[str, tuple[tuple[str, ...], dict[str, list[str]]]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def written(self, game: GameRecord) -> dict[str, list[str]]:
        """``{"wxf": [...], "chinese": [...]}`` (janggi: ``{"korean": [...]}``) for the
        game's moves."""
        notations = self.NOTATIONS[game.variant]
        played = tuple(game.moves)
        cache_key = f"{game.id}|{game.start_fen}"
        with self._lock:
            done, texts = self._written.get(cache_key, ((), {n: [] for n in notations}))
        if done[: len(played)] == played:  # an earlier moment of the game (a replay)
            return {n: v[: len(played)] for n, v in texts.items()}
        if played[: len(done)] != done:
            done, texts = (), {n: [] for n in notations}
        texts = {n: list(v) for n, v in texts.items()}
        if len(done) < len(played):
            # One board walked forward: a board per prefix copied the whole history each
            # time, quadratic in the game's length (a long imported record, Z7).
            board = board_of(game, list(played[: len(done)]))
            for index, text in enumerate(played[len(done) :], start=len(done)):
                reveal = reveal_at(game, index)
                for name in notations:
                    texts[name].append(write_move(board, text, name, reveal))
                push_played(board, text, reveal)
        with self._lock:
            self._written[cache_key] = (played, texts)
            self._written.move_to_end(cache_key)
            while len(self._written) > self.size:
                self._written.popitem(last=False)
        return texts

    def last(self, game: GameRecord) -> dict[str, str] | None:
        """The game's last move in each notation (None before the first move)."""
        if not game.moves:
            return None
        return {n: v[-1] for n, v in self.written(game).items()}


NOTATIONS = NotationCache()


def event(kind: EventType, **fields: Any) -> dict[str, Any]:
    """A game event as it is logged: its type and what it changed, never a snapshot of the
    game (views.render_events tells each viewer the rest)."""
    return {"type": kind, **fields}


# ---------------------------------------------------------------------- changes


def _require_ongoing(game: GameRecord) -> None:
    if not game.ongoing:
        raise GameActionError("game_over", f"the game is over ({game.result or game.status})")


def _result(variant: str, winner: int | None, reason: str, points: Any = None) -> dict[str, Any]:
    names = side_names(variant)
    return {
        "winner": names[winner] if winner is not None else None,
        "reason": reason,
        "points": {names[0]: points[0], names[1]: points[1]} if points else None,
    }


def _finish(
    before: GameRecord,
    game: GameRecord,
    events: list[dict[str, Any]],
    winner: int | None,
    reason: str,
    points: Any = None,
) -> Change:
    """Close ``game`` (already carrying ``events``) and award AI points (SPEC P4) once."""
    result = _result(game.variant, winner, reason, points)
    scored = (
        game.kind == "ai"
        and not game.practice
        and winner is not None
        and winner == game.human_side
        and reason not in ("resignation", "abandoned", "expired", "agreement")
    )
    awarded = LEVEL_POINTS.get(game.level or "", 0) if scored else 0
    finished = replace(
        game,
        status="finished",
        result=result,
        points_awarded=awarded,
        seq=game.seq + 1,
    )
    events = [*events, event("end", result=result, points_awarded=awarded)]
    award = Award(game.player_id, "ai", awarded) if awarded and game.player_id else None
    return Change(before, finished, events, award)


def play_move(game: GameRecord, ply: int, text: str, mover: int | None) -> Change | None:
    """Play ``text`` at ``ply`` for ``mover`` (None: whoever is to move, a local game).

    Returns None when this exact move was already accepted at ``ply`` (a repeat to be
    acknowledged again, SPEC P5). Raises GameActionError: ``game_over``, ``stale_move``
    (``ply`` is not the current ply), ``not_your_turn``, ``illegal_move``.
    """
    if 0 <= ply < game.ply and game.moves[ply] == text:
        return None
    _require_ongoing(game)
    if ply != game.ply:
        raise GameActionError("stale_move", f"move for ply {ply} but the game is at ply {game.ply}")
    board = board_of(game)
    if mover is not None and board.turn != mover:
        raise GameActionError("not_your_turn", "it is not your turn")
    try:
        board.push(text)
    except RulesError as exc:
        raise GameActionError("illegal_move", str(exc)) from None
    names = side_names(game.variant)
    canonical = str(board.peek())
    after = replace(game, moves=[*game.moves, canonical], seq=game.seq + 1)
    BOARDS.put((game.id, game.start_fen, tuple(after.moves)), board)  # its events' board
    events = [event("move", ply=ply, move=canonical, by=names[1 - board.turn])]
    outcome = board.outcome()
    if outcome is not None:
        return _finish(game, after, events, outcome.winner, outcome.reason, outcome.points)
    return Change(game, after, events)


def undo(game: GameRecord, player_side: int | None) -> Change:
    """SPEC P3: take back the player's last move and the AI's reply; the game becomes practice.

    In a local game (``player_side`` None) the last move is taken back. Jieqi: a move that
    turned a piece face up or took a face-down one is final (SPEC Z2: no face-down piece may
    have an identity a player has seen; the arrangement, and so its commitment, never
    changes). Raises GameActionError ``game_over``, ``nothing_to_undo`` or ``undo_reveals``.
    """
    _require_ongoing(game)
    if player_side is None:
        target = game.ply - 1
    else:
        start = first_turn(game.start_fen)
        own = [i for i in range(game.ply) if (start + i) % 2 == player_side]
        target = own[-1] if own else -1
    if target < 0:
        raise GameActionError("nothing_to_undo", "there is no move of yours to take back")
    board = board_of(game)
    if isinstance(board, JieqiBoard) and board.reveals_since(target):
        raise GameActionError(
            "undo_reveals", "a move that turned a piece face up cannot be taken back"
        )
    after = replace(
        game,
        moves=game.moves[:target],
        practice=game.practice or game.kind == "ai",
        seq=game.seq + 1,
    )
    return Change(game, after, [event("undo", ply=target, taken=game.moves[target:])])


def resign(game: GameRecord, side: int) -> Change:
    """SPEC E4: ``side`` resigns and loses."""
    _require_ongoing(game)
    return _finish(game, game, [], 1 - side, "resignation")


def agree_draw(game: GameRecord) -> Change:
    """SPEC E4: a draw by agreement."""
    _require_ongoing(game)
    return _finish(game, game, [], None, "agreement")


def decline_draw(game: GameRecord) -> Change:
    _require_ongoing(game)
    after = replace(game, seq=game.seq + 1)
    return Change(game, after, [event("draw_declined")])


def abandon(game: GameRecord) -> Change:
    """SPEC P2: a pending game given up for a new one; it scores nothing."""
    _require_ongoing(game)
    return _finish(game, game, [], None, "abandoned")


def expire(game: GameRecord) -> Change:
    """SPEC P2: a game not finished within its time limit; it scores nothing."""
    _require_ongoing(game)
    return _finish(game, game, [], None, "expired")


def thinking(game: GameRecord) -> Change:
    """The AI started computing its move (logged so every viewer can show it)."""
    after = replace(game, seq=game.seq + 1)
    return Change(game, after, [event("thinking", ply=game.ply)])


def is_expired(game: GameRecord, now: datetime) -> bool:
    return game.ongoing and now >= game.expires_at
