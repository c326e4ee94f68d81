"""Janggi rules, one test per SPEC id (J1–J9), the four setups, perft and the command line."""

from __future__ import annotations

import io
import json
import random

import pytest

from chuhan.cli import main
from chuhan.rules import (
    GameOverError,
    IllegalMoveError,
    JanggiBoard,
    RulesError,
    janggi_start_fen,
    make_board,
)
from chuhan.rules.board import PASS_CODE
from chuhan.rules.geometry import parse_square
from chuhan.rules.janggi import SETUPS, RuleOptionError, SetupError

FAIRY_STOCKFISH_START = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
# The two positions of Fairy-Stockfish's janggi perft list (tests/perft.sh).
MIDDLEGAME = "1n1kaabn1/cr2N4/5C1c1/p1pNp3p/9/9/P1PbP1P1P/3r1p3/4A4/R1BA1KB1R b - - 0 1"
ENDGAME = "1Pbcka3/3nNn1c1/N2CaC3/1pB6/9/9/5P3/9/4K4/9 w - - 0 23"


def fen_of(pieces: dict[str, str], turn: str = "w", move_number: int = 1) -> str:
    """A FEN from ``{"e2": "K", "d10": "k", …}`` (upper case Cho, lower case Han)."""
    grid = [[""] * 9 for _ in range(10)]
    for square, letter in pieces.items():
        point = parse_square(square)
        grid[point // 9][point % 9] = letter
    rows = []
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for letter in grid[rank]:
            if letter:
                row += (str(empty) if empty else "") + letter
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {turn} - - 0 {move_number}"


def board_with(pieces: dict[str, str], turn: str = "w", **options: str) -> JanggiBoard:
    board = make_board("janggi", fen_of(pieces, turn), **options)
    assert isinstance(board, JanggiBoard)
    return board


def targets(board: JanggiBoard, square: str) -> set[str]:
    """Destinations of the legal moves of the piece on ``square``."""
    return {text[len(square) :] for text in board.legal_move_texts() if text.startswith(square)}


# Generals out of each other's way (no bikjang) for the piece tests.
KINGS = {"e2": "K", "d10": "k"}


# ---------------------------------------------------------------- J1 board


def test_J1_no_river_soldiers_step_sideways_and_elephants_cross_the_middle() -> None:
    board = board_with({**KINGS, "e5": "P", "c4": "B"})
    assert targets(board, "e5") == {"e6", "d5", "f5"}
    assert {"a7", "e7"} <= targets(board, "c4")  # two ranks beyond the middle of the board


def test_J1_both_palaces_have_diagonals() -> None:
    board = board_with({"f1": "K", "e10": "k", "d3": "R", "f8": "R"})
    assert "e2" in targets(board, "d3")
    assert "f1" not in targets(board, "d3")  # the own general blocks the far corner
    assert {"e9", "d10"} <= targets(board, "f8")
    outside = board_with({"f1": "K", "e10": "k", "c3": "R"})
    assert not {"d2", "d4", "b2", "b4"} & targets(outside, "c3")


# ---------------------------------------------------------------- J2 start


def test_J2_start_position_is_fairy_stockfish_janggi() -> None:
    board = JanggiBoard()
    assert board.fen() == FAIRY_STOCKFISH_START
    letters = {sq: board.piece_letter(parse_square(sq)) for sq in ("e2", "e9", "d1", "f10")}
    assert letters == {"e2": "K", "e9": "k", "d1": "A", "f10": "a"}
    assert [board.piece_letter(parse_square(sq)) for sq in ("b3", "h3", "b8", "h8")] == [
        "C",
        "C",
        "c",
        "c",
    ]
    soldiers = [f"{f}4" for f in "acegi"] + [f"{f}7" for f in "acegi"]
    assert {board.piece_letter(parse_square(sq)) for sq in soldiers} == {"P", "p"}
    assert board.SIDE_NAMES == ("cho", "han")
    assert board.turn_name == "cho"


# ---------------------------------------------------------------- J3 setups

# Back ranks from the a-file to the i-file. Cho reads its choice from the a-file, Han (sitting
# opposite) from the i-file, so the same choice mirrors.
CHO_BACK_RANK = {"HEHE": "RNBA1ANBR", "EHEH": "RBNA1ABNR", "HEEH": "RNBA1ABNR", "EHHE": "RBNA1ANBR"}
HAN_BACK_RANK = {"HEHE": "rbna1abnr", "EHEH": "rnba1anbr", "HEEH": "rnba1abnr", "EHHE": "rbna1anbr"}


@pytest.mark.parametrize("choice", SETUPS)
def test_J3_cho_setup_read_from_chos_left(choice: str) -> None:
    board = JanggiBoard(setup=f"{choice}:HEEH")
    assert board.board_fen().split("/")[9] == CHO_BACK_RANK[choice]
    assert board.board_fen().split("/")[0] == "rnba1abnr"
    assert board.setup == f"{choice}:HEEH"
    assert board.fen() == janggi_start_fen(choice, "HEEH")


@pytest.mark.parametrize("choice", SETUPS)
def test_J3_han_setup_read_from_hans_left(choice: str) -> None:
    board = JanggiBoard(setup=f"HEEH:{choice}")
    assert board.board_fen().split("/")[0] == HAN_BACK_RANK[choice]
    assert board.board_fen().split("/")[9] == "RNBA1ABNR"
    assert board.setup == f"HEEH:{choice}"
    assert board.legal_moves  # every setup is a playable start


def test_J3_default_setup_and_setup_of_a_start_fen() -> None:
    assert JanggiBoard().setup == "HEEH:HEEH"
    assert JanggiBoard(janggi_start_fen("EHHE", "HEHE")).setup == "EHHE:HEHE"
    assert JanggiBoard(MIDDLEGAME).setup is None


@pytest.mark.parametrize("bad", ["HEHE", "HHEE:HEHE", "HEHE:EEHH", "HEHE-HEHE", ""])
def test_J3_unknown_setup_is_a_clear_error(bad: str) -> None:
    with pytest.raises(SetupError, match="HEHE\\|EHEH\\|HEEH\\|EHHE"):
        JanggiBoard(setup=bad)


def test_J3_setup_and_fen_together_are_refused() -> None:
    with pytest.raises(SetupError, match="either"):
        JanggiBoard(FAIRY_STOCKFISH_START, setup="HEHE:HEHE")


# ---------------------------------------------------------------- J4 pieces


def test_J4_general_moves_along_palace_lines_and_stays_inside() -> None:
    centre = board_with({"e2": "K", "d10": "k"})
    assert targets(centre, "e2") == {"d1", "e1", "f1", "d2", "f2", "d3", "e3", "f3"}
    corner = board_with({"d1": "K", "d10": "k"})
    assert targets(corner, "d1") == {"e1", "d2", "e2"}
    edge = board_with({"e3": "K", "d10": "k"})
    assert targets(edge, "e3") == {"d3", "f3", "e2"}  # no diagonal off the lines, no e4


def test_J4_advisor_moves_like_the_general() -> None:
    board = board_with({"f1": "K", "d10": "k", "d2": "A", "e9": "a"}, turn="w")
    assert targets(board, "d2") == {"d1", "d3", "e2"}
    han = board_with({"f1": "K", "d10": "k", "e9": "a"}, turn="b")
    assert targets(han, "e9") == {"d9", "f9", "e8", "e10", "d8", "f8", "f10"}


def test_J4_chariot_slides_along_palace_diagonals() -> None:
    board = board_with({"f1": "K", "e10": "k", "f8": "R", "d10": "n"})
    assert {"e9", "d10"} <= targets(board, "f8")  # d10: a capture through the centre
    blocked = board_with({"f1": "K", "e10": "k", "f8": "R", "e9": "a", "d10": "n"})
    assert "e9" in targets(blocked, "f8")
    assert "d10" not in targets(blocked, "f8")


def test_J4_cannon_needs_a_bridge_to_move() -> None:
    board = board_with({**KINGS, "b3": "C"})
    assert targets(board, "b3") == set()
    bridged = board_with({**KINGS, "b3": "C", "b5": "P"})
    assert targets(bridged, "b3") == {"b6", "b7", "b8", "b9", "b10"}


def test_J4_cannon_cannot_jump_cannon() -> None:
    own = board_with({**KINGS, "b3": "C", "b5": "C"})
    assert targets(own, "b3") == set()
    enemy = board_with({**KINGS, "b3": "C", "b5": "c"})
    assert targets(enemy, "b3") == set()


def test_J4_cannon_never_captures_cannon() -> None:
    board = board_with({**KINGS, "b3": "C", "b5": "P", "b7": "c", "b9": "r"})
    assert targets(board, "b3") == {"b6"}
    chariot = board_with({**KINGS, "b3": "C", "b5": "P", "b7": "r"})
    assert targets(chariot, "b3") == {"b6", "b7"}


def test_J4_cannon_jumps_along_palace_diagonals() -> None:
    board = board_with({"f1": "K", "e10": "k", "d8": "C", "e9": "N"})
    assert "f10" in targets(board, "d8")  # over the centre bridge
    capture = board_with({"f1": "K", "e10": "k", "d8": "C", "e9": "N", "f10": "a"})
    assert "f10" in targets(capture, "d8")
    blocked_by_cannon = board_with({"f1": "K", "e10": "k", "d8": "C", "e9": "c"})
    assert "f10" not in targets(blocked_by_cannon, "d8")


def test_J4_horse_is_blocked_by_its_leg() -> None:
    board = board_with({**KINGS, "b1": "N"})
    assert targets(board, "b1") == {"a3", "c3", "d2"}
    blocked = board_with({**KINGS, "b1": "N", "b2": "R"})
    assert targets(blocked, "b1") == {"d2"}


def test_J4_elephant_is_blocked_by_either_intermediate_point() -> None:
    board = board_with({**KINGS, "e5": "B"})
    assert {"c8", "g8", "b7", "h7", "b3", "h3", "c2", "g2"} == targets(board, "e5")
    first_blocked = board_with({**KINGS, "e5": "B", "e6": "p"})
    assert not {"c8", "g8"} & targets(first_blocked, "e5")
    second_blocked = board_with({**KINGS, "e5": "B", "d7": "p"})
    assert "c8" not in targets(second_blocked, "e5")
    assert "g8" in targets(second_blocked, "e5")


def test_J4_soldier_steps_forward_or_sideways_never_back() -> None:
    board = board_with({**KINGS, "c5": "P", "g6": "p"})
    assert targets(board, "c5") == {"c6", "b5", "d5"}
    han = board_with({**KINGS, "c5": "P", "g6": "p"}, turn="b")
    assert targets(han, "g6") == {"g5", "f6", "h6"}


def test_J4_soldier_goes_diagonally_forward_on_enemy_palace_lines() -> None:
    corner = board_with({"e1": "K", "f10": "k", "d8": "P"})
    assert targets(corner, "d8") == {"d9", "c8", "e8", "e9"}
    side = board_with({"e1": "K", "f10": "k", "e8": "P"})
    assert targets(side, "e8") == {"e9", "d8", "f8"}  # e8 is on no diagonal
    centre = board_with({"e1": "K", "f8": "k", "e9": "P"})
    assert targets(centre, "e9") == {"e10", "d9", "f9", "d10", "f10"}
    han_in_chos_palace = board_with({"f1": "K", "d10": "k", "d3": "p"}, turn="b")
    assert targets(han_in_chos_palace, "d3") == {"d2", "c3", "e3", "e2"}
    outside = board_with({"e1": "K", "f10": "k", "c8": "P"})
    assert targets(outside, "c8") == {"c9", "b8", "d8"}


# ---------------------------------------------------------------- J5 check and mate


def test_J5_a_move_that_leaves_the_general_in_check_is_illegal() -> None:
    # The e3 horse shields Cho's general from the chariot on e8.
    board = board_with({"e2": "K", "d10": "k", "e3": "N", "e8": "r"})
    assert targets(board, "e3") == set()
    with pytest.raises(IllegalMoveError):
        board.push("e3c4")


def test_J5_checkmate_ends_the_game() -> None:
    board = board_with({"e2": "K", "d10": "k", "a1": "R", "b9": "R"})
    board.push("a1a10")
    outcome = board.outcome()
    assert board.is_check()
    assert board.legal_moves == []
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "checkmate")
    assert outcome.points is None


