"""The WXF repetition rules (SPEC E1 "a stricter rule set"; Q6 for jieqi).

Each example is a position, the cycle of moves played until the third occurrence, the verdict
and the rule. ``MANUAL`` holds the diagrams of the WXF manual (the Asian rules it adopts,
wxf.org/xq/rule/asia) whose positions we could transcribe; ``RULES`` positions of our own that
show one clause of the manual each. Under ``casual`` (E1's informal rule) every chase draws.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chuhan.cli import main as cli_main
from chuhan.engine.ai import search
from chuhan.engine.search import Limits
from chuhan.rules import make_board
from chuhan.rules.board import Board, RulesError
from chuhan.rules.jieqi import JieqiBoard
from chuhan.rules.record import read_record, write_record
from chuhan.rules.state import game_state
from chuhan.rules.wxf import CHASE, CHECK, IDLE, _verdict, cycle_loser, describe, judge

# (name, FEN, cycle, loser or None, rule)
MANUAL = [
    (
        "diagram 29: a protector whose recapture is legal is a real root",
        "2b1ka3/4a4/4b4/9/9/9/9/4B3R/4A1rc1/4KA3 w",
        "i3h3 h2i2 h3i3 i2h2",
        None,
        "repetition",
    ),
    (
        "diagram 34: the chariot chases a cannon that threatens mate",
        "3aka3/7R1/7c1/9/9/9/9/9/4A4/3AK1p2 b",
        "h8c8 h9c9 c8h8 c9h9",
        "red",
        "perpetual_chase",
    ),
    (
        "diagram 39: a line only the taker's leaving opens protects nothing",
        "2bak4/RC2arN2/4b1n2/2p5p/6p2/2P6/4p1P1c/4B4/4A4/4KAB2 b",
        "e9f10 b9b10 f10e9 b10b9",
        "red",
        "perpetual_chase",
    ),
    (
        "diagram 40: the chariot held by the horse may not be chased",
        "2baka3/C4rN2/4b1n2/1Rp5p/6p2/2P6/4c1P1c/4B3C/4A4/4KAB2 w",
        "b7b9 f10e9 b9b7 e9f10",
        "red",
        "perpetual_chase",
    ),
    (
        "diagram 41: the same with a horse as the cannon's screen",
        "3aka3/C4rN2/4b1n2/N7p/2p3p2/8P/2P3P2/9/4A4/4KA3 w",
        "a7b9 f10e9 b9a7 e9f10",
        "red",
        "perpetual_chase",
    ),
    (
        "diagram 55: a blocked horse cannot take back: chasing it counts",
        "5ab2/4k2P1/5an1b/p1p3p2/8p/2P4N1/6P1P/B8/5p2c/3KC4 w",
        "h5f6 g8i7 f6h5 i7g8",
        "red",
        "perpetual_chase",
    ),
    (
        "diagram 59: a soldier across the river may be chased",
        "3akabC1/9/4b4/7P1/2n6/8p/3p5/9/4A1c2/2BAK1B1C w",
        "g1i3 g2i2 i3g1 i2g2",
        "red",
        "perpetual_chase",
    ),
    (
        "diagram 60: a soldier at home may not be chased",
        "3akabC1/9/4b4/7P1/2n5p/9/3p5/9/4A1c2/2BAK1B1C w",
        "g1i3 g2i2 i3g1 i2g2",
        None,
        "repetition",
    ),
    (
        "diagram 69: a soldier may chase anything",
        "4k1b1c/7P1/3a5/9/9/9/9/9/3K5/9 w",
        "h9i9 i10h10 i9h9 h10i10",
        None,
        "repetition",
    ),
    (
        "diagram 70: the general and the soldiers may chase",
        "4kab2/4a4/4b1n2/4p2P1/2p5P/9/9/7C1/4A4/4K4 w",
        "h7g7 g8h10 g7h7 h10g8",
        None,
        "repetition",
    ),
    (
        "diagram 81: a twelve-move cycle of two chariots on one cannon",
        "2b1ka1P1/4a4/b8/p5R2/8c/7R1/P1p3p2/3rBn3/N2C2n1C/3K1NB2 w",
        "h5h6 i6i8 | g7g8 i8i7 h6h7 i7i6 g8g6 i6i8 h7h8 i8i7 g6g7 i7i6 h8h6 i6i8",
        "red",
        "perpetual_chase",
    ),
    (
        "rule 20.8: offering a chariot exchange does not excuse chasing a loose cannon",
        "3k5/9/9/1c7/9/2R5r/9/9/9/5K3 w",
        "c5b5 b7c7 b5c5 c7b7",
        "red",
        "perpetual_chase",
    ),
    (
        "rule 20.9: a soldier and a chariot taking turns on one cannon are allowed",
        "3k5/9/2c6/3P5/5R3/3p5/9/9/9/3K5 w",
        "d7c7 c8e8 f6e6 e8d8 c7d7 d8f8 e6f6 f8c8",
        None,
        "repetition",
    ),
]

# From the start: Red's cannons go deep, and the black chariot on i10 chases the loose
# cannon on h10/h9 with every move (the cannon's own attacks are on protected pieces).
START_CHASE_LEAD = ["b3b10", "a10b10", "c4c5", "b8d8", "h3h10", "h8h2"]
START_CHASE_CYCLE = ["h10h9", "i10i9", "h9h10", "i9i10"]

# Positions of our own, one clause each.
PROTECTED_CHARIOT = "4k4/4n4/9/3r5/9/9/3P1P3/9/5C3/4K4 w"  # the horse on e9 guards d7 and f7
RULES = [
    (
        "a chariot chases a loose cannon",
        "1cbak4/R3a4/4b4/7P1/9/2P6/3pp4/8r/9/3AKA3 w",
        "a9b9 b10a10 b9a9 a10b10",
        "red",
        "perpetual_chase",
    ),
    (
        "rule 15: a cannon may not chase a chariot even when it is protected",
        PROTECTED_CHARIOT,
        "f2d2 d7f7 d2f2 f7d7",
        "red",
        "perpetual_chase",
    ),
    (
        "a chariot may attack a protected cannon for ever",
        "4k4/4n4/9/3c5/9/4P4/9/9/5R3/4K4 w",
        "f2d2 d7f7 d2f2 f7d7",
        None,
        "repetition",
    ),
    (
        "the same cannon without its horse is chased",
        "4k4/4a4/9/3c5/9/4P4/9/9/5R3/4K4 w",
        "f2d2 d7f7 d2f2 f7d7",
        "red",
        "perpetual_chase",
    ),
    (
        "rule 24: chariot against chariot that can take back offers an exchange",
        "4k4/4a4/9/3r5/9/9/9/9/5R3/4K4 w",
        "f2d2 d7f7 d2f2 f7d7",
        None,
        "repetition",
    ),
    (
        "perpetual check loses",
        "3k5/9/9/9/9/9/4r4/9/9/4K4 w",
        "e1f1 e4f4 f1e1 f4e4",
        "black",
        "perpetual_check",
    ),
    (
        "both sides checking is a draw",
        "9/9/3k5/4c4/9/9/3p5/4C4/3R5/4K4 w",
        "e3d3 d4e4 d3e3 e4d4",
        None,
        "mutual_perpetual_check",
    ),
    (
        "generals walking to and fro is a draw",
        "3k5/9/9/9/9/9/P8/9/9/5K3 w",
        "f1f2 d10d9 f2f1 d9d10",
        None,
        "repetition",
    ),
]


def play_to_repetition(board: Board, cycle: str) -> Board:
    """Play ``cycle`` over and over until the game ends (the third occurrence); moves before
    a ``|`` lead into the cycle and are played once."""
    lead, _, repeated = cycle.rpartition("|")
    board.push_many(lead.split())
    moves = repeated.split()
    for _ in range(4):
        for move in moves:
            if board.outcome() is not None:
                return board
            board.push(move)
    assert board.outcome() is not None, "the cycle never repeated three times"
    return board


def loser_of(board: Board) -> str | None:
    outcome = board.outcome()
    assert outcome is not None
    return None if outcome.winner is None else board.SIDE_NAMES[1 - outcome.winner]


@pytest.mark.parametrize(
    ("name", "fen", "cycle", "loser", "rule"), MANUAL + RULES, ids=[e[0] for e in MANUAL + RULES]
)
def test_wxf_verdicts(name: str, fen: str, cycle: str, loser: str | None, rule: str) -> None:
    board = play_to_repetition(make_board("xiangqi", fen, rules="wxf"), cycle)
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.ruling is not None
    assert board.repetition_count() == 3
    assert loser_of(board) == loser
    assert outcome.ruling["rule"] == rule
    assert outcome.ruling["rule_set"] == "wxf"
    expected_reason = rule if loser is not None else "repetition"
    assert outcome.reason == expected_reason


@pytest.mark.parametrize(
    ("name", "fen", "cycle", "loser", "rule"), MANUAL + RULES, ids=[e[0] for e in MANUAL + RULES]
)
def test_the_search_gets_the_same_verdict_from_one_cycle(
    name: str, fen: str, cycle: str, loser: str | None, rule: str
) -> None:
    """The search judges the last cycle alone, on its fast path: the same loser as the
    game's explained verdict over the whole span, and the board left as it was."""
    board = play_to_repetition(make_board("xiangqi", fen, rules="wxf"), cycle)
    length = len(cycle.rpartition("|")[2].split())
    codes = board.code_history()[-length:]
    checks = board.check_history()[-length:]
    before = (board.squares[:], board.kings[:], board.fen())
    fast = cycle_loser(board, codes, checks)
    assert (board.squares, board.kings, board.fen()) == before
    assert (None if fast is None else board.SIDE_NAMES[fast]) == loser
    assert judge(board, codes, checks, explain=True).rule == rule


