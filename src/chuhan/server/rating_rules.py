"""The rating rules (SPEC B2, Z8) as pure functions: a Glicko-2 rating per player and variant,
from paired games. No database, no clock: the ratings' storage (``db/ratings.py``) reads what
:func:`judge` asks (:class:`RatingFacts`) inside the rating's transaction and writes what it
decides (:class:`Verdict`); the players' rating service (``players/``) reads and announces.
A core module, so that storage can run the rules without importing the packages above it.

- **Which games.** Only a paired game (an online game whose options say ``paired``, made by
  "Play someone now", B1) is rated, once it is over with a result that the players played
  for: a win (checkmate, resignation, timeout, points…) or a draw. Interrupted, abandoned
  and expired games are not rated, nor a game in which a player never moved (fewer than
  :data:`MIN_PLIES` half-moves: leaving before one's first move is an abort, which the
  pairing charges in waiting time instead, Z8).
  Xiangqi/jieqi rule sets and janggi's bikjang option share their variant's rating.
- **When.** Each game is its own rating period (Glicko-2 steps 2–8 with one result), applied
  when the game ends, by whichever instance commits the end (``RoomService._apply``), and by
  any instance that later meets a finished paired game not yet rated (a crash between the
  end and its rating: the player's next profile read rates it).
- **Once.** The rating and the game's ``rated`` event are one transaction that inserts one
  ``rating_changes`` row per (game, player), so a second attempt, on this instance or
  another, finds the rows (or collides with them) and changes nothing; the ratings move by
  a conditional update on their ``games`` count.
- **Against manipulation (Z8: a rating cannot be bought).** What one person can gain is
  bounded whatever the number of identities (cookies) or addresses they use:

  - *not rated at all* (the game's ``rated`` says ``counted: false`` and a ``reason``; no
    rating moves): two identities seen in one address block (``same_network``: an IPv4
    address, an IPv6 /64 or /48, as they sought within :attr:`RatingRules.network_days`);
    a player who has not yet finished :attr:`RatingRules.ai_games_first` games against the
    AI (``new_player``); the same two players past
    :attr:`RatingRules.games_per_pair_per_day` games this UTC day (``pair_limit``); a
    player past :attr:`RatingRules.new_opponents_per_day` rated games against provisional
    opponents in the last 24 hours (``new_opponent_limit``);
  - *rated, less*: every rating (a provisional one too) moves by only
    :attr:`RatingRules.provisional_opponent_factor` of the Glicko-2 change against a
    provisional opponent (deviation above :data:`.records.PROVISIONAL_DEVIATION`, a new
    identity); and a player's gains in a variant add up to at most
    :attr:`RatingRules.gain_per_hour` over any rolling hour (the side's ``capped``);
  - the deviation never exceeds Glickman's 350 (:data:`.glicko2.MAX_DEVIATION`).
- **Shown.** The game's options gain ``rated`` (each side's rating before and after, its
  change, provisional or not), logged as a ``rated`` event, so the end of the game shows it
  live and on every later read; the profile (``GET /api/me``) has ``ratings`` per variant.
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from ..rules import VARIANTS as BOARDS
from . import glicko2
from .records import GameRecord, PlayerRating, is_provisional
from .rules_config import RatingRules

VARIANTS = ("xiangqi", "janggi", "jieqi")
MIN_PLIES = 2  # both players moved at least once
UNRATED_REASONS = frozenset({"interrupted", "abandoned", "expired", "aborted", "unfinished"})
GAIN_WINDOW = timedelta(hours=1)  # gain_per_hour's rolling window
NEW_OPPONENT_WINDOW = timedelta(days=1)  # new_opponents_per_day's rolling window


DEFAULT_RULES = RatingRules()
AI_GAME_PLIES = 20  # an AI game that counts for ai_games_first: ten moves each at least


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
    return 1.0 if winner == BOARDS[game.variant].SIDE_NAMES[side] else 0.0


def rated(
    mine: glicko2.Rating,
    theirs: glicko2.Rating,
    score: float,
    rules: RatingRules = DEFAULT_RULES,
    allowance: float = float("inf"),
) -> tuple[glicko2.Rating, bool]:
    """``mine`` after one game against ``theirs`` scoring ``score``: Glicko-2, the change
    scaled down against a provisional opponent (whoever ``mine`` is), and a gain cut to
    ``allowance`` (what is left of the hour's :attr:`RatingRules.gain_per_hour`). Returns the
    rating and whether the allowance cut it (Z8, B2)."""
    after = glicko2.update(mine, [glicko2.Result(theirs, score)])
    moved = after.rating - mine.rating
    if is_provisional(theirs):
        moved *= rules.provisional_opponent_factor
    capped = moved > max(allowance, 0.0)
    if capped:
        moved = max(allowance, 0.0)
    return replace(after, rating=mine.rating + moved), capped


def counts_as_ai_practice(game: GameRecord) -> bool:
    """Whether a game of the player's against the AI counts toward
    :attr:`RatingRules.ai_games_first`: finished, played for (not abandoned, expired…),
    at least :data:`AI_GAME_PLIES` half-moves."""
    reason = (game.result or {}).get("reason")
    return (
        game.kind == "ai"
        and not game.ongoing
        and reason not in UNRATED_REASONS
        and game.ply >= AI_GAME_PLIES
    )


def network_keys(address: str) -> list[str]:
    """Keys of the address blocks ``address`` is in, as stored to tell whether two players
    share one (Z8): an IPv4 address; an IPv6 address's /64 and /48 (``address`` may be the
    block already, as :data:`.addresses.CLIENT_BLOCK` holds it). Hashed, so that the
    table keeping them holds no address in clear; no key ever leaves the server."""
    try:
        network = ipaddress.ip_network(address.strip(), strict=False)
    except ValueError:
        blocks = [address[:64]] if address else []
    else:
        if isinstance(network, ipaddress.IPv6Network) and network.prefixlen == 128:
            mapped = network.network_address.ipv4_mapped
            if mapped is not None:
                network = ipaddress.ip_network(mapped)
        if isinstance(network, ipaddress.IPv6Network):
            blocks = [
                str(network.supernet(new_prefix=min(64, network.prefixlen))),
                str(network.supernet(new_prefix=min(48, network.prefixlen))),
            ]
        else:
            blocks = [str(network.network_address)]
    return [
        hashlib.sha256(f"chuhan-network:{block}".encode()).hexdigest()[:32]
        for block in dict.fromkeys(blocks)
    ]


def utc_day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


# ---------------------------------------------------------------------- judging one game


class RatingFacts(Protocol):
    """What :func:`judge` asks of the stored games, ratings and networks (``db/ratings.py``
    answers, on the rating's own transaction)."""

    def share_a_network(self, first: str, second: str, since: datetime) -> bool:
        """Whether the two players were seen in one address block since ``since``."""
        ...

    def ai_games(self, player_id: str) -> list[GameRecord]:
        """The player's latest finished games against the AI (20 at most)."""
        ...

    def counted_between(self, first: str, second: str, since: datetime) -> int:
        """How many games ``first`` rated against ``second`` since ``since``."""
        ...

    def against_new_opponents(self, player_id: str, variant: str, since: datetime) -> int:
        """How many rated games the player played in ``variant`` since ``since`` against a
        provisional opponent."""
        ...

    def gained(self, player_id: str, variant: str, since: datetime) -> float:
        """The sum of the player's rating gains in ``variant`` since ``since``."""
        ...


@dataclass(frozen=True)
class Verdict:
    """What a finished paired game changes (B2, Z8): whether it counted, each side's rating
    after it (as before when not counted), and what the game shows (its ``options.rated``)."""

    counted: bool
    after: tuple[glicko2.Rating, glicko2.Rating]
    shown: dict[str, Any]

    def event(self) -> dict[str, Any]:
        """The game's ``rated`` event (logged as every game event: its type, its fields)."""
        return {"type": "rated", "rated": self.shown}


def not_rated_because(
    variant: str,
    players: tuple[str, str],
    before: tuple[PlayerRating, PlayerRating],
    facts: RatingFacts,
    now: datetime,
    rules: RatingRules,
) -> str | None:
    """Why the game between ``players`` (red's or cho's first) rates nobody (Z8, B2), or
    None: the reasons of the module docstring, the first that holds."""
    first, second = players
    if rules.network_days > 0 and facts.share_a_network(first, second, now - rules.network_window):
        return "same_network"
    if rules.ai_games_first > 0 and any(
        sum(counts_as_ai_practice(game) for game in facts.ai_games(player)) < rules.ai_games_first
        for player in players
    ):
        return "new_player"
    if facts.counted_between(first, second, utc_day_start(now)) >= rules.games_per_pair_per_day:
        return "pair_limit"
    for side in (0, 1):
        if before[1 - side].provisional and (
            facts.against_new_opponents(players[side], variant, now - NEW_OPPONENT_WINDOW)
            >= rules.new_opponents_per_day
        ):
            return "new_opponent_limit"
    return None


def judge(
    game: GameRecord,
    players: tuple[str, str],
    before: tuple[PlayerRating, PlayerRating],
    facts: RatingFacts,
    now: datetime,
    rules: RatingRules,
) -> Verdict:
    """The rating of the finished paired ``game`` (:func:`rateable`) between ``players``,
    rated ``before`` it: Glicko-2 with the limits of :class:`~.rules_config.RatingRules`,
    or nothing counted and the reason why (B2, Z8)."""
    reason = not_rated_because(game.variant, players, before, facts, now, rules)
    counted = reason is None
    after = [(before[side].rating, False) for side in (0, 1)]
    if counted:
        for side in (0, 1):
            allowance = rules.gain_per_hour - facts.gained(
                players[side], game.variant, now - GAIN_WINDOW
            )
            after[side] = rated(
                before[side].rating,
                before[1 - side].rating,
                score_of(game, side),
                rules,
                allowance,
            )
    names = BOARDS[game.variant].SIDE_NAMES  # red/black, cho/han: as the result says them
    shown: dict[str, Any] = {"counted": counted}
    for side in (0, 1):
        was, (now_rating, capped) = before[side], after[side]
        shown[names[side]] = {
            "before": round(was.rating.rating),
            "after": round(now_rating.rating),
            "delta": round(now_rating.rating) - round(was.rating.rating),
            "provisional": is_provisional(now_rating),
        }
        if capped:
            shown[names[side]]["capped"] = True
    if reason is not None:
        shown["reason"] = reason
    if reason == "new_player":
        shown["ai_games_first"] = rules.ai_games_first  # what the page says it needs
    return Verdict(counted, (after[0][0], after[1][0]), shown)
