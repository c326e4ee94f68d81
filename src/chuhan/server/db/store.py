"""Durable storage of players, games and game events through SQLAlchemy.

SQLite (WAL, synchronous=FULL) by default, PostgreSQL when the URL says so. Every change of
a game is one transaction: a conditional update of the game row on its ``seq`` plus the new
events, so a change is either committed whole before it is acknowledged or not at all, and a
change computed from a stale copy of the game is refused (:class:`StaleGameError`) instead of
being applied twice.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from alembic import command
from alembic.config import Config
from psycopg.rows import namedtuple_row
from sqlalchemy import (
    JSON,
    ColumnElement,
    Engine,
    Select,
    Table,
    create_engine,
    event,
    func,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from ..names import default_name
from ..records import (
    GAME_FIELDS,
    Award,
    GameRecord,
    PlayedGame,
    Player,
    StaleGameError,
    StoredEvent,
    aware,
    utcnow,
)
from .tables import game_events, game_players, games, player_devices, players

log = logging.getLogger("chuhan.storage")
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
POOL_SIZE = 20  # PostgreSQL connections kept open per instance
POOL_OVERFLOW = 10  # more while busy, closed after use
_MIGRATION_LOCK_ID = 0x43484148  # PostgreSQL advisory lock: one instance migrates at a time


def game_from_row(row: Any) -> GameRecord:
    values = {name: getattr(row, name) for name in GAME_FIELDS}
    for name in ("created_at", "expires_at", "updated_at"):
        values[name] = aware(values[name])
    values["moves"] = list(values["moves"])
    values["practice"] = bool(values["practice"])
    return GameRecord(**values)


class Store:
    """Synchronous storage API; the async server calls it from worker threads."""

    def __init__(self, url: str, schema: str | None = None) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        # An in-memory SQLite database lives in the one connection of its thread.
        self.in_memory = self.is_sqlite and url.removeprefix("sqlite://") in ("", "/:memory:")
        kwargs: dict[str, Any] = {"future": True}
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
        elif schema:
            kwargs["connect_args"] = {"options": f"-csearch_path={schema}"}
        # No pool_pre_ping (a round trip before every query): a query on a dropped
        # connection fails once, the pool is renewed, and the caller runs it again
        # (GameService.db, ping).
        if not self.is_sqlite:
            # Under load many reads run at once (one per socket catching up): connections
            # beyond the pool are opened and closed each time, which costs PostgreSQL a
            # backend per query; keep enough of them open.
            kwargs.update(pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)
        self.engine: Engine = create_engine(url, **kwargs)
        # Reads run outside a transaction on PostgreSQL: one statement, one round trip, and
        # no ROLLBACK when the connection goes back to the pool. Writes use ``engine``.
        self.reader: Engine = (
            self.engine
            if self.is_sqlite
            else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self.schema = schema
        self._statements: dict[int, str] = {}  # _commit_in_one_statement's, by event count
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)

    @contextmanager
    def driver(self) -> Iterator[psycopg.Connection[Any]]:
        """PostgreSQL: a connection of the pool used straight through psycopg, in autocommit
        (one statement is its own transaction, one round trip). For the statements run on
        every move, room change and socket: SQLAlchemy's execution costs several times the
        driver's own (240 µs of CPU against 60 µs for a read by key).

        A connection the database dropped is discarded and the error raised as SQLAlchemy's
        ``DBAPIError`` with ``connection_invalidated``, so the caller runs it once more on a
        fresh one (``GameService.db``), as for any other statement."""
        fairy = self.engine.pool.connect()
        connection: psycopg.Connection[Any] = fairy.driver_connection  # type: ignore[assignment]
        try:
            connection.autocommit = True
            yield connection
        except psycopg.OperationalError as exc:
            # As SQLAlchemy does on a disconnect: this connection is closed and every one made
            # before it is recycled at its next checkout (a database restart or a terminated
            # set of backends leaves the whole pool dead; the one retry must get a fresh one).
            self.engine.pool._invalidate(fairy, exc)
            raise DBAPIError.instance(
                None, None, exc, psycopg.Error, connection_invalidated=True
            ) from exc
        finally:
            # Back to the pool as SQLAlchemy left it, whatever the statement did: a connection
            # left in autocommit would make SQLAlchemy's next transaction on it non-atomic.
            if fairy.is_valid:
                try:
                    connection.autocommit = False
                except psycopg.Error as exc:
                    fairy.invalidate(exc)
            fairy.close()

    def row_by(self, table: Table, column: str, value: Any) -> Any:
        """The row of ``table`` whose ``column`` is ``value`` (attributes by column name), or
        None: on PostgreSQL straight through psycopg (:meth:`driver`), on SQLite through
        SQLAlchemy outside a transaction."""
        if not self.is_sqlite:
            with self.driver() as connection:
                cursor = connection.cursor(row_factory=namedtuple_row)
                return cursor.execute(_select_by(table, column), {column: value}).fetchone()
        with self.reader.connect() as conn:
            return conn.execute(select(table).where(table.c[column] == value)).one_or_none()

    # ------------------------------------------------------------------ lifecycle

    def migrate(self) -> None:
        """Apply every Alembic migration not yet applied (idempotent)."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        with self.engine.begin() as conn:
            if not self.is_sqlite:
                # The lock first: two instances starting together would both try to create
                # the schema (CREATE SCHEMA IF NOT EXISTS is not safe against a concurrent one).
                conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _MIGRATION_LOCK_ID})
                if self.schema:
                    conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"'))
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
        log.info("database ready", extra={"database": self.engine.url.render_as_string()})

    def dispose(self) -> None:
        self.engine.dispose()

    def ping(self) -> bool:
        """True when the database answers (asked twice: a dropped connection renews the pool)."""
        for attempt in range(2):
            try:
                with self.reader.connect() as conn:
                    conn.execute(text("SELECT 1"))
                return True
            except DBAPIError as exc:
                if attempt == 0 and exc.connection_invalidated:
                    continue
                log.exception("database ping failed")
                return False
            except Exception:
                log.exception("database ping failed")
                return False
        return False

    # ------------------------------------------------------------------ players

    def create_player(self, player_id: str, token_hash: str) -> Player:
        now = utcnow()
        with self.engine.begin() as conn:
            conn.execute(
                players.insert().values(
                    id=player_id,
                    token_hash=token_hash,
                    name=default_name(player_id),  # B7: a readable name until one is chosen
                    ai_points=0,
                    online_points=0,
                    created_at=now,
                )
            )
            # B6: the browser it is made in is the player's first device.
            conn.execute(
                player_devices.insert().values(
                    id=f"d{player_id[1:]}",
                    player_id=player_id,
                    token_hash=token_hash,
                    label="",
                    created_at=now,
                )
            )
        return Player(player_id, default_name(player_id), 0, 0, now)

    def player_by_token_hash(self, token_hash: str) -> Player | None:
        """The player signed in on the device whose cookie token has this hash (B6: any of
        their devices), or None."""
        row: Any
        if not self.is_sqlite:
            with self.driver() as connection:
                cursor = connection.cursor(row_factory=namedtuple_row)
                row = cursor.execute(_PLAYER_BY_DEVICE, {"token_hash": token_hash}).fetchone()
        else:
            query = (
                select(players)
                .join(player_devices, player_devices.c.player_id == players.c.id)
                .where(player_devices.c.token_hash == token_hash)
            )
            with self.reader.connect() as conn:
                row = conn.execute(query).one_or_none()
        return _player_from_row(row) if row else None

    def player(self, player_id: str) -> Player | None:
        row = self.row_by(players, "id", player_id)
        return _player_from_row(row) if row else None

    def player_names(self, player_ids: Sequence[str]) -> dict[str, str | None]:
        """The display names of these players (None: no name, or no such player)."""
        names: dict[str, str | None] = dict.fromkeys(player_ids)
        if names and not self.is_sqlite:
            with self.driver() as connection:
                found = connection.execute(_PLAYER_NAMES, {"ids": list(names)}).fetchall()
            names.update({player_id: name for player_id, name in found})
        elif names:
            query = select(players.c.id, players.c.name).where(players.c.id.in_(list(names)))
            with self.reader.connect() as conn:
                names.update({row.id: row.name for row in conn.execute(query)})
        return names

    def set_player_name(self, player_id: str, name: str | None) -> None:
        """The player's chosen name; None: back to their default name (B7)."""
        chosen = {"name": name, "name_chosen": True}
        if name is None:
            chosen = {"name": default_name(player_id), "name_chosen": False}
        with self.engine.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id).values(**chosen))

    # ------------------------------------------------------------------ games

    def insert_game(
        self,
        game: GameRecord,
        events: Sequence[dict[str, Any]],
        sides: Sequence[tuple[str, int]] = (),
    ) -> None:
        """Store a new game with its first events (numbered 1, 2, … up to ``game.seq``) and,
        for an online game, its players as ``(player_id, side)`` pairs."""
        with self.engine.begin() as conn:
            conn.execute(games.insert().values(**_game_values(game)))
            for player_id, side in sides:
                conn.execute(
                    game_players.insert().values(game_id=game.id, player_id=player_id, side=side)
                )
            self._insert_events(conn, game.id, game.seq - len(events), events)

    def game(self, game_id: str) -> GameRecord | None:
        row = self.row_by(games, "id", game_id)
        return game_from_row(row) if row else None

    def player_games(self, player_id: str, limit: int = 50) -> list[GameRecord]:
        """The player's games, newest first."""
        query = (
            select(games)
            .where(games.c.player_id == player_id)
            .order_by(games.c.created_at.desc())
            .limit(limit)
        )
        with self.reader.connect() as conn:
            return [game_from_row(row) for row in conn.execute(query)]

    def scored_games_between(self, a: str, b: str, since: datetime) -> int:
        """How many online games players ``a`` and ``b`` played against each other that
        scored points and ended at or after ``since`` (R6, the farming limit)."""
        first = game_players.alias("first")
        second = game_players.alias("second")
        query = (
            select(func.count())
            .select_from(games)
            .join(first, (first.c.game_id == games.c.id) & (first.c.player_id == a))
            .join(second, (second.c.game_id == games.c.id) & (second.c.player_id == b))
            .where(games.c.kind == "online")
            .where(games.c.points_awarded > 0)
            .where(games.c.updated_at >= since)
        )
        with self.reader.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def online_games(self, player_id: str, limit: int = 50) -> list[PlayedGame]:
        """The online games the player played, newest first, with their side and the
        opponent's display name (SPEC S1)."""
        mine = game_players.alias("mine")
        other = game_players.alias("other")
        query = (
            select(games, mine.c.side, players.c.name.label("opponent_name"))
            .join(mine, mine.c.game_id == games.c.id)
            .outerjoin(
                other, (other.c.game_id == games.c.id) & (other.c.player_id != mine.c.player_id)
            )
            .outerjoin(players, players.c.id == other.c.player_id)
            .where(mine.c.player_id == player_id)
            .order_by(games.c.created_at.desc(), games.c.id)
            .limit(limit)
        )
        with self.reader.connect() as conn:
            return [
                PlayedGame(game_from_row(row), row.side, row.opponent_name)
                for row in conn.execute(query)
            ]

    def ongoing_games(
        self, player_id: str | None = None, kind: str | None = None
    ) -> list[GameRecord]:
        query = select(games).where(games.c.status == "ongoing")
        if player_id is not None:
            query = query.where(games.c.player_id == player_id)
        if kind is not None:
            query = query.where(games.c.kind == kind)
        with self.reader.connect() as conn:
            return [game_from_row(row) for row in conn.execute(query.order_by(games.c.created_at))]

    def ongoing_counts(self) -> dict[str, int]:
        """How many games are ongoing, by kind (the ``chuhan_games_ongoing`` metric)."""
        query = (
            select(games.c.kind, func.count())
            .where(games.c.status == "ongoing")
            .group_by(games.c.kind)
        )
        with self.engine.connect() as conn:
            return {str(kind): int(n) for kind, n in conn.execute(query)}

    def playing_online(self, player_id: str) -> bool:
        """True while the player is seated in an ongoing online game (no engine
        advice for them meanwhile)."""
        query = seated_in_ongoing_game(player_id, game_players.c.game_id).limit(1)
        with self.reader.connect() as conn:
            return conn.execute(query).first() is not None

    def commit_change(
        self,
        before: GameRecord,
        after: GameRecord,
        events: Sequence[dict[str, Any]],
        award: Award | None = None,
    ) -> None:
        """Replace ``before`` by ``after`` and append ``events``, all in one transaction.

        ``after.seq`` must be ``before.seq + len(events)``. Raises :class:`StaleGameError`
        (and changes nothing) when the stored game is no longer at ``before.seq``.
        """
        if not events or after.seq != before.seq + len(events):
            raise ValueError("a change logs at least one event, and after.seq counts them")
        values = _game_values(replace(after, updated_at=utcnow()))
        del values["id"]
        if not self.is_sqlite and (award is None or not award.points):
            self._commit_in_one_statement(before, values, events)
            return
        with self.engine.begin() as conn:
            self.apply_change(conn, before.id, before.seq, values, events)
            if award is not None and award.points:
                column = players.c.ai_points if award.kind == "ai" else players.c.online_points
                conn.execute(
                    update(players)
                    .where(players.c.id == award.player_id)
                    .values({column: column + award.points})
                )

    def _commit_in_one_statement(
        self, before: GameRecord, values: dict[str, Any], events: Sequence[dict[str, Any]]
    ) -> None:
        """PostgreSQL: the conditional update and the events' insert as one statement (the
        update a data-modifying ``WITH``, the insert made of its row), in one round trip
        instead of four (BEGIN, UPDATE, INSERT, COMMIT); a single statement is atomic. No
        row inserted: the game was no longer at ``before.seq``.

        Its text is written once per number of events and sent as it is: building and
        compiling the construct on every move cost more than the round trips it saves."""
        sql = self._statements.get(len(events))
        if sql is None:
            sql = self._statements.setdefault(len(events), _one_statement_sql(len(events)))
        params: dict[str, Any] = {
            name: json.dumps(value) if name in _JSON_FIELDS else value
            for name, value in values.items()
        }
        params.update(id=before.id, before_seq=before.seq, now=utcnow())
        for index, payload in enumerate(events):
            params[f"seq{index}"] = before.seq + 1 + index
            params[f"type{index}"] = payload["type"]
            params[f"payload{index}"] = json.dumps(payload)
        with self.driver() as connection:  # autocommit: the statement is the transaction
            inserted = len(connection.execute(sql, params).fetchall())
        if inserted != len(events):
            raise StaleGameError(before.id)

    def events_after(self, game_id: str, seq: int, limit: int = 500) -> list[StoredEvent]:
        """The game's events numbered above ``seq``, in order (at most ``limit``)."""
        query = (
            select(game_events)
            .where(game_events.c.game_id == game_id, game_events.c.seq > seq)
            .order_by(game_events.c.seq)
            .limit(limit)
        )
        with self.reader.connect() as conn:
            return [
                StoredEvent(row.game_id, row.seq, row.type, dict(row.payload))
                for row in conn.execute(query)
            ]

    def count_events(self, game_id: str) -> int:
        with self.reader.connect() as conn:
            return int(
                conn.execute(
                    select(func.count()).where(game_events.c.game_id == game_id)
                ).scalar_one()
            )

    @staticmethod
    def apply_change(
        conn: Connection,
        game_id: str,
        seq: int,
        values: dict[str, Any],
        events: Sequence[dict[str, Any]],
    ) -> None:
        """In ``conn``'s transaction: the game at ``seq`` takes ``values`` and logs
        ``events`` (numbered from ``seq + 1``). Raises :class:`StaleGameError` when the game
        is no longer at ``seq``."""
        at = (games.c.id == game_id, games.c.seq == seq)
        update_unless_moved(conn, games, at, values, StaleGameError(game_id))
        Store._insert_events(conn, game_id, seq, events)

    @staticmethod
    def _insert_events(
        conn: Connection, game_id: str, first_seq_minus_one: int, events: Sequence[dict[str, Any]]
    ) -> None:
        now = utcnow()
        for offset, payload in enumerate(events, start=1):
            conn.execute(
                game_events.insert().values(
                    game_id=game_id,
                    seq=first_seq_minus_one + offset,
                    type=payload["type"],
                    payload=payload,
                    created_at=now,
                )
            )


