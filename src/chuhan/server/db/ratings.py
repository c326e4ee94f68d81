"""The ``ratings`` and ``rating_changes`` tables (SPEC B2, migration 0008; the rules:
``server/players/ratings.py``): a game rated once, ratings moved by a conditional update."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from ..games.changes import event, side_names
from ..players import glicko2
from ..players.ratings import (
    RATED_GAMES_PER_PAIR_PER_DAY,
    VARIANTS,
    rateable,
    rated,
    score_of,
    utc_day_start,
)
from ..records import NEWCOMER, GameRecord, PlayerRating, StaleGameError, is_provisional, utcnow
from .store import Store, game_from_row, update_unless_moved
from .tables import game_players, games, rating_changes, ratings

_ATTEMPTS = 5


class _Moved(Exception):
    """A rating changed since this transaction read it: read again (the game: a
    :class:`StaleGameError`)."""


class RatingStore:
    """The ``ratings`` and ``rating_changes`` tables (migration 0008). Synchronous, like
    :class:`~.db.store.Store`: the service calls it from its database threads."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def of_player(self, player_id: str) -> dict[str, PlayerRating]:
        """The player's rating in every variant (a newcomer's where never rated)."""
        query = select(ratings).where(ratings.c.player_id == player_id)
        found = dict.fromkeys(VARIANTS, NEWCOMER)
        with self.store.reader.connect() as conn:
            for row in conn.execute(query):
                found[row.variant] = _rating_of(row)
        return found

    def unrated_games(self, player_id: str, since: datetime) -> list[GameRecord]:
        """The player's finished paired games since ``since`` that should be rated and are
        not yet (their end was committed by an instance that died before rating them)."""
        query = (
            select(games)
            .join(game_players, game_players.c.game_id == games.c.id)
            .where(game_players.c.player_id == player_id)
            .where(games.c.kind == "online", games.c.status != "ongoing")
            .where(games.c.options["paired"].as_boolean().is_(True))  # private rooms: never
            .where(games.c.updated_at >= since)
            .where(
                ~select(rating_changes.c.game_id)
                .where(rating_changes.c.game_id == games.c.id)
                .exists()
            )
            .order_by(games.c.updated_at)  # the oldest first: ratings follow the games' order
            .limit(20)
        )
        with self.store.reader.connect() as conn:
            found = [game_from_row(row) for row in conn.execute(query)]
        return [game for game in found if rateable(game) and "rated" not in game.options]

    def rate(self, game_id: str) -> tuple[GameRecord, dict[str, Any]] | None:
        """Rate the finished paired game once (B2): the players' ratings, the game's
        ``options.rated`` and its ``rated`` event, in one transaction. Returns the game as
        committed and the event, or None when there is nothing to do (not rateable, already
        rated here or by another instance)."""
        for _ in range(_ATTEMPTS):
            try:
                with self.store.engine.begin() as conn:
                    return self._rate(conn, game_id)
            except (_Moved, StaleGameError, IntegrityError):
                continue  # a rival rating landed first: read again (the rows say if it was ours)
            except OperationalError:
                if not self.store.is_sqlite:
                    raise
                continue  # SQLite: another writer's snapshot came between our read and write
        raise RuntimeError(f"could not rate game {game_id}: it kept changing")

    def _rate(self, conn: Connection, game_id: str) -> tuple[GameRecord, dict[str, Any]] | None:
        row = conn.execute(select(games).where(games.c.id == game_id)).one_or_none()
        if row is None:
            return None
        game = game_from_row(row)
        if not rateable(game) or "rated" in game.options:
            return None
        done = conn.execute(
            select(rating_changes.c.game_id).where(rating_changes.c.game_id == game_id).limit(1)
        ).first()
        if done is not None:
            return None
        seated = conn.execute(
            select(game_players.c.player_id, game_players.c.side).where(
                game_players.c.game_id == game_id
            )
        ).all()
        by_side = {side: player_id for player_id, side in seated}
        if sorted(by_side) != [0, 1] or by_side[0] == by_side[1]:
            return None
        now = utcnow()
        before = {side: self._current(conn, by_side[side], game.variant) for side in (0, 1)}
        counted = self._counted_today(conn, by_side[0], by_side[1], now) < (
            RATED_GAMES_PER_PAIR_PER_DAY
        )
        after = {
            side: rated(before[side].rating, before[1 - side].rating, score_of(game, side))
            if counted
            else before[side].rating
            for side in (0, 1)
        }
        names = side_names(game.variant)
        shown: dict[str, Any] = {"counted": counted}
        for side in (0, 1):
            player_id, was, now_rating = by_side[side], before[side], after[side]
            conn.execute(
                rating_changes.insert().values(
                    game_id=game_id,
                    player_id=player_id,
                    opponent_id=by_side[1 - side],
                    variant=game.variant,
                    counted=counted,
                    before=was.rating.rating,
                    after=now_rating.rating,
                    deviation_before=was.rating.deviation,
                    deviation_after=now_rating.deviation,
                    created_at=now,
                )
            )
            if counted:
                self._store_rating(conn, player_id, game.variant, was, now_rating, now)
            shown[names[side]] = {
                "before": round(was.rating.rating),
                "after": round(now_rating.rating),
                "delta": round(now_rating.rating) - round(was.rating.rating),
                "provisional": is_provisional(now_rating),
            }
        if not counted:
            shown["reason"] = "pair_limit"
        payload = event("rated", rated=shown)
        finished = replace(
            game, options={**game.options, "rated": shown}, seq=game.seq + 1, updated_at=now
        )
        values = {"options": finished.options, "seq": finished.seq, "updated_at": now}
        Store.apply_change(conn, game_id, game.seq, values, [payload])
        return finished, payload

    @staticmethod
    def _current(conn: Connection, player_id: str, variant: str) -> PlayerRating:
        row = conn.execute(
            select(ratings).where(ratings.c.player_id == player_id, ratings.c.variant == variant)
        ).one_or_none()
        return NEWCOMER if row is None else _rating_of(row)

    @staticmethod
    def _counted_today(conn: Connection, first: str, second: str, now: datetime) -> int:
        """How many games ``first`` and ``second`` rated against each other this UTC day."""
        query = (
            select(func.count())
            .select_from(rating_changes)
            .where(rating_changes.c.player_id == first, rating_changes.c.opponent_id == second)
            .where(rating_changes.c.counted.is_(True))
            .where(rating_changes.c.created_at >= utc_day_start(now))
        )
        return int(conn.execute(query).scalar_one())

    @staticmethod
    def _store_rating(
        conn: Connection,
        player_id: str,
        variant: str,
        was: PlayerRating,
        now_rating: glicko2.Rating,
        now: datetime,
    ) -> None:
        values = {
            "rating": now_rating.rating,
            "deviation": now_rating.deviation,
            "volatility": now_rating.volatility,
            "games": was.games + 1,
            "updated_at": now,
        }
        if was.games == 0:
            # A newcomer's first rated game: a rival insert collides (IntegrityError: retry).
            conn.execute(ratings.insert().values(player_id=player_id, variant=variant, **values))
            return
        at = (
            ratings.c.player_id == player_id,
            ratings.c.variant == variant,
            ratings.c.games == was.games,
        )
        update_unless_moved(conn, ratings, at, values, _Moved(player_id))


def _rating_of(row: Any) -> PlayerRating:
    return PlayerRating(glicko2.Rating(row.rating, row.deviation, row.volatility), row.games)
