"""Engine analysis of single positions (N4): our engine in process and any UCI engine
process give a score for the side to move and a legal best move; moves are judged by the
centipawns they lost.

The UCI engine here is our own ``chuhan uci`` run as a separate program, spoken to exactly as
an operator's Fairy-Stockfish would be (the reference engine is for benchmarks only)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chuhan.engine.analysis import BLUNDER, INACCURACY, MISTAKE, classify, evaluate, judge
from chuhan.rules import make_board

UCI = "uci"
# Red to move mates at once: the cannon takes the horse on g10 (5. C3+5#).
BEFORE_MATE = ["h3h5", "d10e9", "h5g5", "g7g6"]


def test_moves_are_classed_by_the_centipawns_they_lost() -> None:
    assert [classify(n) for n in (0, INACCURACY - 1, INACCURACY, MISTAKE, BLUNDER)] == [
        None,
        None,
        "inaccuracy",
        "mistake",
        "blunder",
    ]
    assert judge(100, -250, "h3e3", "b3e3") == (350, "blunder")
    assert judge(100, -250, "b3e3", "b3e3") == (0, None)  # the engine's own move
    assert judge(29_000, 1_400, "a1a2", "g5g10") == (100, "inaccuracy")  # clamped to ±1500


def uci_program(folder: Path) -> str:
    """An executable that runs ``chuhan uci`` (CHUHAN_ANALYSIS_ENGINE names one program)."""
    program = folder / "chuhan-uci"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m chuhan.cli uci\n")
    program.chmod(0o755)
    return str(program)


@pytest.mark.parametrize("kind", [None, UCI])
def test_both_engines_find_the_mate_and_score_it_for_the_side_to_move(
    kind: str | None, tmp_path: Path
) -> None:
    engine = uci_program(tmp_path) if kind == UCI else None
    board = make_board("xiangqi")
    board.push_many(BEFORE_MATE)
    found = evaluate(board, 3_000, engine)
    assert found.best == "g5g10"
    assert found.score >= 1_500
    assert found.engine == ("chuhan" if engine is None else "uci:Chu-Han")
    assert board.ply == 4  # left unchanged
    board.push("g5g10")
    assert evaluate(board, 3_000, engine).best is None  # mated: nothing to search


def test_a_uci_engine_analyses_janggi_with_passes_in_the_moves(tmp_path: Path) -> None:
    engine = uci_program(tmp_path)
    board = make_board("janggi", setup="HEHE:EHEH")
    board.push_many(["e4e5", "pass"])
    found = evaluate(board, 3_000, engine)
    assert found.engine.startswith("uci:")
    assert board.parse_move(found.best or "")
    jieqi = make_board("jieqi", seed=3)
    assert evaluate(jieqi, 500, engine).engine == "chuhan"  # jieqi: always ours


@pytest.mark.parametrize("kind", [None, UCI])
def test_both_engines_explain_a_position_with_a_legal_line_and_mate_in_n(
    kind: str | None, tmp_path: Path
) -> None:
    """The engine's line (at most five moves, each legal in turn, from its best
    move) in coordinates, WXF and Chinese, and a mate counted in moves for the side to move."""
    from chuhan.rules.notation import write_moves

    engine = uci_program(tmp_path) if kind == UCI else None
    board = make_board("xiangqi")
    board.push_many(BEFORE_MATE[:2])
    found = evaluate(board, 3_000, engine)
    assert 2 <= len(found.pv) <= 5
    assert found.pv[0] == found.best
    assert found.mate is None
    for notation in ("coords", "wxf", "chinese"):
        assert found.line[notation] == write_moves(board, found.pv, notation)
    board.push_many(BEFORE_MATE[2:])
    mate = evaluate(board, 3_000, engine)
    assert mate.mate == 1
    assert mate.pv == ("g5g10",)
    assert mate.line == {"coords": ["g5-g10"], "wxf": ["C3+5"], "chinese": ["炮三进五"]}
    board.push("g5g10")
    mated = evaluate(board, 3_000, engine)
    assert mated.mate == 0
    assert mated.pv == ()
    assert mated.as_json()["line"] == {}


def test_a_jieqi_line_ends_at_the_first_piece_turned_up_and_never_names_it_z2() -> None:
    """Z2: on a player's view the line stops at a move that turns a piece face up,
    written without what it turns into (the full board would name it)."""
    from chuhan.rules.jieqi import JieqiBoard
    from chuhan.rules.notation import write_move

    full = make_board("jieqi", seed=11)
    assert isinstance(full, JieqiBoard)
    view = JieqiBoard.from_view(full.view(0, game_over=False))
    found = evaluate(view, 2_000)
    assert found.pv
    for move in found.pv[:-1]:
        assert view.parse_move(move).from_point not in view.face_down
        view.push(move)
        full.push(move)
    assert view.parse_move(found.pv[-1]).from_point in view.face_down
    assert "(" in write_move(full, found.pv[-1], "wxf")  # the secret board knows the piece
    assert not any("(" in text for texts in found.line.values() for text in texts)