def test_J5_cannon_check_over_a_palace_bridge() -> None:
    board = board_with({"d1": "K", "d10": "k", "e2": "A", "f3": "c"})
    assert board.is_check()
    assert "pass" not in board.legal_move_texts()


# ---------------------------------------------------------------- J6 pass


def test_J6_pass_is_legal_only_when_not_in_check() -> None:
    board = JanggiBoard()
    assert "pass" in board.legal_move_texts()
    checked = board_with({"e2": "K", "d10": "k", "e8": "r"})
    assert checked.is_check()
    assert "pass" not in checked.legal_move_texts()
    with pytest.raises(IllegalMoveError):
        checked.push("pass")


def test_J6_no_stalemate_a_boxed_in_side_passes() -> None:
    # Every step of Cho's general is attacked, yet it is not in check: it passes.
    board = board_with({"e1": "K", "d10": "k", "d8": "r", "f8": "r", "c3": "n"})
    assert not board.is_check()
    assert board.legal_move_texts() == ["pass"]
    assert board.outcome() is None


def test_J6_two_consecutive_passes_end_the_game_by_points() -> None:
    board = JanggiBoard()
    board.push("pass")
    assert board.outcome() is None
    board.push("pass")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "double_pass"
    assert outcome.winner == 1
    assert outcome.points == (72.0, 73.5)
    with pytest.raises(GameOverError):
        board.push("a1a2")


