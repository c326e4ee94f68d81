"""The reads behind "your game is on" (SPEC B5): the rooms where a player's game is going on
(what is shown of them: ``server/players/live.py``)."""

from __future__ import annotations

from sqlalchemy import String, cast, or_, select
from sqlalchemy.sql.elements import ColumnElement

from ..records import GameRecord, RoomRecord
from .games import seated_in_ongoing_game
from .rooms import RoomStore
from .store import Store
from .tables import games, rooms


class LiveStore:
    """A player's live online games (synchronous, like :class:`~.store.Store`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.rooms = RoomStore(store)

    def rooms_of(self, player_id: str) -> list[tuple[RoomRecord, GameRecord | None]]:
        """The open rooms the player sits in whose game is going on (with the game) or whose
        janggi setup is being chosen (the game not begun: None), oldest first.

        The player's ongoing games come from ``game_players`` (indexed); the rooms' seats'
        text narrows the open rooms, the seats themselves decide, as ``open_rooms_of`` does."""
        with self.store.reader.connect() as conn:
            playing = [
                row[0] for row in conn.execute(seated_in_ongoing_game(player_id, games.c.id)).all()
            ]
            live: ColumnElement[bool] = rooms.c.setup.is_not(None)
            if playing:
                live = or_(live, rooms.c.game_id.in_(playing))
            # The cheap tests first: the seats' text is searched only in the rooms they leave.
            query = (
                select(rooms.c.id)
                .where(live, rooms.c.status == "open")
                .where(cast(rooms.c.seats, String).contains(player_id))
                .order_by(rooms.c.created_at, rooms.c.id)
            )
            room_ids = [row[0] for row in conn.execute(query).all()]
        found = []
        for room_id in room_ids:
            room = self.rooms.get(room_id)
            if room is None or room.seat_of(player_id) is None or not room.is_open:
                continue
            game = self.store.game(room.game_id) if room.game_id and room.setup is None else None
            if room.setup is not None or (game is not None and game.ongoing):
                found.append((room, game))
        return found
