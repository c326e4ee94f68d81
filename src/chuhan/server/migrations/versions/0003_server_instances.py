"""Server instances' heartbeats (SPEC Z4, R7: presence and clocks across restarts).

Revision ID: 0003_server_instances
Revises: 0002_rooms
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_server_instances"
down_revision = "0002_rooms"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_instances",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("alive_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stopped", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_instances")
