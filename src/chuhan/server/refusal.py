"""The one refusal of the server: a client action refused, over HTTP or a socket.

Every layer raises it (the rules of games, rooms and pairing, the limits, the routes), so it
lives in a core module of its own that imports only the protocol's table of codes; the HTTP
handler (``http/refusals.py``) and the sockets turn it into the one error answer.
"""

from __future__ import annotations

from typing import Any

from .protocol.errors import http_status


class GameActionError(Exception):
    """A client action refused: ``code`` is the protocol's error code, ``message`` English for
    developers, ``extra`` the answer's other fields (``tries_left``, ``retry_after``,
    ``line``…). Over HTTP its status is its code's (:data:`.protocol.HTTP_ERRORS`)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    @property
    def status(self) -> int:
        """The HTTP status of this refusal."""
        return http_status(self.code)

    def with_fields(self, **fields: Any) -> GameActionError:
        """The same refusal with more answer fields."""
        return GameActionError(self.code, self.message, **{**self.extra, **fields})


class SeekError(GameActionError):
    """A seek refused (SPEC B1, Z7, Z8): a bad seek, too many, a cooldown after aborting, a
    game going on elsewhere. Raised by the pairing rules and by the seeks' storage."""
