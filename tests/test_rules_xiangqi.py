"""Xiangqi rules, one test per SPEC id (X1–X5, E1–E3), plus FEN, moves and perft."""

from __future__ import annotations

import pytest

from chuhan.rules import (
    Board,
    FenError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    make_board,
    parse_square,
    square_name,
)

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


# ---------------------------------------------------------------- FEN and moves (SPEC §0)


def test_start_fen_round_trips() -> None:
    board = Board()
    assert board.fen() == START
    assert Board(START).fen() == START


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("rnbakabnr/9/1c5c1 w - - 0 1", "ranks"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w - - 0 1", "points"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1", "side"),
        ("rnbazabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", "letter"),
        ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", "no general"),
        ("4k4/9/9/9/9/9/9/9/9/K8 w - - 0 1", "outside its palace"),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "not to move is in check"),
        ("3k5/9/9/9/9/9/9/9/3P5/4K4 w - - 0 1", "cannot stand"),
    ],
)
def test_bad_fen_raises_a_specific_error(fen: str, reason: str) -> None:
    with pytest.raises(FenError, match=reason):
        Board(fen)


def test_move_text_reads_and_prints_canonically() -> None:
    assert str(Move.parse("h3e3")) == "h3e3"
    assert str(Move.parse("a10a9")) == "a10a9"
    for bad in ("h3", "z3e3", "h11h3", "h0h3", ""):
        with pytest.raises(InvalidMoveError):
            Move.parse(bad)


def test_illegal_move_raises_and_changes_nothing() -> None:
    board = Board()
    with pytest.raises(IllegalMoveError):
        board.push("h3h8")  # a cannon captures only over a screen
    assert board.fen() == START


def test_push_pop_restores_position_and_history() -> None:
    board = Board()
    for text in ("h3e3", "h10g8", "e3e7", "i10i9"):
        board.push(text)
    assert board.ply == 4
    for _ in range(4):
        board.pop()
    assert board.fen() == START
    assert board.ply == 0


# ---------------------------------------------------------------- perft (the published figures)


@pytest.mark.parametrize(("depth", "nodes"), [(1, 44), (2, 1920), (3, 79666), (4, 3290240)])
def test_perft_from_start(depth: int, nodes: int) -> None:
    assert Board().perft(depth) == nodes


@pytest.mark.parametrize(
    ("fen", "nodes"),
    [
        ("1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1", 4485547),
        ("4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1", 92741),
    ],
)
def test_perft_fairy_stockfish_positions(fen: str, nodes: int) -> None:
    assert Board(fen).perft(4) == nodes


# ---------------------------------------------------------------- X1–X5


def test_X1_sixteen_pieces_a_side_and_red_moves_first() -> None:
    board = Board()
    red = sorted(board.piece_letter(p) or "" for p in range(90) if board.squares[p] > 0)
    black = sorted(board.piece_letter(p) or "" for p in range(90) if board.squares[p] < 0)
    assert "".join(red) == "AABBCCKNNPPPPPRR"
    assert "".join(black) == "aabbccknnppppprr"
    assert board.turn_name == "red"


def test_X2_general_stays_in_palace_one_point_orthogonally() -> None:
    board = Board("5k3/9/9/9/9/9/9/3K5/9/9 w - - 0 1")
    assert _dests(board, "d3") == {"d2", "e3"}


def test_X2_advisor_one_point_diagonally_palace_only() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1")
    assert _dests(board, "e2") == {"d3", "f3", "f1"}  # d1 holds the general


def test_X2_elephant_blocked_by_eye_and_never_crosses_river() -> None:
    board = Board("3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1")
    assert _dests(board, "c5") == {"a3", "e3"}  # a7/e7 would cross the river
    blocked = Board("3k5/9/9/9/9/9/9/4B4/3r5/4K4 w - - 0 1")
    assert _dests(blocked, "e3") == {"g1", "c5", "g5"}  # eye d2 occupied: no c1


def test_X2_horse_blocked_by_its_leg() -> None:
    board = Board("3k5/9/9/9/9/9/9/9/1p7/1N2K4 w - - 0 1")
    assert _dests(board, "b1") == {"d2"}  # leg b2 blocks a3 and c3


def test_X2_chariot_slides_and_captures_first_piece() -> None:
    board = Board("4k4/9/9/9/9/R3p4/9/9/9/3K5 w - - 0 1")
    dests = _dests(board, "a5")
    assert {"b5", "c5", "d5", "e5"} <= dests
    assert "f5" not in dests
    assert "a10" in dests
    assert "a1" in dests


