"""The games' rows: a game stored with its first events, read, listed, and changed whole in
one transaction with the events the change logs. A change is a conditional update of the game
row on its ``seq``, so a change computed from a stale copy of the game is refused
(:class:`~chuhan.server.records.StaleGameError`) instead of being applied twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ColumnElement, Select, func, select, update
from sqlalchemy.engine import Connection

from ..records import (
    GAME_FIELDS,
    Award,
    GameKind,
    GameRecord,
    PlayedGame,
    StaleGameError,
    aware,
    utcnow,
)
from .engine import update_unless_moved
from .events import EventStorage
from .tables import game_players, games, players


def game_from_row(row: Any) -> GameRecord:
    values = {name: getattr(row, name) for name in GAME_FIELDS}
    for name in ("created_at", "expires_at", "updated_at"):
        values[name] = aware(values[name])
    values["moves"] = list(values["moves"])
    values["practice"] = bool(values["practice"])
    return GameRecord(**values)


class GameStorage(EventStorage):
    """The games' part of the :class:`~.store.Store`."""

    def __init__(self, url: str, schema: str | None = None) -> None:
        super().__init__(url, schema)
        self._statements: dict[int, str] = {}  # _commit_in_one_statement's, by event count

    def insert_game(
        self,
        game: GameRecord,
        events: Sequence[dict[str, Any]],
        sides: Sequence[tuple[str, int]] = (),
    ) -> None:
        """Store a new game with its first events (numbered 1, 2, … up to ``game.seq``) and,
        for an online game, its players as ``(player_id, side)`` pairs."""
        with self.engine.begin() as conn:
            conn.execute(games.insert().values(**_game_values(game)))
            for player_id, side in sides:
                conn.execute(
                    game_players.insert().values(game_id=game.id, player_id=player_id, side=side)
                )
            self.insert_events(conn, game.id, game.seq - len(events), events)

    def game(self, game_id: str) -> GameRecord | None:
        row = self.row_by(games, "id", game_id)
        return game_from_row(row) if row else None

    def player_games(self, player_id: str, limit: int = 50) -> list[GameRecord]:
        """The player's games, newest first."""
        query = (
            select(games)
            .where(games.c.player_id == player_id)
            .order_by(games.c.created_at.desc())
            .limit(limit)
        )
        with self.reader.connect() as conn:
            return [game_from_row(row) for row in conn.execute(query)]

    def scored_games_between(self, a: str, b: str, since: datetime) -> int:
        """How many online games players ``a`` and ``b`` played against each other that
        scored points and ended at or after ``since`` (R6, the farming limit)."""
        first = game_players.alias("first")
        second = game_players.alias("second")
        query = (
            select(func.count())
            .select_from(games)
            .join(first, (first.c.game_id == games.c.id) & (first.c.player_id == a))
            .join(second, (second.c.game_id == games.c.id) & (second.c.player_id == b))
            .where(games.c.kind == "online")
            .where(games.c.points_awarded > 0)
            .where(games.c.updated_at >= since)
        )
        with self.reader.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def online_games(self, player_id: str, limit: int = 50) -> list[PlayedGame]:
        """The online games the player played, newest first, with their side and the
        opponent's display name (SPEC S1)."""
        mine = game_players.alias("mine")
        other = game_players.alias("other")
        query = (
            select(games, mine.c.side, players.c.name.label("opponent_name"))
            .join(mine, mine.c.game_id == games.c.id)
            .outerjoin(
                other, (other.c.game_id == games.c.id) & (other.c.player_id != mine.c.player_id)
            )
            .outerjoin(players, players.c.id == other.c.player_id)
            .where(mine.c.player_id == player_id)
            .order_by(games.c.created_at.desc(), games.c.id)
            .limit(limit)
        )
        with self.reader.connect() as conn:
            return [
                PlayedGame(game_from_row(row), row.side, row.opponent_name)
                for row in conn.execute(query)
            ]

    def ongoing_games(
        self, player_id: str | None = None, kind: GameKind | None = None
    ) -> list[GameRecord]:
        query = select(games).where(games.c.status == "ongoing")
        if player_id is not None:
            query = query.where(games.c.player_id == player_id)
        if kind is not None:
            query = query.where(games.c.kind == kind)
        with self.reader.connect() as conn:
            return [game_from_row(row) for row in conn.execute(query.order_by(games.c.created_at))]

    def ongoing_counts(self) -> dict[str, int]:
        """How many games are ongoing, by kind (the ``chuhan_games_ongoing`` metric)."""
        query = (
            select(games.c.kind, func.count())
            .where(games.c.status == "ongoing")
            .group_by(games.c.kind)
        )
        with self.engine.connect() as conn:
            return {str(kind): int(n) for kind, n in conn.execute(query)}

    def playing_online(self, player_id: str) -> bool:
        """True while the player is seated in an ongoing online game (no engine
        advice for them meanwhile)."""
        query = seated_in_ongoing_game(player_id, game_players.c.game_id).limit(1)
        with self.reader.connect() as conn:
            return conn.execute(query).first() is not None

    def commit_change(
        self,
        before: GameRecord,
        after: GameRecord,
        events: Sequence[dict[str, Any]],
        award: Award | None = None,
    ) -> None:
        """Replace ``before`` by ``after`` and append ``events``, all in one transaction.

        ``after.seq`` must be ``before.seq + len(events)``. Raises :class:`StaleGameError`
        (and changes nothing) when the stored game is no longer at ``before.seq``.
        """
        if not events or after.seq != before.seq + len(events):
            raise ValueError("a change logs at least one event, and after.seq counts them")
        values = _game_values(replace(after, updated_at=utcnow()))
        del values["id"]
        if not self.is_sqlite and (award is None or not award.points):
            self._commit_in_one_statement(before, values, events)
            return
        with self.engine.begin() as conn:
            self.apply_change(conn, before.id, before.seq, values, events)
            if award is not None and award.points:
                column = players.c.ai_points if award.kind == "ai" else players.c.online_points
                conn.execute(
                    update(players)
                    .where(players.c.id == award.player_id)
                    .values({column: column + award.points})
                )

    def _commit_in_one_statement(
        self, before: GameRecord, values: dict[str, Any], events: Sequence[dict[str, Any]]
    ) -> None:
        """PostgreSQL: the conditional update and the events' insert as one statement (the
        update a data-modifying ``WITH``, the insert made of its row), in one round trip
        instead of four (BEGIN, UPDATE, INSERT, COMMIT); a single statement is atomic. No
        row inserted: the game was no longer at ``before.seq``.

        Its text is written once per number of events and sent as it is: building and
        compiling the construct on every move cost more than the round trips it saves."""
        sql = self._statements.get(len(events))
        if sql is None:
            sql = self._statements.setdefault(len(events), _one_statement_sql(len(events)))
        params: dict[str, Any] = {
            name: json.dumps(value) if name in _JSON_FIELDS else value
            for name, value in values.items()
        }
        params.update(id=before.id, before_seq=before.seq, now=utcnow())
        for index, payload in enumerate(events):
            params[f"seq{index}"] = before.seq + 1 + index
            params[f"type{index}"] = payload["type"]
            params[f"payload{index}"] = json.dumps(payload)
        with self.driver() as connection:  # autocommit: the statement is the transaction
            inserted = len(connection.execute(sql, params).fetchall())
        if inserted != len(events):
            raise StaleGameError(before.id)

    @staticmethod
    def apply_change(
        conn: Connection,
        game_id: str,
        seq: int,
        values: dict[str, Any],
        events: Sequence[dict[str, Any]],
    ) -> None:
        """In ``conn``'s transaction: the game at ``seq`` takes ``values`` and logs
        ``events`` (numbered from ``seq + 1``). Raises :class:`StaleGameError` when the game
        is no longer at ``seq``."""
        at = (games.c.id == game_id, games.c.seq == seq)
        update_unless_moved(conn, games, at, values, StaleGameError(game_id))
        EventStorage.insert_events(conn, game_id, seq, events)


