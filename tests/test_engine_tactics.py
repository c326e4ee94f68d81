"""Tactics per level (SPEC A1): a mate in three, a capture that loses to a mate in
one, a known drawn ending judged as drawn, and the beginner who still falls for it.

Positions were found by a search over few-piece positions and every claim about them is
checked here with the rules alone (``mates_within``), so a test cannot pass on a wrong
position. Every search is bounded by nodes, never by time.
"""

from __future__ import annotations

import pytest

from chuhan.engine import choose_move
from chuhan.engine.search import MATE_BOUND
from chuhan.rules import make_board
from chuhan.rules.board import Board, Move


def mates_within(board: Board, moves: int) -> bool:
    """Whether the side to move forces mate within ``moves`` of its own moves (X5)."""
    for code in board.legal_codes():
        undo = board.make(code)
        try:
            replies = board.legal_codes()
            if not replies:
                return True
            if moves > 1 and all(_after(board, reply, moves - 1) for reply in replies):
                return True
        finally:
            board.unmake(undo)
    return False


def _after(board: Board, reply: int, moves: int) -> bool:
    undo = board.make(reply)
    try:
        return mates_within(board, moves)
    finally:
        board.unmake(undo)


def allows_mate_in_one(board: Board, move: Move) -> bool:
    board = board.copy()
    board.push(move)
    return mates_within(board, 1)


MATES_IN_THREE = [
    "9/9/4ka3/9/2C3b2/9/9/5K3/R8/9 w - - 0 1",  # chariot and cannon against advisor, elephant
    "9/6R2/4bk3/3C5/6b2/6p2/9/9/4K4/9 w - - 0 1",  # chariot and cannon against two elephants
]


@pytest.mark.parametrize("fen", MATES_IN_THREE)
def test_the_mates_in_three_are_and_not_shorter(fen: str) -> None:
    board = make_board("xiangqi", fen)
    assert mates_within(board, 3)
    assert not mates_within(board, 2)


@pytest.mark.parametrize("fen", MATES_IN_THREE)
def test_a1_advanced_finds_the_mate_in_three(fen: str) -> None:
    board = make_board("xiangqi", fen)
    result = choose_move(board, "advanced", nodes=60_000)
    assert result.score >= MATE_BOUND, result
    after = board.copy()
    after.push(result.move)
    replies = after.legal_moves
    assert replies  # not a mate in one: there is none
    for reply in replies:  # whatever Black does, Red mates within its two next moves
        after.push(reply)
        assert mates_within(after, 2), (result.move, reply)
        after.pop()


# Red's chariot on d7 can take the cannon on h7, the only capture; Black then mates at once.
POISONED_CANNON = "3ak2P1/9/9/3R3c1/9/5r3/9/3K4n/9/9 w - - 0 1"
GREEDY_CAPTURE = "d7h7"


def test_the_greedy_capture_does_lose_to_a_mate_in_one() -> None:
    board = make_board("xiangqi", POISONED_CANNON)
    assert allows_mate_in_one(board, Move.parse(GREEDY_CAPTURE))
    assert not all(allows_mate_in_one(board, move) for move in board.legal_moves)


@pytest.mark.parametrize("level", ["intermediate", "advanced"])
def test_a1_intermediate_and_advanced_never_take_into_a_mate_in_one(level: str) -> None:
    board = make_board("xiangqi", POISONED_CANNON)
    for seed in range(3):
        move = choose_move(board, level, seed=seed, nodes=20_000).move
        assert not allows_mate_in_one(board, move), (seed, move)


def test_a1_beginner_takes_the_poisoned_cannon_now_and_then() -> None:
    """Beatable: its capture-blind slips grab the cannon and walk into the mate."""
    board = make_board("xiangqi", POISONED_CANNON)
    moves = {str(choose_move(board, "beginner", seed=seed, nodes=6_000).move) for seed in range(30)}
    assert GREEDY_CAPTURE in moves


# A lone chariot cannot break both advisors and both elephants: a known draw, whatever the
# material count says. With one advisor gone it is a win.
LONE_CHARIOT_FULL_DEFENCE = "2bakab2/9/9/9/R8/9/9/9/9/3K5 w - - 0 1"
LONE_CHARIOT_ONE_ADVISOR_GONE = "2bak1b2/9/9/9/R8/9/9/9/9/3K5 w - - 0 1"


@pytest.mark.parametrize("level", ["intermediate", "advanced"])
def test_a1_a_lone_chariot_against_a_full_defence_is_judged_a_draw(level: str) -> None:
    board = make_board("xiangqi", LONE_CHARIOT_FULL_DEFENCE)
    result = choose_move(board, level, nodes=20_000)
    assert abs(result.score) < 60, result  # unjudged, the search gives the chariot about 180
    weaker = choose_move(make_board("xiangqi", LONE_CHARIOT_ONE_ADVISOR_GONE), level, nodes=20_000)
    assert weaker.score > 300, weaker


def test_a1_black_sees_the_same_draw_from_the_other_side() -> None:
    placement, _, *rest = LONE_CHARIOT_FULL_DEFENCE.split()
    flipped = "/".join(reversed(placement.split("/"))).swapcase()
    board = make_board("xiangqi", " ".join([flipped, "b", *rest]))
    result = choose_move(board, "advanced", nodes=20_000)
    assert abs(result.score) < 60, result
