"""A player's archive (SPEC B3): every game they played, newest first, and all of
them as one record file.

- ``GET /api/archive?variant=&kind=&before=&limit=`` — one page of the player's games: every
  finished game (AI, one device, room, paired, imported), the unfinished AI and one-device
  games, which link back to the game, and the live online games, which link to their room
  (B5). ``kind`` is ``ai``, ``local``, ``room``, ``paired`` or ``imported``; ``before`` is
  the ``next`` cursor of the previous page; ``limit`` at most :data:`MAX_PAGE`. Only public
  facts (Z2): no jieqi arrangement, no other player's id.
- ``GET /api/archive/games/{id}`` — one of the player's games (their own, or an online game
  they sat in) as they see it, for its review page (``/review/game/<id>``); the state is
  built in a thread (Z7: a cold one replays the game).
- ``GET /api/archive/records?notation=&variant=&kind=`` — the player's finished games (at most
  :data:`MAX_DOWNLOAD`, newest first) as one PGN file, each game with its tags, written by a
  process of its own, one at a time per player and address block, within an hourly budget
  (Z7, :mod:`.downloads`). The notation is the player's choice where the variant has it: Korean
  only for janggi (xiangqi and jieqi then in ICCS), WXF and Chinese only for xiangqi and
  jieqi (janggi then in ICCS). ``[Red]``/``[Black]`` (janggi: ``[Cho]``/``[Han]``) name the
  players where known: the player's own name, an online opponent's, "Chu-Han AI (level)".
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse, PlainTextResponse
from starlette.background import BackgroundTask

from ...rules import RulesError
from ..addresses import CLIENT_BLOCK
from ..db.archive import ArchiveStore
from ..db.database import Database
from ..db.live import LiveStore
from ..db.store import Store
from ..games import views
from ..games.changes import side_names
from ..games.records_io import UNDECIDED_REASONS, record_text
from ..identity import Me
from ..limits.spending import Spending
from ..records import ArchivedGame, GameRecord, aware
from ..refusal import GameActionError
from .downloads import DownloadRunner
from .live import room_of_game, rooms_of_games

DEFAULT_PAGE = 20
MAX_PAGE = 50
MAX_DOWNLOAD = 500  # games per download (Z7): a bigger archive downloads by variant or kind
KINDS = ("ai", "local", "room", "paired", "imported")
VARIANTS = ("xiangqi", "janggi", "jieqi")
NOTATIONS = ("iccs", "wxf", "chinese", "korean")


def kind_of(game: GameRecord) -> str:
    """The archive's kind of a game: an online game is ``paired`` or ``room``."""
    if game.kind == "online":
        return "paired" if game.options.get("paired") else "room"
    return game.kind


def notation_for(variant: str, chosen: str) -> str:
    """The notation a game of ``variant`` is written in when the player chose ``chosen``:
    the choice where the variant has it, ICCS (every variant's) otherwise."""
    if chosen == "korean":
        return "korean" if variant == "janggi" else "iccs"
    if chosen in ("wxf", "chinese") and variant == "janggi":
        return "iccs"
    return chosen


def _cursor(game: GameRecord) -> str:
    return f"{game.created_at.isoformat()}|{game.id}"


def _parse_cursor(text: str) -> tuple[datetime, str]:
    """Raises GameActionError ``bad_request`` for a cursor this module did not write."""
    moment, _, game_id = text.partition("|")
    try:
        return aware(datetime.fromisoformat(moment)), game_id
    except ValueError:
        raise GameActionError("bad_request", "before must be a page's next cursor") from None


# ---------------------------------------------------------------------- what is shown


def outcome_of(entry: ArchivedGame) -> str:
    """``ongoing``, ``won``, ``lost``, ``draw``, ``unfinished`` (an imported ``*`` record;
    a game interrupted, abandoned or expired: nobody won, nor was it drawn) or, with no side
    to take (one device, a record), ``red``/``black``… the winner's side."""
    game = entry.game
    if game.ongoing:
        return "ongoing"
    result = game.result or {}
    winner = result.get("winner")
    if winner is None:
        reason = result.get("reason")
        return "unfinished" if reason in (*UNDECIDED_REASONS, "unknown") else "draw"
    if entry.side is None:
        return str(winner)
    return "won" if winner == side_names(game.variant)[entry.side] else "lost"


