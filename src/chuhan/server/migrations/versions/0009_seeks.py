"""Seeks (SPEC B1, play a stranger): one row per waiting or just paired player
(server/pairing/store.py).

Revision ID: 0009_seeks
Revises: 0008_ratings
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_seeks"
down_revision = "0008_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=True),
        sa.Column("connection", sa.String(64), nullable=False),
        sa.Column("instance", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seeks_status_pool", "seeks", ["status", "pool", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_seeks_status_pool", table_name="seeks")
    op.drop_table("seeks")