@pytest.mark.parametrize(
    ("name", "fen", "cycle", "loser", "rule"), MANUAL + RULES, ids=[e[0] for e in MANUAL + RULES]
)
def test_casual_judges_only_checks(
    name: str, fen: str, cycle: str, loser: str | None, rule: str
) -> None:
    """E1: the same cycles under the default rule set; they agree except on the chases."""
    board = play_to_repetition(make_board("xiangqi", fen), cycle)
    outcome = board.outcome()
    assert outcome is not None
    if rule == "perpetual_chase":
        assert (outcome.winner, outcome.reason) == (None, "repetition")
    else:
        assert loser_of(board) == loser
    assert outcome.ruling is not None
    assert outcome.ruling["rule_set"] == "casual"


def ruling_of(board: Board) -> dict[str, Any]:
    """The WXF ruling that ended ``board``'s game."""
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.ruling is not None
    return outcome.ruling


def test_the_ruling_names_the_chaser_the_chased_and_the_move() -> None:
    board = make_board("xiangqi", PROTECTED_CHARIOT, rules="wxf")
    board.push_many(["f4f5", "d7d8", "f5f6", "d8d7"])  # two moves first: the numbering
    play_to_repetition(board, "f2d2 d7f7 d2f2 f7d7")
    ruling = ruling_of(board)
    assert ruling["side"] == "red"
    assert ruling["sides"] == {"red": CHASE, "black": IDLE}
    assert (ruling["piece"], ruling["square"]) == ("cannon", "d2")
    assert (ruling["target"], ruling["target_square"]) == ("chariot", "d7")
    assert ruling["from_move"] == 3
    assert ruling["chase_move"] == 3
    assert ruling["from_ply"] == 5
    assert describe(ruling) == (
        "perpetual chase: the cannon on d2 chased the chariot on d7 on every move from move 3"
    )
    # The review's marks: every move of the span, the chasing ones with their chase.
    marks = ruling["marks"]
    assert [m["ply"] for m in marks] == list(range(5, 13))
    assert [m["move"] for m in marks[:4]] == ["f2d2", "d7f7", "d2f2", "f7d7"]
    red = [m for m in marks if m["side"] == "red"]
    assert all(m["chases"] and m["chases"][0]["target"] == "chariot" for m in red)
    # Black's chariot takes turns on the soldier across the river: no perpetual chase.
    black = [bool(m["chases"]) for m in marks if m["side"] == "black"]
    assert black == [True, False] * 2


