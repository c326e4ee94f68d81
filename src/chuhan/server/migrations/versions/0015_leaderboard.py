"""The leaderboard per variant (SPEC B8): an index on ``ratings`` (variant, rating), so the
best established ratings of a variant are one indexed walk (server/db/leaderboard.py).

Revision ID: 0015_leaderboard
Revises: 0014_default_names
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0015_leaderboard"
down_revision = "0014_default_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_ratings_board", "ratings", ["variant", "rating"])


def downgrade() -> None:
    op.drop_index("ix_ratings_board", table_name="ratings")