def test_J6_passes_apart_do_not_end_the_game() -> None:
    board = JanggiBoard()
    board.push_many(["pass", "a7a6", "pass"])
    assert board.outcome() is None
    board.pop()
    board.push("a1a2")
    assert board.outcome() is None
    board.push_many(["pass", "pass"])
    assert board.is_game_over()
    board.pop()  # taking back the second pass reopens the game
    assert board.outcome() is None
    assert "pass" in board.legal_move_texts()


# ---------------------------------------------------------------- J7 bikjang

BIKJANG_OPENING = ["e4d4", "e7d7"]  # empties the e-file between e2 and e9


def test_J7_bikjang_off_has_no_effect() -> None:
    board = JanggiBoard()
    board.push_many(BIKJANG_OPENING)
    assert board.generals_facing()
    assert board.outcome() is None
    assert len(board.legal_moves) == 32  # the pass and every move, as without bikjang
    board.push("pass")
    assert board.outcome() is None


def test_J7_bikjang_points_ends_the_game_at_the_move_that_creates_it() -> None:
    board = JanggiBoard(bikjang="points")
    board.push("e4d4")
    assert board.outcome() is None
    board.push("e7d7")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "bikjang"
    assert (outcome.winner, outcome.points) == (1, (72.0, 73.5))


