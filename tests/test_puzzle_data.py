"""The shipped puzzles (SPEC B9) hold to the rules and to their data format.

Every puzzle of ``src/chuhan/server/puzzles/data/{variant}.jsonl`` is checked: its fields, its
id, the side to move (the solver), the line's shape (solver first, alternating, ending with a
solver move), every move legal from its FEN, a mate where a mate theme says so, and the first
move's uniqueness by the stored verification (the best beats the second by 0.7 in win chance,
or only the best mates). Jieqi puzzles rebuild from the solver's view with
``JieqiBoard.from_view`` and play their line with the stored reveals; the view holds no secret.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from chuhan.rules import Board, make_board
from chuhan.rules.jieqi import JieqiBoard

DATA = Path(__file__).resolve().parent.parent / "src" / "chuhan" / "server" / "puzzles" / "data"
VARIANTS = ("xiangqi", "janggi", "jieqi")
THEMES = {
    "mate",
    "mateIn1",
    "mateIn2",
    "mateIn3",
    "mateIn4",
    "mateIn5",
    "material",
    "endgame",
    "defence",
    "points",
    "short",
    "long",
}
SOURCE_KINDS = {"xiangqi": "ccpd", "janggi": "fairy-stockfish-selfplay", "jieqi": "chuhan-selfplay"}
CCPD_CREDIT = "Chinese Chess Practical Dataset, Yu-Han Tseng and Bo-Nian Chen, CC BY 4.0"
# At least a million nodes for Fairy-Stockfish; jieqi 20x the advanced level's 60,000.
MIN_NODES = {"xiangqi": 1_000_000, "janggi": 1_000_000, "jieqi": 1_200_000}
SCORE = re.compile(r"^(cp -?\d+|mate -?\d+)$")
FIELDS = {"id", "variant", "fen", "moves", "themes", "rating", "source", "verify"}


def load(variant: str) -> list[dict[str, Any]]:
    path = DATA / f"{variant}.jsonl"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert text.endswith("\n")
    assert all(line == line.rstrip() for line in lines)
    return [json.loads(line) for line in lines]


PUZZLES = {variant: load(variant) for variant in VARIANTS if (DATA / f"{variant}.jsonl").exists()}


def win_chance(score: str) -> float:
    kind, value = score.split()
    if kind == "mate":
        return 1.0 if int(value) > 0 else -1.0
    return 2 / (1 + math.exp(-0.00368208 * int(value))) - 1


def start_board(puzzle: dict[str, Any]) -> Board:
    if puzzle["variant"] == "jieqi":
        view = puzzle["view"]
        assert not {"hidden", "arrangement", "salt"} & set(view), "the view holds a secret"
        board = JieqiBoard.from_view(view)
        assert not board.has_secret
        return board
    return make_board(puzzle["variant"], puzzle["fen"])


def public_fen(board: Board) -> str:
    return board.fen()


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_ships_puzzles_sorted_with_unique_ids(variant: str) -> None:
    puzzles = PUZZLES.get(variant)
    assert puzzles, f"no puzzles shipped for {variant}"
    ids = [p["id"] for p in puzzles]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    positions = [" ".join(p["fen"].split()[:2]) for p in puzzles]
    assert len(set(positions)) == len(positions), "the same position twice"


@pytest.mark.parametrize("variant", VARIANTS)
def test_fields_follow_the_format(variant: str) -> None:
    for puzzle in PUZZLES.get(variant, []):
        extra = {"view", "reveals"} if variant == "jieqi" else set()
        assert set(puzzle) == FIELDS | extra, puzzle["id"]
        digest = hashlib.sha1(
            (puzzle["fen"] + " " + " ".join(puzzle["moves"])).encode()
        ).hexdigest()[:10]
        assert puzzle["id"] == f"{variant}-{digest}"
        assert puzzle["variant"] == variant
        assert isinstance(puzzle["rating"], int)
        assert 400 <= puzzle["rating"] <= 3000
        # Only themes detected honestly: a line that leads into a mate without reaching it
        # (two mates at a later turn end it) may have none.
        assert isinstance(puzzle["themes"], list)
        assert set(puzzle["themes"]) <= THEMES
        source = puzzle["source"]
        assert source["kind"] == SOURCE_KINDS[variant]
        assert isinstance(source["game"], str)
        assert source["game"]
        assert isinstance(source["ply"], int)
        assert source["ply"] >= 0
        if variant == "xiangqi":
            assert source["credit"] == CCPD_CREDIT
        verify = puzzle["verify"]
        assert verify["engine"]
        assert verify["nodes"] >= MIN_NODES[variant]
        assert SCORE.match(verify["best"]), puzzle["id"]
        assert verify["second"] is None or SCORE.match(verify["second"]), puzzle["id"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_first_move_is_the_only_good_one_by_the_stored_verification(variant: str) -> None:
    for puzzle in PUZZLES.get(variant, []):
        best, second = puzzle["verify"]["best"], puzzle["verify"]["second"]
        assert second is not None, f"{puzzle['id']}: a forced move is no puzzle"
        if best.startswith("mate") and int(best.split()[1]) > 0:
            assert not (second.startswith("mate") and int(second.split()[1]) > 0) or (
                best == "mate 1"
            ), puzzle["id"]
        else:
            assert win_chance(best) - win_chance(second) >= 0.7, puzzle["id"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_line_is_legal_from_its_position_and_has_the_puzzle_shape(variant: str) -> None:
    for puzzle in PUZZLES.get(variant, []):
        board = start_board(puzzle)
        assert public_fen(board) == puzzle["fen"], puzzle["id"]
        assert board.outcome() is None
        solver = board.turn
        moves = puzzle["moves"]
        assert len(moves) % 2 == 1, f"{puzzle['id']}: the line ends with the opponent"
        reveals = puzzle.get("reveals") or [None] * len(moves)
        assert len(reveals) == len(moves)
        for index, (text, reveal) in enumerate(zip(moves, reveals, strict=True)):
            assert board.turn == (solver if index % 2 == 0 else 1 - solver), puzzle["id"]
            assert board.outcome() is None, f"{puzzle['id']}: the game ended inside the line"
            move = board.parse_move(text)
            assert board.is_legal(move), f"{puzzle['id']}: {text} is illegal"
            if isinstance(board, JieqiBoard):
                assert board.needs_reveal(move.code) == (reveal is not None), puzzle["id"]
                assert not (index % 2 == 0 and reveal), f"{puzzle['id']}: the solver reveals"
                board.push(move, reveal=reveal)
            else:
                board.push(move)
        themes = set(puzzle["themes"])
        solver_moves = (len(moves) + 1) // 2
        outcome = board.outcome()
        mated = outcome is not None and outcome.winner == solver
        assert ("mate" in themes) == mated, puzzle["id"]
        if mated and solver_moves <= 5:
            assert f"mateIn{solver_moves}" in themes, puzzle["id"]
        assert ("short" in themes) == (solver_moves == 1), puzzle["id"]
        assert ("long" in themes) == (solver_moves >= 3), puzzle["id"]
