"""The opening books (SPEC A1; xiangqi's and janggi's): advanced opens from them, varied by the
seed; intermediate uses them only part of the time; every book move is legal where it is
listed; the janggi book opens every pair of setups (J3)."""

from __future__ import annotations

import json

import pytest

from chuhan.engine import choose_move
from chuhan.engine.book import BOOK_PATHS, book_key
from chuhan.rules import make_board
from chuhan.rules.board import Board
from chuhan.rules.janggi import SETUPS

JANGGI_STARTS = [f"{cho}:{han}" for cho in SETUPS for han in SETUPS]


def book_positions(variant: str = "xiangqi") -> list[Board]:
    """Every position the variant's book reaches by its own moves from its starts."""
    book = json.loads(BOOK_PATHS[variant].read_text())
    found: list[Board] = []
    todo = (
        [make_board("janggi", setup=setup) for setup in JANGGI_STARTS]
        if variant == "janggi"
        else [make_board(variant)]
    )
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
    plies = {board.ply for board in positions}
    assert len(positions) > 10
    assert {0, 1, 2} <= plies


def test_the_xiangqi_book_follows_master_lines_well_into_the_opening_on_both_wings() -> None:
    """Built from master games (bench/build_book.py --games): advanced answers from it for
    many moves, whichever wing a line opens on (the book holds each line's mirror image)."""
    positions = book_positions()
    assert max(board.ply for board in positions) >= 12
    board = make_board("xiangqi")
    book = json.loads(BOOK_PATHS["xiangqi"].read_text())
    for first in ("h3e3", "b3e3"):  # the central cannon, from the right and from the left
        assert first in {move for move, _ in book[book_key(board)]}
        line = board.copy()
        line.push(first)
        booked = 0
        while booked < 8:
            reply = choose_move(line, "advanced", seed=booked, nodes=2_000)
            if reply.depth:  # searched: out of the book
                break
            line.push(reply.move)
            booked += 1
        assert booked == 8, f"left the book after {booked} replies to {first}"


def test_the_janggi_book_opens_every_pair_of_setups_with_legal_moves() -> None:
    positions = book_positions("janggi")
    assert len({board.fen() for board in positions if board.ply == 0}) == len(JANGGI_STARTS)
    assert {board.ply for board in positions} == {0, 1, 2}


@pytest.mark.parametrize("setup", ["HEEH:EHHE", "EHEH:HEHE"])
def test_advanced_opens_janggi_from_the_book_whatever_the_setups(setup: str) -> None:
    board = make_board("janggi", setup=setup)
    listed = {move for move, _ in json.loads(BOOK_PATHS["janggi"].read_text())[book_key(board)]}
    firsts = {str(choose_move(board, "advanced", seed=seed, nodes=2_000).move) for seed in range(6)}
    assert firsts <= listed
    assert len(firsts) >= 2


def test_advanced_opens_from_the_book_and_games_differ_by_seed() -> None:
    board = make_board("xiangqi")
    book = json.loads(BOOK_PATHS["xiangqi"].read_text())[book_key(board)]
    firsts = {str(choose_move(board, "advanced", seed=seed, nodes=2_000).move) for seed in range(9)}
    assert firsts <= {move for move, _ in book}
    assert len(firsts) >= 2


def test_intermediate_uses_the_book_only_part_of_the_time() -> None:
    board = make_board("xiangqi")
    depths = [choose_move(board, "intermediate", seed=seed, nodes=2_000).depth for seed in range(9)]
    assert 0 in depths
    assert any(depths)  # depth 0: a book move; otherwise it searched


def test_out_of_the_book_and_in_jieqi_the_engine_searches() -> None:
    for variant, moves in (("xiangqi", ("a1a2", "a10a9")), ("janggi", ("a1a2", "a10a9"))):
        board = make_board(variant)
        for move in moves:
            board.push(move)
        assert choose_move(board, "advanced", nodes=2_000).depth > 0
    assert choose_move(make_board("jieqi"), "advanced", nodes=2_000).depth > 0
