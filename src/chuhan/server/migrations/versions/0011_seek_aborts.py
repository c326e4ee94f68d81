"""Aborted paired games and where seeks come from (SPEC Z8, B1): a seek keeps its address
block (and IPv6 /48), and every paired game left before the leaver's first move is one row
of ``seek_aborts``, which the seek's cooldown and the "not the same pair again at once" rule
read (server/pairing/).

Revision ID: 0011_seek_aborts
Revises: 0010_player_devices
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_seek_aborts"
down_revision = "0010_player_devices"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seeks", sa.Column("block", sa.String(64), nullable=True))
    op.add_column("seeks", sa.Column("network", sa.String(64), nullable=True))
    op.create_table(
        "seek_aborts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("block", sa.String(64), nullable=True),
        sa.Column("network", sa.String(64), nullable=True),
        sa.Column("opponent_id", sa.String(32), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seek_aborts_player", "seek_aborts", ["player_id", "at"])
    op.create_index("ix_seek_aborts_block", "seek_aborts", ["block", "at"])
    op.create_index("ix_seek_aborts_network", "seek_aborts", ["network", "at"])
    op.create_index("ix_seek_aborts_at", "seek_aborts", ["at"])


def downgrade() -> None:
    for index in ("at", "network", "block", "player"):
        op.drop_index(f"ix_seek_aborts_{index}", table_name="seek_aborts")
    op.drop_table("seek_aborts")
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("network")
        batch.drop_column("block")
