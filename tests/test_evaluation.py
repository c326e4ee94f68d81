"""The xiangqi evaluation as a player meets it (A1): fair to both colours, aware of the
known drawn endings, of a general stripped of its defenders, and of what the pieces are worth.

The weights are tuned on master games (``bench/tune.py``); these tests hold for any sound set
of weights, so a retune that breaks one of them is a retune to reject, not a test to adjust.
Searches are bounded by nodes, never by time.
"""

from __future__ import annotations

import random

import pytest

from chuhan.engine import choose_move
from chuhan.engine.evaluation import (
    XIANGQI_EVALUATOR,
    XIANGQI_VALUES,
    cannot_win,
    drawn_scaled,
    mobility,
    piece_counts,
)
from chuhan.rules import make_board
from chuhan.rules.board import Board
from chuhan.rules.geometry import ADVISOR, CANNON, CHARIOT, ELEPHANT, HORSE


def leaf_score(board: Board) -> int:
    """What the search counts at a quiet leaf, first mover's view."""
    squares = board.squares
    return XIANGQI_EVALUATOR.full(squares) + mobility(
        squares, cannon_weight=XIANGQI_EVALUATOR.cannon_mobility
    )


def played_positions(games: int, plies: int, seed: int) -> list[str]:
    """Positions from seeded random games: every kind of piece on every kind of point."""
    rng = random.Random(seed)
    fens = []
    for _ in range(games):
        board = make_board("xiangqi")
        for _ in range(plies):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
            fens.append(board.fen())
    return fens


def colours_swapped(fen: str) -> str:
    """The same position with Red and Black exchanged (ranks reversed, cases swapped)."""
    placement, turn, *rest = fen.split()
    flipped = "/".join(reversed(placement.split("/"))).swapcase()
    return " ".join([flipped, "b" if turn == "w" else "w", *rest])


def files_mirrored(fen: str) -> str:
    """The same position seen in a mirror: file a becomes file i."""
    placement, *rest = fen.split()
    rows = []
    for row in placement.split("/"):
        expanded = "".join("." * int(ch) if ch.isdigit() else ch for ch in row)
        mirrored = expanded[::-1]
        packed, run = "", 0
        for ch in mirrored:
            if ch == ".":
                run += 1
                continue
            packed += (str(run) if run else "") + ch
            run = 0
        rows.append(packed + (str(run) if run else ""))
    return " ".join(["/".join(rows), *rest])


POSITIONS = played_positions(games=12, plies=90, seed=19)


def test_swapping_the_colours_negates_the_score() -> None:
    for fen in POSITIONS:
        red = leaf_score(make_board("xiangqi", fen))
        black = leaf_score(make_board("xiangqi", colours_swapped(fen)))
        assert red == -black, fen


def test_a_position_and_its_mirror_image_score_the_same() -> None:
    for fen in POSITIONS:
        assert leaf_score(make_board("xiangqi", fen)) == leaf_score(
            make_board("xiangqi", files_mirrored(fen))
        ), fen


def test_the_pieces_keep_their_order_of_worth() -> None:
    values = XIANGQI_VALUES
    assert values[CHARIOT] > max(values[HORSE], values[CANNON])
    assert min(values[HORSE], values[CANNON]) > max(values[ADVISOR], values[ELEPHANT])
    assert min(values[ADVISOR], values[ELEPHANT]) > 0
    # Two minor pieces are not given for a chariot lightly, nor a chariot for a minor piece.
    assert values[CHARIOT] > values[HORSE] + values[ADVISOR]


def test_a_soldier_across_the_river_is_worth_more_than_one_at_home() -> None:
    home = make_board("xiangqi", "3k5/9/9/9/9/9/4P4/9/9/4K4 w - - 0 1")
    crossed = make_board("xiangqi", "3k5/9/9/9/4P4/9/9/9/9/4K4 w - - 0 1")
    assert XIANGQI_EVALUATOR.full(crossed.squares) > XIANGQI_EVALUATOR.full(home.squares)


