"""Every player has a readable name (SPEC B7): ``players.name_chosen``, and the default name
(``server/names.py``) for every player who had none.

Revision ID: 0014_default_names
Revises: 0013_player_networks
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from chuhan.server.names import default_name

revision = "0014_default_names"
down_revision = "0013_player_networks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "players",
        sa.Column("name_chosen", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    players = sa.table(
        "players",
        sa.column("id", sa.String),
        sa.column("name", sa.String),
        sa.column("name_chosen", sa.Boolean),
    )
    conn = op.get_bind()
    conn.execute(sa.update(players).where(players.c.name.is_not(None)).values(name_chosen=True))
    nameless = conn.execute(sa.select(players.c.id).where(players.c.name.is_(None))).scalars()
    for player_id in list(nameless):
        conn.execute(
            sa.update(players).where(players.c.id == player_id).values(name=default_name(player_id))
        )


def downgrade() -> None:
    op.drop_column("players", "name_chosen")
