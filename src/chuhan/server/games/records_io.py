"""A finished or ongoing game as a record, and a record as a game (N4): the record's text
(PGN-style in any of the variant's notations, or ``.gib`` for janggi) with its tags (E5, B7),
every position for stepping through the game, and an imported record as a finished game of
kind ``imported``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...rules import make_board
from ...rules.jieqi import JieqiBoard
from ...rules.record import GameRecord as ReadRecord
from ...rules.record import push_played, write_gib, write_record
from ..names import BadText, readable
from ..records import GameOptions, GameRecord, Player
from ..refusal import GameActionError
from . import changes as rules_of
from . import views
from .service import new_id

UNDECIDED_REASONS = ("abandoned", "expired", "interrupted", "unfinished")
RECORD_TAGS = ("Event", "Site", "Date", "Round", "Red", "Black", "RedTeam", "BlackTeam")
MAX_TAG_LENGTH = 80


def result_tags(game: GameRecord) -> tuple[str, str | None]:
    """The record's ``Result`` and ``Termination`` for the stored game (E5)."""
    if game.ongoing or game.result is None:
        return "*", None
    reason = game.result.get("reason")
    winner = game.result.get("winner")
    names = rules_of.side_names(game.variant)
    if winner in names:
        return ("1-0" if winner == names[0] else "0-1"), reason
    if reason in UNDECIDED_REASONS:
        return "*", reason
    return "1/2-1/2", reason


def event_of(game: GameRecord) -> str:
    """A record's ``Event`` tag (B7): what kind of game it was on Chu-Han."""
    if game.kind == "ai":
        return f"Chu-Han, against the AI ({game.level})"
    if game.kind == "local":
        return "Chu-Han, on one device"
    if game.options.get("paired"):
        rated = game.options.get("rated") or {}
        return "Chu-Han, rated game" if rated.get("counted") else "Chu-Han, paired game"
    return "Chu-Han, private room"


def record_text(
    game: GameRecord,
    viewer: int | None,
    notation: str,
    fmt: str,
    names: dict[int, str | None],
) -> str:
    """The game's record (PGN-style, or ``.gib`` for janggi) in ``notation``. Raises
    NotationError/ValueError for a notation or format the variant does not use."""
    board = views.known_board(game, viewer)
    result, termination = result_tags(game)
    if fmt == "gib":
        return write_gib(board, result=result, termination=termination)
    sides = rules_of.side_names(game.variant)
    tags: dict[str, str] = {}
    tags.update(game.options.get("record_tags") or {})
    tags.setdefault("Event", event_of(game))
    tags.setdefault("Site", "Chu-Han")
    tags.setdefault("Date", game.created_at.strftime("%Y.%m.%d"))
    rated = game.options.get("rated") or {}
    for side, color in ((0, "Red"), (1, "Black")):
        tag = color if game.variant != "janggi" else sides[side].title()
        # B7: both players' tags are always there ("?": unknown, as PGN writes it), and a
        # counted rated game gives each player's rating before it.
        tags.setdefault(tag, names.get(side) or "?")
        before = (rated.get(sides[side]) or {}).get("before")
        if rated.get("counted") and before is not None:
            tags.setdefault(f"{tag}Elo", str(before))
    if isinstance(board, JieqiBoard) and board.has_secret and not game.ongoing:
        # The arrangement is public once the game is over (Q5, Q7), however it ended.
        tags["Arrangement"], tags["Salt"] = board.reveal()
    return write_record(board, notation, result=result, termination=termination, tags=tags)


def positions(game: GameRecord) -> list[dict[str, Any]]:
    """Every position of the game, for stepping through it: ``{"ply", "fen", "turn",
    "in_check", "move"}`` (the move that led there). Only public facts: a FEN shows face-down
    jieqi pieces as ``X``/``x`` whoever asks (Z2)."""
    board = rules_of.start_board(game)
    names = board.SIDE_NAMES
    out = [
        {
            "ply": 0,
            "fen": board.fen(),
            "turn": names[board.turn],
            "in_check": board.is_check(),
            "move": None,
        }
    ]
    for ply, text in enumerate(game.moves, start=1):
        push_played(board, text, rules_of.reveal_at(game, ply - 1))
        out.append(
            {
                "ply": ply,
                "fen": board.fen(),
                "turn": names[board.turn],
                "in_check": board.is_check(),
                "move": text,
            }
        )
    return out


def imported_game(record: ReadRecord, player: Player, now: datetime) -> GameRecord:
    """A finished game of kind ``imported`` holding ``record`` (move for move, also past where
    our rules would have ended it: ``options.rules_end``). Raises GameActionError for a
    record the server cannot keep as a game."""
    board = record.board
    sides = board.SIDE_NAMES
    options: GameOptions = {}
    secret: dict[str, Any] | None = None
    if record.variant == "janggi":
        options = {"bikjang": getattr(board, "bikjang", "off")}
        setup = getattr(make_board("janggi", record.start_fen), "setup", None)
        if setup is not None:  # else the game starts from the record's FEN (B9: a puzzle's)
            cho, han = setup.split(":")
            options["setup"] = {"cho": cho, "han": han}
    else:
        options["rules"] = board.rules  # [Rules "rules=wxf"]: how repetitions are judged (E1)
    if record.variant == "jieqi":
        if not isinstance(board, JieqiBoard) or not board.has_secret:
            raise GameActionError(
                "bad_record",
                "a jieqi record needs its [Arrangement] and [Salt] tags (a finished game's "
                "record has them)",
            )
        arrangement, salt = board.reveal()
        secret = {"arrangement": arrangement, "salt": salt}
    if record.rules_end is not None:
        options["rules_end"] = record.rules_end.as_json(sides)
    tags: dict[str, str] = {}
    for name in RECORD_TAGS:
        try:  # A tag is shown as a player's name is, and follows its rules
            value = readable(record.tags.get(name, ""))[:MAX_TAG_LENGTH]
        except BadText as exc:
            raise GameActionError("bad_record", f"the [{name}] tag: {exc.message}") from None
        if value:
            tags[name] = value
    if tags:
        options["record_tags"] = tags
    winner = {"1-0": sides[0], "0-1": sides[1]}.get(record.result)
    reason = (record.termination or "")[:40] or (
        "unfinished" if record.result == "*" else "unknown"
    )
    game = GameRecord(
        id=new_id("g"),
        kind="imported",
        variant=record.variant,
        player_id=player.id,
        options=options,
        secret=secret,
        start_fen=record.start_fen,
        moves=[str(move) for move in record.moves],
        status="finished",
        result={"winner": winner, "reason": reason, "points": None},
        created_at=now,
        expires_at=now,
        updated_at=now,
    )
    return game
