"""Ratings (SPEC B2): a Glicko-2 rating per player and variant, from paired games.

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
    provisional opponent (deviation above :data:`~.records.PROVISIONAL_DEVIATION`, a new
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
from dataclasses import replace
from datetime import datetime, timedelta

from .. import glicko2
from ..games.changes import side_names
from ..records import GameRecord, is_provisional
from ..rules_config import RatingRules

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
    return 1.0 if winner == side_names(game.variant)[side] else 0.0


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
