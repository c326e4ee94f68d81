"""The retention job: rows nobody can reach any more are deleted.

What is deleted, each pass (``CHUHAN_RETENTION_DAYS`` = N, 30 by default):

- **local games left unfinished**: a game on one device whose 24 hours (``expires_at``,
  SPEC P2) are over and that never ended on the board — still ``ongoing``, or ``finished``
  with the reason ``expired`` — with its events and analysis. Not if it has a share link
  (someone else may hold it).
- **players who never played**: created more than N days ago, with no game of any kind
  (their own AI, local or imported games, a seat in an online game), no puzzle attempt
  (SPEC B9: a puzzle-only player has a puzzle rating and a history), no points, no rating,
  not seated in a room that is not closed and not seeking a game, with their devices,
  codes and any puzzle rating row. Their cookie then opens a new identity; nothing of theirs
  was visible anywhere.
- **limit buckets** (``limit_buckets``) that have regained every use: a missing bucket is an
  unused one.

Everything else is kept: every finished game (AI, online, imported, local) of a player who
exists, every ongoing AI or online game, every share-linked game, and every player with a
game or points.

Each pass deletes in batches, one short transaction each, run in the database's worker
threads (never on the event loop). Every instance runs the job (``retention_interval``
apart); it is idempotent, and on PostgreSQL two instances running it at once skip each
other's rows (``FOR UPDATE SKIP LOCKED``). A player or game that gains a reference between
the choice and the delete (a share link made that instant) makes its batch fail on the
foreign key and roll back whole: it is chosen again, correctly, next pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from ..db.retention import Retention
from ..db.store import Store
from ..records import utcnow

log = logging.getLogger("chuhan.retention")


class RetentionJob:
    """The server's periodic pass of :class:`Retention` (``retention_days`` 0: none)."""

    def __init__(
        self,
        store: Store,
        days: float,
        interval_seconds: float,
        run: Callable[..., Awaitable[Any]],
    ) -> None:
        self.retention = Retention(store, days)
        self.interval = interval_seconds
        self.run = run  # the service's ``db``: a blocking call in its worker threads
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.retention.days > 0 and self.interval > 0:
            self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        # Instances started together do not all purge at the same moment.
        await asyncio.sleep(self.interval * random.uniform(0.1, 1.0))
        while True:
            try:
                await self.pass_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("retention pass failed; trying again next time")
            await asyncio.sleep(self.interval)

    async def pass_once(self) -> dict[str, int]:
        """One pass: every batch until none is full. Returns the rows deleted by kind."""
        retention = self.retention
        done = {
            "local_games": await self._batches(retention.purge_local_games),
            "players": await self._batches(retention.purge_players),
            "limit_buckets": await self.run(retention.purge_buckets, time.time()),
        }
        if any(done.values()):
            log.info("retention pass", extra=done)
        return done

    async def _batches(self, purge: Callable[[datetime], int]) -> int:
        total = 0
        while True:
            count: int = await self.run(purge, utcnow())
            total += count
            if count < self.retention.batch:
                return total
            await asyncio.sleep(0)  # live requests' database calls go between batches
