"""The opening book (issue 19): advanced opens from it, varied by the seed; intermediate
uses it only part of the time; every book move is legal where it is listed."""

from __future__ import annotations

import json

from chuhan.engine import choose_move
from chuhan.engine.book import BOOK_PATH, book_key
from chuhan.rules import make_board
from chuhan.rules.board import Board


def book_positions() -> list[Board]:
    """Every position the book reaches by its own moves from the start."""
    book = json.loads(BOOK_PATH.read_text())
    found, todo = [], [make_board("xiangqi")]
    while todo:
        board = todo.pop()
        entries = book.get(book_key(board))
        if not entries:
            continue
        found.append(board)
        for move, _ in entries:
            child = board.copy()
            child.push(move)  # IllegalMoveError if the book lists an illegal move
            todo.append(child)
    return found


def test_every_book_move_is_legal_and_the_book_covers_the_first_replies() -> None:
    positions = book_positions()
    assert len(positions) > 10
    assert {board.ply for board in positions} == {0, 1, 2}


def test_advanced_opens_from_the_book_and_games_differ_by_seed() -> None:
    board = make_board("xiangqi")
    book = json.loads(BOOK_PATH.read_text())[book_key(board)]
    firsts = {str(choose_move(board, "advanced", seed=seed, nodes=2_000).move) for seed in range(9)}
    assert firsts <= {move for move, _ in book}
    assert len(firsts) >= 2


def test_intermediate_uses_the_book_only_part_of_the_time() -> None:
    board = make_board("xiangqi")
    depths = [choose_move(board, "intermediate", seed=seed, nodes=2_000).depth for seed in range(9)]
    assert 0 in depths and any(depths)  # depth 0: a book move; otherwise it searched


def test_out_of_the_book_and_in_other_variants_the_engine_searches() -> None:
    board = make_board("xiangqi")
    for move in ("a1a2", "a10a9"):
        board.push(move)
    assert choose_move(board, "advanced", nodes=2_000).depth > 0
    for variant in ("janggi", "jieqi"):
        assert choose_move(make_board(variant), "advanced", nodes=2_000).depth > 0
