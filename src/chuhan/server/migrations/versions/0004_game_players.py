"""Who played each online game, and on which side (SPEC S1, R6: online points with the games
behind them). Games from before this table are filled in from their room when the room still
points at them (a room's earlier games are not known any more).

Revision ID: 0004_game_players
Revises: 0003_server_instances
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_game_players"
down_revision = "0003_server_instances"
branch_labels = None
depends_on = None


def upgrade() -> None:
    game_players = op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("side", sa.Integer, nullable=False),
    )
    op.create_index("ix_game_players_player", "game_players", ["player_id"])
    rooms = sa.table(
        "rooms", sa.column("game_id", sa.String), sa.column("sides", sa.JSON(none_as_null=True))
    )
    games = sa.table("games", sa.column("id", sa.String), sa.column("kind", sa.String))
    players = sa.table("players", sa.column("id", sa.String))
    conn = op.get_bind()
    known = set(conn.execute(sa.select(players.c.id)).scalars())
    query = sa.select(rooms.c.game_id, rooms.c.sides).join(
        games, sa.and_(games.c.id == rooms.c.game_id, games.c.kind == "online")
    )
    rows = []
    for game_id, sides in conn.execute(query):
        for side, player_id in enumerate(sides or []):
            if player_id in known and player_id not in (sides or [])[:side]:
                rows.append({"game_id": game_id, "player_id": player_id, "side": side})
    if rows:
        op.bulk_insert(game_players, rows)


def downgrade() -> None:
    op.drop_index("ix_game_players_player", table_name="game_players")
    op.drop_table("game_players")