def test_J7_bikjang_points_ignores_moves_along_the_open_file() -> None:
    # Facing from the start of the record: moving a general along the file does not create it.
    board = board_with({"e2": "K", "e10": "k", "a1": "R"}, bikjang="points")
    board.push("e2e3")
    assert board.outcome() is None
    board.push("e10f10")
    board.push("a1a2")
    board.push("f10e10")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "bikjang"
    assert outcome.winner == 0


def test_J7_unknown_bikjang_option_is_a_clear_error() -> None:
    with pytest.raises(RuleOptionError, match="'off' or 'points'"):
        JanggiBoard(bikjang="draw")
    with pytest.raises(RulesError, match="no option"):
        make_board("janggi", colour="blue")


# ---------------------------------------------------------------- J8 points


def test_J8_points_per_piece_and_hans_bonus() -> None:
    assert JanggiBoard().points() == (72.0, 73.5)
    board = board_with({"e2": "K", "d10": "k", "a1": "R", "b1": "C", "c1": "N", "d1": "B"})
    board_han = board_with({"e2": "K", "d10": "k", "e9": "a", "b5": "p"})
    assert board.points() == (13 + 7 + 5 + 3, 1.5)
    assert board_han.points() == (0.0, 3 + 2 + 1.5)


def test_J8_higher_total_wins_a_points_decision() -> None:
    board = JanggiBoard()
    board.push_many(["c4c5", "c7c6", "c5c6", "pass", "pass"])
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "double_pass"
    assert outcome.points == (72.0, 71.5)
    assert outcome.winner == 0


