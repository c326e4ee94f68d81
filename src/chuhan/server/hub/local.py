"""Who is connected to which game, and how they learn that a game has new events.

The hub carries "game G has events up to seq N", and with a committed change its
:class:`News`: the game as committed and the events it logged. A connection whose last sent
event comes just before the news renders them for its own viewer without reading the
database; any other (it missed a message, it just connected) reads what it has not sent
from the event log. The log stays the record; the news only saves the reads. Per-viewer
secrecy stays in one place (rendering), and a Redis pub/sub hub (several server instances)
replaces :class:`LocalHub` without changing anything else.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ..records import SYSTEM_CLOCK, Clock, GameRecord, StoredEvent, game_from_json, game_to_json

# Published instead of a seq: "read whatever you missed", subscribers catch up from the
# database (news may have been lost: Redis dropped, an instance died before announcing).
RESYNC_SEQ = -1


@dataclass(frozen=True)
class News:
    """A committed change: the game as committed and the events it logged, in order.

    The game's ``secret`` (a jieqi arrangement) never travels: news from another instance
    comes with ``withheld`` set, and a receiver that needs the secret reads it from the
    database once per game.
    """

    game: GameRecord
    events: tuple[StoredEvent, ...]
    withheld: bool = False

    @classmethod
    def of(cls, game: GameRecord, payloads: Sequence[dict[str, Any]]) -> News:
        """The news of a change that logged ``payloads``, ending at ``game.seq``."""
        first = game.seq - len(payloads) + 1
        events = tuple(
            StoredEvent(game.id, first + index, str(payload["type"]), payload)
            for index, payload in enumerate(payloads)
        )
        return cls(game, events)

    def to_json(self) -> dict[str, Any]:
        game = game_to_json(self.game)
        withheld = game.pop("secret") is not None or self.withheld
        return {
            "game": game,
            "withheld": withheld,
            "events": [[e.seq, e.payload] for e in self.events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> News:
        """Raises KeyError, TypeError or ValueError for a malformed message."""
        game = game_from_json({**data["game"], "secret": None})
        events = tuple(
            StoredEvent(game.id, int(seq), str(payload["type"]), dict(payload))
            for seq, payload in data["events"]
        )
        if not events or events[-1].seq != game.seq:
            raise ValueError("news must end at the game's seq")
        return cls(game, events, withheld=bool(data["withheld"]))

    def after(self, sent_seq: int) -> list[StoredEvent] | None:
        """The events a connection that sent up to ``sent_seq`` still needs, or None when
        the news starts later (it missed some: read the log)."""
        if self.events[0].seq > sent_seq + 1:
            return None
        return [e for e in self.events if e.seq > sent_seq]


class Subscriber(Protocol):
    async def notify(self, game_id: str, seq: int, news: News | None = None) -> None:
        """The game now has events up to ``seq`` (``news``: what the change logged)."""

    async def notice(self, message: dict[str, Any]) -> None:
        """A passing notice that is not logged (``busy``): send it as it is."""


class Hub(Protocol):
    def subscribe(self, game_id: str, subscriber: Subscriber) -> None: ...

    def on_news(self, listener: Callable[[News], None]) -> None:
        """Call ``listener`` with every news this instance delivers (its own commits and
        those from other instances), before its subscribers hear of it."""

    async def follow(self, game_id: str, subscriber: Subscriber) -> None:
        """Subscribe, returning once news published from now on, on any instance, reaches
        ``subscriber``: a state read after it misses nothing."""

    def down_since(self) -> datetime | None:
        """None while news crosses between instances; otherwise since when it may not."""

    def news_checked_at(self) -> datetime | None:
        """The last moment news was seen to cross between instances (None: never)."""

    def unsubscribe(self, game_id: str, subscriber: Subscriber) -> None: ...

    async def publish(self, game_id: str, seq: int, news: News | None = None) -> None: ...

    async def notice(self, game_id: str, message: dict[str, Any]) -> None: ...


class LocalHub:
    """An in-process hub: every subscriber of a game lives in this server process."""

    def __init__(self, clock: Clock = SYSTEM_CLOCK) -> None:
        self.clock = clock  # one process: news crosses at once, it is checked "now"
        self._subscribers: dict[str, set[Subscriber]] = defaultdict(set)
        self._listeners: list[Callable[[News], None]] = []

    def subscribe(self, game_id: str, subscriber: Subscriber) -> None:
        self._subscribers[game_id].add(subscriber)

    def on_news(self, listener: Callable[[News], None]) -> None:
        self._listeners.append(listener)

    async def follow(self, game_id: str, subscriber: Subscriber) -> None:
        self.subscribe(game_id, subscriber)

    def down_since(self) -> datetime | None:
        return None  # one process: nothing to cross

    def news_checked_at(self) -> datetime | None:
        return self.clock.now()

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

    async def publish(self, game_id: str, seq: int, news: News | None = None) -> None:
        if news is not None:
            for listener in self._listeners:
                listener(news)
        subscribers = list(self._subscribers.get(game_id, ()))
        if len(subscribers) == 1:  # the usual case (a room game: one socket per instance)
            with contextlib.suppress(Exception):
                await subscribers[0].notify(game_id, seq, news)
            return
        await asyncio.gather(
            *(s.notify(game_id, seq, news) for s in subscribers), return_exceptions=True
        )

    async def notice(self, game_id: str, message: dict[str, Any]) -> None:
        subscribers = list(self._subscribers.get(game_id, ()))
        await asyncio.gather(*(s.notice(message) for s in subscribers), return_exceptions=True)
