"""The database as the async server uses it: the :class:`~.store.Store` and the threads its
synchronous calls run in.

``create_app`` makes one :class:`Database` and hands it to every service and router that
reads or writes (games, rooms, pairing, puzzles, players, ratings, retention…).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .engine import POOL_OVERFLOW, POOL_SIZE, connection_lost
from .store import Store

log = logging.getLogger("chuhan.games")
T = TypeVar("T")


class Database:
    """``await database(fn, *args)``: ``fn(*args)`` in one of the database's threads."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # The database's own threads, one per pooled connection: a plain executor costs less
        # per call than anyio's limiter (a move makes one call), and the store's functions
        # read no context variables. An in-memory database is one thread's.
        threads = 1 if store.in_memory else POOL_SIZE + POOL_OVERFLOW
        self._threads = ThreadPoolExecutor(threads, thread_name_prefix="db")

    async def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker thread, once more on a fresh connection if the database
        dropped the one it used (a restart, a terminated backend): no ping before each query.

        A write whose connection dropped mid-transaction was rolled back, so running it again
        is safe; one that did commit is refused the second time by its conditional update.
        """
        loop = asyncio.get_running_loop()
        call = functools.partial(fn, *args)
        try:
            return await loop.run_in_executor(self._threads, call)
        except Exception as exc:
            if not connection_lost(exc):
                raise
            log.warning("database connection lost; retrying on a new one")
            return await loop.run_in_executor(self._threads, call)

    async def migrate(self) -> None:
        """Bring the schema to the newest migration (the app does at start)."""
        await self(self.store.migrate)

    async def close(self) -> None:
        """Close the store's connections and let the threads go (the app's last step)."""
        await self(self.store.dispose)
        self._threads.shutdown(wait=False)
