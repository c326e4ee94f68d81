"""Pure game logic: boards, the three variants, FEN, moves and game end. No I/O.

``make_board("xiangqi")`` gives a :class:`Board`; variants register in :data:`VARIANTS`.
"""

from .board import (
    PASS,
    Board,
    FenError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Outcome,
    RulesError,
)
from .geometry import parse_square, square_name
from .janggi import JanggiBoard, janggi_start_fen
from .jieqi import JieqiBoard, verify_commitment
from .state import game_state

VARIANTS: dict[str, type[Board]] = {"xiangqi": Board, "janggi": JanggiBoard, "jieqi": JieqiBoard}


def make_board(variant: str = "xiangqi", fen: str | None = None, **options: object) -> Board:
    """A board of ``variant`` at ``fen`` (the variant's start when None).

    ``options`` are the variant's own (janggi: ``setup``, ``bikjang``; jieqi: ``seed``);
    xiangqi takes none and raises ValueError for any.
    """
    try:
        cls = VARIANTS[variant]
    except KeyError:
        choices = ", ".join(VARIANTS)
        raise ValueError(f"unknown variant {variant!r}; choose one of {choices}") from None
    return cls(fen, **options)


__all__ = [
    "PASS",
    "VARIANTS",
    "Board",
    "FenError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidMoveError",
    "JanggiBoard",
    "JieqiBoard",
    "Move",
    "Outcome",
    "RulesError",
    "game_state",
    "janggi_start_fen",
    "make_board",
    "parse_square",
    "square_name",
    "verify_commitment",
]
