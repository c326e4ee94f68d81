"""The HTTP API's errors: the status of each code of the one refusal,
:class:`~chuhan.server.refusal.GameActionError` (:data:`HTTP_ERRORS`, from which the HTTP
errors table of docs/protocol.md is generated), and the one answer (:func:`error_body`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HttpError:
    """One error code of the HTTP API: its status, the fields it carries inside ``error``
    besides ``code`` and ``message``, and when it is answered."""

    status: int
    meaning: str
    fields: tuple[str, ...] = ()


REFUSED = 409  # any code not listed: an action the game or room refuses now
# Every status of the HTTP API's refusals is here: a refusal names its code, and
# the code its status. Listed: every code whose status is not 409, or with fields of its own.
HTTP_ERRORS: dict[str, HttpError] = {
    "bad_request": HttpError(
        400,
        'fits the schema but not the game: `color: "cho"` in xiangqi, no `level` for an AI '
        "game, a notation the variant does not use, a move not legal now, a cursor the server "
        "did not give",
    ),
    "bad_name": HttpError(
        400,
        "a name a reader could be fooled by; `reason`: `invisible`, `marks`, "
        "`no_letter`, `reserved`, `length`",
        ("reason",),
    ),
    "bad_password": HttpError(
        400,
        "a room password that breaks a rule; `reason`: which (length, letters and digits only, "
        "one repeated digit, consecutive digits)",
        ("reason",),
    ),
    "bad_record": HttpError(
        400,
        "a record that cannot be read or kept; `line`: the line to blame, null when none is",
        ("line",),
    ),
    "empty_record": HttpError(400, "a record with nothing in it but blanks (N4)"),
    "no_player": HttpError(401, "an unsafe request without a known player cookie (Z6)"),
    "foreign_origin": HttpError(403, "an unsafe request from a page of another site (Z6)"),
    "not_found": HttpError(404, "no such page, game or room, or someone else's (Z2)"),
    "bad_code": HttpError(
        404, "a device link or recovery code that is unknown, used, expired or revoked (B6)"
    ),
    "wrong_password": HttpError(
        404, "no open room has this password (Z3); `tries_left`", ("tries_left",)
    ),
    "pending_game": HttpError(
        409,
        "an AI game is pending (P2); `pending`: its state; confirm with `abandon_pending`",
        ("pending",),
    ),
    "room_closed": HttpError(410, "the invite's room is closed"),
    "too_large": HttpError(413, "the body is over `CHUHAN_MAX_BODY_BYTES`"),
    "too_many_moves": HttpError(413, "a record with too many moves; `line`", ("line",)),
    "form_body": HttpError(415, "a form's body type without the `X-Chuhan-Client` header (Z6)"),
    "invalid_request": HttpError(
        422, "the body or query does not fit the schema: unknown variant, malformed JSON…"
    ),
    "too_many_players": HttpError(429, "the address block made too many players", ("retry_after",)),
    "too_many_games": HttpError(429, "too many games started", ("retry_after",)),
    "too_many_imports": HttpError(429, "too many records imported", ("retry_after",)),
    "too_many_analyses": HttpError(429, "too many analyses asked for", ("retry_after",)),
    "too_many_downloads": HttpError(429, "too many downloads of one's games", ("retry_after",)),
    "download_running": HttpError(
        429, "a download of one's games is being written (Z7)", ("retry_after",)
    ),
    "analysis_queue_full": HttpError(
        429, "the asker has their share of analyses queued already", ("retry_after",)
    ),
    "too_many_attempts": HttpError(
        429, "too many password attempts (Z3)", ("tries_left", "retry_after")
    ),
    "too_many_rooms": HttpError(429, "the player has the most open rooms already"),
    "too_many_seeks": HttpError(429, "seek socket: too many seeks", ("retry_after",)),
    "too_many_puzzles": HttpError(
        429, "too many puzzles begun or puzzle moves made (B9)", ("retry_after",)
    ),
    "abort_cooldown": HttpError(
        429, "seek socket: paired games left unbegun; wait (Z8)", ("retry_after",)
    ),
    "too_many_rematches": HttpError(
        429, "room socket: too many rematch offers and cancels (B4)", ("retry_after",)
    ),
    "too_many_messages": HttpError(
        429, "room socket: too many quick messages from one seat (B8)", ("retry_after",)
    ),
    "too_many_device_codes": HttpError(
        429, "too many device links or recovery codes issued (B6)", ("retry_after",)
    ),
    "too_many_sign_ins": HttpError(
        429, "too many device sign-ins from the address block (B6)", ("retry_after",)
    ),
    "too_many_connections": HttpError(429, "a socket over its address's count"),
    "busy": HttpError(503, "the game or room is changing too fast, or the AI is busy; retry"),
}


def http_status(code: str) -> int:
    """The HTTP status of a refusal with this code."""
    known = HTTP_ERRORS.get(code)
    return known.status if known is not None else REFUSED


def error_body(code: str, message: str, **fields: Any) -> dict[str, Any]:
    """The HTTP API's one error answer: ``{"error": {"code", "message", …fields}}`` (the
    fields of the socket's error reply, inside ``error``; docs/protocol.md, HTTP errors)."""
    return {"error": {"code": code, "message": message, **fields}}
