"""Opening books (SPEC A1; xiangqi's and janggi's): deep-searched moves for the first plies.

``book.json`` (xiangqi) and ``book_janggi.json`` (janggi: every pair of the four setups, J3)
map a position (placement and side to move, :func:`book_key`) to ``[[move, weight], …]``;
``bench/build_book.py`` builds them from Fairy-Stockfish searches (no game collection is
reachable here). :func:`book_move` picks one of the listed legal moves with a probability
proportional to its weight, so that games differ from the first move on.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

from ..rules.board import Board, Move

BOOK_PATHS = {
    "xiangqi": Path(__file__).with_name("book.json"),
    "janggi": Path(__file__).with_name("book_janggi.json"),
}


def book_key(board: Board) -> str:
    """The book's key of a position: its placement and the side to move."""
    return f"{board.board_fen()} {'w' if board.turn == 0 else 'b'}"


@functools.lru_cache(maxsize=len(BOOK_PATHS))
def _book(variant: str) -> dict[str, list[list[object]]]:
    path = BOOK_PATHS.get(variant)
    if path is None or not path.exists():
        return {}
    book: dict[str, list[list[object]]] = json.loads(path.read_text())
    return book


def book_move(board: Board, rng: random.Random) -> Move | None:
    """A book move for the side to move (xiangqi and janggi), or None when the position is not
    in the variant's book."""
    entries = _book(board.variant).get(book_key(board))
    if not entries:
        return None
    legal = set(board.legal_move_texts())
    choices = [(str(move), int(str(weight))) for move, weight in entries if str(move) in legal]
    if not choices:
        return None
    texts, weights = zip(*choices, strict=True)
    return Move.parse(rng.choices(texts, weights=weights)[0])
