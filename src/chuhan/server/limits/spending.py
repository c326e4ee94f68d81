"""Spending the creation budgets (:mod:`.budgets`) from the async server: one use of a
kind for a player, from the client's address block, waiting for its turn when the block is
busy. Every service that creates something (players, games, imports, analyses, downloads)
receives the one :class:`Spending` that ``create_app`` makes."""

from __future__ import annotations

import asyncio

from ..addresses import CLIENT_BLOCK
from ..db.database import Database
from .budgets import CreationBudgets


class Spending:
    def __init__(self, db: Database, budgets: CreationBudgets) -> None:
        self.db = db
        self.budgets = budgets

    async def spend(self, kind: str, player_id: str | None) -> None:
        """Take one use of a creation budget (``players``, ``games``, ``imports``,
        ``analyses``, ``downloads``) for the player, from the client's address block, waiting
        for its turn when the block is busy. Raises TooManyError (429)."""
        taken = await self.db(self.budgets.spend, kind, player_id, CLIENT_BLOCK.get())
        if taken is not None and taken.wait > 0:
            await asyncio.sleep(taken.wait)
