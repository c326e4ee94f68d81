"""Engine analysis of single positions (issue 17): our engine and a UCI engine (Debian's
Fairy-Stockfish) give a score for the side to move and a legal best move; moves are judged by
the centipawns they lost."""

from __future__ import annotations

import pytest

from chuhan.engine.analysis import BLUNDER, INACCURACY, MISTAKE, classify, evaluate, judge
from chuhan.rules import make_board

FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"
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


@pytest.mark.parametrize("engine", [None, FAIRY_STOCKFISH])
def test_both_engines_find_the_mate_and_score_it_for_the_side_to_move(engine: str | None) -> None:
    board = make_board("xiangqi")
    board.push_many(BEFORE_MATE)
    found = evaluate(board, 3_000, engine)
    assert found.best == "g5g10" and found.score >= 1_500
    assert found.engine == ("chuhan" if engine is None else "uci:Fairy-Stockfish 11.1 LB 64")
    assert board.ply == 4  # left unchanged
    board.push("g5g10")
    assert evaluate(board, 3_000, engine).best is None  # mated: nothing to search


def test_fairy_stockfish_analyses_janggi_with_passes_in_the_moves() -> None:
    board = make_board("janggi", setup="HEHE:EHEH")
    board.push_many(["e4e5", "pass"])
    found = evaluate(board, 3_000, FAIRY_STOCKFISH)
    assert found.engine.startswith("uci:") and board.parse_move(found.best or "")
    jieqi = make_board("jieqi", seed=3)
    assert evaluate(jieqi, 500, FAIRY_STOCKFISH).engine == "chuhan"  # jieqi: always ours