# ---------------------------------------------------------------- J9 repetition, move limit


def test_J9_third_occurrence_ends_the_game_by_points() -> None:
    board = JanggiBoard()
    cycle = ["b1c3", "b10c8", "c3b1", "c8b10"]
    board.push_many(cycle)  # the start, second occurrence
    assert board.outcome() is None
    board.push_many(cycle)  # third occurrence
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "repetition"
    assert outcome.points == (72.0, 73.5)
    assert outcome.winner == 1


def test_J9_the_400th_half_move_ends_the_game_by_points() -> None:
    board = make_board("janggi", FAIRY_STOCKFISH_START.replace(" w - - 0 1", " b - - 0 200"))
    assert board.outcome() is None  # 399 half-moves played
    board.push("pass")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "move_limit"
    assert outcome.points == (72.0, 73.5)


def test_J9_mate_outranks_the_move_limit() -> None:
    # Han's mating move is the 400th half-move.
    board = make_board("janggi", fen_of({"d1": "K", "e9": "k", "a10": "r", "b2": "r"}, "b", 200))
    board.push("a10a1")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "checkmate"


# ---------------------------------------------------------------- perft


# Computed with pyffish 0.0.90 (`janggicasual`, which is bikjang `off`), recursing over
# `legal_moves` with the move history, so that two consecutive passes end a line as they do
# in Fairy-Stockfish: start 1083563 at depth 4; MIDDLEGAME 2644 and ENDGAME 8835 at depth 3.
@pytest.mark.parametrize(
    ("fen", "depth", "nodes"),
    [
        (FAIRY_STOCKFISH_START, 1, 32),
        (FAIRY_STOCKFISH_START, 2, 1024),
        (FAIRY_STOCKFISH_START, 3, 33316),
        (FAIRY_STOCKFISH_START, 4, 1083563),
        (MIDDLEGAME, 3, 2644),
        (ENDGAME, 3, 8835),
    ],
)
def test_perft_matches_pyffish_janggicasual(fen: str, depth: int, nodes: int) -> None:
    assert JanggiBoard(fen).perft(depth) == nodes


class FairyStockfishBikjang(JanggiBoard):
    """Fairy-Stockfish's ``janggi`` bikjang rule, only to check its published perft figures.

    Not SPEC J7: there, facing generals must be separated by the side to move, or it passes,
    which ends the game.
    """

    def legal_codes(self) -> list[int]:
        codes = super().legal_codes()
        if not codes or not self.generals_facing():
            return codes
        if self.consecutive_passes:
            return []
        kept = []
        for code in codes:
            undo = self.make(code)
            if code == PASS_CODE or not self.generals_facing():
                kept.append(code)
            self.unmake(undo)
        return kept


# Fairy-Stockfish tests/perft.sh, variant `janggi`, depth 4. The issue asks for 1065277 from the
# start; under SPEC J7 (bikjang off) the figure is 1083563 above. The same generator with
# Fairy-Stockfish's bikjang rule on top gives its three published figures exactly.
@pytest.mark.parametrize(
    ("fen", "nodes"), [(FAIRY_STOCKFISH_START, 1065277), (MIDDLEGAME, 76763), (ENDGAME, 151202)]
)
def test_perft_reproduces_fairy_stockfish_published_janggi_figures(fen: str, nodes: int) -> None:
    assert FairyStockfishBikjang(fen).perft(4) == nodes


