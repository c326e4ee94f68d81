"""``chuhan uci``: the engine behind the UCI protocol, for GUIs and match runners (A6).

Commands: ``uci``, ``isready``, ``ucinewgame``, ``setoption name UCI_Variant value
xiangqi|janggi|jieqi`` (``janggicasual`` reads as janggi), ``setoption name Level value
beginner|intermediate|advanced``, ``setoption name Rules value casual|wxf`` (how repetitions
are judged, E1; xiangqi and jieqi),
``position startpos|fen <fen> [moves …]``, ``go [movetime N] [depth N] [nodes N]
[wtime N btime N winc N binc N movestogo N] [infinite]``, ``stop``, ``quit``.

Moves are canonical text (Fairy-Stockfish's xiangqi dialect: ``h3e3``, ranks 1–10). A janggi
pass is written as the own general's point twice (``e2e2``); ``pass`` and ``0000`` are read
too. Jieqi positions come as the player's view FEN (``X``/``x`` face down); a move of a
face-down piece in ``moves`` names what it turned out to be with a letter suffix (``a1a2r``).
The search runs in a thread so that ``stop`` and ``isready`` are answered at once. At the
advanced level a search on the clock (``movetime``, ``wtime``/``btime``) starts from the
tables the last one of the same game kept (``ai.searcher_for``); ``ucinewgame`` forgets them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from itertools import pairwise
from typing import TextIO

from ..rules import make_board
from ..rules.board import PASS_CODE, Board, Move, RulesError
from ..rules.geometry import square_name
from ..rules.wxf import RULE_SETS
from .ai import LEVELS, Level, forget_games, keep_tables, searcher_for
from .search import MATE, MATE_BOUND, Iteration, Limits

ENGINE_NAME = "Chu-Han"
VARIANT_NAMES = ("xiangqi", "janggi", "jieqi")
# Fairy-Stockfish's name for janggi without bikjang (our default, J7), so that a program
# written for it (our own analysis client among them) can drive this engine too.
VARIANT_ALIASES = {"janggicasual": "janggi"}
DEFAULT_LEVEL = "advanced"


def uci_move_text(board: Board, code: int) -> str:
    """The UCI text of a move: canonical text, a pass as the mover's general point twice."""
    if code == PASS_CODE:
        return square_name(board.kings[board.turn]) * 2
    return str(Move.from_code(code))


def _score_text(score: int) -> str:
    if abs(score) >= MATE_BOUND:
        plies = MATE - abs(score)
        moves = (plies + 1) // 2
        return f"mate {moves if score > 0 else -moves}"
    return f"cp {score}"


