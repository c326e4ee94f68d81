"""Move notations, written and read back (SPEC N1 coordinates, N2 WXF, N3 Chinese; Korean
janggi notation; jieqi reveals)."""

from __future__ import annotations

import random

import pyffish as sf
import pytest

from chuhan.rules import IllegalMoveError, Move, make_board
from chuhan.rules.notation import (
    AmbiguousMoveError,
    NotationError,
    detect_notation,
    read_move,
    read_reveal,
    write_legal_moves,
    write_move,
    write_moves,
)

# 中炮对屏风马 (central cannon against the screen horses), as printed in opening books.
SCREEN_HORSES = {
    "coords": "h3-e3 h10-g8 h1-g3 i10-h10 i1-h1 b10-c8 c4-c5 g7-g6 h1-h7 h8-i8 h7-g7 i8-i9 "
    "b1-c3 d10-e9 c3-d5 i9-g9 g7-f7 g8-h6",
    "iccs": "H2-E2 H9-G7 H0-G2 I9-H9 I0-H0 B9-C7 C3-C4 G6-G5 H0-H6 H7-I7 H6-G6 I7-I8 "
    "B0-C2 D9-E8 C2-D4 I8-G8 G6-F6 G7-H5",
    "wxf": "C2.5 H8+7 H2+3 R9.8 R1.2 H2+3 P7+1 P7+1 R2+6 C8.9 R2.3 C9-1 "
    "H8+7 A4+5 H7+6 C9.7 R3.4 H7+8",
    "chinese": "炮二平五 马8进7 马二进三 车9平8 车一平二 马2进3 兵七进一 卒7进1 车二进六 炮8平9 "
    "车二平三 炮9退1 马八进七 士4进5 马七进六 炮9平7 车三平四 马7进8",
}
# 顺炮 with the first tandem of a real game: 前炮退二 (the xqbase ICCS example).
SAME_DIRECTION_CANNONS = {
    "coords": "h3-e3 h8-e8 e3-e7 d10-e9 h1-g3 h10-g8 b3-e3 b10-c8 e7-e5 i10-h10",
    "wxf": "C2.5 C8.5 C5+4 A4+5 H2+3 H8+7 C8.5 H2+3 C+-2 R9.8",
    "chinese": "炮二平五 炮8平5 炮五进四 士4进5 马二进三 马8进7 炮八平五 马2进3 前炮退二 车9平8",
}


def _canonical(line: str) -> list[str]:
    return [text.replace("-", "") for text in line.split()]


@pytest.mark.parametrize("notation", sorted(SCREEN_HORSES))
def test_opening_line_is_written_in_each_notation_n1_n2_n3(notation: str) -> None:
    board = make_board()
    written = write_moves(board, _canonical(SCREEN_HORSES["coords"]), notation)
    assert written == SCREEN_HORSES[notation].split()
    assert board.ply == 0


@pytest.mark.parametrize("notation", sorted(SCREEN_HORSES))
def test_opening_line_is_read_back_from_each_notation_n1_n2_n3(notation: str) -> None:
    board = make_board()
    for text, expected in zip(
        SCREEN_HORSES[notation].split(), _canonical(SCREEN_HORSES["coords"]), strict=True
    ):
        move = read_move(board, text, notation)
        assert str(move) == expected
        board.push(move)


@pytest.mark.parametrize("notation", sorted(SAME_DIRECTION_CANNONS))
def test_front_cannon_in_a_real_opening_both_ways_n2_n3(notation: str) -> None:
    moves = _canonical(SAME_DIRECTION_CANNONS["coords"])
    assert write_moves(make_board(), moves, notation) == SAME_DIRECTION_CANNONS[notation].split()
    board = make_board()
    for text in SAME_DIRECTION_CANNONS[notation].split():
        board.push(read_move(board, text))  # detected, not named
    assert [str(m) for m in board.move_stack] == moves


def test_chinese_is_read_in_traditional_characters_and_full_width_digits_n3() -> None:
    board = make_board()
    line = "炮二平五 馬８進７ 傌二進三 車９平８ 俥一平二 馬2進3 兵七進一 卒７進１"
    for text in line.split(" "):
        board.push(read_move(board, text))
    assert [str(m) for m in board.move_stack] == _canonical(SCREEN_HORSES["coords"])[:8]


