"""Players, games and the per-game event log.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(40), nullable=True),
        sa.Column("ai_points", sa.Integer, nullable=False, server_default="0"),
        sa.Column("online_points", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("human_side", sa.Integer, nullable=True),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("secret", sa.JSON, nullable=True),
        sa.Column("start_fen", sa.Text, nullable=False),
        sa.Column("moves", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("practice", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("points_awarded", sa.Integer, nullable=False, server_default="0"),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_player_status", "games", ["player_id", "status"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "game_events",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("type", sa.String(24), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_events")
    op.drop_index("ix_games_status", table_name="games")
    op.drop_index("ix_games_player_status", table_name="games")
    op.drop_table("games")
    op.drop_table("players")
