"""A live game is one tap away (SPEC B5): ``GET /api/live`` lists the player's games in
progress, for the "your game is on" banner every page shows (``web/js/live.js``).

- An online game (a room whose game is going on, or whose janggi setup is being chosen):
  its room's address, the opponent's name, the player's side, whose turn it is and that
  turn's deadline (``paused`` while both players are away, R7), read from the room and its
  game as stored, so any instance answers alike.
- The pending game against the AI (P2) and the newest one-device game not yet expired: the
  address that resumes them.

Public facts only (Z2): no jieqi secret, no other player's id. A request without a known
player has no games (and makes no identity, S1, Z6: the learn pages ask too), so a first
visit meets no refused request.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request

from ..db.database import Database
from ..db.live import LiveStore
from ..games import views
from ..games.changes import side_names, turn_of
from ..games.service import GameService
from ..identity import known_player
from ..records import GameRecord, RoomRecord, utcnow
from .service import Players


def room_address(room_id: str) -> str:
    return f"/room/{room_id}"


def rooms_of_games(live: LiveStore, player_id: str) -> dict[str, str]:
    """The addresses of the rooms where the player's live online games are played, by game
    id. Synchronous: run it with the ``Database``."""
    return {game.id: room_address(room.id) for room, game in live.rooms_of(player_id) if game}


def room_of_game(live: LiveStore, player_id: str, game_id: str) -> str | None:
    """The address of the room where the player's live online game ``game_id`` is played
    (None: not live, or not theirs). Synchronous: run it with the ``Database``."""
    return rooms_of_games(live, player_id).get(game_id)


def online_entry(
    room: RoomRecord, game: GameRecord | None, player_id: str, names: dict[str, str | None]
) -> dict[str, Any]:
    """One live room as its player sees it in the banner."""
    sides = side_names(room.variant)
    opponent = next((s["player"] for s in room.seats if s["player"] != player_id), None)
    side = room.side_of(player_id)
    entry: dict[str, Any] = {
        "kind": "online",
        "paired": bool(room.options.get("paired")),
        "variant": room.variant,
        "room": room.id,
        "href": room_address(room.id),
        "game_id": game.id if game is not None else None,
        "opponent": names.get(opponent) if opponent else None,
        "you": sides[side] if side is not None else None,
    }
    if room.setup is not None or game is None:  # J3: the setup choice runs on the turn clock
        setup = room.setup or {}
        entry.update(
            phase="setup",
            turn=setup.get("turn"),
            deadline=setup.get("deadline"),
            paused=bool(setup.get("both_away_since")),
            plies=0,
        )
        return entry
    clock = game.options.get("clock") or {}
    entry.update(
        phase="playing",
        turn=sides[turn_of(game)],
        deadline=clock.get("deadline"),
        paused=bool(clock.get("both_away_since")),
        plies=game.ply,
    )
    return entry


def resume_entry(game: GameRecord) -> dict[str, Any]:
    """The pending AI game or a one-device game, with the address that resumes it."""
    query = {"variant": game.variant, "game": game.id}
    entry: dict[str, Any] = {
        "kind": game.kind,
        "variant": game.variant,
        "game_id": game.id,
        "plies": game.ply,
        "you": views.viewer_name(game),
        "level": game.level,
    }
    if game.kind == "ai":
        entry["href"] = f"/play/ai?{urlencode({**query, 'level': game.level or ''})}"
    else:
        entry["href"] = f"/play/local?{urlencode(query)}"
    return entry


def live_router(db: Database, games: GameService, players: Players) -> APIRouter:
    """``GET /api/live`` on ``db``; the pending AI game from ``games``."""
    live = LiveStore(db.store)
    router = APIRouter()

    @router.get("/api/live")
    async def live_games(request: Request) -> dict[str, Any]:
        now = utcnow()
        player = await known_player(players, request.cookies)
        if player is None:
            return {"games": [], "now": views.iso_time(now)}
        found = await db(live.rooms_of, player.id)
        others = [s["player"] for room, _ in found for s in room.seats if s["player"] != player.id]
        names = await db(db.store.player_names, others) if others else {}
        entries = [online_entry(room, game, player.id, names) for room, game in found]
        pending = await games.pending_game(player)
        if pending is not None:
            entries.append(resume_entry(pending))
        local = [
            game
            for game in await db(db.store.ongoing_games, player.id, "local")
            if game.expires_at > now
        ]
        if local:
            entries.append(resume_entry(local[-1]))  # the newest: ongoing_games is oldest first
        return {"games": entries, "now": views.iso_time(now)}

    return router