def test_wxf_reads_letter_synonyms_and_the_equals_sign_n2() -> None:
    board = make_board()
    assert str(read_move(board, "c2=5")) == "h3e3"
    board.push("h3e3")
    assert str(read_move(board, "N8+7", "wxf")) == "h10g8"
    assert str(read_move(board, "G5+1", "wxf")) == "e10e9"  # G: the general (SPEC N2)
    assert str(read_move(board, "B3+5", "wxf")) == "c10e8"
    assert str(read_move(board, "S7+1", "wxf")) == "g7g6"


def test_coordinates_and_iccs_differ_by_one_rank() -> None:
    board = make_board()
    assert str(read_move(board, "h3-e3")) == "h3e3"
    assert str(read_move(board, "H2-E2")) == "h3e3"
    assert str(read_move(board, "h2e2", "iccs")) == "h3e3"
    assert write_move(board, Move.parse("a1a2"), "iccs") == "A0-A1"


# ---------------------------------------------------------------- disambiguation (N2, N3)

TANDEM_CHARIOTS = "3k5/9/9/9/9/4R4/9/4R4/9/5K3 w - - 0 1"  # Red chariots e5, e3


@pytest.mark.parametrize(
    ("move", "wxf", "chinese"),
    [
        ("e5f5", "R+.4", "前车平四"),
        ("e3f3", "R-.4", "后车平四"),
        ("e5e6", "R++1", "前车进一"),
        ("e3e4", "R-+1", "后车进一"),
    ],
)
def test_tandem_chariots_are_front_and_rear_n2_n3(move: str, wxf: str, chinese: str) -> None:
    board = make_board("xiangqi", TANDEM_CHARIOTS)
    assert write_move(board, move, "wxf") == wxf
    assert write_move(board, move, "chinese") == chinese
    assert str(read_move(board, wxf)) == move
    assert str(read_move(board, chinese)) == move
    assert str(read_move(board, chinese.replace("后", "後").replace("车", "車"))) == move


@pytest.mark.parametrize(
    ("move", "wxf", "chinese"),
    [("e8e9", "C--1", "后炮退1"), ("e5e4", "C++1", "前炮进1"), ("e8d8", "C-.4", "后炮平4")],
)
def test_tandem_black_cannons_count_from_blacks_side_n2_n3(
    move: str, wxf: str, chinese: str
) -> None:
    board = make_board("xiangqi", "5k3/9/4c4/9/9/4c4/9/9/9/3K5 b - - 0 1")
    assert write_move(board, move, "wxf") == wxf
    assert write_move(board, move, "chinese") == chinese
    assert str(read_move(board, wxf)) == move
    assert str(read_move(board, chinese)) == move


def test_a_file_shared_by_two_chariots_is_ambiguous_without_front_or_rear() -> None:
    board = make_board("xiangqi", TANDEM_CHARIOTS)
    for text in ("R5.4", "车五平四", "R5-1"):
        with pytest.raises(AmbiguousMoveError, match="ambiguous: two chariots on file 5"):
            read_move(board, text)


def test_reading_forgives_a_missing_front_when_only_one_chariot_can_move_so() -> None:
    board = make_board("xiangqi", TANDEM_CHARIOTS)
    assert str(read_move(board, "R5+5")) == "e5e10"  # the rear chariot is blocked


# Red soldiers stacked on file c (Red's file 7), moving sideways to file 6.
RED_SOLDIERS = {
    3: "2P1k4/2P6/2P6/9/9/9/9/9/9/3K5 w - - 0 1",
    4: "2P1k4/2P6/2P6/2P6/9/9/9/9/9/3K5 w - - 0 1",
    5: "2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w - - 0 1",
}


@pytest.mark.parametrize(
    ("count", "wxf", "chinese"),
    [
        (3, ["P+.6", "P7.6", "P-.6"], ["前兵平六", "中兵平六", "后兵平六"]),
        (4, ["++.6", "P+.6", "P-.6", "--.6"], ["一兵平六", "二兵平六", "三兵平六", "四兵平六"]),
        (
            5,
            ["++.6", "P+.6", "P7.6", "P-.6", "--.6"],
            ["一兵平六", "二兵平六", "三兵平六", "四兵平六", "五兵平六"],
        ),
    ],
)
def test_three_four_and_five_soldiers_on_a_file_follow_the_wxf_rules_n2_n3(
    count: int, wxf: list[str], chinese: list[str]
) -> None:
    board = make_board("xiangqi", RED_SOLDIERS[count])
    moves = [f"c{rank}d{rank}" for rank in range(10, 10 - count, -1)]  # front first
    assert [write_move(board, m, "wxf") for m in moves] == wxf
    assert [write_move(board, m, "chinese") for m in moves] == chinese
    assert [str(read_move(board, text)) for text in wxf] == moves
    assert [str(read_move(board, text)) for text in chinese] == moves


