"""Ratings (SPEC B2): a Glicko-2 rating per player and variant, and what each
paired game did to it (one row per game and player: a game is rated once).

Revision ID: 0008_ratings
Revises: 0007_limit_buckets
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_ratings"
down_revision = "0007_limit_buckets"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("variant", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "rating_changes",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("opponent_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("counted", sa.Boolean, nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("deviation_before", sa.Float, nullable=False),
        sa.Column("deviation_after", sa.Float, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_rating_changes_pair", "rating_changes", ["player_id", "opponent_id", "created_at"]
    )
    # The archive (B3) lists a player's games newest first: AI, local and imported games by
    # their owner; online games through game_players.
    op.create_index("ix_games_player_created", "games", ["player_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_games_player_created", table_name="games")
    op.drop_index("ix_rating_changes_pair", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("ratings")
