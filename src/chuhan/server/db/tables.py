"""Every database table (SQLAlchemy Core), on one ``MetaData`` that Alembic compares with
the migrations (``tests/test_storage.py``). Changes go through an Alembic migration."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
)

metadata = MetaData()


def _table(name: str, *columns: Column[Any] | Index) -> Table:
    """A table of :data:`metadata`, the one Alembic compares with the migrations."""
    return Table(name, metadata, *columns)


def _id(name: str, refers_to: str | None = None, **flags: Any) -> Column[str]:
    """A row's id (players, games, rooms and server instances have ids of at most 32
    characters), or one that another row holds: ``refers_to`` names the table it must be in."""
    references = [ForeignKey(f"{refers_to}.id")] if refers_to is not None else []
    return Column(name, String(32), *references, **flags)


def _keyword(name: str, nullable: bool = False, **flags: Any) -> Column[str]:
    """One of a few short words: a game's kind, level or status, a variant's name."""
    return Column(name, String(16), nullable=nullable, **flags)


def _moments(*names: str) -> list[Column[datetime]]:
    """When things happened or will: with their time zone, and always known."""
    return [Column(name, DateTime(timezone=True), nullable=False) for name in names]


def _count(name: str) -> Column[int]:
    """How many of something there are or have been: a game's ``seq`` counts its events, a
    room's ``version`` its changes."""
    return Column(name, Integer, nullable=False)


def _points(*names: str) -> list[Column[int]]:
    """Points a player has won, or a game gave (SPEC S1): none until won."""
    return [Column(name, Integer, nullable=False, server_default="0") for name in names]


def _glicko(*names: str) -> list[Column[float]]:
    """Numbers of a Glicko-2 rating (SPEC B2): the rating, its deviation or its volatility."""
    return [Column(name, Float, nullable=False) for name in names]