def test_five_black_soldiers_on_a_file_count_from_blacks_front_n2_n3() -> None:
    board = make_board("xiangqi", "3k5/9/9/9/9/6p2/6p2/6p2/6p2/4K1p2 b - - 0 1")
    moves = ["g1f1", "g2f2", "g3f3", "g4f4", "g5f5"]  # Black's front is the bottom
    wxf = ["++.6", "P+.6", "P7.6", "P-.6", "--.6"]
    chinese = ["一卒平6", "二卒平6", "三卒平6", "四卒平6", "五卒平6"]
    assert [write_move(board, m, "wxf") for m in moves] == wxf
    assert [write_move(board, m, "chinese") for m in moves] == chinese
    assert [str(read_move(board, text)) for text in wxf + chinese] == moves + moves


def test_soldiers_stacked_on_two_files_name_the_file_first_n2_n3() -> None:
    # Black: three soldiers on its file 3 (c) and two on its file 7 (g), the WXF example.
    board = make_board("xiangqi", "3k5/9/9/9/9/2p3p2/2p3p2/2p6/9/4K4 b - - 0 1")
    moves = ["c3d3", "c4d4", "c5d5", "g4f4", "g5f5"]
    wxf = ["3+.4", "33.4", "3-.4", "7+.6", "7-.6"]
    chinese = ["一卒平4", "二卒平4", "三卒平4", "四卒平6", "五卒平6"]
    assert [write_move(board, m, "wxf") for m in moves] == wxf
    assert [write_move(board, m, "chinese") for m in moves] == chinese
    assert [str(read_move(board, text)) for text in wxf + chinese] == moves + moves


def test_red_soldiers_on_two_files_are_numbered_from_reds_right_n2_n3() -> None:
    board = make_board("xiangqi", "2P1k4/2P3P2/2P3P2/9/9/9/9/9/9/3K5 w - - 0 1")
    moves = ["g9f9", "g8f8", "c10d10", "c9d9", "c8d8"]
    assert [write_move(board, m, "wxf") for m in moves] == ["3+.4", "3-.4", "7+.6", "77.6", "7-.6"]
    assert [write_move(board, m, "chinese") for m in moves] == [
        "一兵平四",
        "二兵平四",
        "三兵平六",
        "四兵平六",
        "五兵平六",
    ]
    # Other programs write 前兵三…/前三… (front soldier of file 3): read too.
    assert str(read_move(board, "前兵三平四")) == "g9f9"
    assert str(read_move(board, "后三平四")) == "g8f8"
    assert str(read_move(board, "中兵七平六")) == "c9d9"
    # Not the official two-file form, but only one front soldier can reach file 4.
    assert str(read_move(board, "P+.4", "wxf")) == "g9f9"


def test_advisors_and_elephants_are_never_front_or_rear_n2() -> None:
    board = make_board("xiangqi", "3k5/9/9/9/9/2B6/9/3A5/9/2BAK4 w - - 0 1")
    assert write_move(board, "d1e2", "wxf") == "A6+5"
    assert write_move(board, "d3e2", "wxf") == "A6-5"
    assert write_move(board, "c1e3", "wxf") == "E7+5"
    assert write_move(board, "c5e3", "wxf") == "E7-5"
    assert write_move(board, "c5e3", "chinese") == "相七退五"
    assert str(read_move(board, "仕六退五")) == "d3e2"


# ---------------------------------------------------------------- errors and detection


