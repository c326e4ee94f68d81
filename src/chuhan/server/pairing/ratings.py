"""The rating a seek is paired by (SPEC B1 "nearest in rating", B2).

One small function, so that pairing follows whatever keeps the ratings: the player's
Glicko-2 rating in the variant (table ``ratings``, :mod:`chuhan.server.ratings`), or
Glicko-2's starting rating for a player not yet rated in it.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ..db.tables import ratings
from ..glicko2 import DEFAULT_RATING


def rating_of(conn: Connection, player_id: str, variant: str) -> float:
    """The player's rating in ``variant`` (read on ``conn``), or DEFAULT_RATING."""
    found = conn.execute(
        select(ratings.c.rating).where(
            ratings.c.player_id == player_id, ratings.c.variant == variant
        )
    ).scalar()
    return float(found) if found is not None else DEFAULT_RATING
