"""Background tasks kept one per key (a game's AI turn, a room's clock, an analysis).

The services that run such tasks stop them the same way and let a finished task leave its
table the same way: here, once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, TypeVar

K = TypeVar("K")


async def cancel_all(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until every one has ended (their errors are dropped: the
    tasks log their own)."""
    pending = list(tasks)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


def release(tasks: dict[K, asyncio.Task[Any]], key: K) -> bool:
    """Drop ``tasks[key]`` when it is the running task (a newer task started for ``key``
    keeps its place); True when it was dropped."""
    if tasks.get(key) is asyncio.current_task():
        del tasks[key]
        return True
    return False
