"""A player's devices and the secrets that add one (SPEC B6): device links, recovery codes.

Every existing player's cookie becomes their first device.

Revision ID: 0010_player_devices
Revises: 0009_seeks
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_player_devices"
down_revision = "0009_seeks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_devices",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("label", sa.String(80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_player_devices_player", "player_devices", ["player_id"])
    op.create_table(
        "player_secrets",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_player_secrets_player", "player_secrets", ["player_id", "kind"])
    # The first device of every player so far: their cookie, as the players table keeps it.
    op.execute(
        "INSERT INTO player_devices (id, player_id, token_hash, label, created_at) "
        "SELECT 'd' || substr(id, 2), id, token_hash, '', created_at FROM players"
    )


def downgrade() -> None:
    op.drop_index("ix_player_secrets_player", table_name="player_secrets")
    op.drop_table("player_secrets")
    op.drop_index("ix_player_devices_player", table_name="player_devices")
    op.drop_table("player_devices")
