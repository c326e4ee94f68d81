"""The puzzles as data (SPEC B9): one JSON object a line in ``<variant>.jsonl``, as the
generator writes them (id, variant, fen, moves, themes, rating, source,
verify; jieqi also view and reveals). Read here into :class:`~..db.puzzles.Puzzle` records for
the ``puzzles`` table; a line that does not hold together is left out and logged.
:func:`load_puzzles` is the one loading path, for the server's first puzzle request and for
``chuhan puzzles load``."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from ...rules import RulesError
from .. import glicko2
from ..db.puzzle_store import PuzzleStore
from ..db.puzzles import Puzzle
from . import solving

log = logging.getLogger("chuhan.puzzles")
VARIANTS = ("xiangqi", "janggi", "jieqi")
START_DEVIATION = 250.0  # the generator's estimate is better than a newcomer's guess
MAX_MOVES = 19  # ten solver moves at most: longer lines are not puzzles


def puzzle_from(data: Any) -> Puzzle:
    """One line's object as a puzzle. Raises ValueError for one that does not fit the format."""
    if not isinstance(data, dict):
        raise ValueError("a puzzle is a JSON object")
    variant = data.get("variant")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")
    puzzle_id, fen, moves = data.get("id"), data.get("fen"), data.get("moves")
    if not isinstance(puzzle_id, str) or not puzzle_id.startswith(f"{variant}-"):
        raise ValueError("the id must be '<variant>-…'")
    if len(puzzle_id) > 32 or not isinstance(fen, str) or not fen:
        raise ValueError("a bad id or fen")
    if not isinstance(moves, list) or not all(isinstance(m, str) and m for m in moves):
        raise ValueError("moves must be a list of move texts")
    if len(moves) % 2 != 1 or len(moves) > MAX_MOVES:
        raise ValueError("moves must end with a solver move (odd length)")
    themes = data.get("themes") or []
    view, reveals = data.get("view"), data.get("reveals")
    if variant == "jieqi":
        if not isinstance(view, dict):
            raise ValueError("a jieqi puzzle needs its solver's view")
        if "arrangement" in view or "hidden" in view or "salt" in view:
            raise ValueError("a jieqi puzzle's view must hold no secret (Z2)")
        reveals = list(reveals) if reveals is not None else [None] * len(moves)
        if len(reveals) != len(moves):
            raise ValueError("reveals must be as long as moves")
    else:
        view, reveals = None, None
    return Puzzle(
        id=puzzle_id,
        variant=variant,
        fen=fen,
        moves=list(moves),
        themes=[str(theme) for theme in themes],
        rating=glicko2.Rating(float(data.get("rating", 1500)), START_DEVIATION),
        source=dict(data.get("source") or {}),
        view=view,
        reveals=reveals,
    )


def read_puzzles(folder: Path) -> list[Puzzle]:
    """Every puzzle of the ``<variant>.jsonl`` files in ``folder`` (none when it is missing)."""
    found: list[Puzzle] = []
    for variant in VARIANTS:
        path = folder / f"{variant}.jsonl"
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                puzzle = puzzle_from(json.loads(line))
            except (ValueError, TypeError) as exc:
                log.warning("puzzle left out", extra={"file": str(path), "line": number})
                log.debug("why: %s", exc)
                continue
            if puzzle.variant == variant:
                found.append(puzzle)
    return found


def usable_puzzles(folder: Path) -> list[Puzzle]:
    """The puzzles of :func:`read_puzzles` whose position holds together by the rules (the
    others are left out and logged). Blocking: the server calls it off the event loop."""
    usable = []
    for puzzle in read_puzzles(folder):
        try:
            solving.board_after(puzzle, [])
        except (RulesError, ValueError, KeyError, TypeError):
            log.warning("puzzle left out: its position is not legal", extra={"id": puzzle.id})
            continue
        usable.append(puzzle)
    return usable


def load_puzzles(store: PuzzleStore, found: list[Puzzle]) -> dict[str, int]:
    """Insert the puzzles of ``found`` not stored yet (a stored one keeps its rating and
    plays); returns how many were added per variant (every variant named, 0 included)."""
    return {variant: store.load([p for p in found if p.variant == variant]) for variant in VARIANTS}
