"""``chuhan uci`` driven through a pipe, as a GUI or match runner would (SPEC A6)."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from chuhan.rules import make_board
from test_wxf import CYCLE, PROTECTED_CHARIOT

CHUHAN = Path(sys.executable).parent / "chuhan"


class Session:
    """A running ``chuhan uci`` with a reader thread, so that reads can time out."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [str(CHUHAN), "uci"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, *commands: str) -> None:
        assert self.proc.stdin is not None
        for command in commands:
            self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str, timeout: float = 60) -> list[str]:
        """Every line up to and including the first that starts with ``prefix``."""
        seen = []
        while True:
            line = self.lines.get(timeout=timeout)
            seen.append(line)
            if line.startswith(prefix):
                return seen


@pytest.fixture
def uci() -> Iterator[Session]:
    session = Session()
    yield session
    session.send("quit")
    session.proc.wait(timeout=30)


def test_a6_handshake_names_the_variant_and_level_options(uci: Session) -> None:
    uci.send("uci")
    lines = uci.until("uciok")
    assert any(line.startswith("id name ") for line in lines)
    assert any(
        "option name UCI_Variant type combo" in line and "var jieqi" in line for line in lines
    )
    assert any("option name Level type combo default advanced" in line for line in lines)
    uci.send("isready")
    assert uci.until("readyok")[-1] == "readyok"


def test_a6_go_depth_reports_info_and_a_legal_bestmove(uci: Session) -> None:
    uci.send("uci", "position startpos moves h3e3 h10g8", "go depth 3")
    lines = uci.until("bestmove")
    infos = [line for line in lines if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in infos] == [1, 2, 3]
    assert all(" score cp " in line and " nodes " in line and " pv " in line for line in infos)
    board = make_board("xiangqi")
    board.push_many(["h3e3", "h10g8"])
    board.push(lines[-1].split()[1])  # raises if illegal


def test_a6_position_fen_finds_the_mate(uci: Session) -> None:
    uci.send("position fen 3k5/R8/9/9/9/9/9/9/9/4K3R w - - 0 1", "go nodes 5000")
    lines = uci.until("bestmove")
    assert lines[-1] == "bestmove i1i10"
    assert any(" score mate 1 " in line for line in lines)


def test_a6_stop_ends_an_infinite_search_with_a_move(uci: Session) -> None:
    uci.send("position startpos", "go infinite")
    uci.until("info depth 1")
    uci.send("stop")
    move = uci.until("bestmove")[-1].split()[1]
    assert move in make_board("xiangqi").legal_move_texts()


def test_a6_clock_and_movetime_and_levels(uci: Session) -> None:
    uci.send(
        "setoption name Level value beginner",
        "position startpos",
        "go wtime 2000 btime 2000 winc 0 binc 0",
    )
    first = uci.until("bestmove")[-1].split()[1]
    assert first in make_board("xiangqi").legal_move_texts()
    uci.send("setoption name Level value intermediate", "go movetime 100")
    assert uci.until("bestmove")[-1].split()[1] in make_board("xiangqi").legal_move_texts()


def test_a6_janggi_pass_is_the_generals_point_twice(uci: Session) -> None:
    uci.send(
        "setoption name UCI_Variant value janggi",
        "ucinewgame",
        "position startpos moves e2e2",
        "go depth 1",
    )
    move = uci.until("bestmove")[-1].split()[1]
    board = make_board("janggi")
    board.push("pass")
    assert move in board.legal_move_texts() or move == "e9e9"


def test_a6_janggi_engine_passes_back_when_that_wins_on_points(uci: Session) -> None:
    uci.send(
        "setoption name UCI_Variant value janggi",
        "position fen 3a1a3/4k4/9/9/9/9/9/9/4K4/R8 b - - 0 1 moves e9e9",
        "go depth 2",
    )
    assert uci.until("bestmove")[-1] == "bestmove e2e2"


def test_a6_jieqi_view_fen_and_reveals_in_moves(uci: Session) -> None:
    uci.send(
        "setoption name UCI_Variant value jieqi",
        "position fen xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w - - 0 1"
        " moves h3h10c i10h10r",
        "go depth 2",
    )
    move = uci.until("bestmove")[-1].split()[1]
    assert len(move) in (4, 5)


def test_a6_bad_input_is_reported_and_harms_nothing(uci: Session) -> None:
    uci.send("position startpos moves h3h9", "isready")
    lines = uci.until("readyok")
    assert any(line.startswith("info string error") for line in lines)
    uci.send("frobnicate", "setoption name UCI_Variant value chess", "isready")
    lines = uci.until("readyok")
    assert sum(line.startswith("info string") for line in lines) == 2
    uci.send("position startpos", "go depth 1")
    assert uci.until("bestmove")[-1].split()[1] in make_board("xiangqi").legal_move_texts()


def test_a6_no_move_in_a_finished_position(uci: Session) -> None:
    uci.send("position fen 3k4R/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", "go depth 3")
    assert uci.until("bestmove")[-1] == "bestmove (none)"


def test_a6_the_rules_option_wxf_makes_the_engine_claim_the_chase_E1(uci: Session) -> None:
    """``setoption name Rules value wxf``: Black repeats the chase Red may not repeat, and wins."""
    uci.send("uci")
    assert any("option name Rules type combo default casual" in line for line in uci.until("uciok"))
    moves = " ".join([*CYCLE, "f2d2"])
    uci.send(
        "setoption name Rules value wxf",
        f"position fen {PROTECTED_CHARIOT} - - 0 1 moves {moves}",
        "go depth 4",
    )
    assert uci.until("bestmove")[-1] == "bestmove d7f7"
