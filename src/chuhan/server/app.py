"""The ASGI app, wired: services, middleware, the refusal handlers and every router.

``create_app(settings)`` builds everything from its arguments (no global state), so tests
can run several apps side by side with their own database and AI pool. It defines no route
itself: each router lives in its own module (:mod:`.http.routes` for the players'
games and the operators', :mod:`.rooms.routes`, :mod:`.pairing.routes`, :mod:`.games.review`,
:mod:`.players.archive`, :mod:`.http.front_end`), the player comes from :mod:`.identity`, and
refusals are answered by :mod:`.http.refusals`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from .ai.pool import AIPool
from .ai.shared_pool import pool_for
from .db.database import Database
from .db.reviews import ReviewStore
from .db.store import Store
from .games.analysis import AnalysisRunner
from .games.review import review_router
from .games.service import GameService
from .http.facts import facts_router
from .http.front_end import mount_front_end
from .http.guard import Guard, guard_settings
from .http.refusals import answer_refusals
from .http.routes import games_router, ops_router
from .http.seats import SeatLookup
from .hub.local import Hub, LocalHub
from .hub.redis import RedisHub
from .limits.budgets import CreationBudgets
from .limits.spending import Spending
from .ops.collector import Collector
from .ops.faults import die_after_move
from .ops.metrics import Metrics
from .ops.retention import RetentionJob
from .ops.stalls import StallWatch
from .pairing.routes import pairing_router
from .pairing.service import PairingService
from .players.archive import archive_router
from .players.device_routes import device_router
from .players.downloads import DownloadRunner
from .players.leaderboard import leaderboard_router
from .players.live import live_router
from .players.rating_service import Ratings
from .players.service import Players
from .puzzles.routes import puzzles_router
from .puzzles.service import PuzzleService
from .rooms.routes import rooms_router
from .rooms.service import RoomService
from .settings import Settings


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
    pool = pool or pool_for(settings)  # CHUHAN_AI_SHARED: the shared queue (ai/queue.py)
    # Several instances (DATABASE_URL shared): events cross them through Redis.
    redis_hub = RedisHub(settings.redis_url, settings.redis_prefix) if settings.redis_url else None
    hub: Hub = redis_hub or LocalHub()
    db = Database(store)  # every service's and router's database (db/database.py)
    spending = Spending(db, CreationBudgets(store, settings.creation))  # Z5, Z8
    service = GameService(db, hub, pool, settings, spending)  # the games and the AI's turns
    ratings = Ratings(db, hub, service.known, settings.ratings)  # B2
    players = Players(db, spending, ratings)  # S1
    if settings.die_after_move_ply is not None:  # a test's fault (ops/faults.py)
        service.commit_observers.append(die_after_move(settings.die_after_move_ply))
    rooms = RoomService(service, settings.rooms, ratings=ratings)  # SPEC R1–R8
    pairing = PairingService(  # SPEC B1: strangers are paired into rooms
        rooms,
        settings.rooms.seeks_per_address,
        silent_seconds=settings.rooms.seek_silent_seconds,
    )
    analyses = AnalysisRunner(
        service,
        ReviewStore(store),
        settings.analysis_nodes,
        per_player=settings.analyses_queued_per_player,
        per_address=settings.analyses_queued_per_address,
    )
    downloads = DownloadRunner(Path(settings.data_dir) / "downloads")  # Z7: B3's files
    puzzles = PuzzleService(db, spending, settings.puzzles)  # B9
    retention = RetentionJob(
        store, settings.retention_days, settings.retention_interval_seconds, db
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
        await db.migrate()  # everything below reads the database
        await service.start()
        retention.start()  # What nobody can reach is deleted (ops/retention.py)
        if collector is not None:
            collector.start()
        await rooms.start()  # the clock keepers and this instance's heartbeat
        pairing.start()  # the pairing beat, on the rooms
        downloads.start()
        yield
        downloads.close()
        await analyses.stop()
        await pairing.stop()
        await rooms.stop()
        if collector is not None:
            collector.stop()
        await retention.stop()
        await service.stop()
        await db.close()
        await pool.close()
        if redis_hub is not None:
            await redis_hub.stop()
        if stalls is not None:
            stalls.stop()

    app = FastAPI(title="Chu-Han", version="1", lifespan=lifespan)
    # Read by the identity dependency (identity.py), the one thing a module-level FastAPI
    # dependency cannot be handed: the players and the origins that may make one (Z6).
    app.state.players = players
    app.state.allowed_origins = settings.allowed_origins
    app.state.service = service  # the tests' handle on the games (wait_for_ai); no route reads it
    app.add_middleware(metrics.middleware)
    # Outermost: every request. Z8: a seated player's socket comes in though its address is full.
    app.add_middleware(Guard, settings=guard_settings(settings), seat_of=SeatLookup(db, players))

    answer_refusals(app)  # one shape for every refusal (http/refusals.py)

    app.include_router(ops_router(db, pool, metrics, redis_hub))
    app.include_router(facts_router())  # J8, R5, B7: the rule facts the client shows
    app.include_router(games_router(service, players))  # SPEC S1, P1–P6: the player's own games
    app.include_router(rooms_router(rooms, service, players, db))  # SPEC R1–R8: online rooms
    app.include_router(pairing_router(pairing, players))  # SPEC B1: play a stranger
    app.include_router(review_router(service, analyses))  # Records, imports, share links
    app.include_router(archive_router(db, spending, downloads))  # B3: a player's archive
    app.include_router(live_router(db, service, players))  # B5: the player's games in progress
    app.include_router(device_router(db, players))  # B6: one player on several devices
    app.include_router(puzzles_router(puzzles))  # B9: puzzles
    app.include_router(leaderboard_router(db, players))  # B8: leaderboard, rating history
    mount_front_end(app, settings)
    return app
