"""The players' rows: made with their first device (B6), found by a device's token, named
(B7, S1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg.rows import namedtuple_row
from sqlalchemy import bindparam, select, update

from ..names import default_name
from ..records import Player, aware, utcnow
from .engine import Engines
from .tables import player_devices, players

# Every request's identity (SQLite; PostgreSQL runs _PLAYER_BY_DEVICE straight through the
# driver), built once: SQLAlchemy then skips building it and its cache key each time.
_BY_DEVICE = (
    select(players)
    .join(player_devices, player_devices.c.player_id == players.c.id)
    .where(player_devices.c.token_hash == bindparam("token_hash"))
)


class PlayerStorage(Engines):
    """The players' part of the :class:`~.store.Store`."""

    def create_player(self, player_id: str, token_hash: str) -> Player:
        now = utcnow()
        with self.engine.begin() as conn:
            conn.execute(
                players.insert().values(
                    id=player_id,
                    token_hash=token_hash,
                    name=default_name(player_id),  # B7: a readable name until one is chosen
                    ai_points=0,
                    online_points=0,
                    created_at=now,
                )
            )
            # B6: the browser it is made in is the player's first device.
            conn.execute(
                player_devices.insert().values(
                    id=f"d{player_id[1:]}",
                    player_id=player_id,
                    token_hash=token_hash,
                    label="",
                    created_at=now,
                )
            )
        return Player(player_id, default_name(player_id), 0, 0, now)

    def player_by_token_hash(self, token_hash: str) -> Player | None:
        """The player signed in on the device whose cookie token has this hash (B6: any of
        their devices), or None."""
        row: Any
        if not self.is_sqlite:
            with self.driver() as connection:
                cursor = connection.cursor(row_factory=namedtuple_row)
                row = cursor.execute(_PLAYER_BY_DEVICE, {"token_hash": token_hash}).fetchone()
        else:
            with self.reader.connect() as conn:
                row = conn.execute(_BY_DEVICE, {"token_hash": token_hash}).one_or_none()
        return _player_from_row(row) if row else None

    def player(self, player_id: str) -> Player | None:
        row = self.row_by(players, "id", player_id)
        return _player_from_row(row) if row else None

    def player_names(self, player_ids: Sequence[str]) -> dict[str, str | None]:
        """The display names of these players (None: no name, or no such player)."""
        names: dict[str, str | None] = dict.fromkeys(player_ids)
        if names and not self.is_sqlite:
            with self.driver() as connection:
                found = connection.execute(_PLAYER_NAMES, {"ids": list(names)}).fetchall()
            names.update(dict(found))
        elif names:
            query = select(players.c.id, players.c.name).where(players.c.id.in_(list(names)))
            with self.reader.connect() as conn:
                names.update({row.id: row.name for row in conn.execute(query)})
        return names

    def set_player_name(self, player_id: str, name: str | None) -> None:
        """The player's chosen name; None: back to their default name (B7)."""
        chosen = {"name": name, "name_chosen": True}
        if name is None:
            chosen = {"name": default_name(player_id), "name_chosen": False}
        with self.engine.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id).values(**chosen))


# The statements the driver runs as they are (Engines.driver): written from the tables.
_PLAYER_NAMES = "SELECT id, name FROM players WHERE id = ANY(%(ids)s)"
_PLAYER_BY_DEVICE = (
    "SELECT players.* FROM players JOIN player_devices ON player_devices.player_id = players.id"
    " WHERE player_devices.token_hash = %(token_hash)s"
)


def _player_from_row(row: Any) -> Player:
    return Player(
        row.id, row.name, row.ai_points, row.online_points, aware(row.created_at), row.name_chosen
    )
