"""The games' event logs: each change of a game appends its events, numbered by the game's
``seq`` (SPEC P5), in the transaction that changes the game."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from ..records import StoredEvent, utcnow
from .engine import Engines
from .tables import game_events


class EventStorage(Engines):
    """The events' part of the :class:`~.store.Store`."""

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
    def insert_events(
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


def iter_events(store: EventStorage, game_id: str, after: int) -> Iterator[StoredEvent]:
    """Every event of the game after ``after``, fetched in pages."""
    while True:
        page = store.events_after(game_id, after)
        yield from page
        if len(page) < 500:
            return
        after = page[-1].seq