def opponent_of(entry: ArchivedGame) -> dict[str, Any]:
    """Who the player faced: the AI and its level, a player's name (None: no name), both
    sides on one device, or an imported record's players (its tags)."""
    game = entry.game
    if game.kind == "ai":
        return {"type": "ai", "level": game.level}
    if game.kind == "local":
        return {"type": "local"}
    if game.kind == "imported":
        tags = game.options.get("record_tags") or {}
        first, second = ("Cho", "Han") if game.variant == "janggi" else ("Red", "Black")
        return {
            "type": "record",
            "first": tags.get(first) or tags.get("Red"),
            "second": tags.get(second) or tags.get("Black"),
            "event": tags.get("Event"),
        }
    return {"type": "player", "name": entry.opponent}


def entry_json(entry: ArchivedGame, room: str | None = None) -> dict[str, Any]:
    """One line of the archive. Public facts only (Z2): nothing of ``secret``. ``room``: the
    address of the room where a live online game is played (B5: it links there)."""
    game = entry.game
    names = side_names(game.variant)
    kind = kind_of(game)
    result = game.result or {}
    item: dict[str, Any] = {
        "id": game.id,
        "kind": kind,
        "variant": game.variant,
        "rules": game.options.get("rules") if game.variant != "janggi" else None,
        "side": names[entry.side] if entry.side is not None else None,
        "opponent": opponent_of(entry),
        "status": game.status,
        "outcome": outcome_of(entry),
        "winner": result.get("winner"),
        "reason": result.get("reason"),
        "plies": game.ply,
        "created_at": views.iso_time(game.created_at),
        "ended_at": None if game.ongoing else views.iso_time(game.updated_at),
        "points_awarded": game.points_awarded,
        "rating": None,
    }
    rated = game.options.get("rated")
    if kind == "paired" and rated and entry.side is not None:
        mine = rated.get(names[entry.side]) or {}
        item["rating"] = {**mine, "counted": rated.get("counted", True)}
        for why in ("reason", "ai_games_first"):  # why it was not rated (Z8, B2)
            if why in rated:
                item["rating"][why] = rated[why]
    if game.ongoing and game.kind == "ai":
        item["resume"] = f"/play/ai?variant={game.variant}&game={game.id}"
    elif game.ongoing and game.kind == "local":
        item["resume"] = f"/play/local?variant={game.variant}&game={game.id}"
    elif game.ongoing and room is not None:
        item["room"] = room
    else:
        item["review"] = f"/review/game/{game.id}"
    return item


def names_of(entry: ArchivedGame, my_name: str | None) -> dict[int, str | None]:
    """The players' names by side, for a record's tags (where known)."""
    game = entry.game
    if entry.side is None:
        return {}
    names: dict[int, str | None] = {entry.side: my_name}
    if game.kind == "ai":
        names[1 - entry.side] = f"Chu-Han AI ({game.level})"
    elif game.kind == "online":
        names[1 - entry.side] = entry.opponent
    return names


def records_text(entries: list[ArchivedGame], my_name: str | None, notation: str) -> str:
    """The games as one PGN file, one record after another (CPU work: run it in a thread).
    A game whose record cannot be written is left out (its review still shows it)."""
    texts = []
    for entry in entries:
        game = entry.game
        viewer = entry.side if game.kind in ("ai", "online") else None
        try:
            texts.append(
                record_text(
                    game,
                    viewer,
                    notation_for(game.variant, notation),
                    "pgn",
                    names_of(entry, my_name),
                ).strip()
            )
        except (RulesError, ValueError):
            continue
    return "\n\n".join(texts) + "\n" if texts else ""


@dataclass(frozen=True)
class DownloadJob:
    """What a download's process needs: where the games are, whose, which, and how."""

    database_url: str
    db_schema: str | None
    folder: str
    player_id: str
    player_name: str | None
    notation: str
    variant: str | None
    kind: str | None
    most: int


