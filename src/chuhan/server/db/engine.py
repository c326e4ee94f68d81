"""How the store reaches its database: the SQLAlchemy engines (SQLite with WAL and
synchronous=FULL by default, PostgreSQL when the URL says so), the driver's own connections for
the hottest statements, the migrations, and the two statements every storage module uses: a
read by key and the conditional update (Z4). A transaction whose loss in a power cut no
player would miss (a puzzle's, the limiter's counts) may commit without waiting for the disk
(``lazy_begin``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from alembic import command
from alembic.config import Config
from psycopg.rows import namedtuple_row
from sqlalchemy import ColumnElement, Engine, Table, create_engine, event, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

log = logging.getLogger("chuhan.storage")
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
POOL_SIZE = 20  # PostgreSQL connections kept open per instance
POOL_OVERFLOW = 10  # more while busy, closed after use
_MIGRATION_LOCK_ID = 0x43484148  # PostgreSQL advisory lock: one instance migrates at a time


class Engines:
    """The database of one URL (and PostgreSQL ``schema``): ``engine`` for writes, ``reader``
    for reads, :meth:`driver` for psycopg's own connections. Synchronous; the async server
    calls it from worker threads."""

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


@contextmanager
def lazy_begin(engine: Engine) -> Iterator[Connection]:
    """A transaction like ``engine.begin()`` whose commit does not wait for the disk: it is
    kept at once against a crash of the server, and lost only if the machine itself stops
    within the moment after (power, kernel), never half-kept. For the writes no player would
    miss after a power cut (a puzzle's start and moves, the limiter's counts of recent
    uses), not for a game's. SQLite: ``synchronous=NORMAL`` (in WAL the commit is not fsynced;
    the next ``FULL`` commit of any connection fsyncs it with its own) for this transaction,
    the connection back to ``FULL`` before it returns to the pool. PostgreSQL: ``SET LOCAL
    synchronous_commit = off`` (this transaction only)."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            # On the driver's connection: a pragma opens no transaction there.
            raw: Any = conn.connection.driver_connection
            raw.execute("PRAGMA synchronous=NORMAL")
            try:
                with conn.begin():
                    yield conn
            finally:
                raw.execute("PRAGMA synchronous=FULL")
        else:
            with conn.begin():
                conn.exec_driver_sql("SET LOCAL synchronous_commit = off")
                yield conn


@functools.cache
def _select_by(table: Table, column: str) -> str:
    """``SELECT`` every column of ``table`` where ``column`` is ``%(column)s`` (psycopg)."""
    names = ", ".join(f'"{c.name}"' for c in table.columns)
    return f'SELECT {names} FROM {table.name} WHERE "{column}" = %({column})s'


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
