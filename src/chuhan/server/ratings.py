"""Ratings (SPEC B2, issue 28): a Glicko-2 rating per player and variant, from paired games.

- **Which games.** Only a paired game (an online game whose options say ``paired``, made by
  "Play someone now", B1) is rated, once it is over with a result that the players played
  for: a win (checkmate, resignation, timeout, points…) or a draw. Interrupted, abandoned
  and expired games are not rated, nor a game in which a player never moved (fewer than
  :data:`MIN_PLIES` half-moves: abandoning before one's first move costs nothing).
  Xiangqi/jieqi rule sets and janggi's bikjang option share their variant's rating.
- **When.** Each game is its own rating period (Glicko-2 steps 2–8 with one result), applied
  when the game ends, by whichever instance commits the end (``RoomService._apply``), and by
  any instance that later meets a finished paired game not yet rated (a crash between the
  end and its rating: the player's next profile read rates it).
- **Once.** The rating and the game's ``rated`` event are one transaction that inserts one
  ``rating_changes`` row per (game, player), so a second attempt, on this instance or
  another, finds the rows (or collides with them) and changes nothing; the ratings move by
  a conditional update on their ``games`` count.
- **Against manipulation.** The same two players rate each other for at most
  :data:`RATED_GAMES_PER_PAIR_PER_DAY` games per UTC day (their later games say "not rated",
  as SPEC R6 does for points); an established rating (deviation at most
  :data:`PROVISIONAL_DEVIATION`) moves by only :data:`PROVISIONAL_OPPONENT_FACTOR` of the
  Glicko-2 change against a provisional opponent (a new identity), on top of Glicko-2's own
  discount of an uncertain opponent.
- **Shown.** The game's options gain ``rated`` (each side's rating before and after, its
  change, provisional or not), logged as a ``rated`` event, so the end of the game shows it
  live and on every later read; the profile (``GET /api/me``) has ``ratings`` per variant.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from . import glicko2
from .db.store import Store, game_from_row
from .db.tables import game_players, games, rating_changes, ratings
from .games import event, side_names
from .hub import News
from .records import GameRecord, utcnow

if TYPE_CHECKING:
    from .service import GameService

log = logging.getLogger("chuhan.ratings")

VARIANTS = ("xiangqi", "janggi", "jieqi")
PROVISIONAL_DEVIATION = 110.0  # shown with "?" above this (as lichess does)
RATED_GAMES_PER_PAIR_PER_DAY = 3  # per UTC day, like the points rule's 3 (R6)
PROVISIONAL_OPPONENT_FACTOR = 0.5  # an established rating against a provisional opponent
MIN_PLIES = 2  # both players moved at least once
UNRATED_REASONS = frozenset({"interrupted", "abandoned", "expired", "aborted", "unfinished"})
PENDING_WINDOW = timedelta(days=7)  # how far back a profile read looks for unrated games
_ATTEMPTS = 5


class _Moved(Exception):
    """A rating or the game changed since this transaction read it: read again."""


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in one variant, and how many rated games it rests on."""

    rating: glicko2.Rating
    games: int

    @property
    def provisional(self) -> bool:
        return is_provisional(self.rating)

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": round(self.rating.rating),
            "deviation": round(self.rating.deviation),
            "provisional": self.provisional,
            "games": self.games,
        }


NEWCOMER = PlayerRating(glicko2.Rating(), 0)


def is_provisional(rating: glicko2.Rating) -> bool:
    return rating.deviation > PROVISIONAL_DEVIATION


def rateable(game: GameRecord) -> bool:
    """Whether ``game`` is a finished paired game whose result rates its players (B2)."""
    reason = (game.result or {}).get("reason")
    return (
        game.kind == "online"
        and bool(game.options.get("paired"))
        and not game.ongoing
        and game.result is not None
        and reason not in UNRATED_REASONS
        and game.ply >= MIN_PLIES
    )


def score_of(game: GameRecord, side: int) -> float:
    """1 for a win of ``side``, 0 for a loss, ½ for a draw."""
    winner = (game.result or {}).get("winner")
    if winner is None:
        return 0.5
    return 1.0 if winner == side_names(game.variant)[side] else 0.0


def rated(mine: glicko2.Rating, theirs: glicko2.Rating, score: float) -> glicko2.Rating:
    """``mine`` after one game against ``theirs`` scoring ``score``: Glicko-2, with the
    change of an established rating against a provisional one scaled down (B2)."""
    after = glicko2.update(mine, [glicko2.Result(theirs, score)])
    if not is_provisional(mine) and is_provisional(theirs):
        moved = (after.rating - mine.rating) * PROVISIONAL_OPPONENT_FACTOR
        after = replace(after, rating=mine.rating + moved)
    return after


def utc_day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


# ---------------------------------------------------------------------- storage


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
            except (_Moved, IntegrityError):
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
        changed = conn.execute(
            update(games)
            .where(games.c.id == game_id, games.c.seq == game.seq)
            .values(options=finished.options, seq=finished.seq, updated_at=now)
        ).rowcount
        if changed != 1:
            raise _Moved(game_id)
        Store._insert_events(conn, game_id, game.seq, [payload])
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
        changed = conn.execute(
            update(ratings)
            .where(
                ratings.c.player_id == player_id,
                ratings.c.variant == variant,
                ratings.c.games == was.games,
            )
            .values(**values)
        ).rowcount
        if changed != 1:
            raise _Moved(player_id)


def _rating_of(row: Any) -> PlayerRating:
    return PlayerRating(glicko2.Rating(row.rating, row.deviation, row.volatility), row.games)


# ---------------------------------------------------------------------- the service's part


class Ratings:
    """Rating finished paired games and reading ratings, for the game and room services."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.store = RatingStore(service.store)

    async def settle(self, game: GameRecord) -> GameRecord:
        """Rate ``game`` if it is a finished paired game not rated yet, and announce its
        ``rated`` event to the game's followers. Returns the game as it now is."""
        if not rateable(game) or "rated" in game.options:
            return game
        done = await self.service.db(self.store.rate, game.id)
        if done is None:
            return game
        after, payload = done
        self.service.known.remember(after)
        await self.service.hub.publish(after.id, after.seq, News.of(after, [payload]))
        log.info("game rated", extra={"game": after.id, "rated": payload["rated"]})
        return after

    async def of_player(self, player_id: str) -> dict[str, PlayerRating]:
        """The player's ratings, after rating any of their finished paired games that an
        instance left unrated (a crash between a game's end and its rating)."""
        since = utcnow() - PENDING_WINDOW
        for game in await self.service.db(self.store.unrated_games, player_id, since):
            await self.settle(game)
        return await self.service.db(self.store.of_player, player_id)
