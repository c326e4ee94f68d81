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
  :data:`~.records.PROVISIONAL_DEVIATION`) moves by only :data:`PROVISIONAL_OPPONENT_FACTOR` of the
  Glicko-2 change against a provisional opponent (a new identity), on top of Glicko-2's own
  discount of an uncertain opponent.
- **Shown.** The game's options gain ``rated`` (each side's rating before and after, its
  change, provisional or not), logged as a ``rated`` event, so the end of the game shows it
  live and on every later read; the profile (``GET /api/me``) has ``ratings`` per variant.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from ..games.changes import side_names
from ..records import GameRecord, is_provisional
from . import glicko2

VARIANTS = ("xiangqi", "janggi", "jieqi")
RATED_GAMES_PER_PAIR_PER_DAY = 3  # per UTC day, like the points rule's 3 (R6)
PROVISIONAL_OPPONENT_FACTOR = 0.5  # an established rating against a provisional opponent
MIN_PLIES = 2  # both players moved at least once
UNRATED_REASONS = frozenset({"interrupted", "abandoned", "expired", "aborted", "unfinished"})


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
