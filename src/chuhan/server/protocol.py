"""Client messages of the game WebSocket: parsing and validation (SPEC Z5).

Every problem becomes a :class:`ProtocolError` with a code and a human message; nothing here
touches a game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MESSAGE_TYPES = ("hello", "move", "undo", "hint", "draw_offer", "resign", "ping")
MAX_ID_LENGTH = 64
MAX_MOVE_LENGTH = 16
MAX_PLY = 100_000


class ProtocolError(Exception):
    def __init__(self, code: str, message: str, reply_to: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reply_to = reply_to


@dataclass(frozen=True)
class ClientMessage:
    id: str
    type: str
    ply: int | None = None
    move: str | None = None
    last_seq: int | None = None


def _int_field(data: dict[str, Any], name: str, reply_to: str, required: bool) -> int | None:
    value = data.get(name)
    if value is None:
        if required:
            raise ProtocolError("bad_request", f"'{name}' is required", reply_to)
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PLY:
        raise ProtocolError("bad_request", f"'{name}' must be a whole number ≥ 0", reply_to)
    return value


def parse_message(raw: str | bytes, max_bytes: int) -> ClientMessage:
    """Read one client message. Raises ProtocolError: ``too_large``, ``malformed``,
    ``bad_request`` (missing or wrong fields) or ``unknown_type``."""
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > max_bytes:
        raise ProtocolError("too_large", f"messages are at most {max_bytes} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", "a message is one JSON object") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "a message is one JSON object")
    message_id = data.get("id")
    if not isinstance(message_id, str) or not 0 < len(message_id) <= MAX_ID_LENGTH:
        raise ProtocolError(
            "bad_request", f"every message needs an 'id': a string of 1 to {MAX_ID_LENGTH} chars"
        )
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {str(kind)[:32]!r}; known: {', '.join(MESSAGE_TYPES)}",
            message_id,
        )
    if kind == "hello":
        return ClientMessage(
            message_id, kind, last_seq=_int_field(data, "last_seq", message_id, False)
        )
    if kind == "move":
        move = data.get("move")
        if not isinstance(move, str) or not 0 < len(move) <= MAX_MOVE_LENGTH:
            raise ProtocolError("bad_request", "'move' must be a move text like 'h3e3'", message_id)
        ply = _int_field(data, "ply", message_id, True)
        return ClientMessage(message_id, kind, ply=ply, move=move)
    return ClientMessage(message_id, kind)
