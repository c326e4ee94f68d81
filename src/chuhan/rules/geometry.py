"""Board geometry shared by every variant: points, names and precomputed step tables.

A point is an int ``rank * 9 + file``: files ``a``–``i`` are 0–8 from the first mover's left,
ranks ``1``–``10`` are 0–9 from the first mover's side (SPEC §0). Every table here is indexed
by point and computed once at import, so the move generator never checks bounds.
"""

from __future__ import annotations

from typing import Final

FILES: Final = "abcdefghi"
NUM_POINTS: Final = 90

# Piece kinds. On the board the first mover's pieces are positive, the second mover's negative.
KING: Final = 1
ADVISOR: Final = 2
ELEPHANT: Final = 3
HORSE: Final = 4
CHARIOT: Final = 5
CANNON: Final = 6
SOLDIER: Final = 7
KIND_LETTERS: Final = " kabnrcp"
LETTER_KINDS: Final = {letter: kind for kind, letter in enumerate(KIND_LETTERS) if letter != " "}

# Sides: 0 moves first (Red in xiangqi and jieqi, Cho in janggi), 1 moves second.
FIRST: Final = 0
SECOND: Final = 1
SIGN: Final = (1, -1)


def point_at(file: int, rank: int) -> int:
    return rank * 9 + file


def on_board(file: int, rank: int) -> bool:
    return 0 <= file < 9 and 0 <= rank < 10


def square_name(point: int) -> str:
    """``0`` → ``"a1"``, ``89`` → ``"i10"``."""
    return f"{FILES[point % 9]}{point // 9 + 1}"


def parse_square(text: str) -> int:
    """``"e10"`` → 85. Raises ValueError for anything that is not a point of the board."""
    if len(text) < 2 or text[0] not in FILES or not text[1:].isdigit():
        raise ValueError(f"not a point: {text!r}")
    rank = int(text[1:])
    if not 1 <= rank <= 10 or text[1] == "0":
        raise ValueError(f"not a point: {text!r}")
    return (rank - 1) * 9 + FILES.index(text[0])


def in_palace(point: int, side: int) -> bool:
    """True inside ``side``'s 3×3 palace (files d–f, ranks 1–3 or 8–10)."""
    f, r = point % 9, point // 9
    if not 3 <= f <= 5:
        return False
    return r <= 2 if side == FIRST else r >= 7


def own_half(point: int, side: int) -> bool:
    """True on ``side``'s own side of the river (xiangqi)."""
    return point // 9 <= 4 if side == FIRST else point // 9 >= 5


ORTHOGONAL: Final = ((0, 1), (0, -1), (1, 0), (-1, 0))
DIAGONAL: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _ray(point: int, df: int, dr: int) -> tuple[int, ...]:
    f, r = point % 9 + df, point // 9 + dr
    out = []
    while on_board(f, r):
        out.append(point_at(f, r))
        f, r = f + df, r + dr
    return tuple(out)


def _steps(point: int, deltas: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    f, r = point % 9, point // 9
    return tuple(point_at(f + df, r + dr) for df, dr in deltas if on_board(f + df, r + dr))


def _horse_moves(point: int) -> tuple[tuple[int, int], ...]:
    """(destination, leg) pairs: one point straight (the leg), then one diagonally outward."""
    f, r = point % 9, point // 9
    out = []
    for lf, lr in ORTHOGONAL:
        for side in (-1, 1):
            df, dr = (lf * 2, side) if lf else (side, lr * 2)
            if on_board(f + df, r + dr):
                out.append((point_at(f + df, r + dr), point_at(f + lf, r + lr)))
    return tuple(out)


def _horse_attackers(point: int) -> tuple[tuple[int, int], ...]:
    """(horse point, leg) pairs from which a horse attacks ``point``."""
    out = []
    for src in range(NUM_POINTS):
        for dst, leg in HORSE_MOVES[src]:
            if dst == point:
                out.append((src, leg))
    return tuple(out)


def _elephant_moves(point: int) -> tuple[tuple[int, int], ...]:
    """(destination, eye) pairs: exactly two points diagonally, the eye between."""
    f, r = point % 9, point // 9
    return tuple(
        (point_at(f + 2 * df, r + 2 * dr), point_at(f + df, r + dr))
        for df, dr in DIAGONAL
        if on_board(f + 2 * df, r + 2 * dr)
    )


RAYS: Final[list[tuple[tuple[int, ...], ...]]] = [
    tuple(_ray(p, df, dr) for df, dr in ORTHOGONAL) for p in range(NUM_POINTS)
]
ORTHO_STEPS: Final[list[tuple[int, ...]]] = [_steps(p, ORTHOGONAL) for p in range(NUM_POINTS)]
DIAG_STEPS: Final[list[tuple[int, ...]]] = [_steps(p, DIAGONAL) for p in range(NUM_POINTS)]
HORSE_MOVES: Final[list[tuple[tuple[int, int], ...]]] = [_horse_moves(p) for p in range(NUM_POINTS)]
HORSE_ATTACKERS: Final[list[tuple[tuple[int, int], ...]]] = [
    _horse_attackers(p) for p in range(NUM_POINTS)
]
ELEPHANT_MOVES_ANY: Final[list[tuple[tuple[int, int], ...]]] = [
    _elephant_moves(p) for p in range(NUM_POINTS)
]


def _mask(point: int) -> bytes:
    """For a general on ``point``: 1 on its file and rank, 2 on its diagonal neighbours.

    Moving a piece can only expose or create an attack on the general if the piece leaves a
    diagonal neighbour (a horse leg or elephant eye), or leaves or enters the general's file
    or rank (a chariot ray, a cannon screen, the flying general).
    """
    out = bytearray(NUM_POINTS)
    f, r = point % 9, point // 9
    for q in range(NUM_POINTS):
        if q % 9 == f or q // 9 == r:
            out[q] = 1
    for q in DIAG_STEPS[point]:
        out[q] = 2
    return bytes(out)


KING_SAFETY_MASK: Final[list[bytes]] = [_mask(p) for p in range(NUM_POINTS)]