def test_X2_cannon_captures_only_over_exactly_one_screen() -> None:
    board = Board("4k4/9/9/4r4/9/9/4p4/9/4C4/3K5 w - - 0 1")
    dests = _dests(board, "e2")
    assert "e4" not in dests  # cannot capture the soldier directly
    assert "e3" in dests  # slides like a chariot to empty points
    assert "e7" in dests  # captures the chariot over the soldier screen
    assert "e10" not in dests  # two screens: no capture of the general


def test_X2_soldier_forward_then_sideways_after_river_never_back() -> None:
    board = Board("4k4/9/9/9/4P4/9/P8/9/9/3K5 w - - 0 1")
    assert _dests(board, "a4") == {"a5"}
    assert _dests(board, "e6") == {"e7", "d6", "f6"}


def test_X3_flying_general_move_that_opens_the_file_is_illegal() -> None:
    board = Board("4k4/9/9/9/9/4C4/9/9/9/4K4 w - - 0 1")
    assert _dests(board, "e5") == {"e2", "e3", "e4", "e6", "e7", "e8", "e9"}
    # the general may not step onto an open file facing the other general
    board = Board("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    assert "d1" not in _dests(board, "e1")


def test_X4_pinned_piece_cannot_expose_its_general() -> None:
    board = Board("3k5/4r4/9/9/9/9/9/9/4N4/4K4 w - - 0 1")
    assert _dests(board, "e2") == set()
    assert "e2" not in {str(m)[2:] for m in board.legal_moves}


def test_X5_checkmate_loses() -> None:
    board = Board("R3k4/8R/9/9/9/9/9/9/9/3K5 b - - 0 1")
    assert board.is_check()
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "checkmate")


def test_X5_stalemate_loses_not_a_draw() -> None:
    board = Board("4k4/R8/9/9/9/9/9/9/5R3/3K5 b - - 0 1")
    assert not board.is_check()
    assert board.legal_moves == []
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "stalemate")


def test_X5_mate_outranks_the_no_capture_limit() -> None:
    board = Board("4k4/8R/9/9/9/9/9/9/9/R2K5 w - - 119 70")
    board.push("a1a10")
    assert board.halfmove == 120
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "checkmate"


def test_no_move_after_the_end() -> None:
    board = Board("R3k4/8R/9/9/9/9/9/9/9/3K5 b - - 0 1")
    with pytest.raises(GameOverError):
        board.push("e10e9")


# ---------------------------------------------------------------- E1–E3


HORSE_SHUFFLE = ["b1c3", "b10c8", "c3b1", "c8b10"]


def test_E1_third_occurrence_is_a_draw_and_the_start_counts() -> None:
    board = Board()
    for text in HORSE_SHUFFLE + HORSE_SHUFFLE[:3]:
        board.push(text)
    assert board.outcome() is None
    board.push(HORSE_SHUFFLE[3])
    assert board.repetition_count() == 3
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, "repetition")


def test_E1_perpetual_check_loses() -> None:
    board = Board("4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1")
    cycle = ["a9a10", "e10e9", "a10a9", "e9e10"]
    for text in cycle * 2:
        board.push(text)
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (1, "perpetual_check")


def test_E2_no_capture_limit_draws_and_soldier_moves_do_not_reset() -> None:
    board = Board("4k4/9/9/9/9/9/P8/9/9/3K5 w - - 118 60")
    board.push("a4a5")
    assert board.halfmove == 119
    assert board.outcome() is None
    board.push("e10e9")
    assert board.halfmove == 120
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, "no_capture_limit")


def test_E2_capture_resets_the_counter() -> None:
    board = Board("4k4/9/9/9/9/p8/P8/9/9/3K5 w - - 119 60")
    board.push("a4a5")
    assert board.halfmove == 0
    assert board.outcome() is None


def test_E3_no_attacking_piece_left_is_a_draw() -> None:
    board = Board("3ak4/9/4b4/9/9/9/9/9/4A4/3K2B2 w - - 0 1")
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, "insufficient_material")


def test_make_board_rejects_unknown_variant_and_options() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        make_board("shogi")
    with pytest.raises(ValueError, match="no option"):
        make_board("xiangqi", setup="HEHE:HEHE")


def _dests(board: Board, point: str) -> set[str]:
    """Where the piece on ``point`` may legally go."""
    origin = parse_square(point)
    return {square_name(m.to_point) for m in board.legal_moves if m.from_point == origin}