_JSON_FIELDS = frozenset(column.name for column in games.columns if isinstance(column.type, JSON))


@functools.cache
def _select_by(table: Table, column: str) -> str:
    """``SELECT`` every column of ``table`` where ``column`` is ``%(column)s`` (psycopg)."""
    names = ", ".join(f'"{c.name}"' for c in table.columns)
    return f'SELECT {names} FROM {table.name} WHERE "{column}" = %({column})s'


# The statements the driver runs as they are (Store.driver): written from the tables.
_PLAYER_NAMES = "SELECT id, name FROM players WHERE id = ANY(%(ids)s)"
_PLAYER_BY_DEVICE = (
    "SELECT players.* FROM players JOIN player_devices ON player_devices.player_id = players.id"
    " WHERE player_devices.token_hash = %(token_hash)s"
)


def _one_statement_sql(count: int) -> str:
    """The text of :meth:`Store._commit_in_one_statement` for ``count`` events (psycopg's
    named parameters: every game field but ``id``, ``id``, ``before_seq``, ``now``, and
    ``seq<i>``, ``type<i>``, ``payload<i>`` per event, JSON as text)."""
    sets = ", ".join(
        f'"{name}" = %({name})s' + ("::json" if name in _JSON_FIELDS else "")
        for name in GAME_FIELDS
        if name != "id"
    )
    rows = ", ".join(
        f"(%(seq{i})s::integer, %(type{i})s::varchar, %(payload{i})s::json)" for i in range(count)
    )
    return (
        f"WITH changed AS (UPDATE games SET {sets} WHERE id = %(id)s AND seq = %(before_seq)s"
        " RETURNING id) INSERT INTO game_events (game_id, seq, type, payload, created_at)"
        " SELECT changed.id, v.seq, v.type, v.payload, %(now)s::timestamptz"
        f" FROM changed, (VALUES {rows}) AS v (seq, type, payload) RETURNING game_events.seq"
    )


