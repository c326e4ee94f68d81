"""The rule records the settings configure (SPEC Z3, Z5, Z7, Z8, R4, B2, B9): plain frozen
dataclasses of numbers, each the knobs of one package's rules, with their defaults.

A core module below ``settings``: :class:`~.settings.Settings` holds these records (read from
the environment) and the packages above import them from here, so settings never imports a
package it configures. Each record says which package's rules read it; what the numbers mean
is told there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

# How long a use may wait for its turn in a slowing budget before it is refused instead
# (``budget.py``; the limiter, ``db/limits.py``).
MAX_WAIT_SECONDS = 10.0
HOUR = 3600.0
PUZZLE_DATA = Path(__file__).resolve().parent / "puzzles" / "data"  # <variant>.jsonl


@dataclass(frozen=True)
class CreationLimits:
    """What one client may create (``limits/budgets.py``): budgets per ``window_seconds``
    (settings: ``CHUHAN_NEW_PLAYERS_PER_ADDRESS`` …); 0 turns one off."""

    players_per_address: int = 300
    players_per_network: int = 600
    games_per_player: int = 100
    games_per_address: int = 1000
    games_per_network: int = 2000
    imports_per_player: int = 60
    imports_per_address: int = 240
    imports_per_network: int = 480
    analyses_per_player: int = 60
    analyses_per_address: int = 240
    analyses_per_network: int = 480
    downloads_per_player: int = 20
    downloads_per_address: int = 60
    downloads_per_network: int = 120
    window_seconds: float = HOUR
    max_wait_seconds: float = MAX_WAIT_SECONDS


@dataclass(frozen=True)
class JoinLimits:
    """Password attempts, joins and room creations alike (``rooms/ratelimit.py``): budgets
    per ``window_seconds``, and the open rooms a player may hold."""

    per_player: int = 10
    per_address: int = 30
    per_network: int = 90
    per_room: int = 20
    site: int = 600
    under_attack_per_address: int = 3
    under_attack_per_network: int = 6
    window_seconds: float = 15 * 60.0
    max_wait_seconds: float = MAX_WAIT_SECONDS
    open_rooms_per_player: int = 3


@dataclass(frozen=True)
class ClockRules:
    """The online games' clocks (``rooms/clocks.py``, SPEC R4, R7, B7): the turn time, the cap
    on the lag allowance, the budget of both players away, and a scale for game clocks."""

    turn_seconds: float = 90.0
    lag_cap_seconds: float = 2.0
    away_budget_seconds: float = 120.0
    control_scale: float = 1.0  # every game clock's durations times this (a test's short clocks)

    def allowance(self, measured_lag: float | None) -> float:
        """The lag allowance in seconds: the measured one-way lag, within 0 and the cap."""
        return min(self.lag_cap_seconds, max(0.0, measured_lag or 0.0))

    def deadline(self, started: datetime, measured_lag: float | None) -> datetime:
        return started + timedelta(seconds=self.turn_seconds + self.allowance(measured_lag))


@dataclass(frozen=True)
class PuzzleSettings:
    """What the puzzles may cost (``puzzles/``, SPEC B9, Z5, Z8): budgets of :mod:`.budget`
    per ``window_seconds`` (0 turns one off) for every puzzle begun and every move, hint or
    solution asked for, per player (refused when spent) and per address block (slowed); and
    where the puzzles are read from. A person solving by hand does a puzzle a minute or so;
    the defaults are far above that and bound what a script can farm."""

    data_dir: Path = PUZZLE_DATA  # CHUHAN_PUZZLES_DIR: the ``<variant>.jsonl`` files
    puzzles_per_player: int = 300
    actions_per_player: int = 1200  # moves, hints and solutions
    actions_per_address: int = 6000
    window_seconds: float = 3600.0
    gain_per_hour: float = 300.0  # Z8: a puzzle rating rises at most this much an hour


@dataclass(frozen=True)
class RatingRules:
    """The limits that keep a rating from being bought (SPEC Z8, B2), each a named number
    (the rating rules, ``rating_rules.py``, apply them).

    Measured with ``bench/rating_farm.py`` (one booster, fresh cookies losing on purpose, a
    paired game every 0.1–0.2 s): without them 1500 became 2285 in 10 s (3147 projected for
    the hour); with them it stays 1500 from the booster's address and reaches 1700 from as
    many addresses as the farm likes."""

    games_per_pair_per_day: int = 3
    """The same two players rate each other this many games per UTC day (B2; as the points
    rule's 3, R6): a pair of accounts cannot trade a rating back and forth."""

    provisional_opponent_factor: float = 0.5
    """Share of the Glicko-2 change a game against a provisional opponent (a new identity)
    makes, the mover's rating provisional or not (Z8): fresh cookies are worth half as much
    on top of Glicko-2's own discount of an uncertain opponent, whoever harvests them."""

    gain_per_hour: float = 200.0
    """The most a player's rating in one variant rises over any rolling hour (Z8), however
    many identities they beat. An honest newcomer's first win against an established equal
    is about +175 (then +68, +41…), so a strong newcomer still climbs at nearly full speed,
    while a farm's hour, whatever its cookies and addresses, is at most +200."""

    new_opponents_per_day: int = 10
    """Rated games against provisional opponents (new identities) per player in any 24
    hours (Z8): after ten, such games are not rated, so fresh identities stop paying."""

    ai_games_first: int = 3
    """Finished games against the AI (of :data:`~.rating_rules.AI_GAME_PLIES` half-moves or
    more, not abandoned or expired) a player needs before their paired games are rated (Z8): a
    throwaway cookie costs a few real games before it can feed anyone a rating (0: no such
    rule)."""

    network_days: float = 7.0
    """How long the address blocks a player sought from are remembered, so that two
    identities seen in one block within it are never rated together (Z8). A week covers a
    booster's farm. The price: players of one household or school address are not rated
    against each other, nor are strangers behind one carrier's shared address (CGNAT) who
    met there within the week (0: no such rule, for tests on 127.0.0.1)."""

    @property
    def network_window(self) -> timedelta:
        return timedelta(days=self.network_days)
