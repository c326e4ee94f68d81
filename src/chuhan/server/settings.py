"""Server settings: command-line values over environment variables over defaults.

Environment variables (all optional):

- ``DATABASE_URL``: a SQLAlchemy URL (``postgresql+psycopg://…``); SQLite in the data folder
  when unset.
- ``CHUHAN_DB_SCHEMA``: PostgreSQL schema to keep the tables in (tests use one per run).
- ``CHUHAN_GAME_TTL_SECONDS``: how long a game stays resumable (SPEC P2: 24 hours).
- ``CHUHAN_AI_WORKERS`` / ``CHUHAN_AI_QUEUE``: AI worker processes and the most AI jobs
  waiting or running at once before new ones are answered "busy".
- ``CHUHAN_AI_MOVETIME``: optional cap, in seconds, on one AI move.
- ``CHUHAN_AI_SHARED``: ``1`` sends AI jobs through one Redis queue (needs ``REDIS_URL``; its
  keys start with ``saq:<CHUHAN_REDIS_PREFIX>:ai``) to ``chuhan ai-worker`` processes, which
  may run on other machines; ``CHUHAN_AI_QUEUE`` then bounds that shared queue, and
  ``CHUHAN_AI_WORKERS`` is the worker processes this instance runs on it itself (``0``: none,
  the web instance runs no engine).
- ``CHUHAN_ANALYSIS_NODES``: the engine's node budget per position of a game analysis
  (default 8000); ``CHUHAN_ANALYSIS_ENGINE``: a UCI engine (e.g. ``/usr/games/fairy-stockfish``)
  that the AI workers use for xiangqi and janggi analyses instead of ours (a ``chuhan
  ai-worker`` reads it from its own environment).
- ``REDIS_URL``: with it, events cross server instances through Redis pub/sub (several
  ``chuhan serve`` behind one proxy, sharing ``DATABASE_URL``); ``CHUHAN_REDIS_PREFIX`` names
  the channel (default ``chuhan``), so deployments or test runs can share one Redis.
- Online rooms (:class:`RoomSettings`; shortened by tests only, a client never can):
  ``CHUHAN_ROOM_TURN_SECONDS`` (90), ``CHUHAN_ROOM_AWAY_BUDGET_SECONDS`` (120),
  ``CHUHAN_ROOM_LAG_CAP_SECONDS`` (2), ``CHUHAN_ROOM_CLOCK_SCALE`` (1: every game clock's
  durations times it, B7), ``CHUHAN_ROOM_JOIN_TRIES_PER_PLAYER`` (10),
  ``CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS`` (30), ``CHUHAN_ROOM_JOIN_WINDOW_SECONDS`` (900),
  ``CHUHAN_ROOM_JOIN_TRIES_PER_NETWORK`` (90, an IPv6 /48),
  ``CHUHAN_ROOM_FINDS_PER_ROOM`` (20), ``CHUHAN_PASSWORD_TRIES_SITE`` (600),
  ``CHUHAN_PASSWORD_TRIES_UNDER_ATTACK_PER_ADDRESS`` (3),
  ``CHUHAN_PASSWORD_TRIES_UNDER_ATTACK_PER_NETWORK`` (6: once the site's are spent),
  ``CHUHAN_PASSWORD_MAX_WAIT_SECONDS`` (10), ``CHUHAN_OPEN_ROOMS_PER_PLAYER`` (3): password
  attempts, joins and creations alike, per player, address block, /48, room and site
  (``rooms/ratelimit.py``),
  ``CHUHAN_ROOM_HEARTBEAT_SECONDS`` (1), ``CHUHAN_ROOM_DEAD_AFTER_SECONDS`` (5),
  ``CHUHAN_ROOM_PROBE_SECONDS`` (60: how often a room socket's lag is measured).

Limits and exposure (SPEC Z3, Z5; docs/operations.md, "Limits"):

- ``CHUHAN_AI_PER_PLAYER`` (2) / ``CHUHAN_AI_PER_ADDRESS`` (8): AI jobs one player / one
  address block may have waiting or running at once; more are answered "busy" (ai/pool.py).
- ``CHUHAN_ANALYSES_QUEUED_PER_PLAYER`` (3) / ``CHUHAN_ANALYSES_QUEUED_PER_ADDRESS`` (10):
  game analyses one player / one address block may have waiting or running at once on an
  instance; one more is refused with 429 ``analysis_queue_full``. Positions
  of the queued analyses are served round-robin over address blocks, then players.
- What one client may create (``limits/budgets.py``; per
  ``CHUHAN_CREATION_WINDOW_SECONDS``, 3600; 0 turns a budget off): new players per address
  block ``CHUHAN_NEW_PLAYERS_PER_ADDRESS`` (300) / IPv6 /48 ``CHUHAN_NEW_PLAYERS_PER_NETWORK``
  (600); games against the AI or on one device ``CHUHAN_GAMES_PER_PLAYER`` (100) /
  ``CHUHAN_GAMES_PER_ADDRESS`` (1000) / ``CHUHAN_GAMES_PER_NETWORK`` (2000); record imports
  ``CHUHAN_IMPORTS_PER_PLAYER`` (60) / ``CHUHAN_IMPORTS_PER_ADDRESS`` (240) /
  ``CHUHAN_IMPORTS_PER_NETWORK`` (480); new analyses ``CHUHAN_ANALYSES_PER_PLAYER`` (60) /
  ``CHUHAN_ANALYSES_PER_ADDRESS`` (240) / ``CHUHAN_ANALYSES_PER_NETWORK`` (480); downloads of
  one's games ``CHUHAN_DOWNLOADS_PER_PLAYER`` (20) / ``CHUHAN_DOWNLOADS_PER_ADDRESS`` (60) /
  ``CHUHAN_DOWNLOADS_PER_NETWORK`` (120). A player's
  budget refuses when spent, an address block's and a /48's slow its uses (up to 10 s), then
  refuse: 429 with ``retry_after``. A school of 150 behind one address all get in (Z5).
- Retention (``ops/retention.py``): ``CHUHAN_RETENTION_DAYS`` (30): a player who
  never played anything (no game of any kind, no points, no rating, not seated in a room or
  seeking a game) is deleted this many days after they were created, and a local game left
  unfinished is deleted once its 24 hours are over (ongoing or expired, unless share-linked);
  every other game and every player with a game are kept. ``0`` turns the job off.
  ``CHUHAN_RETENTION_INTERVAL_SECONDS`` (3600): how often each instance runs it.
- ``CHUHAN_MAX_BODY_BYTES`` (64 KiB): larger request bodies get 413.
- ``CHUHAN_CONNECTIONS_PER_ADDRESS`` (320): open connections per IPv4 address or IPv6 /64
  (a trusted proxy's are not counted: behind it, each client's open WebSockets are); when
  full, a new one takes the place of the oldest between requests (``http/connections.py``).
- ``CHUHAN_SOCKETS_PER_ADDRESS`` (256): open WebSockets per address block, fewer than the
  connections (a classroom's 30 × 3 tabs fit); a player seated in a running game gets back
  to it even when they are all held (Z8, ``http/seats.py``).
- ``CHUHAN_HEADER_SECONDS`` (10): a request's headers must arrive within this time.
- ``CHUHAN_IDLE_SOCKET_SECONDS`` (120): a WebSocket that sends nothing this long is closed.
- ``CHUHAN_ALLOWED_ORIGINS``: comma-separated origins whose pages may open WebSockets and send
  unsafe requests (SPEC Z6) besides the site's own (``https://chuhan.example``).
- ``CHUHAN_TRUSTED_PROXIES``: comma-separated proxy addresses whose ``X-Forwarded-For`` and
  ``X-Forwarded-Proto`` are believed (none by default: the peer address is the client).
- ``CHUHAN_OPS_PORT``: a second port (on ``CHUHAN_OPS_HOST``, default 127.0.0.1) for
  ``/metrics``, ``/docs`` and ``/openapi.json``; ``CHUHAN_OPS_ON_APP_PORT=1`` serves them on
  the app port instead. By default neither: they answer 404.
- Ratings (SPEC B2, Z8; :class:`~.rules_config.RatingRules`): ``CHUHAN_RATED_AFTER_AI_GAMES``
  (3: finished AI games before a player's paired games are rated), ``CHUHAN_RATING_NETWORK_DAYS``
  (7: how long two identities seen in one address block stay unrated together; 0: never,
  for tests whose players all come from 127.0.0.1).
- ``CHUHAN_STALL_LOG_MS``: log every pause of the event loop (and every garbage collection)
  longer than this many milliseconds, with where the loop was (``ops/stalls.py``; 0: off).

Fault injection, for tests only (never set in a deployment):

- ``CHUHAN_TEST_DIE_AFTER_MOVE_PLY``: this instance kills itself (SIGKILL) right after it
  commits a move at this ply or later, before announcing it: the move is stored but its news
  never leaves (an instance dying between commit and publish).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

from .rules_config import ClockRules, CreationLimits, JoinLimits, PuzzleSettings, RatingRules

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
DAY_SECONDS = 24 * 60 * 60
T = TypeVar("T")


def _env_optional_int(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value else None


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


def _env_list(name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in os.environ.get(name, "").split(",") if item.strip())


def _from_env(cls: type[T], variables: Mapping[str, str], **given: Any) -> T:
    """``cls(**given)`` with each field named in ``variables`` read from that environment
    variable (unset or empty: the field's own default, so each default is written once, on
    its field)."""
    types = get_type_hints(cls)
    read: dict[str, Any] = {}
    for name, variable in variables.items():
        value = os.environ.get(variable)
        if value:
            read[name] = _READERS[types[name]](value)
    return cls(**read, **given)


def _count_or_none(value: str) -> int | None:
    """A count where 0 means none (no limit, no port)."""
    return int(value) or None


_READERS: dict[Any, Callable[[str], int | float | str | None]] = {
    int: int,
    float: float,
    str: str,
    int | None: _count_or_none,
}


@dataclass(frozen=True)
class RoomSettings:
    """Room timings and limits (SPEC R4, R7, Z3, Z4)."""

    clock: ClockRules = field(default_factory=ClockRules)
    limits: JoinLimits = field(default_factory=JoinLimits)
    idle_room_seconds: float = 3600.0  # an unattended open room gives its password back
    # Z4, R7: every instance says it is alive this often; silent this long, it is dead.
    heartbeat_seconds: float = 1.0
    dead_after_seconds: float = 5.0
    # R4: a room socket's round trip is measured this often (half of it is the lag
    # allowance); each probe is a message each way on every socket, idle or not.
    probe_seconds: float = 60.0
    # R6, against farming: the same two players score for at most this many games a day.
    scored_games_per_pair: int = 3
    # B1, Z7: seeks (play a stranger) per address block and minute, every instance counted
    # (0: no limit).
    seeks_per_address: int = 60
    # B1, Z8: a seek whose page said nothing (no ping) this long is withdrawn, not paired.
    seek_silent_seconds: float = 10.0

    @classmethod
    def from_env(cls) -> RoomSettings:
        return _from_env(
            cls,
            _ROOM_VARIABLES,
            clock=_from_env(ClockRules, _CLOCK_VARIABLES),
            limits=_from_env(JoinLimits, _JOIN_VARIABLES),
        )


# Which environment variable sets which field (unset or empty: the field's own default).
_SETTINGS_VARIABLES = {
    "game_ttl_seconds": "CHUHAN_GAME_TTL_SECONDS",
    "ai_workers": "CHUHAN_AI_WORKERS",
    "ai_queue": "CHUHAN_AI_QUEUE",
    "redis_prefix": "CHUHAN_REDIS_PREFIX",
    "analysis_nodes": "CHUHAN_ANALYSIS_NODES",
    "retention_days": "CHUHAN_RETENTION_DAYS",
    "retention_interval_seconds": "CHUHAN_RETENTION_INTERVAL_SECONDS",
    "analyses_queued_per_player": "CHUHAN_ANALYSES_QUEUED_PER_PLAYER",
    "analyses_queued_per_address": "CHUHAN_ANALYSES_QUEUED_PER_ADDRESS",
    "max_body_bytes": "CHUHAN_MAX_BODY_BYTES",
    "connections_per_address": "CHUHAN_CONNECTIONS_PER_ADDRESS",
    "sockets_per_address": "CHUHAN_SOCKETS_PER_ADDRESS",
    "header_seconds": "CHUHAN_HEADER_SECONDS",
    "idle_socket_seconds": "CHUHAN_IDLE_SOCKET_SECONDS",
    "ops_host": "CHUHAN_OPS_HOST",
    "ops_port": "CHUHAN_OPS_PORT",
    "ai_per_player": "CHUHAN_AI_PER_PLAYER",
    "ai_per_address": "CHUHAN_AI_PER_ADDRESS",
    "stall_log_ms": "CHUHAN_STALL_LOG_MS",
}
_ROOM_VARIABLES = {
    "heartbeat_seconds": "CHUHAN_ROOM_HEARTBEAT_SECONDS",
    "dead_after_seconds": "CHUHAN_ROOM_DEAD_AFTER_SECONDS",
    "probe_seconds": "CHUHAN_ROOM_PROBE_SECONDS",
    "scored_games_per_pair": "CHUHAN_SCORED_GAMES_PER_PAIR",
    "seeks_per_address": "CHUHAN_SEEKS_PER_ADDRESS",
    "seek_silent_seconds": "CHUHAN_SEEK_SILENT_SECONDS",
}
_CLOCK_VARIABLES = {
    "turn_seconds": "CHUHAN_ROOM_TURN_SECONDS",
    "lag_cap_seconds": "CHUHAN_ROOM_LAG_CAP_SECONDS",
    "away_budget_seconds": "CHUHAN_ROOM_AWAY_BUDGET_SECONDS",
    "control_scale": "CHUHAN_ROOM_CLOCK_SCALE",
}
_JOIN_VARIABLES = {
    "per_player": "CHUHAN_ROOM_JOIN_TRIES_PER_PLAYER",
    "per_address": "CHUHAN_ROOM_JOIN_TRIES_PER_ADDRESS",
    "per_network": "CHUHAN_ROOM_JOIN_TRIES_PER_NETWORK",
    "per_room": "CHUHAN_ROOM_FINDS_PER_ROOM",
    "site": "CHUHAN_PASSWORD_TRIES_SITE",
    "under_attack_per_address": "CHUHAN_PASSWORD_TRIES_UNDER_ATTACK_PER_ADDRESS",
    "under_attack_per_network": "CHUHAN_PASSWORD_TRIES_UNDER_ATTACK_PER_NETWORK",
    "window_seconds": "CHUHAN_ROOM_JOIN_WINDOW_SECONDS",
    "max_wait_seconds": "CHUHAN_PASSWORD_MAX_WAIT_SECONDS",
    "open_rooms_per_player": "CHUHAN_OPEN_ROOMS_PER_PLAYER",
}
_CREATION_VARIABLES = {
    "players_per_address": "CHUHAN_NEW_PLAYERS_PER_ADDRESS",
    "players_per_network": "CHUHAN_NEW_PLAYERS_PER_NETWORK",
    "games_per_player": "CHUHAN_GAMES_PER_PLAYER",
    "games_per_address": "CHUHAN_GAMES_PER_ADDRESS",
    "games_per_network": "CHUHAN_GAMES_PER_NETWORK",
    "imports_per_player": "CHUHAN_IMPORTS_PER_PLAYER",
    "imports_per_address": "CHUHAN_IMPORTS_PER_ADDRESS",
    "imports_per_network": "CHUHAN_IMPORTS_PER_NETWORK",
    "analyses_per_player": "CHUHAN_ANALYSES_PER_PLAYER",
    "analyses_per_address": "CHUHAN_ANALYSES_PER_ADDRESS",
    "analyses_per_network": "CHUHAN_ANALYSES_PER_NETWORK",
    "downloads_per_player": "CHUHAN_DOWNLOADS_PER_PLAYER",
    "downloads_per_address": "CHUHAN_DOWNLOADS_PER_ADDRESS",
    "downloads_per_network": "CHUHAN_DOWNLOADS_PER_NETWORK",
    "window_seconds": "CHUHAN_CREATION_WINDOW_SECONDS",
}

# Z8: the rating rules tests and benches shorten (rules_config.py: RatingRules).
_RATING_VARIABLES = {
    "ai_games_first": "CHUHAN_RATED_AFTER_AI_GAMES",
    "network_days": "CHUHAN_RATING_NETWORK_DAYS",
}


def _puzzle_settings() -> PuzzleSettings:
    """B9: ``CHUHAN_PUZZLES_DIR`` (the ``<variant>.jsonl`` files; default the package's)."""
    folder = os.environ.get("CHUHAN_PUZZLES_DIR")
    return PuzzleSettings(data_dir=Path(folder)) if folder else PuzzleSettings()


@dataclass(frozen=True)
class Settings:
    """Everything the app needs to know about its surroundings; no global state."""

    data_dir: Path = Path("data")
    database_url: str | None = None
    db_schema: str | None = None
    game_ttl_seconds: float = DAY_SECONDS
    ai_workers: int = 2
    ai_queue: int = 16
    ai_movetime: float | None = None
    ai_shared: bool = False
    redis_url: str | None = None
    redis_prefix: str = "chuhan"
    ai_retry_seconds: float = 1.0
    analysis_nodes: int = 8_000
    # A UCI engine's path for xiangqi and janggi analyses instead of ours (None: ours).
    analysis_engine: str | None = None
    max_message_bytes: int = 4096
    web_dir: Path = field(default=WEB_DIR)
    rooms: RoomSettings = field(default_factory=RoomSettings)
    ai_per_player: int | None = 2
    ai_per_address: int | None = 8
    creation: CreationLimits = field(default_factory=CreationLimits)
    puzzles: PuzzleSettings = field(default_factory=PuzzleSettings)  # B9: data, budgets
    ratings: RatingRules = field(default_factory=RatingRules)  # B2, Z8: what rates a game
    retention_days: float = 30.0
    retention_interval_seconds: float = 3600.0
    analyses_queued_per_player: int = 3
    analyses_queued_per_address: int = 10
    max_body_bytes: int = 64 * 1024
    connections_per_address: int = 320
    sockets_per_address: int = 256
    header_seconds: float = 10.0
    idle_socket_seconds: float = 120.0
    allowed_origins: tuple[str, ...] = ()
    trusted_proxies: tuple[str, ...] = ()
    ops_port: int | None = None
    ops_host: str = "127.0.0.1"
    ops_on_app_port: bool = False
    stall_log_ms: float = 0.0
    die_after_move_ply: int | None = None  # a test's fault (CHUHAN_TEST_DIE_AFTER_MOVE_PLY)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from the environment, then ``overrides`` (None values are ignored)."""
        movetime = os.environ.get("CHUHAN_AI_MOVETIME")
        settings = _from_env(
            cls,
            _SETTINGS_VARIABLES,
            database_url=os.environ.get("DATABASE_URL") or None,
            db_schema=os.environ.get("CHUHAN_DB_SCHEMA") or None,
            ai_movetime=float(movetime) if movetime else None,
            ai_shared=_env_flag("CHUHAN_AI_SHARED"),
            redis_url=os.environ.get("REDIS_URL") or None,
            rooms=RoomSettings.from_env(),
            analysis_engine=os.environ.get("CHUHAN_ANALYSIS_ENGINE") or None,
            creation=_from_env(CreationLimits, _CREATION_VARIABLES),
            puzzles=_puzzle_settings(),
            ratings=_from_env(RatingRules, _RATING_VARIABLES),
            allowed_origins=_env_list("CHUHAN_ALLOWED_ORIGINS"),
            trusted_proxies=_env_list("CHUHAN_TRUSTED_PROXIES"),
            ops_on_app_port=_env_flag("CHUHAN_OPS_ON_APP_PORT"),
            die_after_move_ply=_env_optional_int("CHUHAN_TEST_DIE_AFTER_MOVE_PLY"),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(settings, **given)  # type: ignore[arg-type]

    def sqlalchemy_url(self) -> str:
        """The database URL: ``database_url``, else a SQLite file in ``data_dir``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'chuhan.sqlite3').resolve()}"