def test_perft_ignores_game_end_rules_except_no_move() -> None:
    board = make_board("janggi", FAIRY_STOCKFISH_START.replace(" w - - 0 1", " b - - 0 200"))
    assert board.perft(2) == 32 * 32  # the move limit does not stop perft
    points_board = JanggiBoard(bikjang="points")
    points_board.push_many(BIKJANG_OPENING)
    assert points_board.is_game_over()
    assert points_board.perft(1) == 32


# ---------------------------------------------------------------- command line


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_moves_lists_pass(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = fen_of({"e2": "K", "d10": "k", "e8": "r"})
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{FAIRY_STOCKFISH_START}\n{checked}\n"))
    status, out, _ = run(capsys, "moves", "--variant", "janggi")
    start_line, checked_line = out.splitlines()
    assert status == 0
    assert start_line.split()[-1] == "pass"
    assert len(start_line.split()) == 32
    assert "pass" not in checked_line.split()


def test_cli_perft_counts_passes(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "--variant", "janggi", "--depth", "3")
    assert (status, out.splitlines()[-1]) == (0, "33316")
    status, out, _ = run(capsys, "perft", "--variant", "janggi", "--depth", "1", "--divide")
    assert "pass: 1" in out.splitlines()
    assert out.splitlines()[-1] == "32"


def test_cli_game_with_setup_and_double_pass(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "game", "--variant", "janggi", "--setup", "EHHE:HEHE", "pass", "pass"
    )
    state = json.loads(out)
    assert status == 0
    assert state["fen"].startswith("rbna1abnr/")
    assert "/RBNA1ANBR " in state["fen"]
    assert (state["status"], state["winner"], state["reason"]) == ("finished", "han", "double_pass")
    assert state["points"] == {"cho": 72.0, "han": 73.5}


def test_cli_game_bikjang_points(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["game", "--variant", "janggi", "--rules", "bikjang=points", *BIKJANG_OPENING]
    state = json.loads(run(capsys, *argv)[1])
    assert (state["winner"], state["reason"]) == ("han", "bikjang")
    assert state["points"] == {"cho": 72.0, "han": 73.5}
    off = json.loads(run(capsys, "game", "--variant", "janggi", *BIKJANG_OPENING)[1])
    assert off["status"] == "ongoing"
    assert off["turn"] == "cho"
    assert "pass" in off["legal_moves"]


def test_cli_game_checkmate_names_cho(capsys: pytest.CaptureFixture[str]) -> None:
    fen = fen_of({"e2": "K", "d10": "k", "a1": "R", "b9": "R"})
    state = json.loads(run(capsys, "game", "--variant", "janggi", "--fen", fen, "a1a10")[1])
    assert (state["winner"], state["reason"], state["in_check"]) == ("cho", "checkmate", True)
    assert "points" not in state


def test_cli_pass_in_check_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    fen = fen_of({"e2": "K", "d10": "k", "e8": "r"})
    status, out, err = run(capsys, "game", "--variant", "janggi", "--fen", fen, "pass")
    assert status == 2
    assert out == ""
    assert "move 1 ('pass')" in err


@pytest.mark.parametrize(
    ("option", "message"),
    [(("--setup", "HHEE:HEHE"), "HEHE|EHEH"), (("--rules", "bikjang=yes"), "'off' or 'points'")],
)
def test_cli_bad_janggi_options_exit_2(
    capsys: pytest.CaptureFixture[str], option: tuple[str, str], message: str
) -> None:
    status, out, err = run(capsys, "game", "--variant", "janggi", *option)
    assert status == 2
    assert out == ""
    assert message in err


# ---------------------------------------------------------------- board bookkeeping


def test_push_pop_keep_the_key_and_pass_count_exact() -> None:
    rng = random.Random(3)
    board = JanggiBoard(setup="EHEH:HEHE", bikjang="points")
    start = board.fen()
    for _ in range(150):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_move_texts()))
        assert board.key == board._full_key()
        copy = board.copy()
        assert isinstance(copy, JanggiBoard)
        assert (copy.fen(), copy.setup, copy.bikjang) == (board.fen(), "EHEH:HEHE", "points")
        assert copy.consecutive_passes == board.consecutive_passes
    while board.move_stack:
        board.pop()
    assert board.fen() == start
    assert board.consecutive_passes == 0
