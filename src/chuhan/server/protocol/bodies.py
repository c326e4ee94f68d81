"""The HTTP API's request bodies: what its routes read (docs/protocol.md, HTTP JSON API and
Rooms); a body that does not fit is refused 422 ``invalid_request``. A move's and an id's
limits are the sockets' (:mod:`.messages`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ...rules.janggi import SetupChoice
from .messages import MAX_ID_LENGTH, MAX_MOVE_LENGTH, MAX_NUMBER


class CreateGameBody(BaseModel):
    """``POST /api/games`` (SPEC P1, P2, P6)."""

    kind: Literal["ai", "local"] = "ai"
    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    level: Literal["beginner", "intermediate", "advanced"] | None = None
    color: Literal["red", "black", "cho", "han", "random"] = "random"
    setup: SetupChoice | None = None
    setup_other: SetupChoice | None = None
    bikjang: Literal["off", "points"] = "off"
    rules: Literal["casual", "wxf"] = "casual"  # how repetitions are judged (E1)
    abandon_pending: bool = False


class MoveBody(BaseModel):
    """``POST /api/games/{id}/moves``: the socket's ``move`` over HTTP."""

    ply: int = Field(ge=0, le=MAX_NUMBER)
    move: str = Field(min_length=1, max_length=MAX_MOVE_LENGTH)
    id: str | None = Field(default=None, max_length=MAX_ID_LENGTH)


class ProfileBody(BaseModel):
    """``PATCH /api/me`` (S1)."""

    name: str | None = Field(default=None, max_length=40)


class AnalysisBody(BaseModel):
    """``POST /api/analysis/moves``: a position for the learn pages."""

    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    fen: str | None = Field(default=None, max_length=200)
    setup: str | None = Field(default=None, max_length=9)


class CreateRoomBody(BaseModel):
    """``POST /api/rooms`` (R1, R2)."""

    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    bikjang: Literal["off", "points"] = "off"
    rules: Literal["casual", "wxf"] = "casual"  # how repetitions are judged (E1)
    password: str | None = Field(default=None, max_length=40)
    # B7: a game clock (``5+3``, janggi ``5m+3x30s``…), or ``turn``/none for R4's 90 s a move
    clock: str | None = Field(default=None, max_length=16)


class JoinBody(BaseModel):
    """``POST /api/rooms/join`` (R2, Z3)."""

    password: str = Field(max_length=40)


class SignInBody(BaseModel):
    """``POST /api/devices/sign-in`` (B6): a device link's code or a recovery code."""

    link: str | None = Field(default=None, max_length=64)
    recovery: str | None = Field(default=None, max_length=64)
