"""The limits layer: one row per budget key (server/limits/budget.py); the old log of
failed join attempts goes, password attempts are budgets now (rooms/ratelimit.py).

Revision ID: 0007_limit_buckets
Revises: 0006_instance_hub
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_limit_buckets"
down_revision = "0006_instance_hub"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "limit_buckets",
        sa.Column("key", sa.String(120), primary_key=True),
        sa.Column("tat", sa.Float, nullable=False),
    )
    op.drop_index("ix_room_join_attempts_key_at", table_name="room_join_attempts")
    op.drop_table("room_join_attempts")


def downgrade() -> None:
    op.create_table(
        "room_join_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_room_join_attempts_key_at", "room_join_attempts", ["key", "at"])
    op.drop_table("limit_buckets")