class UciEngine:
    """The protocol state: variant, level, current position and the running search."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.variant = "xiangqi"
        self.level = DEFAULT_LEVEL
        self.rules = "casual"
        self.board: Board = make_board(self.variant)
        self.stop_event = threading.Event()
        self.thread: threading.Thread | None = None
        self.games = 0  # seeds the beginner's whims, new per game

    def send(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    # ------------------------------------------------------------------ commands

    def handle(self, line: str) -> bool:
        """Run one command line; returns False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        handler: Callable[[list[str]], None] | None = {
            "uci": self._uci,
            "isready": lambda _: self.send("readyok"),
            "ucinewgame": self._new_game,
            "setoption": self._setoption,
            "position": self._position,
            "go": self._go,
            "stop": lambda _: self._stop(),
        }.get(command)
        if command == "quit":
            self._stop()
            return False
        if handler is None:
            self.send(f"info string unknown command {command}")
            return True
        try:
            handler(args)
        except (RulesError, ValueError) as exc:
            self.send(f"info string error: {exc}")
        return True

    def _uci(self, _: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send("id author the Chu-Han developers")
        variants = " ".join(f"var {name}" for name in VARIANT_NAMES)
        self.send(f"option name UCI_Variant type combo default xiangqi {variants}")
        levels = " ".join(f"var {name}" for name in LEVELS)
        self.send(f"option name Level type combo default {DEFAULT_LEVEL} {levels}")
        self.send("option name Rules type combo default casual var casual var wxf")
        self.send("uciok")

    def _new_game(self, _: list[str]) -> None:
        self._stop()
        forget_games()
        self.games += 1
        self.board = self._board_from_fen(None)

    def _setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        if not text.startswith("name ") or " value " not in text:
            raise ValueError("expected: setoption name <name> value <value>")
        name, value = text[5:].split(" value ", 1)
        name, value = name.strip().lower(), value.strip()
        if name == "uci_variant":
            variant = VARIANT_ALIASES.get(value, value)
            if variant not in VARIANT_NAMES:
                raise ValueError(f"unknown variant {value!r}")
            self._stop()
            self.variant = variant
            self.board = self._board_from_fen(None)
        elif name == "level":
            if value not in LEVELS:
                raise ValueError(f"unknown level {value!r}")
            self.level = value
        elif name == "rules":
            if value not in RULE_SETS:
                raise ValueError(f"unknown rule set {value!r}")
            self._stop()
            self.rules = value
            self.board = self._board_from_fen(None)
        else:
            self.send(f"info string ignored option {name}")

    def _position(self, args: list[str]) -> None:
        self._stop()
        if not args:
            raise ValueError("expected: position startpos|fen <fen> [moves ...]")
        moves: list[str] = []
        if "moves" in args:
            cut = args.index("moves")
            args, moves = args[:cut], args[cut + 1 :]
        if args[0] == "startpos":
            board = self._board_from_fen(None)
        elif args[0] == "fen":
            board = self._board_from_fen(" ".join(args[1:]))
        else:
            raise ValueError(f"expected startpos or fen, got {args[0]!r}")
        for text in moves:
            self._play(board, text)
        self.board = board

    def _board_from_fen(self, fen: str | None) -> Board:
        """The variant's board at ``fen`` (its start when None). A jieqi board is built
        without any secret: the engine knows only what the moves reveal (A3).
        """
        rules = {} if self.variant == "janggi" else {"rules": self.rules}
        if self.variant != "jieqi":
            return make_board(self.variant, fen, **rules)
        from ..rules.jieqi import JieqiBoard

        start = fen or JieqiBoard.START_FEN
        viewer = "black" if start.split()[1:2] == ["b"] else "red"
        return JieqiBoard.from_view(
            {"start_fen": start, "moves": [], "viewer": viewer, "commitment": "", **rules}
        )

    def _play(self, board: Board, text: str) -> None:
        """Play one UCI move on ``board``; raises RulesError when it is not legal."""
        reveal = None
        if len(text) >= 5 and text[-1].isalpha() and text[-2].isdigit():
            text, reveal = text[:-1], text[-1]
        if text in ("0000", "pass"):
            code = PASS_CODE
        else:
            move = Move.parse(text)
            code = move.code
            if move.from_point == move.to_point == board.kings[board.turn]:
                code = PASS_CODE
        if reveal is not None:
            board.push(Move.from_code(code), reveal=reveal)  # type: ignore[call-arg]
        else:
            board.push(Move.from_code(code))

    def _go(self, args: list[str]) -> None:
        self._stop()
        values: dict[str, int] = {}
        infinite = "infinite" in args
        for name, value in pairwise(args):
            if value.lstrip("-").isdigit():
                values[name] = int(value)
        limits, noise = LEVELS[self.level].plan(self.board, seed=self.games)
        if "depth" in values:
            limits.depth = max(1, values["depth"])
            limits.movetime = None
        if "nodes" in values:
            limits.nodes = max(1, values["nodes"])
            limits.movetime = None
        if "movetime" in values:
            limits.movetime = max(1, values["movetime"]) / 1000
        elif "wtime" in values or "btime" in values:
            limits.movetime = self._clock_budget(values, LEVELS[self.level])
        if infinite:
            limits.movetime = None
        self.stop_event = threading.Event()
        limits.stop = self.stop_event
        board = self.board
        self.thread = threading.Thread(
            target=self._search, args=(board, limits, noise), daemon=True
        )
        self.thread.start()

    def _clock_budget(self, values: dict[str, int], spec: Level) -> float:
        """Seconds for this move from the remaining clock: a fair share, never above the level."""
        side = "w" if self.board.turn == 0 else "b"
        remaining = values.get(f"{side}time", 60_000) / 1000
        increment = values.get(f"{side}inc", 0) / 1000
        moves_to_go = values.get("movestogo", 30)
        share = remaining / max(moves_to_go, 1) + increment * 0.8
        return max(0.05, min(share, remaining * 0.5, spec.movetime * 2))

    def _search(self, board: Board, limits: Limits, noise: dict[int, int] | None) -> None:
        # As the server's advanced does, a time-limited search starts from what the last one
        # of this game learned (``go depth`` and ``go nodes`` stay reproducible).
        searcher = searcher_for(board, limits, noise, carry=self.level == "advanced")

        def report(it: Iteration) -> None:
            nps = int(it.nodes / it.seconds) if it.seconds > 0 else 0
            self.send(
                f"info depth {it.depth} score {_score_text(it.score)} nodes {it.nodes} "
                f"nps {nps} time {int(it.seconds * 1000)} pv {' '.join(_uci_line(board, it.pv))}"
            )

        searcher.on_iteration = report
        try:
            code, _, _, _ = searcher.run()
        except ValueError:
            self.send("bestmove (none)")
            return
        keep_tables(searcher)
        self.send(f"bestmove {uci_move_text(board, code)}")

    def _stop(self) -> None:
        if self.thread is not None:
            self.stop_event.set()
            self.thread.join()
            self.thread = None


def _uci_line(board: Board, line: list[str]) -> list[str]:
    """A principal variation in UCI text: each janggi pass as its mover's general point twice."""
    if "pass" not in line:
        return line
    replay = board.copy()
    out = []
    for text in line:
        code = Move.parse(text).code
        out.append(uci_move_text(replay, code))
        replay.make(code)
    return out


def main(stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Read UCI commands until ``quit`` or the end of input; returns the exit status."""
    engine = UciEngine(stdout or sys.stdout)
    for line in stdin or sys.stdin:
        if not engine.handle(line):
            return 0
    engine._stop()
    return 0