def test_the_marks_show_the_checks() -> None:
    board = play_to_repetition(
        make_board("xiangqi", "3k5/9/9/9/9/9/4r4/9/9/4K4 w", rules="wxf"), "e1f1 e4f4 f1e1 f4e4"
    )
    ruling = ruling_of(board)
    assert [m["check"] for m in ruling["marks"]] == [False, True] * 4
    assert describe(ruling) == "perpetual check: black checked on every move from move 1"


def test_the_marks_list_two_chasers_of_one_piece_in_the_rulings_order() -> None:
    """b9h9 sets the chariot on the horse and makes it the cannon's screen: both chase the
    loose horse from that move. A ruling lists chasers along the file and rank first, nearer
    first (the chariot on h9, then the cannon on h3), the same order every time it is read."""
    board = play_to_repetition(
        make_board("xiangqi", "4k2n1/1R7/9/9/9/9/9/7C1/9/3K5 w", rules="wxf"),
        "b9h9 e10f10 h9b9 f10e10",
    )
    ruling = ruling_of(board)
    assert ruling["rule"] == "repetition"  # red chases on one move of two only
    assert [
        (c["piece"], c["square"], c["target"], c["target_square"])
        for c in ruling["marks"][0]["chases"]
    ] == [
        ("chariot", "h9", "horse", "h10"),
        ("cannon", "h3", "horse", "h10"),
    ]