def test_advisors_count_for_more_while_enemy_chariots_remain() -> None:
    """A general stripped of its advisors is in danger only while the enemy can attack:
    losing them costs more against two chariots than against none."""
    attacked_full = "3akab2/9/9/9/9/9/9/9/R8/1R1K5 w - - 0 1"
    attacked_bare = "4k1b2/9/9/9/9/9/9/9/R8/1R1K5 w - - 0 1"
    quiet_full = "3akab2/9/9/9/9/9/9/9/9/3K5 w - - 0 1"
    quiet_bare = "4k1b2/9/9/9/9/9/9/9/9/3K5 w - - 0 1"

    def full(fen: str) -> int:
        return XIANGQI_EVALUATOR.full(make_board("xiangqi", fen).squares)

    assert full(attacked_bare) - full(attacked_full) > full(quiet_bare) - full(quiet_full)


# In each, the material count alone gives the side that cannot win a clear lead (checked
# below): only the ending's knowledge makes it a draw.
DRAWN = [
    ("2bakab2/9/9/9/R8/9/9/9/9/3K5 w - - 0 1", "a lone chariot against the full defence"),
    ("4k4/9/9/9/9/9/9/2C6/9/3K5 w - - 0 1", "a lone cannon against a bare general"),
]
WON = [
    ("2bak1b2/9/9/9/R8/9/9/9/9/3K5 w - - 0 1", "a chariot once an advisor has gone"),
    ("3ak4/9/9/9/9/9/4N4/9/9/3K5 w - - 0 1", "a horse against a single advisor"),
    ("4k4/9/9/9/9/9/9/2C6/4A4/3K5 w - - 0 1", "a cannon with an advisor to screen it"),
]


@pytest.mark.parametrize(("fen", "what"), DRAWN)
def test_known_drawn_endings_are_judged_drawn(fen: str, what: str) -> None:
    board = make_board("xiangqi", fen)
    assert cannot_win(piece_counts(board.squares), 0), what
    assert leaf_score(board) > 150, what  # what the count alone says
    result = choose_move(board, "advanced", nodes=20_000)
    assert abs(result.score) < 100, (what, result)


@pytest.mark.parametrize(("fen", "what"), WON)
def test_endings_that_can_be_won_keep_their_edge(fen: str, what: str) -> None:
    board = make_board("xiangqi", fen)
    assert not cannot_win(piece_counts(board.squares), 0), what
    result = choose_move(board, "advanced", nodes=20_000)
    assert result.score > 150, (what, result)


@pytest.mark.parametrize("piece", ["N", "P"])
def test_a_lone_horse_or_soldier_cannot_break_two_advisors(piece: str) -> None:
    """Its side's lead shrinks to a fraction against both advisors, not against one. (The
    search may still find an advisor to win, so this is judged at the leaf.)"""
    both = make_board("xiangqi", f"3aka3/9/9/9/6{piece}2/9/9/9/9/2BK2B2 w - - 0 1")
    one = make_board("xiangqi", f"3ak4/9/9/9/6{piece}2/9/9/9/9/2BK2B2 w - - 0 1")
    assert cannot_win(piece_counts(both.squares), 0)
    assert not cannot_win(piece_counts(one.squares), 0)
    lead = leaf_score(both)
    assert lead > 150
    assert 0 <= drawn_scaled(piece_counts(both.squares), lead) <= lead // 8
    lead = leaf_score(one)
    assert drawn_scaled(piece_counts(one.squares), lead) == lead


def test_the_side_behind_keeps_its_full_deficit_when_the_other_can_win() -> None:
    """The draw scaling shrinks only the lead of a side that cannot win: a lone horse against
    both advisors is a draw for Red, but Black's extra chariot still counts in full."""
    board = make_board("xiangqi", "3akar2/9/9/9/9/9/4N4/9/9/3K5 w - - 0 1")
    result = choose_move(board, "advanced", nodes=20_000)
    assert result.score < -300, result