players = _table(
    "players",
    _id("id", primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("name", String(40), nullable=True),
    # B7: whether the player chose ``name``; until then it is their default name.
    Column("name_chosen", Boolean, nullable=False, server_default=false()),
    *_points("ai_points", "online_points"),
    *_moments("created_at"),
)

# One row per game. ``seq`` is the number of the game's last event: every change of the game
# is a conditional update on it, so each move is applied exactly once even with several
# server instances on one database.
games = _table(
    "games",
    _id("id", primary_key=True),
    _keyword("kind"),
    _keyword("variant"),
    _keyword("level", nullable=True),
    _id("player_id", refers_to="players", nullable=True),
    Column("human_side", Integer, nullable=True),
    Column("options", JSON, nullable=False),
    Column("secret", JSON, nullable=True),
    Column("start_fen", Text, nullable=False),
    Column("moves", JSON, nullable=False),
    _keyword("status"),
    Column("result", JSON, nullable=True),
    Column("practice", Boolean, nullable=False, server_default=false()),
    *_points("points_awarded"),
    _count("seq"),
    *_moments("created_at", "expires_at", "updated_at"),
    Index("ix_games_player_status", "player_id", "status"),
    Index("ix_games_player_created", "player_id", "created_at"),
    Index("ix_games_status", "status"),
)

# The per-game event log that reconnecting clients catch up from (SPEC Z4, P5).
game_events = _table(
    "game_events",
    _id("game_id", refers_to="games", primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("type", String(24), nullable=False),
    Column("payload", JSON, nullable=False),
    *_moments("created_at"),
)

# Who played each online game and on which side (SPEC S1: online points with the games behind
# them). AI and local games keep their one player in ``games.player_id``.
game_players = _table(
    "game_players",
    _id("game_id", refers_to="games", primary_key=True),
    _id("player_id", refers_to="players", primary_key=True),
    Column("side", Integer, nullable=False),
    Index("ix_game_players_player", "player_id"),
)

# After the game (N4): a finished game opens read-only for anyone holding its share
# token (unguessable, 192 random bits), and its engine analysis is kept with it: one entry
# of ``evaluations`` per evaluated view of a position, so a restarted analysis goes on.
game_shares = _table(
    "game_shares",
    Column("token", String(64), primary_key=True),
    _id("game_id", refers_to="games", nullable=False, unique=True),
    *_moments("created_at"),
)

game_analyses = _table(
    "game_analyses",
    _id("game_id", refers_to="games", primary_key=True),
    _keyword("status"),
    Column("engine", String(120), nullable=False),
    _count("nodes"),
    _count("positions"),
    Column("evaluations", JSON, nullable=False),
    *_moments("updated_at"),
)

# Ratings (SPEC B2): one Glicko-2 rating per player and variant, from paired games
# only (``server/rating_rules.py``). ``games`` counts the rated games: a rating changes by a
# conditional update on it, so two instances never apply two games over one read. The
# leaderboard (B8, ``db/leaderboard.py``) walks one variant by rating.
ratings = _table(
    "ratings",
    _id("player_id", refers_to="players", primary_key=True),
    _keyword("variant", primary_key=True),
    *_glicko("rating", "deviation", "volatility"),
    _count("games"),
    *_moments("updated_at"),
    Index("ix_ratings_board", "variant", "rating"),
)

# What each paired game did to each of its players' ratings: one row per (game, player), so
# a game is never rated twice, whichever instance ends it (B2). ``counted`` is false for a
# game past the pair's daily limit (its rows say so and change nothing).
rating_changes = _table(
    "rating_changes",
    _id("game_id", refers_to="games", primary_key=True),
    _id("player_id", refers_to="players", primary_key=True),
    _id("opponent_id", refers_to="players", nullable=False),
    _keyword("variant"),
    Column("counted", Boolean, nullable=False),
    *_glicko("before", "after", "deviation_before", "deviation_after"),
    *_moments("created_at"),
    Index("ix_rating_changes_pair", "player_id", "opponent_id", "created_at"),
)

# The address blocks each player sought a game from lately (SPEC Z8), hashed
# (``rating_rules.py: network_keys``): two identities seen in one block are never rated
# together. Rows older than ``RatingRules.network_days`` go as new ones come; no foreign key,
# so that deleting an old player (retention) never waits on them.
player_networks = _table(
    "player_networks",
    _id("player_id", primary_key=True),
    Column("network", String(32), primary_key=True),
    *_moments("seen_at"),
    Index("ix_player_networks_network", "network"),
    Index("ix_player_networks_seen", "seen_at"),
)

# Online rooms (SPEC R1–R3). Every change is a conditional update on ``version`` (db/rooms.py).
rooms = _table(
    "rooms",
    _id("id", primary_key=True),
    Column("invite", String(64), nullable=True, unique=True),
    Column("password", String(20), nullable=True),
    # The password while the room is open, NULL once closed: unique among open rooms (R2).
    Column("open_password", String(20), nullable=True, unique=True),
    _keyword("variant"),
    Column("options", JSON, nullable=False),
    _keyword("status"),
    Column("seats", JSON, nullable=False),
    Column("sides", JSON(none_as_null=True), nullable=True),
    Column("setup", JSON(none_as_null=True), nullable=True),
    _id("game_id", nullable=True),
    _count("version"),
    *_moments("created_at", "updated_at"),
)

# Server instances' heartbeats (SPEC Z4, R7): presence and clocks across restarts.
server_instances = _table(
    "server_instances",
    _id("id", primary_key=True),
    *_moments("started_at", "alive_at"),
    Column("stopped", Boolean, nullable=False, default=False),
    # Whether news crosses from and to this instance (R4, Z4): ``{"checked_until": <the last
    # moment it was seen to>, "outages": [[start, end or null], …]}`` (recent ones).
    Column("hub", JSON(none_as_null=True), nullable=True),
)

# The limits layer: one row per budget key (server/budget.py).
limit_buckets = _table(
    "limit_buckets",
    Column("key", String(120), primary_key=True),
    Column("tat", Float, nullable=False),  # epoch seconds: when the bucket is empty again
)

# Seeks (SPEC B1): one row per waiting or just paired player (server/pairing/).
seeks = _table(
    "seeks",
    _id("player_id", primary_key=True),
    Column("pool", String(48), nullable=False),
    _keyword("variant"),
    Column("options", JSON, nullable=False),
    *_glicko("rating"),
    _keyword("status"),  # "waiting", then "paired"
    _id("room_id", nullable=True),  # the room of the pairing
    Column("connection", String(64), nullable=False),  # the socket whose close cancels it
    _id("instance", nullable=False),  # the instance whose socket holds it
    *_moments("created_at", "seen_at"),  # seen_at: when it was last sought
    # Z8: where the seek came from (address block; IPv6 also its /48), for an abort's cost.
    Column("block", String(64), nullable=True),
    Column("network", String(64), nullable=True),
    Index("ix_seeks_status_pool", "status", "pool", "created_at"),
)

# Z8: a paired game left (or timed out) before the leaver's first move, one row per abort:
# the leaver's cooldown before seeking again, per player and per address block, and the
# pair that is not paired together again at once (server/pairing/).
seek_aborts = _table(
    "seek_aborts",
    Column("id", Integer, primary_key=True, autoincrement=True),
    _id("player_id", nullable=False),
    Column("block", String(64), nullable=True),
    Column("network", String(64), nullable=True),
    _id("opponent_id", nullable=False),
    _id("room_id", nullable=False),
    *_moments("at"),
    Index("ix_seek_aborts_player", "player_id", "at"),
    Index("ix_seek_aborts_block", "block", "at"),
    Index("ix_seek_aborts_network", "network", "at"),
    Index("ix_seek_aborts_at", "at"),
)

# A player's devices (SPEC B6): one row per signed-in browser, its cookie token stored hashed.
# The first is made with the player; a device link or the recovery code adds one; "sign out
# this device" deletes it. ``players.token_hash`` keeps the first device's as it was written.
player_devices = _table(
    "player_devices",
    _id("id", primary_key=True),
    _id("player_id", refers_to="players", nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("label", String(80), nullable=False),  # "Firefox on Android", from its User-Agent
    *_moments("created_at"),
    Index("ix_player_devices_player", "player_id"),
)

# The secrets that sign a browser in as a player (B6), stored hashed: a device link's code
# (single use, ``expires_at`` minutes away) and the recovery code (one per player, no expiry:
# issuing another deletes it).
player_secrets = _table(
    "player_secrets",
    Column("hash", String(64), primary_key=True),
    _id("player_id", refers_to="players", nullable=False),
    _keyword("kind"),  # "link" or "recovery"
    Column("expires_at", DateTime(timezone=True), nullable=True),
    *_moments("created_at"),
    Index("ix_player_secrets_player", "player_id", "kind"),
)

# Puzzles (SPEC B9; server/db/puzzles.py, puzzle_attempts.py, puzzle_ratings.py): loaded
# from the data files, the next one chosen by one query on (variant, rating). Players' rows
# hold no foreign key (a puzzle attempt is not a game); a puzzle attempt keeps its player
# from the retention job, which deletes a deleted player's puzzle rows with it
# (db/retention.py).
puzzles = _table(
    "puzzles",
    Column("id", String(32), primary_key=True),
    _keyword("variant"),
    Column("fen", Text, nullable=False),
    Column("moves", JSON, nullable=False),
    Column("reveals", JSON, nullable=True),  # jieqi: what each face-down mover of the line is
    Column("view", JSON, nullable=True),  # jieqi: the solver's view of the game (no secret)
    Column("themes", JSON, nullable=False),
    *_glicko("rating", "deviation", "volatility"),
    _count("plays"),
    Column("source", JSON, nullable=False),
    Index("ix_puzzles_variant_rating", "variant", "rating"),
)

# A puzzle rating per player and variant (B9), the streak of puzzles solved unaided and the
# last puzzle given (never the same twice in a row).
puzzle_ratings = _table(
    "puzzle_ratings",
    _id("player_id", primary_key=True),
    _keyword("variant", primary_key=True),
    *_glicko("rating", "deviation", "volatility"),
    _count("attempts"),
    _count("streak"),
    _count("best_streak"),
    Column("last_puzzle", String(32), nullable=True),
    *_moments("updated_at"),
)

# One player's try at one puzzle (B9): every step a conditional update on ``ply``.
puzzle_attempts = _table(
    "puzzle_attempts",
    _id("id", primary_key=True),
    _id("player_id", nullable=False),
    Column("puzzle_id", String(32), nullable=False),
    _keyword("variant"),
    _keyword("status"),  # "playing", "solved", "failed"
    Column("played", JSON, nullable=False),
    _count("ply"),
    Column("hinted", Boolean, nullable=False),
    Column("shown", Boolean, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("daily", Boolean, nullable=False),
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    *_moments("created_at", "updated_at"),
    Index("ix_puzzle_attempts_player_created", "player_id", "created_at"),
    Index("ix_puzzle_attempts_player_puzzle", "player_id", "puzzle_id"),
)
