"""Game records: export, import, round trips and bad records (SPEC N4), and the command line
(``chuhan game --notation``, ``chuhan record export|import``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chuhan.cli import main
from chuhan.rules import Board, make_board
from chuhan.rules.record import (
    RecordError,
    RulesEnd,
    read_record,
    read_records,
    write_gib,
    write_record,
)

SCREEN_HORSES = ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1", "b10c8"]
SCREEN_HORSES += ["c4c5", "g7g6", "h1h7", "h8i8", "h7g7", "i8i9"]
# The shortest mate: the cannon takes the horse on g10 (windshadow233/python-chinese-chess).
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]


def _played(moves: list[str], variant: str = "xiangqi", **options: object) -> Board:
    board = make_board(variant, None, **options)
    board.push_many(moves)
    return board


@pytest.mark.parametrize("fmt", ["iccs", "wxf", "chinese", "coords"])
def test_a_record_round_trips_in_each_format_n4(fmt: str) -> None:
    board = _played(SCREEN_HORSES)
    record = read_record(write_record(board, fmt))
    assert [str(m) for m in record.moves] == SCREEN_HORSES
    assert record.result == "*"
    assert record.board.fen() == board.fen()


@pytest.mark.parametrize("fmt", ["iccs", "wxf", "chinese"])
def test_a_finished_game_round_trips_with_its_result_and_reason_n4(fmt: str) -> None:
    board = _played(CANNON_MATE)
    text = write_record(board, fmt)
    assert '[Result "1-0"]' in text
    assert '[Termination "checkmate"]' in text
    assert text.rstrip().endswith("1-0")
    record = read_record(text)
    assert [str(m) for m in record.moves] == CANNON_MATE
    assert (record.result, record.termination) == ("1-0", "checkmate")


def test_the_record_reads_like_other_xiangqi_software_writes_it_n4() -> None:
    text = write_record(_played(CANNON_MATE), "chinese")
    assert text.splitlines()[:6] == [
        '[Game "Chinese Chess"]',
        '[Variant "xiangqi"]',
        '[Result "1-0"]',
        '[Termination "checkmate"]',
        '[Format "Chinese"]',
        "",
    ]
    assert "1. 炮二进二 士4进5\n2. 炮二平三 卒7进1\n3. 炮三进五\n1-0\n" in text
    assert "[FEN" not in text  # standard start


def test_a_game_from_a_position_keeps_its_fen_and_black_starts_with_dots_n4() -> None:
    fen = "3k5/9/9/9/9/4R4/9/4R4/9/5K3 b - - 0 12"
    board = make_board("xiangqi", fen)
    board.push_many(["d10d9", "e5f5"])
    text = write_record(board, "wxf", result="1-0", termination="resignation")
    assert f'[FEN "{fen}"]' in text
    assert "12... K4+1\n13. R+.4\n" in text
    record = read_record(text)
    assert record.start_fen == fen
    assert (record.result, record.termination) == ("1-0", "resignation")


XQBASE_CHINESE = """\
[Game "Chinese Chess"]
[Event "全国象棋个人赛"]
[Red "红方"]
[Black "黑方"]
[Result "1-0"]
[ECCO "C45"]
[Format "Chinese"]
{开局：中炮对屏风马}
  1. 炮二平五　馬８進７ {屏风马}
  2. 馬二進三　車９平８
  3. 車一平二　馬２進３ (3. ... 卒３進１ 4. 兵七進一) $1
  4. 兵七進一　卒７進１ ; 两头蛇
  5. 車二進六　砲８平９
  6. 車二平三　砲９退１
