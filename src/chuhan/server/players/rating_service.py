"""Rating finished paired games and reading ratings (SPEC B2, Z8), for the rooms, the
pairing and the players' profiles. The rules (which games count, Glicko-2) are
:mod:`.ratings`'; the storage is :mod:`..db.ratings`'."""

from __future__ import annotations

import logging
from datetime import timedelta

from ..db.database import Database
from ..db.ratings import RatingStore
from ..games.known import KnownGames
from ..hub.local import Hub, News
from ..rating_rules import rateable
from ..records import GameRecord, PlayerRating, utcnow
from ..rules_config import RatingRules

log = logging.getLogger("chuhan.games")
PENDING_WINDOW = timedelta(days=7)  # how far back a profile read looks for unrated games


class Ratings:
    """Rating finished paired games and reading ratings, for the room and player services."""

    def __init__(self, db: Database, hub: Hub, known: KnownGames, rules: RatingRules) -> None:
        self.db = db
        self.hub = hub
        self.known = known  # the game service's copies: a rated game is remembered there
        self.store = RatingStore(db.store, rules)

    async def settle(self, game: GameRecord) -> GameRecord:
        """Rate ``game`` if it is a finished paired game not rated yet, and announce its
        ``rated`` event to the game's followers. Returns the game as it now is."""
        if not rateable(game) or "rated" in game.options:
            return game
        done = await self.db(self.store.rate, game.id)
        if done is None:
            return game
        after, payload = done
        self.known.remember(after)
        await self.hub.publish(after.id, after.seq, News.of(after, [payload]))
        log.info("game rated", extra={"game": after.id, "rated": payload["rated"]})
        return after

    async def saw(self, player_id: str, address: str) -> None:
        """The player seeks a stranger from ``address`` (Z8: identities of one address block
        are never rated together; the address stays on the server, hashed)."""
        await self.db(self.store.saw, player_id, address)

    async def of_player(self, player_id: str) -> dict[str, PlayerRating]:
        """The player's ratings, after rating any of their finished paired games that an
        instance left unrated (a crash between a game's end and its rating)."""
        since = utcnow() - PENDING_WINDOW
        for game in await self.db(self.store.unrated_games, player_id, since):
            await self.settle(game)
        return await self.db(self.store.of_player, player_id)
