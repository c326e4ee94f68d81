"""Durable storage of players, games and game events through SQLAlchemy: the :class:`Store`
that the server and the other storage modules use, made of the parts in :mod:`.engine`,
:mod:`.players`, :mod:`.games` and :mod:`.events`.

SQLite (WAL, synchronous=FULL) by default, PostgreSQL when the URL says so. Every change of
a game is one transaction: a conditional update of the game row on its ``seq`` plus the new
events, so a change is either committed whole before it is acknowledged or not at all, and a
change computed from a stale copy of the game is refused
(:class:`~chuhan.server.records.StaleGameError`) instead of being applied twice.
"""

from __future__ import annotations

from .games import GameStorage
from .players import PlayerStorage


class Store(PlayerStorage, GameStorage):
    """Synchronous storage API; the async server calls it from worker threads."""
