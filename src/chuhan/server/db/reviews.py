"""After the game (N4): share tokens and engine analyses in the game database (tables
``game_shares`` and ``game_analyses``, migration 0005; what is done with them:
``server/games/review.py`` and ``analysis.py``)."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from ..records import AnalysisStatus, StoredAnalysis, utcnow
from .store import Store
from .tables import game_analyses, game_players, game_shares, players

SHARE_TOKEN_BYTES = 24  # 192 bits: unguessable (SPEC Z3's standard for invite links)


class ReviewStore:
    """Share tokens and analyses, in the game database (tables ``game_shares`` and
    ``game_analyses``, migration 0005). Synchronous, like :class:`~.db.store.Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def share_of(self, game_id: str) -> str | None:
        with self.store.reader.connect() as conn:
            query = select(game_shares.c.token).where(game_shares.c.game_id == game_id)
            return conn.execute(query).scalar_one_or_none()

    def share(self, game_id: str) -> str:
        """The game's share token, made on first asking (two askers get the same one)."""
        token = self.share_of(game_id)
        if token is not None:
            return token
        token = secrets.token_urlsafe(SHARE_TOKEN_BYTES)
        try:
            with self.store.engine.begin() as conn:
                conn.execute(
                    game_shares.insert().values(token=token, game_id=game_id, created_at=utcnow())
                )
        except IntegrityError:
            existing = self.share_of(game_id)
            assert existing is not None
            return existing
        return token

    def game_of_share(self, token: str) -> str | None:
        with self.store.reader.connect() as conn:
            query = select(game_shares.c.game_id).where(game_shares.c.token == token)
            return conn.execute(query).scalar_one_or_none()

    def online_side(self, game_id: str, player_id: str) -> int | None:
        with self.store.reader.connect() as conn:
            query = select(game_players.c.side).where(
                game_players.c.game_id == game_id, game_players.c.player_id == player_id
            )
            return conn.execute(query).scalar_one_or_none()

    def names(self, game_id: str) -> dict[int, str | None]:
        """The display names of an online game's players by side."""
        query = (
            select(game_players.c.side, players.c.name)
            .join(players, players.c.id == game_players.c.player_id)
            .where(game_players.c.game_id == game_id)
        )
        with self.store.reader.connect() as conn:
            return {row.side: row.name for row in conn.execute(query)}

    def player_name(self, player_id: str) -> str | None:
        with self.store.reader.connect() as conn:
            query = select(players.c.name).where(players.c.id == player_id)
            return conn.execute(query).scalar_one_or_none()

    def analysis(self, game_id: str) -> StoredAnalysis | None:
        with self.store.reader.connect() as conn:
            row = conn.execute(
                select(game_analyses).where(game_analyses.c.game_id == game_id)
            ).one_or_none()
        if row is None:
            return None
        return StoredAnalysis(
            row.game_id,
            row.status,
            row.engine,
            row.nodes,
            row.positions,
            list(row.evaluations),
            row.updated_at,
        )

    def begin_analysis(self, game_id: str, nodes: int, positions: int) -> bool:
        """Queue an analysis of the game unless one exists; True when this call queued it."""
        try:
            with self.store.engine.begin() as conn:
                conn.execute(
                    game_analyses.insert().values(
                        game_id=game_id,
                        status="queued",
                        engine="",
                        nodes=nodes,
                        positions=positions,
                        evaluations=[],
                        updated_at=utcnow(),
                    )
                )
        except IntegrityError:
            return False
        return True

    def save_analysis(
        self, game_id: str, status: AnalysisStatus, engine: str, evaluations: list[dict[str, Any]]
    ) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                update(game_analyses)
                .where(game_analyses.c.game_id == game_id)
                .values(status=status, engine=engine, evaluations=evaluations, updated_at=utcnow())
            )
