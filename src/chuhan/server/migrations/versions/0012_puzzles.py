"""Puzzles (SPEC B9): the puzzles loaded from the data files, a puzzle rating per player and
variant, and every attempt (server/db/puzzles.py, server/puzzles/).

Revision ID: 0012_puzzles
Revises: 0011_seek_aborts
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_puzzles"
down_revision = "0011_seek_aborts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("fen", sa.Text, nullable=False),
        sa.Column("moves", sa.JSON, nullable=False),
        sa.Column("reveals", sa.JSON, nullable=True),
        sa.Column("view", sa.JSON, nullable=True),
        sa.Column("themes", sa.JSON, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False),
        sa.Column("source", sa.JSON, nullable=False),
    )
    op.create_index("ix_puzzles_variant_rating", "puzzles", ["variant", "rating"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("variant", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("last_puzzle", sa.String(32), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("puzzle_id", sa.String(32), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("played", sa.JSON, nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("hinted", sa.Boolean, nullable=False),
        sa.Column("shown", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("daily", sa.Boolean, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_puzzle_attempts_player_created", "puzzle_attempts", ["player_id", "created_at"]
    )
    op.create_index(
        "ix_puzzle_attempts_player_puzzle", "puzzle_attempts", ["player_id", "puzzle_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_puzzle_attempts_player_puzzle", table_name="puzzle_attempts")
    op.drop_index("ix_puzzle_attempts_player_created", table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzles_variant_rating", table_name="puzzles")
    op.drop_table("puzzles")