1-0
"""


def test_an_xqbase_chinese_record_with_comments_and_variations_imports_n4() -> None:
    record = read_record(XQBASE_CHINESE)
    assert [str(m) for m in record.moves] == SCREEN_HORSES
    assert record.result == "1-0"  # decided off the board (resignation)
    assert record.tags["Event"] == "全国象棋个人赛"
    assert record.board.outcome() is None


XQF_EXPORT_ICCS = """\
[Game "Chinese Chess"]
[Event ""]
[Round ""]
[RedTeam ""]
[Red ""]
[BlackTeam ""]
[Black ""]
[Result "*"]
[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"]
[Format "ICCS"]
1. H2-E2 H9-G7 2. H0-G2 I9-H9 3. I0-H0 B9-C7
*
"""


def test_an_xqf_to_pgn_export_in_iccs_imports_n4() -> None:
    record = read_record(XQF_EXPORT_ICCS)
    assert [str(m) for m in record.moves] == SCREEN_HORSES[:6]


def test_a_wxf_record_from_another_program_with_equals_signs_imports_n4() -> None:
    text = '[Game "Chinese Chess"]\n[Format "WXF"]\n\n1.C2=5 H8+7 2.H2+3 R9=8\n'
    assert [str(m) for m in read_record(text).moves] == SCREEN_HORSES[:4]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ('[Format "WXF"]\n\n1. C2.5 H8+7\n2. H2+3 R9+9\n', 4, "'R9+9' (half-move 4)"),
        ('[Format "Chinese"]\n1. 炮二平五 马8进7\n2. 车五进一\n', 3, "no red chariot on file 5"),
        ('[Event "x"\n1. h3e3\n', 1, "malformed tag"),
        ('[Variant "chess"]\n1. e2e4\n', 1, "unknown variant"),
        ('[Format "SAN"]\n1. e4\n', 1, "unknown Format"),
        ('[Game "Chinese Chess"]\n[FEN "9/9 w"]\n1. h3e3\n', 2, "ranks"),
        ("1. h3e3 {a comment\nthat never ends\n", 1, "never closed"),
        ("1. h3e3 h10g8\n*\n2. h1g3\n", 3, "after the result"),
        ('[Result "0-1"]\n\n1. h3h5 d10e9 2. h5g5 g7g6 3. g5g10\n', 1, "contradicts"),
    ],
)
def test_a_bad_record_is_rejected_with_its_line_and_reason_n4(
    text: str, line: int, reason: str
) -> None:
    with pytest.raises(RecordError, match="line") as caught:
        read_record(text)
    assert caught.value.line == line
    assert reason in caught.value.reason


def test_a_janggi_record_keeps_the_setup_and_rules_in_korean_notation() -> None:
    moves = ["i4h4", "a7b7", "g1f3", "pass"]
    board = _played(moves, "janggi", setup="HEHE:EHHE", bikjang="points")
    text = write_record(board)
    assert '[Format "Korean"]' in text
    assert '[Rules "bikjang=points"]' in text
    assert "1. 79卒78 41兵42\n2. 07馬86 한수쉼\n" in text
    record = read_record(text)
    assert [str(m) for m in record.moves] == moves
    assert record.board.fen() == board.fen()
    assert getattr(record.board, "bikjang", None) == "points"


def test_an_unfinished_jieqi_record_replays_from_its_reveals_q3_n4() -> None:
    board = _played(["a1a2", "a10a9", "b3b10"], "jieqi", seed=5)
    text = write_record(board, "chinese")
    assert "Arrangement" not in text  # the game goes on: the secret stays secret (Q5)
    record = read_record(text)
    assert [str(m) for m in record.moves] == ["a1a2", "a10a9", "b3b10"]
    assert record.board.fen() == board.fen()
    again = write_record(record.board, "chinese")  # a board that learnt from the reveals
    assert again.split("\n\n")[1] == text.split("\n\n")[1]


def test_a_finished_jieqi_record_carries_the_arrangement_it_can_verify_q7_n4() -> None:
    board = _played(["a1a2", "a10a9"], "jieqi", seed=5)
    text = write_record(board, "wxf", result="0-1", termination="resignation")
    assert "[Arrangement " in text
    assert "[Salt " in text
    assert "[Commitment " in text
    record = read_record(text)
    assert record.board.fen() == board.fen()
    forged = text.replace("a1=", "a1=x", 1)
    with pytest.raises(RecordError, match="Commitment"):
        read_record(forged)


# ---------------------------------------------------------------- command line


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_game_adds_the_moves_in_the_chosen_notation(capsys: pytest.CaptureFixture[str]) -> None:
    status, plain, _ = _run(capsys, "game", "h3e3", "h10g8")
    assert status == 0
    status, out, _ = _run(capsys, "game", "--notation", "chinese", "h3e3", "h10g8")
    state = json.loads(out)
    assert status == 0
    assert state.pop("notation") == ["炮二平五", "马8进7"]
    assert state == json.loads(plain)
    _, out, _ = _run(capsys, "game", "--notation", "wxf", "h3e3", "h10g8")
    assert json.loads(out)["notation"] == ["C2.5", "H8+7"]
    _, out, _ = _run(capsys, "game", "--variant", "janggi", "--notation", "korean", "i4h4")
    assert json.loads(out)["notation"] == ["79卒78"]


def test_cli_record_export_then_import_gives_the_game_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, record, _ = _run(capsys, "record", "export", "--format", "wxf", *CANNON_MATE)
    assert status == 0
    assert record.startswith('[Game "Chinese Chess"]')
    path = tmp_path / "game.pgn"
    path.write_text(record, encoding="utf-8")
    status, out, _ = _run(capsys, "record", "import", str(path))
    _, expected, _ = _run(capsys, "game", *CANNON_MATE)
    assert status == 0
    assert json.loads(out) == json.loads(expected)
    assert json.loads(out)["reason"] == "checkmate"


def test_cli_record_import_reads_gb18030_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "xqbase.pgn"
    path.write_bytes(XQBASE_CHINESE.encode("gb18030"))
    status, out, _ = _run(capsys, "record", "import", str(path))
    assert status == 0
    assert json.loads(out)["fen"] == _played(SCREEN_HORSES).fen()


def test_cli_record_import_names_the_bad_line_and_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text('[Format "ICCS"]\n\n1. H2-E2 H9-G7\n2. H0-H9\n', encoding="utf-8")
    status, out, err = _run(capsys, "record", "import", str(path))
    assert status == 2
    assert out == ""
    assert "line 4" in err
    assert "H0-H9" in err
    status, _, err = _run(capsys, "record", "import", str(tmp_path / "missing.pgn"))
    assert status == 2
    assert "cannot read" in err


def test_cli_record_export_rejects_an_illegal_move_by_index(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = _run(capsys, "record", "export", "h3e3", "h3e4")
    assert status == 2
    assert out == ""
    assert "move 2" in err


GIB = """\
[대회명 "연습 대국"]
[초대국자 "초"]
[한대국자 "한"]
[초차림 "마상마상"]
[한차림 "상마상마"]
[대국결과 "한 기권승"]

1. 79卒78 2. 41兵42 3. 02馬83 4. 한수쉼 5. 78卒68 <0>
"""


def test_a_gib_janggi_record_imports_with_its_setups_and_result() -> None:
    record = read_record(GIB)
    assert record.variant == "janggi"
    assert [str(m) for m in record.moves] == ["i4h4", "a7b7", "b1c3", "pass", "h4h5"]
    assert record.result == "0-1"  # 한 기권승: Han won by resignation
    start = make_board("janggi", record.start_fen)
    # 한차림 "상마상마" is written from the board's left as Cho sees it: b10 elephant, h10 horse.
    assert start.piece_letter(1) == "N"
    assert start.piece_letter(82) == "b"
    assert start.piece_letter(88) == "n"


def test_cli_record_import_reads_cp949_gib_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.gib"
    path.write_bytes(GIB.encode("cp949"))
    status, out, _ = _run(capsys, "record", "import", str(path))
    assert status == 0
    assert json.loads(out)["turn"] == "han"


def test_cli_refuses_a_notation_the_variant_does_not_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = _run(capsys, "game", "--variant", "janggi", "--notation", "wxf")
    assert status == 2
    assert out == ""
    assert "janggi uses korean" in err
    status, out, err = _run(capsys, "record", "export", "--format", "korean", "h3e3")
    assert status == 2
    assert out == ""
    assert "for janggi" in err


def test_wxf_soldiers_on_two_files_are_moves_not_move_numbers_n2_n4() -> None:
    board = make_board("xiangqi", "3k5/9/9/9/9/2p3p2/2p3p2/2p6/9/4K4 b - - 0 1")
    board.push_many(["c4d4", "e1e2", "c5d5"])
    text = write_record(board, "wxf")
    assert "1... 33.4\n2. K5+1 3-.4\n" in text
    assert [str(m) for m in read_record(text).moves] == ["c4d4", "e1e2", "c5d5"]
    packed = text.replace("1... 33.4", "1...33.4").replace("2. K5+1", "2.K5+1")
    assert [str(m) for m in read_record(packed).moves] == ["c4d4", "e1e2", "c5d5"]


def test_a_file_of_several_games_reads_game_by_game_n4() -> None:
    two = XQF_EXPORT_ICCS + "\n" + XQBASE_CHINESE
    records = read_records(two)
    assert [len(r.moves) for r in records] == [6, 12]
    assert read_record(two).moves == records[0].moves
    broken = two.replace("車二進六", "車二進九")
    with pytest.raises(RecordError) as caught:
        read_records(broken)
    assert caught.value.line == 26  # line 13 of the second game, which starts on line 14


# ---------------------------------------------------------------- records found in the wild
# Each is a record of the form real sites, clubs and programs write (N4).

CLUB_GIB = """\
[대회명 "제5회 동호회 리그"]
[회전 "3"]
[대국일자 "2019.05.12"]
[초대국자 "김철수"]
[한대국자 "이영희"]
[초차림 "마상마상"]
[한차림 "마상마상"]
[대국결과 "초 완승"]

1. 75졸65 2. 45병55 3. 65졸55병 4. 25장36 5. 55졸45 6. 13상45졸 7. 06사96 8. 36장35
9. 02마83 10. 12마31 11. 82포85장군
"""


def test_a_gib_reads_hans_setup_from_the_boards_left_as_cho_sees_it_j3_n4() -> None:
    """한차림 "마상마상" puts Han's elephant on c10, which moves at 13상45 (read from Han's own
    left it would be a horse there and the record would not replay)."""
    record = read_record(CLUB_GIB)
    start = make_board("janggi", record.start_fen)
    assert [start.piece_letter(p) for p in (82, 83, 87, 88)] == ["n", "b", "n", "b"]
    assert [start.piece_letter(p) for p in (1, 2, 6, 7)] == ["N", "B", "N", "B"]
    assert make_board("janggi", setup="HEHE:EHEH").fen() == record.start_fen


def test_gib_moves_with_the_piece_taken_and_a_check_written_after_them_import_n4() -> None:
    record = read_record(CLUB_GIB)
    assert [str(m) for m in record.moves][2:6] == ["e5e6", "e9f8", "e6e7", "c10e7"]
    assert str(record.moves[-1]) == "b3e3"
    assert record.board.is_check()
    assert record.result == "1-0"  # 초 완승
    wrong_taken = CLUB_GIB.replace("65졸55병", "65졸55차")
    with pytest.raises(RecordError, match="no 차 to take") as caught:
        read_record(wrong_taken)
    assert caught.value.line == 10


BLACK_FIRST_WITH_FEN = """\
[Game "Chinese Chess"]
[Event "全国象棋团体赛"]
[Red "甲"]
[Black "乙"]
[Result "0-1"]
[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"]
[Format "Chinese"]

  1. ...       炮8平5
  2. 马二进三   马8进7
  3. 车一平二   车9平8
0-1
"""

BLACK_FIRST_NO_FEN = """\
[Game "Chinese Chess"]
[Event "让先对局"]
[Result "*"]

1. ..... 炮8平5 2. 马二进三 马8进7
*
"""


def test_a_black_first_record_with_a_placeholder_imports_n4() -> None:
    record = read_record(BLACK_FIRST_WITH_FEN)
    assert [str(m) for m in record.moves] == ["h8e8", "h1g3", "h10g8", "i1h1", "i10h10"]
    assert record.start_fen.split()[1] == "b"
    plain = read_record(BLACK_FIRST_NO_FEN)
    assert [str(m) for m in plain.moves] == ["h8e8", "h1g3", "h10g8"]
    assert plain.start_fen == make_board("xiangqi").fen().replace(" w ", " b ")
    again = read_record(write_record(plain.board, "wxf"))
    assert again.board.fen() == plain.board.fen()  # written back as "1... C8.5"


LOWER_CASE_ICCS = """\
[Game "Chinese Chess"]
[Event "网络对局"]
[Red "red_player"]
[Black "black_player"]
[Result "*"]

1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 b9c7
4. c3c4 g6g5 5. h0h6 h7i7 6. h6g6 i7i8
*
"""


def test_lower_case_iccs_without_a_format_tag_imports_n4() -> None:
    record = read_record(LOWER_CASE_ICCS)
    assert [str(m) for m in record.moves] == SCREEN_HORSES


# A club game that went on after a threefold repetition (the chariots shuffling on moves
# 5–8), then agreed a draw: our rules (E1) end it at half-move 15.
PLAYED_ON = """\
[Game "Chinese Chess"]
[Event "俱乐部快棋赛"]
[Result "1/2-1/2"]
[Termination "agreement"]
[Format "Chinese"]

1. 炮二平五 马8进7
2. 马二进三 车9平8
3. 车一平二 马2进3
4. 车二进四 炮8平9
5. 车二退一 炮9平8
6. 车二进一 炮8平9
7. 车二退一 炮9平8
8. 车二进一 炮8平9
9. 车二退一 炮9平8
10. 兵七进一 卒3进1
1/2-1/2
"""


def test_a_game_played_on_after_a_repetition_imports_as_played_e1_n4() -> None:
    record = read_record(PLAYED_ON)
    assert len(record.moves) == 20
    assert str(record.moves[-1]) == "c7c6"
    assert record.rules_end == RulesEnd(ply=15, reason="repetition", winner=None)
    assert record.rules_end.as_json(("red", "black")) == {
        "ply": 15,
        "reason": "repetition",
        "winner": None,
    }
    assert (record.result, record.termination) == ("1/2-1/2", "agreement")
    assert record.board.outcome() is None
    again = read_record(write_record(record.board, "wxf", result="1/2-1/2"))
    assert again.moves == record.moves
    assert again.rules_end == record.rules_end
    assert read_record(XQBASE_CHINESE).rules_end is None


def test_cli_record_import_still_prints_the_final_position_of_a_played_on_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "club.pgn"
    path.write_text(PLAYED_ON, encoding="utf-8")
    status, out, _ = _run(capsys, "record", "import", str(path))
    state = json.loads(out)
    assert status == 0
    assert state["status"] == "ongoing"
    assert state["turn"] == "red"
    assert state["rules_end"] == {"ply": 15, "reason": "repetition", "winner": None}


def test_a_janggi_game_written_as_gib_reads_back_to_the_same_game_j3_n4() -> None:
    record = read_record(CLUB_GIB)
    text = write_gib(record.board, result="1-0", termination="resignation")
    assert '[한차림 "마상마상"]' in text
    assert '[대국결과 "초 기권승"]' in text
    assert text.splitlines()[-1].startswith("1. 75卒65 2. 45兵55 3. 65卒55")
    again = read_record(text)
    assert again.moves == record.moves
    assert again.board.fen() == record.board.fen()
    assert again.result == "1-0"
    with pytest.raises(ValueError, match="janggi"):
        write_gib(_played(CANNON_MATE))
