"""What the puzzles may cost (SPEC B9, Z5, Z8): budgets of :mod:`..budget` for every
puzzle begun and every move, hint or solution asked for, per player (refused when spent) and
per address block (slowed), as other writes are; and where the puzzles are read from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class PuzzleSettings:
    """Per ``window_seconds`` (0 turns a budget off). A person solving by hand does a puzzle
    a minute or so; the defaults are far above that and bound what a script can farm."""

    data_dir: Path = DATA_DIR  # CHUHAN_PUZZLES_DIR: the ``<variant>.jsonl`` files
    puzzles_per_player: int = 300
    actions_per_player: int = 1200  # moves, hints and solutions
    actions_per_address: int = 6000
    window_seconds: float = 3600.0
    gain_per_hour: float = 300.0  # Z8: a puzzle rating rises at most this much an hour
