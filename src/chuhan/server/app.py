"""The ASGI app: JSON API, game WebSocket, health, and the static front end.

``create_app(settings)`` builds everything from its arguments (no global state), so tests
can run several apps side by side with their own database and AI pool.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal
from urllib.parse import quote

from fastapi import FastAPI, Response, WebSocket
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..rules import RulesError, make_board
from ..rules.janggi import SetupChoice
from .ai import AIPool
from .ai_queue import pool_for
from .archive import archive_router
from .collector import Collector
from .games import GameActionError
from .guard import Guard, guard_settings
from .hub import Hub, LocalHub
from .identity import Me
from .metrics import CONTENT_TYPE, Metrics
from .pairing.routes import pairing_router
from .redis_hub import RedisHub
from .refusals import answer_refusals
from .retention import RetentionJob
from .review import review_router
from .rooms.routes import rooms_router
from .service import GameService, NewGame
from .settings import Settings
from .stalls import StallWatch
from .storage import Store
from .ws import game_socket

log = logging.getLogger("chuhan.server")
SPA_PREFIXES = ("play", "room", "review", "games")
LEARN_PAGE = "/static/learn/index.html"  # the learn pages route by the hash (issue 10)
# What /static/ serves: the front end's own kinds of file, nothing else found in its folder.
FRONT_END_SUFFIXES = frozenset(
    (".html", ".js", ".css", ".json", ".svg", ".png", ".webp", ".ico", ".woff2", ".woff",
     ".ttf", ".otf", ".txt", ".mp3", ".ogg", ".wav")
)  # fmt: skip


class FrontEndFiles(StaticFiles):
    """``StaticFiles`` limited to the front end's kinds of file (no tools, no sources)."""

    async def get_response(self, path: str, scope: Any) -> Response:
        name = path.rsplit("/", 1)[-1]
        if name.startswith(".") or not any(name.endswith(s) for s in FRONT_END_SUFFIXES):
            raise StarletteHTTPException(404, "not found")
        return await super().get_response(path, scope)


class CreateGameBody(BaseModel):
    kind: Literal["ai", "local"] = "ai"
    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    level: Literal["beginner", "intermediate", "advanced"] | None = None
    color: Literal["red", "black", "cho", "han", "random"] = "random"
    setup: SetupChoice | None = None
    setup_other: SetupChoice | None = None
    bikjang: Literal["off", "points"] = "off"
    rules: Literal["casual", "wxf"] = "casual"  # how repetitions are judged (E1, issue 18)
    abandon_pending: bool = False


class MoveBody(BaseModel):
    ply: int = Field(ge=0, le=100_000)
    move: str = Field(min_length=1, max_length=16)
    id: str | None = Field(default=None, max_length=64)


class ProfileBody(BaseModel):
    name: str | None = Field(default=None, max_length=40)


class AnalysisBody(BaseModel):
    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    fen: str | None = Field(default=None, max_length=200)
    setup: str | None = Field(default=None, max_length=9)