def write_download(job: DownloadJob) -> tuple[str, int, bool]:
    """In a process of its own (Z7): reads the player's newest ``job.most`` finished games
    and writes them as one PGN file in ``job.folder``. Returns the file's path, the games
    written and whether older ones were left out."""
    store = Store(job.database_url, job.db_schema)
    try:
        found = ArchiveStore(store).page(
            job.player_id, job.most + 1, job.variant, job.kind, None, True
        )
    finally:
        store.dispose()
    entries = found[: job.most]
    text = records_text(entries, job.player_name, job.notation)
    handle, path = tempfile.mkstemp(prefix="games-", suffix=".pgn", dir=job.folder)
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    return path, len(entries), len(found) > job.most


# ---------------------------------------------------------------------- routes

Variant = Literal["xiangqi", "janggi", "jieqi"]
Kind = Literal["ai", "local", "room", "paired", "imported"]


def archive_router(db: Database, spending: Spending, downloads: DownloadRunner) -> APIRouter:
    """The archive's routes on ``db``; ``downloads`` writes the files (started
    and closed by the app, ``create_app``)."""
    archive = ArchiveStore(db.store)
    live = LiveStore(db.store)
    router = APIRouter()

    @router.get("/api/archive")
    async def list_games(
        player: Me,
        variant: Variant | None = None,
        kind: Kind | None = None,
        before: Annotated[str | None, Query(max_length=120)] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    ) -> dict[str, Any]:
        cursor = _parse_cursor(before) if before else None
        found = await db(archive.page, player.id, limit + 1, variant, kind, cursor)
        page = found[:limit]
        rooms: dict[str, str] = {}
        if any(entry.game.kind == "online" and entry.game.ongoing for entry in page):
            rooms = await db(rooms_of_games, live, player.id)
        return {
            "games": [entry_json(entry, rooms.get(entry.game.id)) for entry in page],
            "next": _cursor(page[-1].game) if len(found) > limit else None,
        }

    @router.get("/api/archive/games/{game_id}")
    async def archived_game(game_id: str, player: Me) -> dict[str, Any]:
        entry = await db(archive.game_for, player.id, game_id) if len(game_id) <= 64 else None
        if entry is None:
            raise GameActionError("not_found", "no such game")
        game = entry.game
        if game.kind == "online" and game.ongoing:  # B5: a live game is played in its room
            room = await db(room_of_game, live, player.id, game_id)
            raise GameActionError("game_ongoing", "this game is being played", room=room)
        viewer = entry.side if game.kind in ("ai", "online") else None
        # Z7: a cold state replays the whole game; in a thread, as every other state read.
        state: dict[str, Any] = await asyncio.to_thread(views.state_for, game, viewer)
        # B7: the review names both players by side (``you`` says which was the player's).
        sides = side_names(game.variant)
        named = names_of(entry, player.name)
        state["players"] = {sides[side]: name for side, name in named.items() if name}
        return state

    @router.get("/api/archive/records", response_class=PlainTextResponse)
    async def download(
        player: Me,
        notation: Literal["iccs", "wxf", "chinese", "korean"] = "iccs",
        variant: Variant | None = None,
        kind: Kind | None = None,
    ) -> FileResponse:
        """Z7: one at a time per player and address block (429 ``download_running``),
        within the hourly budget (429 ``too_many_downloads``), written by a process of its
        own; the server only streams the file."""
        with downloads.one_at_a_time(player.id, CLIENT_BLOCK.get()):
            await spending.spend("downloads", player.id)
            job = DownloadJob(
                db.store.url,
                db.store.schema,
                str(downloads.folder),
                player.id,
                player.name,
                notation,
                variant,
                kind,
                MAX_DOWNLOAD,
            )
            path, count, truncated = await downloads.run(write_download, job)
        headers = {
            "Content-Disposition": 'attachment; filename="chuhan-games.pgn"',
            "X-Archive-Games": str(count),
            # Z7: the newest MAX_DOWNLOAD only; the rest by variant or kind.
            "X-Archive-Truncated": "1" if truncated else "0",
        }
        return FileResponse(
            path,
            media_type="text/plain; charset=utf-8",
            headers=headers,
            background=BackgroundTask(os.unlink, path),
        )

    return router