_JSON_FIELDS = frozenset(column.name for column in games.columns if isinstance(column.type, JSON))


def _one_statement_sql(count: int) -> str:
    """The text of :meth:`GameStorage._commit_in_one_statement` for ``count`` events (psycopg's
    named parameters: every game field but ``id``, ``id``, ``before_seq``, ``now``, and
    ``seq<i>``, ``type<i>``, ``payload<i>`` per event, JSON as text)."""
    sets = ", ".join(
        f'"{name}" = %({name})s' + ("::json" if name in _JSON_FIELDS else "")
        for name in GAME_FIELDS
        if name != "id"
    )
    rows = ", ".join(
        f"(%(seq{i})s::integer, %(type{i})s::varchar, %(payload{i})s::json)" for i in range(count)
    )
    return (
        f"WITH changed AS (UPDATE games SET {sets} WHERE id = %(id)s AND seq = %(before_seq)s"
        " RETURNING id) INSERT INTO game_events (game_id, seq, type, payload, created_at)"
        " SELECT changed.id, v.seq, v.type, v.payload, %(now)s::timestamptz"
        f" FROM changed, (VALUES {rows}) AS v (seq, type, payload) RETURNING game_events.seq"
    )


def seated_in_ongoing_game(player_id: str, *columns: ColumnElement[Any]) -> Select[Any]:
    """``columns`` of the ongoing games the player has a seat in (online games: the others
    keep their player in ``games.player_id``), from ``game_players`` joined to ``games``."""
    return (
        select(*columns)
        .select_from(game_players)
        .join(games, games.c.id == game_players.c.game_id)
        .where(game_players.c.player_id == player_id, games.c.status == "ongoing")
    )


def _game_values(game: GameRecord) -> dict[str, Any]:
    return {name: getattr(game, name) for name in GAME_FIELDS}
