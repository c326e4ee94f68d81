"""The `chuhan` command line contract (X1–X5): moves, perft, game, --help."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def chuhan(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chuhan.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_moves_answers_each_fen_and_flags_bad_lines() -> None:
    result = chuhan("moves", "--variant", "xiangqi", stdin=f"{START}\nnot a fen\n{START}\n")
    lines = result.stdout.splitlines()
    assert result.returncode == 1
    assert len(lines) == 3
    assert len(lines[0].split()) == 44
    assert "h3e3" in lines[0].split()
    assert lines[1].startswith("error: ")
    assert lines[2] == lines[0]


def test_moves_exit_zero_when_all_valid() -> None:
    result = chuhan("moves", stdin=START + "\n")
    assert result.returncode == 0
    assert len(result.stdout.split()) == 44


def test_perft_prints_count_as_last_line_and_divides() -> None:
    result = chuhan("perft", "--variant", "xiangqi", "--depth", "2")
    assert result.stdout.splitlines()[-1] == "1920"
    divided = chuhan("perft", "--depth", "2", "--divide", "--fen", START).stdout.splitlines()
    assert divided[-1] == "1920"
    per_move = dict(line.split(": ") for line in divided[:-1])
    assert len(per_move) == 44
    assert sum(map(int, per_move.values())) == 1920


def test_game_prints_the_state_as_json() -> None:
    result = chuhan("game", "--variant", "xiangqi", "h3e3", "h10g8")
    state = json.loads(result.stdout)
    assert result.returncode == 0
    assert state["fen"] == "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    assert state["turn"] == "red"
    assert state["status"] == "ongoing"
    assert state["winner"] is None
    assert state["reason"] is None
    assert state["in_check"] is False
    assert "e3e7" in state["legal_moves"]


def test_game_reports_checkmate() -> None:
    fen = "4k4/8R/9/9/9/9/9/9/9/R2K5 w - - 0 1"
    state = json.loads(chuhan("game", "--fen", fen, "a1a10").stdout)
    assert (state["status"], state["winner"], state["reason"]) == ("finished", "red", "checkmate")
    assert state["in_check"] is True
    assert state["legal_moves"] == []


def test_illegal_move_exits_2_naming_move_and_index() -> None:
    result = chuhan("game", "h3e3", "h3h8")
    assert result.returncode == 2
    assert "h3h8" in result.stderr
    assert "move 2" in result.stderr
    assert result.stdout == ""


def test_move_after_the_end_exits_2() -> None:
    fen = "4k4/8R/9/9/9/9/9/9/9/R2K5 w - - 0 1"
    result = chuhan("game", "--fen", fen, "a1a10", "e10e9")
    assert result.returncode == 2
    assert "move 2" in result.stderr
    assert "over" in result.stderr


@pytest.mark.parametrize("sub", ["", "moves", "perft", "game"])
def test_help_explains_every_subcommand(sub: str) -> None:
    result = chuhan(*([sub] if sub else []), "--help")
    assert result.returncode == 0
    assert "usage: chuhan" in result.stdout
    assert len(result.stdout.splitlines()) > 4
