"""Online rooms and join-by-password attempts (SPEC R1–R3, Z3).

Revision ID: 0002_rooms
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_rooms"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("invite", sa.String(64), nullable=True, unique=True),
        sa.Column("password", sa.String(20), nullable=True),
        sa.Column("open_password", sa.String(20), nullable=True, unique=True),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("sides", sa.JSON, nullable=True),
        sa.Column("setup", sa.JSON, nullable=True),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "room_join_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_room_join_attempts_key_at", "room_join_attempts", ["key", "at"])


def downgrade() -> None:
    op.drop_index("ix_room_join_attempts_key_at", table_name="room_join_attempts")
    op.drop_table("room_join_attempts")
    op.drop_table("rooms")
