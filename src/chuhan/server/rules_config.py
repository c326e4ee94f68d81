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
