"""The ``ratings``, ``rating_changes`` and ``player_networks`` tables (SPEC B2, Z8; migrations
0008 and 0011): a game rated once, ratings moved by a conditional update. The rules decide
(``server/rating_rules.py``: :func:`~..rating_rules.judge`): this store reads, inside the
rating's transaction, what they ask of the rated games themselves (:class:`_Facts`), and
writes what they decided."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from .. import glicko2
from ..rating_rules import VARIANTS, judge, network_keys, rateable
from ..records import (
    NEWCOMER,
    PROVISIONAL_DEVIATION,
    GameRecord,
    PlayerRating,
    StaleGameError,
    utcnow,
)
from ..rules_config import RatingRules
from .engine import update_unless_moved
from .games import game_from_row
from .store import Store
from .tables import game_players, games, player_networks, rating_changes, ratings

_ATTEMPTS = 5


class _Moved(Exception):
    """A rating changed since this transaction read it: read again (the game: a
    :class:`StaleGameError`)."""


class RatingStore:
    """The ``ratings``, ``rating_changes`` and ``player_networks`` tables (migrations 0008,
    0013) under ``rules`` (Z8). Synchronous, like :class:`~.db.store.Store`: the service
    calls it from its database threads."""

    def __init__(self, store: Store, rules: RatingRules | None = None) -> None:
        self.store = store
        self.rules = rules or RatingRules()

    def saw(self, player_id: str, address: str, now: datetime | None = None) -> None:
        """Remember that the player sought a game from ``address`` (Z8: identities of one
        address block are never rated together), and forget what is older than
        :attr:`RatingRules.network_days`."""
        now = now or utcnow()
        for _ in range(_ATTEMPTS):
            try:
                with self.store.engine.begin() as conn:
                    self._saw(conn, player_id, address, now)
                return
            except (IntegrityError, OperationalError):
                continue  # another socket of the player stored the same block meanwhile
        raise RuntimeError(f"could not record where player {player_id} sought from")

    def _saw(self, conn: Connection, player_id: str, address: str, now: datetime) -> None:
        conn.execute(
            player_networks.delete().where(
                player_networks.c.seen_at < now - self.rules.network_window
            )
        )
        for key in network_keys(address):
            at = and_(player_networks.c.player_id == player_id, player_networks.c.network == key)
            if conn.execute(player_networks.update().where(at).values(seen_at=now)).rowcount:
                continue
            conn.execute(
                player_networks.insert().values(player_id=player_id, network=key, seen_at=now)
            )

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
        players = (by_side[0], by_side[1])
        before = (
            self._current(conn, players[0], game.variant),
            self._current(conn, players[1], game.variant),
        )
        verdict = judge(game, players, before, _Facts(conn), now, self.rules)
        for side in (0, 1):
            player_id, was, now_rating = players[side], before[side], verdict.after[side]
            conn.execute(
                rating_changes.insert().values(
                    game_id=game_id,
                    player_id=player_id,
                    opponent_id=players[1 - side],
                    variant=game.variant,
                    counted=verdict.counted,
                    before=was.rating.rating,
                    after=now_rating.rating,
                    deviation_before=was.rating.deviation,
                    deviation_after=now_rating.deviation,
                    created_at=now,
                )
            )
            if verdict.counted:
                self._store_rating(conn, player_id, game.variant, was, now_rating, now)
        payload = verdict.event()
        finished = replace(
            game,
            options={**game.options, "rated": verdict.shown},
            seq=game.seq + 1,
            updated_at=now,
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


class _Facts:
    """What the rating rules ask (:class:`~..rating_rules.RatingFacts`), read on the rating's
    transaction: the rated games themselves, the AI games, the networks seen."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def share_a_network(self, first: str, second: str, since: datetime) -> bool:
        mine, theirs = player_networks.alias("mine"), player_networks.alias("theirs")
        query = (
            select(mine.c.network)
            .join(theirs, theirs.c.network == mine.c.network)
            .where(mine.c.player_id == first, theirs.c.player_id == second)
            .where(mine.c.seen_at >= since, theirs.c.seen_at >= since)
            .limit(1)
        )
        return self.conn.execute(query).first() is not None

    def ai_games(self, player_id: str) -> list[GameRecord]:
        query = (
            select(games)
            .where(games.c.player_id == player_id, games.c.kind == "ai")
            .where(games.c.status != "ongoing")
            .order_by(games.c.created_at.desc())
            .limit(20)
        )
        return [game_from_row(row) for row in self.conn.execute(query)]

    def gained(self, player_id: str, variant: str, since: datetime) -> float:
        gain = rating_changes.c.after - rating_changes.c.before
        query = (
            select(func.coalesce(func.sum(case((gain > 0, gain), else_=0.0)), 0.0))
            .where(rating_changes.c.player_id == player_id, rating_changes.c.variant == variant)
            .where(rating_changes.c.counted.is_(True), rating_changes.c.created_at >= since)
        )
        return float(self.conn.execute(query).scalar_one())

    def against_new_opponents(self, player_id: str, variant: str, since: datetime) -> int:
        """The opponent's own row says its deviation then."""
        mine, theirs = rating_changes.alias("mine"), rating_changes.alias("theirs")
        query = (
            select(func.count())
            .select_from(mine)
            .join(
                theirs,
                and_(theirs.c.game_id == mine.c.game_id, theirs.c.player_id == mine.c.opponent_id),
            )
            .where(mine.c.player_id == player_id, mine.c.variant == variant)
            .where(mine.c.counted.is_(True), mine.c.created_at >= since)
            .where(theirs.c.deviation_before > PROVISIONAL_DEVIATION)
        )
        return int(self.conn.execute(query).scalar_one())

    def counted_between(self, first: str, second: str, since: datetime) -> int:
        query = (
            select(func.count())
            .select_from(rating_changes)
            .where(rating_changes.c.player_id == first, rating_changes.c.opponent_id == second)
            .where(rating_changes.c.counted.is_(True))
            .where(rating_changes.c.created_at >= since)
        )
        return int(self.conn.execute(query).scalar_one())
