"""The puzzle tables of SPEC B9 (migration 0011) behind one :class:`PuzzleStore`, made of
the parts in :mod:`.puzzles` (the puzzles and the choice of the next one),
:mod:`.puzzle_attempts` (a player's tries, begun and finished in one transaction each) and
:mod:`.puzzle_ratings` (a player's puzzle rating, streak and last puzzle per variant).
"""

from __future__ import annotations

from .puzzle_attempts import PuzzleAttemptStorage
from .puzzle_ratings import PuzzleRatingStorage
from .puzzles import PuzzleStorage
from .store import Store


class PuzzleStore(PuzzleStorage, PuzzleAttemptStorage, PuzzleRatingStorage):
    """The puzzle tables. Synchronous, like :class:`~.store.Store`: the service calls it
    from its database threads."""

    def __init__(self, store: Store) -> None:
        self.store = store