def test_unreadable_or_impossible_text_names_the_reason() -> None:
    board = make_board()
    with pytest.raises(NotationError, match="not a WXF move"):
        read_move(board, "Z9+9")
    with pytest.raises(NotationError, match="no red chariot on file 5"):
        read_move(board, "R5+1")
    with pytest.raises(NotationError, match="not a legal move"):
        read_move(board, "R1+3")  # its own soldier stands on i4
    with pytest.raises(NotationError, match="not a legal move"):
        read_move(board, "h3-h9")
    with pytest.raises(NotationError, match="empty"):
        read_move(board, "  ")
    with pytest.raises(NotationError, match="unknown notation"):
        write_move(board, "h3e3", "algebraic")
    with pytest.raises(IllegalMoveError):
        write_move(board, "h3h9", "wxf")


@pytest.mark.parametrize(
    ("text", "notation"),
    [
        ("h3-e3", "coords"),
        ("h3e3", "coords"),
        ("a10a9", "coords"),
        ("H2-E2", "iccs"),
        ("C2.5", "wxf"),
        ("R+.4", "wxf"),
        ("炮二平五", "chinese"),
        ("马８进７", "chinese"),
    ],
)
def test_the_notation_is_detected_from_the_text(text: str, notation: str) -> None:
    assert detect_notation(text) == notation


# ---------------------------------------------------------------- janggi and jieqi


def test_janggi_korean_notation_is_row_first_from_chos_side() -> None:
    board = make_board("janggi")
    moves = ["i4h4", "a7b7", "h1g3", "pass"]
    assert write_moves(board, moves, "korean") == ["79卒78", "41兵42", "08馬87", "한수쉼"]
    for text, expected in [("79卒78", "i4h4"), ("79楚卒78", "i4h4"), ("79졸78", "i4h4")]:
        assert str(read_move(board, text)) == expected
    board.push("i4h4")
    assert str(read_move(board, "41漢兵42")) == "a7b7"
    assert str(read_move(board, "한수쉼")).startswith("pass")


def test_janggi_korean_reading_checks_the_named_piece() -> None:
    board = make_board("janggi")
    with pytest.raises(NotationError, match="not a 馬"):
        read_move(board, "79馬78")


def test_each_variant_refuses_notations_it_does_not_use() -> None:
    with pytest.raises(NotationError, match="janggi uses korean"):
        write_move(make_board("janggi"), "i4h4", "wxf")
    with pytest.raises(NotationError, match="for janggi"):
        write_move(make_board(), "h3e3", "korean")


def _first_identity(board: object, point: str) -> str:
    arrangement, _salt = board.reveal()  # type: ignore[attr-defined]
    identities: dict[str, str] = dict(item.split("=") for item in arrangement.split())
    return identities[point]


@pytest.mark.parametrize("notation", ["coords", "iccs", "wxf", "chinese"])
def test_jieqi_reveal_is_written_with_what_the_piece_became_q3(notation: str) -> None:
    board = make_board("jieqi", seed=7)
    letter = _first_identity(board, "a1")  # what the face-down "chariot" on a1 really is
    text = write_move(board, "a1a2", notation)
    plain = {"coords": "a1-a2", "iccs": "A0-A1", "wxf": "R9+1", "chinese": "车九进一"}[notation]
    assert text.startswith(plain + "(")
    assert read_reveal(text) == letter.upper()
    assert str(read_move(board, text)) == "a1a2"
    board.push("a1a2")
    assert write_move(board, "a10a9", "wxf").startswith("R1+1(")


def test_jieqi_reveal_of_a_board_that_does_not_know_yet_is_left_out_q3() -> None:
    view = make_board("jieqi", seed=7).view("red")  # type: ignore[attr-defined]
    blind = type(make_board("jieqi", seed=1)).from_view(view)  # type: ignore[attr-defined]
    assert write_move(blind, "a1a2", "wxf") == "R9+1"
    assert write_move(blind, "a1a2", "wxf", reveal="C") == "R9+1(C)"


def test_jieqi_elephants_that_cross_the_river_are_told_apart_when_needed_q4_n2() -> None:
    board = make_board("jieqi", "3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1")  # c5 and c1
    written = {m: write_move(board, m, "wxf") for m in ("c1e3", "c5e7", "c5e3")}
    assert written == {"c1e3": "E-+5", "c5e7": "E++5", "c5e3": "E7-5"}
    assert write_move(board, "c5e7", "chinese") == "前相进五"
    for move, text in written.items():
        assert str(read_move(board, text)) == move