def create_app(
    settings: Settings | None = None,
    *,
    pool: AIPool | None = None,
    store: Store | None = None,
    collector: Collector | None = None,
) -> FastAPI:
    """The Chu-Han ASGI app. Migrations run and waiting AI moves resume at start-up.
    ``collector``: the process's garbage collector schedule (``chuhan serve``'s), started
    once the app is up."""
    settings = settings or Settings.from_env()
    store = store or Store(settings.sqlalchemy_url(), settings.db_schema)
    pool = pool or pool_for(settings)  # CHUHAN_AI_SHARED: the shared queue (ai_queue.py)
    # Several instances (DATABASE_URL shared): events cross them through Redis.
    redis_hub = RedisHub(settings.redis_url, settings.redis_prefix) if settings.redis_url else None
    hub: Hub = redis_hub or LocalHub()
    service = GameService(store, hub, pool, settings)
    retention = RetentionJob(
        store, settings.retention_days, settings.retention_interval_seconds, service.db
    )
    metrics = Metrics()
    metrics.watch(service, pool)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stalls = StallWatch(settings.stall_log_ms / 1000) if settings.stall_log_ms else None
        if stalls is not None:
            stalls.start()
        if redis_hub is not None:
            await redis_hub.start()
        await pool.start()
        await service.start()
        retention.start()  # issue 27 #8: what nobody can reach is deleted (retention.py)
        if collector is not None:
            collector.start()
        yield
        if collector is not None:
            collector.stop()
        await retention.stop()
        await service.stop()
        await pool.close()
        if redis_hub is not None:
            await redis_hub.stop()
        if stalls is not None:
            stalls.stop()

    app = FastAPI(title="Chu-Han", version="1", lifespan=lifespan)
    app.state.service = service
    app.state.settings = settings
    app.state.metrics = metrics
    app.add_middleware(metrics.middleware)
    app.add_middleware(Guard, settings=guard_settings(settings))  # outermost: every request

    answer_refusals(app)  # one shape for every refusal (refusals.py)

    @app.get("/health")
    async def health() -> JSONResponse:
        db_ok = await service.db(store.ping)
        ai: dict[str, Any] = {
            "workers": pool.workers,
            "jobs": pool.pending,
            "max_jobs": pool.max_jobs,
        }
        body = {"status": "ok" if db_ok else "degraded", "db": "ok" if db_ok else "down", "ai": ai}
        if pool.shared:  # the queue every instance and worker shares, read from Redis
            try:
                ai["shared"] = await service.db(pool.queue_state)
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

    @app.get("/metrics", include_in_schema=False)
    async def metrics_text() -> Response:
        """Prometheus text format (the games gauge reads the database: off the loop)."""
        return Response(await service.db(metrics.text), media_type=CONTENT_TYPE)

    @app.get("/api/me")
    async def get_me(player: Me) -> dict[str, Any]:
        return await service.profile(player)

    @app.patch("/api/me")
    async def patch_me(body: ProfileBody, player: Me) -> dict[str, Any]:
        player = await service.rename(player, body.name)
        return await service.profile(player)

    @app.get("/api/games/pending")
    async def pending(player: Me) -> dict[str, Any]:
        game = await service.pending_game(player)
        return {"game": await service.state(game) if game else None}

    @app.post("/api/games", status_code=201)
    async def create(body: CreateGameBody, player: Me) -> dict[str, Any]:
        game = await service.create_game(player, NewGame(**body.model_dump()))
        return await service.state(game)

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str, player: Me) -> dict[str, Any]:
        return await service.state(await service.game_for(player, game_id))

    @app.post("/api/games/{game_id}/moves")
    async def post_move(game_id: str, body: MoveBody, player: Me) -> dict[str, Any]:
        game = await service.game_for(player, game_id)
        try:
            after, ply = await service.move(game, body.ply, body.move)
        except GameActionError as exc:  # as the socket's move error: with the state now
            state = await service.state(await service.current_game(game_id))
            raise exc.with_fields(state=state, reply_to=body.id) from None
        return {"type": "ack", "reply_to": body.id, "ply": ply, "state": await service.state(after)}

    @app.post("/api/analysis/moves")
    async def analysis(body: AnalysisBody) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if body.variant == "janggi" and body.setup:
            options["setup"] = body.setup
        try:
            board = make_board(body.variant, body.fen, **options)
        except (RulesError, ValueError) as exc:
            raise GameActionError("bad_request", str(exc)) from None
        return {"legal_moves": list(board.legal_move_texts()), "in_check": board.is_check()}

    @app.websocket("/ws/games/{game_id}")
    async def websocket(socket: WebSocket, game_id: str) -> None:
        await game_socket(socket, service, game_id)

    app.include_router(rooms_router(service))  # SPEC R1–R8: online rooms
    app.include_router(pairing_router(service))  # SPEC B1: play a stranger (after the rooms)
    # issue 17: records, imports, share links, analysis
    app.include_router(review_router(service, settings.analysis_nodes))
    app.include_router(archive_router(service))  # B3: a player's archive
    _mount_front_end(app, settings)
    return app


def _mount_front_end(app: FastAPI, settings: Settings) -> None:
    """The single-page front end: ``/static/…`` files; ``/`` and its routes give index.html."""
    web_dir = settings.web_dir
    app.mount("/static", FrontEndFiles(directory=web_dir, check_dir=False), name="static")

    def index() -> FileResponse:
        page = web_dir / "index.html"
        if not page.is_file():
            raise StarletteHTTPException(404, "the front end is not installed")
        return FileResponse(page, media_type="text/html")

    @app.get("/", include_in_schema=False)
    async def root() -> FileResponse:
        return index()

    for prefix in SPA_PREFIXES:
        app.add_api_route(f"/{prefix}", index, include_in_schema=False, methods=["GET"])
        app.add_api_route(
            f"/{prefix}/{{rest:path}}", index, include_in_schema=False, methods=["GET"]
        )

    @app.get("/learn", include_in_schema=False)
    @app.get("/learn/{rest:path}", include_in_schema=False)
    async def learn(rest: str = "") -> RedirectResponse:
        """``/learn/rules/xiangqi`` → the learn pages at ``#/rules/xiangqi``."""
        target = f"{LEARN_PAGE}#/{quote(rest.strip('/'))}" if rest.strip("/") else LEARN_PAGE
        return RedirectResponse(target, status_code=307)
