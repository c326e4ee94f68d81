"""The leaderboard per variant and a player's rating history (SPEC B8; the ratings: B2).

- ``GET /api/leaderboard?variant=`` — the :data:`LEADERBOARD_SIZE` best established ratings
  of the variant (not provisional, at least :data:`MIN_GAMES` rated games), best first:
  rank, name, rating, games, and ``you`` on the asker's own line. Names and numbers only:
  no player's id, nothing of their games (Z2). A visitor without identity gets the board
  too, and no identity is made for it (S1, Z6).
- ``GET /api/ratings/history`` — the player's own rating after each rated game that
  counted, per variant, oldest first (at most :data:`HISTORY_POINTS`), for the chart in My
  games (``web/js/leaderboard.js``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from fastapi import APIRouter, Request

from ..db.database import Database
from ..db.leaderboard import LeaderboardStore, RatingPoint
from ..games.views import iso_time
from ..identity import Me, known_player
from .service import Players

LEADERBOARD_SIZE = 50
# A rating is established once its deviation is at most 110 (B2), which takes a dozen games
# or so from 1500 ± 350; the minimum keeps a lucky handful of games off the board anyway.
MIN_GAMES = 10
HISTORY_POINTS = 300  # the newest counted games of all variants together


def history_json(points: list[RatingPoint]) -> dict[str, list[dict[str, Any]]]:
    """The points by variant, each ``{"at", "before", "rating"}`` in whole points."""
    by_variant: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for point in points:
        by_variant[point.variant].append(
            {"at": iso_time(point.at), "before": round(point.before), "rating": round(point.after)}
        )
    return dict(by_variant)


def leaderboard_router(db: Database, players: Players) -> APIRouter:
    """The leaderboard's and the history's routes on ``db``."""
    board = LeaderboardStore(db.store)
    router = APIRouter()

    @router.get("/api/leaderboard")
    async def leaderboard(
        request: Request, variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    ) -> dict[str, Any]:
        asker = await known_player(players, request.cookies)
        leaders = await db(board.leaders, variant, MIN_GAMES, LEADERBOARD_SIZE)
        return {
            "variant": variant,
            "min_games": MIN_GAMES,
            "players": [
                {
                    "rank": rank,
                    "name": leader.name,
                    "rating": round(leader.rating),
                    "games": leader.games,
                    "you": asker is not None and leader.player_id == asker.id,
                }
                for rank, leader in enumerate(leaders, start=1)
            ],
        }

    @router.get("/api/ratings/history")
    async def rating_history(player: Me) -> dict[str, Any]:
        points = await db(board.history, player.id, HISTORY_POINTS)
        return {"variants": history_json(points)}

    return router
