"""After the game (N4): share links of games and their engine analyses.

Revision ID: 0005_reviews
Revises: 0004_game_players
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_reviews"
down_revision = "0004_game_players"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_shares",
        sa.Column("token", sa.String(64), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "game_analyses",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("engine", sa.String(120), nullable=False),
        sa.Column("nodes", sa.Integer, nullable=False),
        sa.Column("positions", sa.Integer, nullable=False),
        sa.Column("evaluations", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_analyses")
    op.drop_table("game_shares")
