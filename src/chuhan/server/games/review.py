"""After the game (N4): records, imports, share links and engine analysis over HTTP.

- ``GET /api/games/{id}/record?notation=…&format=pgn|gib`` — the game's record (SPEC N4) as
  ``text/plain``, for its players at any time and for share-link holders (``share=``) once
  it is over. While a jieqi game is on the record is written from the asking player's view:
  moves and reveals (public, Q3) and the commitment, never an arrangement (Z2, Q5).
- ``POST /api/records`` — a record's text (PGN in ICCS/WXF/Chinese/coordinates, ``.gib``)
  becomes a finished game of kind ``imported`` that its importer may review and share; a bad
  record is a 400 naming the line.
- ``POST /api/games/{id}/share`` — the game's share token (192 random bits, made once);
  ``GET /api/shared/{token}`` — the finished game as anyone holding it may see it (jieqi:
  everything, with the arrangement and salt to check the commitment, Q7); a game still on
  answers ``game_ongoing`` and shows nothing.
- ``POST``/``GET /api/games/{id}/analysis`` — the engine analysis of a finished game
  (:class:`~.analysis.AnalysisRunner`).

Every game state sent here is the one per-viewer projection (``views.state_for``); the records
are written and read by :mod:`.records_io`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse

from ...rules import RulesError
from ...rules.notation import write_move
from ...rules.record import (
    RecordError,
    RecordTooLongError,
    decode_record,
    default_format,
    read_record,
)
from ..addresses import CLIENT_BLOCK
from ..identity import Me
from ..records import GameRecord, Player, utcnow
from ..refusal import GameActionError
from . import changes as rules_of
from . import views
from .analysis import AnalysisRunner, analysis_answer
from .records_io import imported_game, positions, record_text
from .service import GameService
from .views import viewer_of

log = logging.getLogger("chuhan.review")
Share = Annotated[str | None, Query(max_length=64)]


class ReviewRoutes:
    """The handlers of this module's routes, on ``service``'s store; analyses run on
    ``runner``."""

    def __init__(self, service: GameService, runner: AnalysisRunner) -> None:
        self.service = service
        self.runner = runner
        self.reviews = runner.reviews

    async def access(
        self, game_id: str, player: Player | None, share: str | None
    ) -> tuple[GameRecord, int | None]:
        """The game and the viewer it is shown as: its player's side (None for a local or an
        imported game), or None for a share-link holder of a finished game. Raises
        GameActionError ``not_found`` for anyone else (a stranger learns nothing, Z2)."""
        game = (
            await self.service.db(self.service.store.game, game_id) if len(game_id) <= 64 else None
        )
        if game is not None and player is not None:
            if game.player_id == player.id:
                return game, viewer_of(game)
            if game.kind == "online":
                side = await self.service.db(self.reviews.online_side, game.id, player.id)
                if side is not None:
                    return game, side
        if game is not None and share and not game.ongoing:
            holder_of = await self.service.db(self.reviews.game_of_share, share)
            if holder_of == game.id:
                return game, None
        raise GameActionError("not_found", "no such game")

    async def names_of(self, game: GameRecord) -> dict[int, str | None]:
        if game.kind == "online":
            return await self.service.db(self.reviews.names, game.id)
        if game.kind == "ai" and game.player_id and game.human_side is not None:
            name = await self.service.db(self.reviews.player_name, game.player_id)
            # N4: the human's side has its tag too, named or not.
            human = name or "Chu-Han player"
            return {game.human_side: human, 1 - game.human_side: f"Chu-Han AI ({game.level})"}
        return {}

    async def get_record(
        self,
        game_id: str,
        player: Me,
        notation: Literal["coords", "iccs", "wxf", "chinese", "korean"] | None = None,
        format: Literal["pgn", "gib"] = "pgn",
        share: Share = None,
    ) -> PlainTextResponse:
        game, viewer = await self.access(game_id, player, share)
        chosen = notation or default_format(game.variant)
        try:
            text = await asyncio.to_thread(
                record_text, game, viewer, chosen, format, await self.names_of(game)
            )
        except (RulesError, ValueError) as exc:
            raise GameActionError("bad_request", str(exc)) from None
        extension = "gib" if format == "gib" else "pgn"
        disposition = f'inline; filename="chuhan-{game.id}.{extension}"'
        return PlainTextResponse(text, headers={"Content-Disposition": disposition})

    async def get_notation(
        self, game_id: str, player: Me, move: Annotated[str, Query(max_length=16)]
    ) -> dict[str, Any]:
        """U4, N1–N3: a legal move of the game's position now, written in each of its
        variant's notations before it is played ("Play C2.5?"), on the board as the viewer
        may know it (a jieqi face-down piece stays face down, Z2). Refused ``game_over``, or
        ``bad_request`` for a move that is not legal there."""
        game, viewer = await self.access(game_id, player, None)
        if not game.ongoing:
            raise GameActionError("game_over", "the game is over")

        def written() -> dict[str, str]:
            board = views.known_board(game, viewer)
            names = rules_of.NOTATIONS.NOTATIONS[game.variant]
            return {name: write_move(board, move, name) for name in names}

        try:
            texts = await asyncio.to_thread(written)
        except (RulesError, ValueError) as exc:
            raise GameActionError("bad_request", str(exc)) from None
        return {"move": move, "notation": texts}

    async def get_positions(self, game_id: str, player: Me, share: Share = None) -> dict[str, Any]:
        game, _ = await self.access(game_id, player, share)
        return {"id": game.id, "positions": await asyncio.to_thread(positions, game)}

    async def import_record(self, request: Request, player: Me) -> dict[str, Any]:
        await self.service.refuse_advice_while_online(player.id)
        await self.service.spending.spend("imports", player.id)  # A bad record counts too
        limit = self.service.settings.max_body_bytes  # the app's guard refuses more before this
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > limit:
                raise GameActionError("too_large", f"a record has at most {limit} bytes")
        text = decode_record(data)
        if not text.strip():
            raise GameActionError("empty_record", "the record is empty")
        try:
            record = await asyncio.to_thread(read_record, text)
        except RecordTooLongError as exc:
            raise GameActionError("too_many_moves", str(exc), line=exc.line) from None
        except RecordError as exc:
            raise GameActionError("bad_record", str(exc), line=exc.line) from None
        except RulesError as exc:
            raise GameActionError("bad_record", str(exc), line=None) from None
        try:
            game = imported_game(record, player, utcnow())
        except GameActionError as exc:  # bad_record: no line to blame
            raise exc.with_fields(line=None) from None
        start_event = rules_of.event("start")
        await self.service.db(self.service.store.insert_game, game, [start_event])
        log.info("record imported", extra={"game": game.id, "player": player.id})
        return await asyncio.to_thread(views.state_for, game, None)

    async def share_game(self, game_id: str, player: Me) -> dict[str, Any]:
        game, _ = await self.access(game_id, player, None)
        token = await self.service.db(self.reviews.share, game.id)
        return {"token": token, "path": f"/review/{token}", "available": not game.ongoing}

    async def shared_game(self, token: str) -> dict[str, Any]:
        game_id = (
            await self.service.db(self.reviews.game_of_share, token) if len(token) <= 64 else None
        )
        game = await self.service.db(self.service.store.game, game_id) if game_id else None
        if game is None:
            raise GameActionError("not_found", "no such shared game")
        if game.ongoing:
            message = "the game is still being played; its review opens at the end"
            raise GameActionError("game_ongoing", message)
        return await asyncio.to_thread(views.state_for, game, None)

    async def start_analysis(self, game_id: str, player: Me, share: Share = None) -> dict[str, Any]:
        game, _ = await self.access(game_id, player, share)
        if game.ongoing:
            raise GameActionError("game_ongoing", "a game is analysed once it is over")
        await self.service.refuse_advice_while_online(player.id)
        stored = await self.runner.start(game, player.id, CLIENT_BLOCK.get())  # may be 429
        fresh = await self.service.db(self.reviews.analysis, game.id)
        return analysis_answer(game, fresh or stored)

    async def get_analysis(self, game_id: str, player: Me, share: Share = None) -> dict[str, Any]:
        game, _ = await self.access(game_id, player, share)
        await self.service.refuse_advice_while_online(player.id)
        stored = await self.service.db(self.reviews.analysis, game.id)
        if stored is not None:
            await self.runner.resume_if_lost(game, stored, player.id, CLIENT_BLOCK.get())
        return analysis_answer(game, stored)


def review_router(service: GameService, runner: AnalysisRunner) -> APIRouter:
    """The routes of this module (:class:`ReviewRoutes`), on ``service``'s store; analyses run
    on ``runner`` (stopped by the app, ``create_app``)."""
    routes = ReviewRoutes(service, runner)
    router = APIRouter()
    router.add_api_route(
        "/api/games/{game_id}/record",
        routes.get_record,
        methods=["GET"],
        response_class=PlainTextResponse,
    )
    router.add_api_route("/api/games/{game_id}/notation", routes.get_notation, methods=["GET"])
    router.add_api_route("/api/games/{game_id}/positions", routes.get_positions, methods=["GET"])
    router.add_api_route("/api/records", routes.import_record, methods=["POST"], status_code=201)
    router.add_api_route("/api/games/{game_id}/share", routes.share_game, methods=["POST"])
    router.add_api_route("/api/shared/{token}", routes.shared_game, methods=["GET"])
    router.add_api_route(
        "/api/games/{game_id}/analysis", routes.start_analysis, methods=["POST"], status_code=202
    )
    router.add_api_route("/api/games/{game_id}/analysis", routes.get_analysis, methods=["GET"])
    return router
