"""The puzzles over HTTP (SPEC B9; docs/protocol.md, Puzzles).

- ``POST /api/puzzles/attempts`` ``{variant, puzzle?, daily?}`` — begin an attempt (the next
  puzzle near the player's rating; or the one named, or the day's): 201 with the attempt.
- ``GET /api/puzzles/attempts/{id}`` — the attempt now (the player's own only).
- ``POST /api/puzzles/attempts/{id}/moves`` ``{ply, move}`` — a move: ``verdict`` ``right``
  (with the stored ``reply``, already played), ``solved`` or ``wrong`` (failed: the line).
- ``POST /api/puzzles/attempts/{id}/hint`` — ``hint``: the point of the piece to move.
- ``POST /api/puzzles/attempts/{id}/solution`` — the line; before the end, a loss.
- ``POST /api/puzzles/attempts/{id}/analysis`` — after the end: ``review``, the address of
  the puzzle as a game of the player's own in the review (every variant; jieqi: as the
  solver knew it, no secret).
- ``GET /api/puzzles/daily`` — each variant's puzzle of the day (UTC), the same for everyone.
- ``GET /api/puzzles/me`` — the player's puzzle rating and streak per variant.
- ``GET /api/puzzles/history?variant=&before=&limit=`` — the player's attempts, newest first.

The puzzles are loaded from the data files once per instance, by the first request here.
Every unsafe route passes the guard (same origin, a known player: Z6) and a budget (Z5).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from ..identity import Me
from ..records import aware
from ..refusal import GameActionError
from .service import PuzzleService

Variant = Literal["xiangqi", "janggi", "jieqi"]
MAX_PAGE = 50


class BeginBody(BaseModel):
    """``POST /api/puzzles/attempts``."""

    variant: Variant = "xiangqi"
    puzzle: str | None = Field(default=None, max_length=32)
    daily: bool = False


class PuzzleMoveBody(BaseModel):
    """``POST /api/puzzles/attempts/{id}/moves``: ``ply``, the moves played so far."""

    ply: int = Field(ge=0, le=64)
    move: str = Field(min_length=4, max_length=8)


def puzzles_router(service: PuzzleService) -> APIRouter:
    """The puzzles' routes on ``service``. The data files are loaded by the first request
    that needs the puzzles (an instance that serves none, a test's app, never pays for it)."""
    router = APIRouter(dependencies=[Depends(service.ensure_loaded)])

    @router.post("/api/puzzles/attempts", status_code=201)
    async def begin(body: BeginBody, player: Me) -> dict[str, Any]:
        return await service.begin(player, body.variant, body.puzzle, body.daily)

    @router.get("/api/puzzles/attempts/{attempt_id}")
    async def show(attempt_id: str, player: Me) -> dict[str, Any]:
        return await service.show(player, attempt_id)

    @router.post("/api/puzzles/attempts/{attempt_id}/moves")
    async def move(attempt_id: str, body: PuzzleMoveBody, player: Me) -> dict[str, Any]:
        return await service.move(player, attempt_id, body.ply, body.move)

    @router.post("/api/puzzles/attempts/{attempt_id}/hint")
    async def hint(attempt_id: str, player: Me) -> dict[str, Any]:
        return await service.hint(player, attempt_id)

    @router.post("/api/puzzles/attempts/{attempt_id}/solution")
    async def solution(attempt_id: str, player: Me) -> dict[str, Any]:
        return await service.solution(player, attempt_id)

    @router.post("/api/puzzles/attempts/{attempt_id}/analysis", status_code=201)
    async def analysis(attempt_id: str, player: Me) -> dict[str, Any]:
        game_id = await service.analysis_game(player, attempt_id)
        return {"game": game_id, "review": f"/review/game/{game_id}"}

    @router.get("/api/puzzles/daily")
    async def daily() -> dict[str, Any]:
        return await service.dailies()

    @router.get("/api/puzzles/me")
    async def mine(player: Me) -> dict[str, Any]:
        return {"ratings": await service.ratings(player)}

    @router.get("/api/puzzles/history")
    async def history(
        player: Me,
        variant: Variant | None = None,
        before: Annotated[str | None, Query(max_length=40)] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    ) -> dict[str, Any]:
        moment = None
        if before:
            try:
                moment = aware(datetime.fromisoformat(before.replace("Z", "+00:00")))
            except ValueError:
                raise GameActionError("bad_request", "before must be a page's next") from None
        found = await service.history(player, limit + 1, variant, moment)
        page = found[:limit]
        return {"attempts": page, "next": page[-1]["created_at"] if len(found) > limit else None}

    return router
