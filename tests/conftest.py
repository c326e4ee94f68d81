"""Shared test fixtures. Keep them generic: any test module may use them."""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The fast tier, ``pytest -m fast`` (``make test-fast``): the tests that need no service and no
# other process (no PostgreSQL, Redis, nginx, Chromium, server or CLI subprocess), so that a
# developer runs them in seconds. These files are its candidates; a test of one of them that
# asks for a database (``database``, ``postgres_schema``) or is marked slow or browser stays in
# ``make test`` only. A fast test that opens a connection or starts a process fails (below).
FAST_FILES = frozenset({
    # rules and notation
    "test_rules_xiangqi.py", "test_janggi.py", "test_jieqi.py", "test_wxf.py",
    "test_wxf_manual.py", "test_notation.py", "test_record.py",
    # engine
    "test_engine.py", "test_engine_book.py", "test_engine_tactics.py", "test_engine_memory.py",
    "test_evaluation.py",
    # the server's pure rules and messages
    "test_rooms_rules.py", "test_pairing.py", "test_pairing_aborts.py", "test_ratings.py",
    "test_protocol_messages.py", "test_views.py", "test_collector.py", "test_stalls.py",
    # shipped data, static files and the shape of the sources
    "test_puzzle_data.py", "test_learn_content.py", "test_web_static.py",
    "test_architecture.py",
})  # fmt: skip
SERVICE_FIXTURES = frozenset({"database", "postgres_schema"})

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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fast: the fast tier, no service (tests/conftest.py)")
    missing = sorted(name for name in FAST_FILES if not (Path(__file__).parent / name).exists())
    if missing:
        raise pytest.UsageError(f"tests/conftest.py FAST_FILES names missing files: {missing}")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m fast`` collects the fast files only: importing every test module takes longer than
    running the fast tier."""
    if config.getoption("markexpr") != "fast" or not collection_path.name.startswith("test_"):
        return None
    return collection_path.suffix == ".py" and collection_path.name not in FAST_FILES


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if (
            item.path.name in FAST_FILES
            and not SERVICE_FIXTURES & set(getattr(item, "fixturenames", ()))
            and item.get_closest_marker("slow") is None
            and item.get_closest_marker("browser") is None
        ):
            item.add_marker(pytest.mark.fast)


@pytest.fixture(autouse=True)
def fast_tests_stay_in_process(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fast-tier test that reaches for a service or starts a process fails, naming it, so
    the fast tier cannot quietly grow a dependency on what ``make test`` sets up."""
    if request.node.get_closest_marker("fast") is None:
        return

    def refuse(what: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(
                f"{request.node.nodeid} is in the fast tier but {what}: take its file out of "
                "FAST_FILES in tests/conftest.py, or its test out of the file"
            )

        return refused

    monkeypatch.setattr(socket.socket, "connect", refuse("opens a network connection"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("opens a network connection"))
    monkeypatch.setattr(subprocess.Popen, "__init__", refuse("starts a process"))
