"""The archive's reads (SPEC S1: every game of a player, newest first, in pages;
what is shown of them: ``server/players/archive.py``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.sql.elements import ColumnElement

from ..records import ArchivedGame
from .games import game_from_row
from .store import Store
from .tables import game_players, games, players

RESUMABLE = ("ai", "local", "online")  # unfinished games of these kinds are listed, linking
# back (an online game to its room, B5)


class ArchiveStore:
    """The archive's reads (synchronous, like :class:`~.db.store.Store`)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def page(
        self,
        player_id: str,
        limit: int,
        variant: str | None = None,
        kind: str | None = None,
        before: tuple[datetime, str] | None = None,
        finished_only: bool = False,
    ) -> list[ArchivedGame]:
        """The player's archived games, newest first (``created_at``, then id)."""
        mine = game_players.alias("mine")
        other = game_players.alias("other")
        listed: ColumnElement[bool] = or_(
            and_(games.c.player_id == player_id, games.c.kind.in_(("ai", "local", "imported"))),
            mine.c.player_id == player_id,
        )
        if finished_only:
            listed = and_(listed, games.c.status != "ongoing")
        else:
            listed = and_(listed, or_(games.c.status != "ongoing", games.c.kind.in_(RESUMABLE)))
        query = (
            select(games, mine.c.side, players.c.name.label("opponent_name"))
            .outerjoin(mine, (mine.c.game_id == games.c.id) & (mine.c.player_id == player_id))
            .outerjoin(other, (other.c.game_id == games.c.id) & (other.c.player_id != player_id))
            .outerjoin(players, players.c.id == other.c.player_id)
            .where(listed)
        )
        if variant is not None:
            query = query.where(games.c.variant == variant)
        if kind in ("room", "paired"):
            paired = games.c.options["paired"].as_boolean()
            query = query.where(games.c.kind == "online").where(
                paired.is_(True) if kind == "paired" else or_(paired.is_(None), ~paired)
            )
        elif kind is not None:
            query = query.where(games.c.kind == kind)
        if before is not None:
            moment, game_id = before
            query = query.where(
                or_(
                    games.c.created_at < moment,
                    and_(games.c.created_at == moment, games.c.id < game_id),
                )
            )
        query = query.order_by(games.c.created_at.desc(), games.c.id.desc()).limit(limit)
        with self.store.reader.connect() as conn:
            rows = conn.execute(query).all()
        found = []
        for row in rows:
            game = game_from_row(row)
            side = row.side if game.kind == "online" else game.human_side
            found.append(ArchivedGame(game, side, row.opponent_name))
        return found

    def game_for(self, player_id: str, game_id: str) -> ArchivedGame | None:
        """One game the player owns or sat in (None for anyone else's: Z2)."""
        game = self.store.game(game_id)
        if game is None:
            return None
        if game.player_id == player_id:
            return ArchivedGame(game, game.human_side, None)
        if game.kind != "online":
            return None
        query = (
            select(game_players.c.player_id, game_players.c.side, players.c.name)
            .join(players, players.c.id == game_players.c.player_id)
            .where(game_players.c.game_id == game_id)
        )
        with self.store.reader.connect() as conn:
            seats = {row.player_id: (row.side, row.name) for row in conn.execute(query)}
        if player_id not in seats:
            return None
        # B7: the review names the opponent too.
        opponent = next((name for who, (_, name) in seats.items() if who != player_id), None)
        return ArchivedGame(game, seats[player_id][0], opponent)
