"""Who is connected to which game, and how they learn that a game has new events.

The hub carries only "game G has events up to seq N"; each connection then reads what it has
not sent yet from the event log and renders it for its own viewer. That keeps per-viewer
secrecy in one place and lets a Redis pub/sub hub (several server instances) replace
:class:`LocalHub` without changing anything else.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any, Protocol


class Subscriber(Protocol):
    async def notify(self, game_id: str, seq: int) -> None:
        """The game now has events up to ``seq``."""

    async def notice(self, message: dict[str, Any]) -> None:
        """A passing notice that is not logged (``busy``): send it as it is."""


class Hub(Protocol):
    def subscribe(self, game_id: str, subscriber: Subscriber) -> None: ...

    def unsubscribe(self, game_id: str, subscriber: Subscriber) -> None: ...

    async def publish(self, game_id: str, seq: int) -> None: ...

    async def notice(self, game_id: str, message: dict[str, Any]) -> None: ...


class LocalHub:
    """An in-process hub: every subscriber of a game lives in this server process."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscriber]] = defaultdict(set)

    def subscribe(self, game_id: str, subscriber: Subscriber) -> None:
        self._subscribers[game_id].add(subscriber)

    def unsubscribe(self, game_id: str, subscriber: Subscriber) -> None:
        subscribers = self._subscribers.get(game_id)
        if subscribers is not None:
            subscribers.discard(subscriber)
            if not subscribers:
                del self._subscribers[game_id]

    def count(self, game_id: str) -> int:
        return len(self._subscribers.get(game_id, ()))

    def topics(self) -> list[str]:
        """Every key with a subscriber in this process."""
        return list(self._subscribers)

    async def publish(self, game_id: str, seq: int) -> None:
        subscribers = list(self._subscribers.get(game_id, ()))
        await asyncio.gather(*(s.notify(game_id, seq) for s in subscribers), return_exceptions=True)

    async def notice(self, game_id: str, message: dict[str, Any]) -> None:
        subscribers = list(self._subscribers.get(game_id, ()))
        await asyncio.gather(*(s.notice(message) for s in subscribers), return_exceptions=True)
