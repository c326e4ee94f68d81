"""The players (SPEC S1): found by their cookie's token, made, renamed, and their profile.
:mod:`..identity` finds and makes them through this service."""

from __future__ import annotations

import logging
import secrets
from dataclasses import replace
from typing import Any

from ..db.database import Database
from ..games import views
from ..games.service import hash_token, new_id
from ..limits.spending import Spending
from ..names import display_name
from ..records import Player
from .rating_service import Ratings

log = logging.getLogger("chuhan.games")


class Players:
    def __init__(self, db: Database, spending: Spending, ratings: Ratings) -> None:
        self.db = db
        self.store = db.store
        self.spending = spending
        self.ratings = ratings

    async def player_for_token(self, token: str | None) -> Player | None:
        if not token or len(token) > 128:
            return None
        return await self.db(self.store.player_by_token_hash, hash_token(token))

    async def new_player(self) -> tuple[Player, str]:
        """A new player and the cookie token that identifies them (only its hash is stored).
        Raises TooManyError when the client's address block made too many."""
        await self.spending.spend("players", None)
        token = secrets.token_urlsafe(32)
        player = await self.db(self.store.create_player, new_id("p"), hash_token(token))
        log.info("player created", extra={"player": player.id})
        return player, token

    async def rename(self, player: Player, name: str | None) -> Player:
        """Set the display name (blank: none); raises :class:`~.names.BadText` for a name a
        reader could be fooled by (invisible, look-alike, reserved)."""
        if name is not None:
            name = display_name(name)
        await self.db(self.store.set_player_name, player.id, name)
        return replace(player, name=name)

    async def profile(self, player: Player) -> dict[str, Any]:
        fresh = await self.db(self.store.player, player.id) or player
        recent = await self.db(self.store.player_games, player.id)
        online = await self.db(self.store.online_games, player.id)
        ratings = await self.ratings.of_player(player.id)
        return views.profile(fresh, recent, online, ratings)