def update_unless_moved(
    conn: Connection,
    table: Table,
    at: tuple[ColumnElement[bool], ...],
    values: dict[str, Any],
    moved: Exception,
) -> None:
    """The conditional update every change from a read is (Z4): ``values`` go into the row
    that ``at`` finds (its key, and the count read with it: a game's ``seq``, a room's
    ``version``, a rating's ``games``). Raises ``moved`` when no row is at that count any
    more (another writer came first; the caller's transaction changes nothing)."""
    if conn.execute(update(table).where(*at).values(values)).rowcount != 1:
        raise moved


def seated_in_ongoing_game(player_id: str, *columns: ColumnElement[Any]) -> Select[Any]:
    """``columns`` of the ongoing games the player has a seat in (online games: the others
    keep their player in ``games.player_id``), from ``game_players`` joined to ``games``."""
    return (
        select(*columns)
        .select_from(game_players)
        .join(games, games.c.id == game_players.c.game_id)
        .where(game_players.c.player_id == player_id, games.c.status == "ongoing")
    )


def _player_from_row(row: Any) -> Player:
    return Player(
        row.id, row.name, row.ai_points, row.online_points, aware(row.created_at), row.name_chosen
    )


def _game_values(game: GameRecord) -> dict[str, Any]:
    return {name: getattr(game, name) for name in GAME_FIELDS}


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def connection_lost(exc: BaseException) -> bool:
    """True when ``exc`` says the database dropped the connection a statement ran on (a
    restart, a terminated backend): the pool is renewed, and the caller may run it again."""
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


def iter_events(store: Store, game_id: str, after: int) -> Iterator[StoredEvent]:
    """Every event of the game after ``after``, fetched in pages."""
    while True:
        page = store.events_after(game_id, after)
        yield from page
        if len(page) < 500:
            return
        after = page[-1].seq