def test_the_game_state_carries_the_ruling() -> None:
    board = play_to_repetition(
        make_board("xiangqi", PROTECTED_CHARIOT, rules="wxf"), "f2d2 d7f7 d2f2 f7d7"
    )
    state = game_state(board)
    assert (state["winner"], state["reason"]) == ("black", "perpetual_chase")
    assert state["ruling"]["target"] == "chariot"
    json.dumps(state)  # JSON-ready


@pytest.mark.parametrize(
    ("statuses", "loser", "rule"),
    [
        ((CHECK, CHASE), 0, "perpetual_check"),  # the checking side must change first
        ((CHASE, CHECK), 1, "perpetual_check"),
        ((CHECK, IDLE), 0, "perpetual_check"),
        ((CHECK, CHECK), None, "mutual_perpetual_check"),
        ((CHASE, CHASE), None, "mutual_perpetual_chase"),
        ((IDLE, IDLE), None, "repetition"),
    ],
)
def test_the_verdict_of_each_combination(
    statuses: tuple[str, str], loser: int | None, rule: str
) -> None:
    verdict = _verdict(statuses, [None, None], ())
    assert (verdict.loser, verdict.rule) == (loser, rule)


def test_one_check_one_chase_is_no_perpetual_chase() -> None:
    """Diagrams 37, 38: a checking move chases nothing, so a side that alternates a check and
    a chase has no perpetual chase: the black chariot checks from e4, then chases the loose
    cannon from c4, while the red general steps between e1 and f1."""
    fen = "3k5/9/9/9/9/9/2r6/2C6/9/4K4 b"
    board = play_to_repetition(make_board("xiangqi", fen, rules="wxf"), "c4e4 e1f1 e4c4 f1e1")
    ruling = ruling_of(board)
    assert ruling["sides"] == {"red": IDLE, "black": IDLE}
    assert [bool(m["chases"]) for m in ruling["marks"][:4]] == [False, False, True, False]
    assert [m["check"] for m in ruling["marks"][:4]] == [True, False, False, False]


def test_jieqi_face_down_piece_protects_as_the_piece_of_its_point() -> None:
    """Q6: the face-down piece on h10 guards g8 and i8 as a horse would (what the
    players see), though it is in truth a soldier; on a10 (a chariot's point) it guards
    neither, and the chariot's chase of the cannon loses."""
    guarded = JieqiBoard("4k2x1/9/6c2/4x4/9/9/9/9/8R/4K4 w", arrangement="h10=p e7=p", rules="wxf")
    play_to_repetition(guarded, "i2g2 g8i8 g2i2 i8g8")
    assert guarded.outcome().reason == "repetition"  # type: ignore[union-attr]
    loose = JieqiBoard("x3k4/9/6c2/4x4/9/9/9/9/8R/4K4 w", arrangement="a10=p e7=p", rules="wxf")
    play_to_repetition(loose, "i2g2 g8i8 g2i2 i8g8")
    assert (loose.outcome().winner, loose.outcome().reason) == (1, "perpetual_chase")  # type: ignore[union-attr]


