"""Shared test fixtures. Keep them generic: any test module may use them."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

POSTGRES_URL = os.environ.get(
    "CHUHAN_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture
def postgres_schema() -> Iterator[tuple[str, str]]:
    """``(url, schema)``: a fresh PostgreSQL schema for this test, dropped afterwards.

    Each test gets its own schema, so parallel runs on one database never collide.
    """
    from sqlalchemy import create_engine, text

    schema = f"t_{uuid.uuid4().hex[:16]}"
    engine = create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield POSTGRES_URL, schema
    finally:
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[tuple[str, str | None]]:
    """``(sqlalchemy url, schema or None)`` on SQLite and on PostgreSQL in turn."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/test.sqlite3", None
    else:
        yield request.getfixturevalue("postgres_schema")
