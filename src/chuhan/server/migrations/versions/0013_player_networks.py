"""The address blocks players sought games from, hashed (SPEC Z8): two identities of one
block are never rated together (server/players/ratings.py).

Revision ID: 0013_player_networks
Revises: 0012_puzzles
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_player_networks"
down_revision = "0012_puzzles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_networks",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("network", sa.String(32), primary_key=True),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_player_networks_network", "player_networks", ["network"])
    op.create_index("ix_player_networks_seen", "player_networks", ["seen_at"])


def downgrade() -> None:
    op.drop_index("ix_player_networks_seen", table_name="player_networks")
    op.drop_index("ix_player_networks_network", table_name="player_networks")
    op.drop_table("player_networks")