def test_jieqi_views_keep_the_rule_set() -> None:
    board = JieqiBoard("x3k4/9/6c2/4x4/9/9/9/9/8R/4K4 w", arrangement="a10=p e7=p", rules="wxf")
    board.push("i2g2")
    for viewer in ("red", "black", "all"):
        again = JieqiBoard.from_view(board.view(viewer))
        assert again.rules == "wxf"
    assert "rules" not in JieqiBoard(seed=1).view("red")


def test_the_rule_set_is_checked() -> None:
    with pytest.raises(RulesError, match="rules must be"):
        make_board("xiangqi", rules="fide")
    with pytest.raises(RulesError, match="janggi"):
        make_board("janggi", rules="wxf")
    assert make_board("xiangqi").rules == "casual"
    assert make_board("xiangqi", rules="wxf").copy().rules == "wxf"


def test_the_record_carries_the_rule_set() -> None:
    board = play_to_repetition(
        make_board("xiangqi", PROTECTED_CHARIOT, rules="wxf"), "f2d2 d7f7 d2f2 f7d7"
    )
    text = write_record(board)
    assert '[Rules "rules=wxf"]' in text
    again = read_record(text)
    assert again.board.rules == "wxf"
    assert again.result == "0-1"
    assert again.termination == "perpetual_chase"
    assert "[Rules" not in write_record(make_board("xiangqi"))


def test_cli_game_plays_by_the_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    moves = ["f2d2", "d7f7", "d2f2", "f7d7"] * 2
    args = ["game", "--fen", PROTECTED_CHARIOT, *moves]
    assert cli_main([*args, "--rules", "wxf"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert (state["winner"], state["reason"]) == ("black", "perpetual_chase")
    assert cli_main(args) == 0
    assert json.loads(capsys.readouterr().out)["reason"] == "repetition"


CYCLE = ["f2d2", "d7f7", "d2f2", "f7d7"]


def test_engine_does_not_walk_into_a_losing_chase() -> None:
    """Red to move after one cycle: f2d2 would start the losing third round under wxf."""
    board = make_board("xiangqi", PROTECTED_CHARIOT, rules="wxf")
    board.push_many(CYCLE)
    assert str(search(board, Limits(depth=4)).move) != "f2d2"
    casual = make_board("xiangqi", PROTECTED_CHARIOT)
    casual.push_many(CYCLE)
    assert str(search(casual, Limits(depth=4)).move) == "f2d2"  # a draw is fine there


def test_engine_claims_a_winning_repetition() -> None:
    """Black to move: d7f7 repeats the chase that red must not repeat, and wins."""
    board = make_board("xiangqi", PROTECTED_CHARIOT, rules="wxf")
    board.push_many([*CYCLE, "f2d2"])
    move = search(board, Limits(depth=4)).move
    assert str(move) == "d7f7"
    board.push(move)
    play_to_repetition(board, "d2f2 f7d7 f2d2 d7f7")
    assert (board.outcome().winner, board.outcome().reason) == (1, "perpetual_chase")  # type: ignore[union-attr]


def test_jieqi_engine_claims_the_chase_from_its_own_view() -> None:
    """A3: the jieqi search sees only its side's view, and the view keeps the rule
    set: Black repeats into Red's losing chase, and Red does not start it again."""
    board = JieqiBoard("x3k4/9/6c2/4x4/9/9/9/9/8R/4K4 w", arrangement="a10=p e7=p", rules="wxf")
    board.push_many(["i2g2", "g8i8", "g2i2", "i8g8"])
    assert str(search(board, Limits(depth=4)).move) != "i2g2"
    board.push("i2g2")
    assert str(search(board, Limits(depth=4)).move) == "g8i8"


def test_an_unfinished_jieqi_record_keeps_its_rule_set() -> None:
    """N4: a jieqi record without its arrangement (a game still going) is replayed on a board
    that learns from the reveals; it still judges repetitions by the record's rule set."""
    board = JieqiBoard(seed=3, rules="wxf")
    board.push("e4e5")
    text = write_record(board, result="*")
    assert "[Arrangement" not in text
    assert '[Rules "rules=wxf"]' in text
    again = read_record(text)
    assert isinstance(again.board, JieqiBoard)
    assert not again.board.has_secret
    assert again.board.rules == "wxf"
