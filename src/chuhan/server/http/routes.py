"""The JSON API of players and their games (SPEC S1, P1–P6; docs/protocol.md, HTTP JSON API),
the game socket, and the operators' health and metrics. Routers only: the player comes from
:mod:`.identity`, a refusal is raised and answered by :mod:`.http.refusals`, bodies are
:mod:`.protocol`'s."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, WebSocket
from fastapi.responses import JSONResponse

from ...rules import RulesError, make_board
from ..ai.pool import AIPool
from ..db.database import Database
from ..games.service import GameService, NewGame
from ..hub.redis import RedisHub
from ..identity import Me, known_player
from ..ops.metrics import CONTENT_TYPE, Metrics
from ..players.service import Players
from ..protocol.bodies import AnalysisBody, CreateGameBody, MoveBody, ProfileBody
from ..refusal import GameActionError
from ..sockets.game import game_socket


def ops_router(
    db: Database, pool: AIPool, metrics: Metrics, redis_hub: RedisHub | None
) -> APIRouter:
    """``/health`` and ``/metrics`` (the guard keeps /metrics to the operators' port)."""
    router = APIRouter()
    store = db.store

    @router.get("/health")
    async def health() -> JSONResponse:
        db_ok = await db(store.ping)
        ai: dict[str, Any] = {
            "workers": pool.workers,
            "jobs": pool.pending,
            "max_jobs": pool.max_jobs,
        }
        body = {"status": "ok" if db_ok else "degraded", "db": "ok" if db_ok else "down", "ai": ai}
        if pool.shared:  # the queue every instance and worker shares, read from Redis
            try:
                ai["shared"] = await db(pool.queue_state)
            except Exception:
                ai["shared"] = "down"
                body["status"] = "degraded"
        if redis_hub is not None:  # without Redis this instance still serves its own sockets
            # R4, Z4: news not crossing (no subscription, or no echo) is an outage.
            body["redis"] = "ok" if redis_hub.healthy else "down"
            body["hub"] = redis_hub.health()
            if not redis_hub.healthy:
                body["status"] = "degraded"
        return JSONResponse(body, status_code=200 if db_ok else 503)

    @router.get("/metrics", include_in_schema=False)
    async def metrics_text() -> Response:
        """Prometheus text format (the games gauge reads the database: off the loop)."""
        return Response(await db(metrics.text), media_type=CONTENT_TYPE)

    return router


def games_router(service: GameService, players: Players) -> APIRouter:
    """The player's profile, their games against the AI or on one device, the learn pages'
    rules, and the game socket."""
    router = APIRouter()

    @router.get("/api/me")
    async def get_me(player: Me) -> dict[str, Any]:
        return await players.profile(player)

    @router.patch("/api/me")
    async def patch_me(body: ProfileBody, player: Me) -> dict[str, Any]:
        player = await players.rename(player, body.name)
        return await players.profile(player)

    @router.get("/api/games/pending")
    async def pending(player: Me) -> dict[str, Any]:
        game = await service.pending_game(player)
        return {"game": await service.state(game) if game else None}

    @router.post("/api/games", status_code=201)
    async def create(body: CreateGameBody, player: Me) -> dict[str, Any]:
        game = await service.create_game(player, NewGame(**body.model_dump()))
        return await service.state(game)

    @router.get("/api/games/{game_id}")
    async def get_game(game_id: str, player: Me) -> dict[str, Any]:
        return await service.state(await service.game_for(player, game_id))

    @router.post("/api/games/{game_id}/moves")
    async def post_move(game_id: str, body: MoveBody, player: Me) -> dict[str, Any]:
        game = await service.game_for(player, game_id)
        try:
            after, ply = await service.move(game, body.ply, body.move)
        except GameActionError as exc:  # as the socket's move error: with the state now
            state = await service.state(await service.current_game(game_id))
            raise exc.with_fields(state=state, reply_to=body.id) from None
        return {"type": "ack", "reply_to": body.id, "ply": ply, "state": await service.state(after)}

    @router.post("/api/analysis/moves")
    async def analysis(body: AnalysisBody) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if body.variant == "janggi" and body.setup:
            options["setup"] = body.setup
        try:
            board = make_board(body.variant, body.fen, **options)
        except (RulesError, ValueError) as exc:
            raise GameActionError("bad_request", str(exc)) from None
        return {"legal_moves": list(board.legal_move_texts()), "in_check": board.is_check()}

    @router.websocket("/ws/games/{game_id}")
    async def websocket(socket: WebSocket, game_id: str) -> None:
        player = await known_player(players, socket.cookies)
        await game_socket(socket, service, player, game_id)

    return router