@pytest.mark.parametrize("variant", ["xiangqi", "jieqi"])
def test_every_legal_move_of_random_games_has_its_own_text_and_reads_back(variant: str) -> None:
    """N2/N3: in every position of a few seeded random games, no two legal moves are written
    alike, and each text reads back to its move (also after traditional/full-width folding)."""
    rng = random.Random(2026)
    for game in range(2):
        board = make_board(variant, None, **({"seed": game} if variant == "jieqi" else {}))
        for _ply in range(70):
            legal = board.legal_moves
            if not legal or board.outcome() is not None:
                break
            for notation in ("wxf", "chinese"):
                written = write_legal_moves(board, notation)
                texts = list(written.values())
                assert len(set(texts)) == len(texts), (board.fen(), notation, texts)
                for move in rng.sample(legal, min(3, len(legal))):
                    assert write_move(board, move, notation) == written[move]
                    assert read_move(board, written[move], notation) == move
            board.push(rng.choice(legal))


def test_wxf_agrees_with_fairy_stockfish_wherever_no_tandem_is_involved_n2() -> None:
    """Fairy-Stockfish writes WXF with ``=`` for sideways moves and its own tandem dialect;
    for every piece alone of its kind on its file both must name the same move."""
    rng = random.Random(11)
    compared = 0
    for _game in range(1):
        board = make_board()
        for _ply in range(80):
            if board.outcome() is not None:
                break
            fen = board.fen()
            written = write_legal_moves(board, "wxf")
            lone = [move for move, text in written.items() if text[1] not in "+-"]
            for move in rng.sample(lone, min(2, len(lone))):  # pyffish is slow per call
                theirs = sf.get_san("xiangqi", fen, str(move), False, sf.NOTATION_XIANGQI_WXF)
                assert theirs.replace("=", ".") == written[move], (fen, str(move))
                compared += 1
            board.push(rng.choice(list(written)))
    assert compared > 100


def test_korean_points_agree_with_fairy_stockfish_janggi_notation() -> None:
    """Fairy-Stockfish writes janggi moves as ``P79-78``: the same row-first points."""
    rng = random.Random(3)
    board = make_board("janggi")
    for _ply in range(40):
        if board.outcome() is not None:
            break
        fen = board.fen()
        written = write_legal_moves(board, "korean")
        move = rng.choice([m for m in written if not m.is_pass])
        theirs = sf.get_san("janggi", fen, str(move), False, sf.NOTATION_JANGGI)
        assert theirs[1:3] + theirs[4:6] == written[move][:2] + written[move][-2:], str(move)
        board.push(rng.choice(list(written)))


def test_soldiers_on_two_files_follow_the_xqbase_worked_example_n3() -> None:
    """xqbase 《着法表示》: Red soldiers doubled on files 四 and 六 are 一兵 F8-E8, 二兵 F6-E6,
    三兵 D8-E8, 四兵 D6-E6: the mover's right-hand file first, then front to back."""
    board = make_board("xiangqi", "4k4/3P1P3/9/3P1P3/9/9/9/9/9/3K5 w - - 0 1")
    expected = {"F8-E8": "一兵平五", "F6-E6": "二兵平五", "D8-E8": "三兵平五", "D6-E6": "四兵平五"}
    for iccs, chinese in expected.items():
        move = read_move(board, iccs, "iccs")
        assert write_move(board, move, "chinese") == chinese
        assert read_move(board, chinese) == move


@pytest.mark.parametrize(
    "fen",
    [
        "2P1k4/2P6/2P6/9/9/9/9/9/9/3K5 w - - 0 1",
        "2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w - - 0 1",
        "3k5/9/9/9/9/2p3p2/2p3p2/2p6/9/4K4 b - - 0 1",
        "3k5/9/9/9/9/4R4/9/4R4/9/5K3 w - - 0 1",
    ],
)
def test_fairy_stockfish_wxf_dialect_is_read_too_n2(fen: str) -> None:
    """Records written by Fairy-Stockfish GUIs (``C2=5``, ``R+=4``, soldiers as place-then-file
    ``24=3``) import; only its ``33=4`` (third on file 3) is read the WXF way (the middle)."""
    board = make_board("xiangqi", fen)
    for move in board.legal_moves:
        theirs = sf.get_san("xiangqi", fen, str(move), False, sf.NOTATION_XIANGQI_WXF)
        if theirs[0] == theirs[1]:
            continue
        assert read_move(board, theirs, "wxf") == move, theirs
