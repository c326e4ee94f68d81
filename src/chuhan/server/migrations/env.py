"""Alembic environment: runs on the connection the server hands over (db/engine.py, migrate).

Its target is the one ``MetaData`` of ``db/tables.py``, which holds every table:
autogenerate compares types and server defaults too (``tests/test_storage.py`` checks that
it finds nothing between the models and the migrations)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool
from sqlalchemy.engine import Connection

from chuhan.server.db.tables import metadata

config = context.config


def _migrate_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        compare_type=True,
        compare_server_default=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _migrate_on(connection)
        return
    engine = engine_from_config(
        config.get_section(config.config_ini_section) or {},
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as conn:
        _migrate_on(conn)


run_migrations()
