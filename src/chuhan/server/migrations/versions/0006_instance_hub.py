"""Each server instance says whether news crosses to the others (SPEC R4, Z4: an outage of
the hub between instances is charged to no one).

Revision ID: 0006_instance_hub
Revises: 0005_reviews
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_instance_hub"
down_revision = "0005_reviews"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("server_instances", sa.Column("hub", sa.JSON, nullable=True))


def downgrade() -> None:
    op.drop_column("server_instances", "hub")
